"""The shape of the package, kept by tests: layers without import cycles, no module
reaching into another's private names, small modules, one builder of install commands, and a
tests/ folder that mirrors the package (the test of a module is found by its name)."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "torchdoctor")
# Child scripts that run alone in another interpreter (stdlib only): one file by design.
STANDALONE = {"torchdoctor/gather/target.py"}
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


def test_only_advice_builds_install_commands():
    bad = []
    for mod, path in MODULES.items():
        if mod.startswith("torchdoctor.advice") or mod == "torchdoctor.kb.compat":
            continue
        if "install_command(" in open(path, encoding="utf-8").read():
            bad.append(mod)
    assert not bad, "call torchdoctor.advice instead of compat.install_command: %s" % bad


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
    "test_fresh_machine.py": "no source, test or script depends on paths of the machine it was written on",
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
