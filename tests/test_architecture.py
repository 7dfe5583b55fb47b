"""The shape of the package, kept by tests: layers without import cycles, no module
reaching into another's private names, small modules, one builder of install commands, and a
tests/ folder that mirrors the package (the test of a module is found by its name)."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "torchdoctor")
# Child scripts that run alone in another interpreter (stdlib only): one file by design.
STANDALONE = {"torchdoctor/gather/target.py", "torchdoctor/verbs/tune/worker.py"}
MAX_LINES = 500


def _modules(root=ROOT, pkg=PKG):
    out = {}
    for dirpath, dirnames, filenames in os.walk(pkg):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for name in filenames:
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, root)
                mod = rel[:-3].replace(os.sep, ".")
                if mod.endswith(".__init__"):
                    mod = mod[: -len(".__init__")]
                out[mod] = path
    return out


MODULES = _modules()


def _resolve(mod, level, target, modules=MODULES):
    """The absolute module a (possibly relative) import names."""
    if level == 0:
        return target
    is_pkg = modules[mod].endswith("__init__.py")
    base = mod.split(".")
    base = base if is_pkg else base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([target] if target else []))


def _imports(mod, modules=MODULES):
    """(imported module, names) of every import in the module, function-level ones too,
    TYPE_CHECKING blocks aside."""
    tree = ast.parse(open(modules[mod], encoding="utf-8").read())
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for n in ast.walk(node))
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.ImportFrom):
            target = _resolve(mod, node.level, node.module, modules)
            yield target, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for a in node.names:
                yield a.name, []


def _edges(modules=MODULES):
    graph = {m: set() for m in modules}
    for mod in modules:
        for target, names in _imports(mod, modules):
            if not target.startswith("torchdoctor"):
                continue
            submodules = ["%s.%s" % (target, n) for n in names if "%s.%s" % (target, n) in modules]
            # `from . import versions` imports the module torchdoctor.model.versions, not the package
            graph[mod].update(submodules)
            if target in modules and (len(submodules) < len(names) or not names):
                graph[mod].add(target)
        graph[mod].discard(mod)
    return graph


def _cycles(modules=MODULES):
    graph = _edges(modules)
    # a package's __init__ importing its own submodules is how packages work: not a cycle
    for mod in graph:
        graph[mod] = {t for t in graph[mod] if not (t.startswith(mod + ".") and modules[mod].endswith("__init__.py"))
                      and not (mod.startswith(t + ".") and modules[t].endswith("__init__.py"))}
    seen, stack, cycles = set(), [], []

    def visit(m):
        if m in stack:
            cycles.append(stack[stack.index(m):] + [m])
            return
        if m in seen:
            return
        seen.add(m)
        stack.append(m)
        for t in sorted(graph[m]):
            visit(t)
        stack.pop()

    for m in sorted(graph):
        visit(m)
    return cycles


def test_no_import_cycles():
    cycles = _cycles()
    assert not cycles, "\n".join(" -> ".join(c) for c in cycles[:10])


def _private_uses(modules=MODULES):
    bad = []
    for mod in modules:
        for target, names in _imports(mod, modules):
            if not target.startswith("torchdoctor"):
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    bad.append("%s imports %s from %s" % (mod, name, target))
        tree = ast.parse(open(modules[mod], encoding="utf-8").read())
        aliases = {a.asname or a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                   for a in n.names if _resolve(mod, n.level, n.module or "", modules).startswith("torchdoctor")}
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in aliases \
                    and node.attr.startswith("_") and not node.attr.startswith("__"):
                bad.append("%s uses %s.%s" % (mod, node.value.id, node.attr))
    return bad


def test_no_module_imports_a_private_name_of_another():
    bad = _private_uses()
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("mod", sorted(MODULES))
def test_modules_stay_small(mod):
    rel = os.path.relpath(MODULES[mod], ROOT).replace(os.sep, "/")
    if rel in STANDALONE:
        return
    n = sum(1 for _ in open(MODULES[mod], encoding="utf-8"))
    assert n <= MAX_LINES, "%s has %d lines (split it by what it holds)" % (rel, n)


@pytest.mark.parametrize("rel", sorted(STANDALONE))
def test_only_child_scripts_are_exempt_from_the_size_limit(rel):
    """The one exemption holds what it says: a script run alone in another interpreter,
    importing nothing of torchdoctor (so it cannot be split into the package's modules)."""
    mod = rel[:-3].replace("/", ".")
    assert mod in MODULES, "%s is exempted but does not exist" % rel
    ours = [t for t, _ in _imports(mod) if t.startswith("torchdoctor")]
    assert not ours, "%s is exempted as a standalone child script but imports %s" % (rel, ours)


def test_only_advice_builds_install_commands():
    bad = []
    for mod, path in MODULES.items():
        if mod.startswith("torchdoctor.advice") or mod == "torchdoctor.kb.compat":
            continue
        if "install_command(" in open(path, encoding="utf-8").read():
            bad.append(mod)
    assert not bad, "call torchdoctor.advice instead of compat.install_command: %s" % bad


# -- one explain pipeline, one way to findings -------------------------------------------------
# What shows explanations or findings to someone (the CLI, the verbs it calls, the surfaces inside
# other processes, the Python API) gets explanations only from diagnose.explain and findings only
# from diagnose.diagnose / examine (or a verb that calls them): none matches text itself to
# explain it, runs the checks, or builds an Explanation.
SURFACES = sorted(m for m in MODULES if m.startswith(("torchdoctor.surfaces", "torchdoctor.cli"))) + [
    "torchdoctor.api", "torchdoctor.auto", "torchdoctor.verbs.check", "torchdoctor.verbs.diff",
    "torchdoctor.verbs.explain", "torchdoctor.verbs.report", "torchdoctor.verbs.triage",
    "torchdoctor.verbs.run.postmortem", "torchdoctor.verbs.run.verb"]
# Who explains text shows it through diagnose.explain.
EXPLAINERS = ["torchdoctor.api", "torchdoctor.surfaces.hook", "torchdoctor.surfaces.ipython",
              "torchdoctor.surfaces.mcp_server", "torchdoctor.surfaces.pytest_plugin", "torchdoctor.verbs.explain",
              "torchdoctor.verbs.run.postmortem", "torchdoctor.verbs.triage"]
# (module, name) a surface must not import: the matcher's entry points, the checks' runners,
# a tailoring hook, the rule runner.
NOT_FOR_SURFACES = {("torchdoctor.match.matcher", "match_text"), ("torchdoctor.match.matcher", "best_match"),
                    ("torchdoctor.areas.checks", "run_checks"), ("torchdoctor.areas.checks", "run_check"),
                    ("torchdoctor.areas.registry", "hook_for"), ("torchdoctor.model.rules", "run"),
                    ("torchdoctor.model.rules", "call")}


def _calls(mod, name, modules=MODULES):
    """Calls of `name` (or `x.name`) in the module."""
    tree = ast.parse(open(modules[mod], encoding="utf-8").read())
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and ((isinstance(n.func, ast.Name) and n.func.id == name)
                 or (isinstance(n.func, ast.Attribute) and n.func.attr == name))]


