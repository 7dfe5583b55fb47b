"""The shape of the package, kept by tests: layers without import cycles, no module
reaching into another's private names, small modules, one builder of install commands."""

import ast
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "torchdoctor")
# Child scripts that run alone in another interpreter (stdlib only): one file by design.
STANDALONE = {"torchdoctor/probe/target.py", "torchdoctor/tune/worker.py"}
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
            # `from . import versions` imports the module torchdoctor.versions, not the package
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
    assert "torchdoctor.facts" in _edges()["torchdoctor.facts.derived"]