def _pipeline_problems(surfaces=SURFACES, explainers=EXPLAINERS, modules=MODULES):
    bad = []
    for mod in surfaces:
        for target, names in _imports(mod, modules):
            for name in names:
                if (target, name) in NOT_FOR_SURFACES:
                    bad.append("%s imports %s from %s" % (mod, name, target))
            if target in {t for t, _ in NOT_FOR_SURFACES} and not names:
                bad.append("%s imports %s whole" % (mod, target))
    for mod in modules:
        if mod != "torchdoctor.diagnose" and _calls(mod, "Explanation", modules):
            bad.append("%s builds an Explanation (diagnose.explain makes every one)" % mod)
    for mod in explainers:
        if not any(t == "torchdoctor.diagnose" and "explain" in names for t, names in _imports(mod, modules)):
            bad.append("%s explains text but not through diagnose.explain" % mod)
    return bad


def test_every_surface_explains_and_diagnoses_through_the_one_pipeline():
    missing = [m for m in SURFACES + EXPLAINERS if m not in MODULES]
    assert not missing, "named here but gone: %s" % missing
    bad = _pipeline_problems()
    assert not bad, "\n".join(bad)


def test_the_pipeline_rule_catches_what_it_is_for(tmp_path):
    pkg = tmp_path / "torchdoctor"
    (pkg / "surfaces").mkdir(parents=True)
    for rel in ("__init__.py", "surfaces/__init__.py"):
        (pkg / rel).write_text("")
    (pkg / "diagnose.py").write_text("def explain(text):\n    return Explanation(text)\n")
    (pkg / "surfaces" / "good.py").write_text("from ..diagnose import explain\n")
    (pkg / "surfaces" / "bad.py").write_text(
        "def f(t):\n    from ..match.matcher import match_text\n    from ..areas.checks import run_checks\n"
        "    from ..diagnose import Explanation\n    return Explanation(match_text(t))\n")
    modules = _modules(str(tmp_path), str(pkg))
    bad = _pipeline_problems(["torchdoctor.surfaces.good", "torchdoctor.surfaces.bad"],
                             ["torchdoctor.surfaces.good", "torchdoctor.surfaces.bad"], modules)
    assert sorted(bad) == sorted([
        "torchdoctor.surfaces.bad imports match_text from torchdoctor.match.matcher",
        "torchdoctor.surfaces.bad imports run_checks from torchdoctor.areas.checks",
        "torchdoctor.surfaces.bad builds an Explanation (diagnose.explain makes every one)",
        "torchdoctor.surfaces.bad explains text but not through diagnose.explain"]), bad


def test_known_errors_in_a_rule_s_text_are_named_by_one_function():
    """match_text (every match, for explaining) is the pipeline's; what a rule reports on is
    annotated with best_match alone, so a check, a dist condition, a tune finding and
    `explain` name the same known error."""
    users = {}
    for mod in MODULES:
        for target, names in _imports(mod):
            if target == "torchdoctor.match.matcher":
                for name in set(names) & {"match_text", "best_match"}:
                    users.setdefault(name, set()).add(mod)
    assert users.get("match_text", set()) <= {"torchdoctor.diagnose", "torchdoctor.match.logscan"}, users
    assert users.get("best_match", set()) <= {
        "torchdoctor.areas.registry", "torchdoctor.verbs.dist.conditions.common",
        "torchdoctor.verbs.tune.run_findings"}, users


# -- one rule shape ---------------------------------------------------------------------------------
def _decorator_factories(modules=MODULES):
    """module.name of every module-level function that is a decorator factory: it returns an
    inner function that gives back the function it was given (after marking or registering it)."""
    out = set()
    for mod, path in modules.items():
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            returned = {r.value.id for r in node.body if isinstance(r, ast.Return) and isinstance(r.value, ast.Name)}
            for inner in node.body:
                if isinstance(inner, ast.FunctionDef) and inner.name in returned and inner.args.args:
                    arg = inner.args.args[0].arg
                    if any(isinstance(r, ast.Return) and isinstance(r.value, ast.Name) and r.value.id == arg
                           for r in ast.walk(inner)):
                        out.add("%s.%s" % (mod, node.name))
    return out


def test_there_is_one_rule_decorator():
    """@rule (model/rules.py) is the one shape of a rule in every family; @hook tailors a known
    error's fix to the facts (areas/registry.py) and makes no findings. A second decorator
    (an @check, a @condition) would be a second shape."""
    assert _decorator_factories() == {"torchdoctor.model.rules.rule", "torchdoctor.areas.registry.hook"}
    def makes_rules(mod, path):
        imports_rule = any(t == "torchdoctor.model.rules" and ("Rule" in names or not names)
                           for t, names in _imports(mod))
        sets_rule = any(isinstance(t, ast.Attribute) and t.attr == "rule"
                        for n in ast.walk(ast.parse(open(path, encoding="utf-8").read()))
                        if isinstance(n, ast.Assign) for t in n.targets)
        return (imports_rule and bool(_calls(mod, "Rule"))) or sets_rule

    marks = [mod for mod, path in MODULES.items() if mod != "torchdoctor.model.rules" and makes_rules(mod, path)]
    assert not marks, "only model/rules.py makes a Rule or sets fn.rule: %s" % marks


def _registries(modules=MODULES):
    """(module, name, the names listed) of every `NAME = rules_of((...))` at module level."""
    out = []
    for mod, path in modules.items():
        for node in ast.parse(open(path, encoding="utf-8").read()).body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) \
                    and getattr(node.value.func, "id", getattr(node.value.func, "attr", None)) == "rules_of":
                arg = node.value.args[0] if node.value.args else None
                listed = [ast.unparse(e) for e in arg.elts] if isinstance(arg, (ast.Tuple, ast.List)) else None
                out.append((mod, node.targets[0].id, listed))
    return out


def test_every_family_lists_its_rules_in_one_explicit_tuple():
    """Each family's registry is a literal tuple of its rule functions (what runs is read in one
    place, in order), and it holds every function its modules decorate with @rule of that family."""
    import importlib
    import inspect

    from torchdoctor.model.rules import Rule
    registries = _registries()
    assert not [r for r in registries if r[2] is None], "a registry must list its rules: %s" % registries
    by_family = {}
    for mod, name, _ in registries:
        rules = getattr(importlib.import_module(mod), name)
        families = {r.family for r in rules}
        assert len(families) == 1, "%s.%s mixes families %s" % (mod, name, families)
        family = families.pop()
        assert family not in by_family, "family %r has two registries: %s and %s.%s" % (
            family, by_family[family][0], mod, name)
        by_family[family] = ("%s.%s" % (mod, name), {r.func for r in rules})
    decorated = {}
    users = {m for m in MODULES for t, names in _imports(m) if "rule" in names
             and t in ("torchdoctor.model.rules", "torchdoctor.areas.registry")}
    for mod in sorted({m for m, _, _ in registries} | users):
        if mod == "torchdoctor.model.rules":
            continue
        for _, fn in inspect.getmembers(importlib.import_module(mod), inspect.isfunction):
            if isinstance(getattr(fn, "rule", None), Rule) and fn.__module__ == mod:
                decorated.setdefault(fn.rule.family, set()).add(fn)
    assert set(decorated) <= set(by_family), "families without a registry: %s" % (set(decorated) - set(by_family))
    for family, fns in decorated.items():
        unlisted = sorted("%s.%s" % (f.__module__, f.__name__) for f in fns - by_family[family][1])
        assert not unlisted, "%s does not list %s" % (by_family[family][0], unlisted)
    assert {"check", "dist", "tune"} <= set(by_family)


def test_the_rules_catch_what_they_are_for(tmp_path):
    """The walker sees relative, function-level and aliased imports: a planted cycle and
    a planted private import are found, a package importing its own submodules is not one."""
    pkg = tmp_path / "torchdoctor"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a, sub\n")
    (pkg / "a.py").write_text("def f():\n    from .sub import b as bee\n    return bee._hidden\n")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "b.py").write_text("from ..a import f\nfrom .. import a\nfrom ..a import _secret\n")
    modules = _modules(str(tmp_path), str(pkg))
    assert set(modules) == {"torchdoctor", "torchdoctor.a", "torchdoctor.sub", "torchdoctor.sub.b"}
    cycles = _cycles(modules)
    assert cycles and all("torchdoctor.a" in c and "torchdoctor.sub.b" in c for c in cycles), cycles
    assert not any(c[0] == "torchdoctor" for c in cycles)
    bad = _private_uses(modules)
    assert "torchdoctor.sub.b imports _secret from torchdoctor.a" in bad
    assert "torchdoctor.a uses bee._hidden" in bad
    # and on the real package: a submodule importing its package is an edge
    assert "torchdoctor.model.facts" in _edges()["torchdoctor.model.derived"]


# -- tests/ mirrors the package ----------------------------------------------------------------
# A test of torchdoctor/<a>/<b>/ lives in tests/<a>/<b>/ and is named test_<a>_<b>_<what>.py (or
# test_<a>_<b>.py); a test of a top-level module torchdoctor/<m>.py is tests/test_<m>*.py. A module
# whose tests fill a folder may have one, tests/<a>/<m>/ (kb/errors.py: the entries, the seeds),
# and then all its tests are there. Basenames are unique: pytest's default "prepend" import mode
# imports every test file by its basename. Files not named test_*.py (helpers, data) are free.
TESTS = os.path.join(ROOT, "tests")
# Tests of the whole tool rather than of one package: a folder ("name/") or a top-level file
# (a name, or a prefix ending in "_"), each with why it is not in a package's folder.
CROSS_CUTTING = {
    "security/": "hostile reports, pastes, names and output streams against every verb",
    "eval/": "evaluation sets of real reports and their runner, not a pytest module",
    "fixtures/": "data (real collect_env pastes) read by the tests of several packages",
    "test_architecture.py": "the shape of the package and of tests/ (this file)",
    "test_docs_": "README.md, docs/ and the site against the code: options, examples, files, links, navigation",
    "test_fresh_machine.py": "no source, test or script depends on paths of the machine it was written on",
    "test_install_": "README's pipx and uv install forms, run for real from a copy of the checkout",
    "test_no_network.py": "no verb opens a network connection, no report leaves with a secret",
    "test_packaging.py": "what a real, non-editable install of the whole package ships",
    "test_robustness_": "hostile environments and inputs through every verb, in real processes",
}


def _code_paths(pkg):
    """(packages, modules) of the package as paths relative to it, "/"-separated: the packages
    with "" for torchdoctor itself, the modules without ".py" (``kb/errors``)."""
    packages, modules = set(), set()
    for dirpath, dirnames, filenames in os.walk(pkg):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        rel = os.path.relpath(dirpath, pkg).replace(os.sep, "/")
        rel = "" if rel == "." else rel
        if "__init__.py" in filenames:
            packages.add(rel)
        for name in filenames:
            if name.endswith(".py") and not name.startswith("__"):
                modules.add((rel + "/" if rel else "") + name[:-3])
    return packages, modules


def _named(stem, path):
    """Whether a test stem (the name without test_ and .py) names the code path."""
    joined = path.replace("/", "_")
    return stem == joined or stem.startswith(joined + "_")


def _cross_cutting(folder, name):
    if folder:
        return folder.split("/")[0] + "/" in CROSS_CUTTING
    return any(name == k or (k.endswith("_") and name.startswith(k)) for k in CROSS_CUTTING if not k.endswith("/"))


def _where_to(stem, packages, modules, homes):
    """Where a test named test_<stem>.py should live, as the rule reads its name."""
    named = [h for h in homes if h and _named(stem, h)]
    if named:
        return "it should be tests/%s/test_%s.py" % (max(named, key=len), stem)
    if any("/" not in m and _named(stem, m) for m in modules):
        return "it should be tests/test_%s.py" % stem
    words, found = stem.split("_"), []
    for path in sorted(packages | modules):
        last = path.split("/")[-1].split("_") if path else []
        at = [i for i in range(len(words)) if last and words[i:i + len(last)] == last]
        if not at:
            continue
        rest = words[:at[0]] + words[at[0] + len(last):]
        folder = path if path in homes else path.rpartition("/")[0]
        guess = "tests/%s%s.py" % (folder + "/" if folder else "", "_".join(["test", path.replace("/", "_")] + rest))
        if guess not in found:
            found.append(guess)
    if found:
        return "perhaps " + " or ".join(found[:3]) + " (beside the code it tests)"
    return "it goes to tests/<package path>/test_<package path joined by _>_%s.py beside the code it tests" % stem


def _layout_problems(tests=TESTS, pkg=PKG):
    packages, modules = _code_paths(pkg)
    files = []
    for dirpath, dirnames, filenames in os.walk(tests):
        dirnames[:] = sorted(d for d in dirnames if d != "__pycache__" and not d.startswith("."))
        folder = os.path.relpath(dirpath, tests).replace(os.sep, "/")
        folder = "" if folder == "." else folder
        files += [(folder, n) for n in sorted(filenames) if n.startswith("test_") and n.endswith(".py")]
    # a module whose tests have a folder: tests/<its path>/ is their home
    homes = packages | {m for m in modules if any(f == m for f, _ in files)}
    bad, seen = [], {}
    for folder, name in files:
        where = "tests/" + (folder + "/" if folder else "") + name
        seen.setdefault(name, []).append(where)
        stem = name[len("test_"):-len(".py")]
        should = _where_to(stem, packages, modules, homes)
        if _cross_cutting(folder, name):
            if folder and not _named(stem, folder):
                bad.append("%s: a test in tests/%s/ is named test_%s_<what>.py"
                           % (where, folder, folder.replace("/", "_")))
            continue
        if folder and folder not in packages and folder not in modules:
            bad.append("%s: tests/%s/ mirrors no torchdoctor/%s/ package or torchdoctor/%s.py module and is no "
                       "cross-cutting folder (CROSS_CUTTING in tests/test_architecture.py); %s"
                       % (where, folder, folder, folder, should))
        elif folder and not _named(stem, folder):
            bad.append("%s: a test in tests/%s/ is named test_%s_<what>.py; %s"
                       % (where, folder, folder.replace("/", "_"), should))
        elif not folder and not any("/" not in m and _named(stem, m) for m in modules):
            bad.append("%s: at the top of tests/ only tests of a top-level module torchdoctor/<m>.py "
                       "(tests/test_<m>*.py) and the cross-cutting ones (CROSS_CUTTING in tests/test_architecture.py, "
                       "with a reason) live; %s" % (where, should))
        else:
            home = max([h for h in homes if h and _named(stem, h)] or [""], key=len)
            if home != folder:
                bad.append("%s: its name says it tests torchdoctor/%s, whose tests live in tests/%s/; %s"
                           % (where, home, home, should))
    for name, wheres in sorted(seen.items()):
        if len(wheres) > 1:
            bad.append("%s share the basename %s (pytest's prepend import mode imports each test file by its "
                       "basename): rename all but one" % (", ".join(wheres), name))
    return bad


def test_tests_mirror_the_package():
    """tests/<a>/<b>/test_<a>_<b>_<what>.py for a test of torchdoctor/<a>/<b>/, so the test of a
    module is found by its name; see CROSS_CUTTING for what covers the whole tool."""
    bad = _layout_problems()
    assert not bad, "tests/ must mirror torchdoctor/:\n" + "\n".join(bad)


def test_the_layout_rule_catches_what_it_is_for(tmp_path):
    """Planted misplaced tests are each named with where they should go; placed ones pass."""
    pkg = tmp_path / "torchdoctor"
    for d in ("explain", "areas", "areas/cuda", "kb"):
        (pkg / d).mkdir(parents=True)
        (pkg / d / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    for m in ("api", "redact", "explain/matcher", "areas/cudnn", "kb/errors"):
        (pkg / (m + ".py")).write_text("")
    tests = tmp_path / "tests"
    good = ["test_api.py", "test_api_python.py", "test_architecture.py", "test_robustness_env.py",
            "explain/test_explain_matcher.py", "areas/cuda/test_areas_cuda_checks.py", "areas/test_areas_cudnn.py",
            "kb/errors/test_kb_errors_entries.py", "redact/test_redact_rules.py", "security/test_security_inputs.py",
            "areas/helper.py", "security/hostile.py", "fixtures/x.txt"]
    for rel in good:
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("")
    assert _layout_problems(str(tests), str(pkg)) == []
    planted = {
        "test_matcher.py": "perhaps tests/explain/test_explain_matcher.py",
        "test_redact_paths.py": "it should be tests/redact/test_redact_paths.py",
        "areas/test_areas_cuda_hooks.py": "it should be tests/areas/cuda/test_areas_cuda_hooks.py",
        "kb/test_kb_errors_seeds.py": "it should be tests/kb/errors/test_kb_errors_seeds.py",
        "scan/test_scan_engines.py": "tests/scan/ mirrors no torchdoctor/scan/ package",
        "explain/test_cuda.py": "tests/areas/cuda/test_areas_cuda.py",
        "security/test_streams.py": "is named test_security_<what>.py",
        "areas/cuda/test_explain_matcher.py": "share the basename test_explain_matcher.py",
    }
    for rel in planted:
        (tests / rel).parent.mkdir(parents=True, exist_ok=True)
        (tests / rel).write_text("")
    bad = _layout_problems(str(tests), str(pkg))
    for rel, words in planted.items():
        assert any(("tests/" + rel) in b and words in b for b in bad), (rel, bad)
    assert all(any(("tests/" + rel) in b for rel in planted) for b in bad), bad  # nothing else is named
