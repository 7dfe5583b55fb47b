"""README's test command must pass on a fresh machine: no test, benchmark, CI script or
source file may open, run or point an interpreter at a path that exists only on the
machine it was written on (a venv made by hand, a checkout of something else).

Two rules, each with a self-test that shows it catches the defect it is for:

* a string literal naming an absolute path that exists here, outside the repository and
  the system folders, is a dependency on this machine (it passes here, fails elsewhere);
* an absolute path literal (or a module constant holding one) that reaches a call that
  opens, lists or runs it, or follows a ``--python`` argument, is one wherever it points.

Synthetic paths inside fact fixtures (``{"executable": "/home/u/venv/bin/python"}``) are
data, not dependencies, and are fine.
"""

import ast
import os
import re

import pytest

from torchdoctor.gather import system

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SYSTEM = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/etc/", "/dev/", "/proc/", "/sys/", "/tmp/", "/var/",
          "/run/", "/opt/homebrew/", "/System/", "/Library/")
SCANNED = ("torchdoctor", "tests", "benchmarks", ".ci")
DATA_DIRS = (os.path.join("tests", "fixtures"), os.path.join("tests", "eval"))
# Calls that open, list, stat or run their path argument.
USES_PATH = {"open", "run", "Popen", "check_output", "check_call", "call", "exists", "isdir", "isfile", "islink",
             "listdir", "scandir", "symlink", "access", "stat", "lstat", "realpath", "gather", "execv", "execvp",
             "execve", "spawnv", "copy", "copyfile", "copytree", "rmtree", "chdir", "glob", "Path"}
_LITERAL = re.compile(r"""["'](/[^"'\s$]{2,})["']""")
_SHELL_PATH = re.compile(r"(?<![\w$.})\]])(/(?:home|root|work|opt|srv|mnt|Users)/[^\s\"'`;|&)]+)")


# Facts the probe reads about the machine it runs on, not dependencies of the tests.
MACHINE_MARKERS = (system.DOCKER_MARKER,)
# Paths that tests use because they exist nowhere (the "does not exist" cases).
MISSING_BY_DESIGN = "/nonexistent"


def _is_system(path):
    if path in MACHINE_MARKERS or path.startswith(MISSING_BY_DESIGN):
        return True
    return path == "/" or any(path.startswith(s) or path + "/" == s for s in SYSTEM)


def _files():
    for top in SCANNED:
        base = os.path.join(ROOT, top)
        for dirpath, dirnames, filenames in os.walk(base):
            rel = os.path.relpath(dirpath, ROOT)
            if rel.startswith(DATA_DIRS) or "__pycache__" in rel or "/_work" in rel:
                dirnames[:] = []
                continue
            for name in filenames:
                if name.endswith((".py", ".sh")) or top == ".ci":
                    yield os.path.join(dirpath, name)


def _read(path):
    with open(path, encoding="utf-8", errors="replace") as fh:
        return fh.read()


def existing_outside_paths(text, root=ROOT):
    """Absolute path literals in `text` that exist here outside `root` and the system folders."""
    hits = []
    for n, line in enumerate(text.splitlines(), 1):
        for p in _LITERAL.findall(line):
            real = os.path.realpath(p)
            if _is_system(p) or _is_system(real) or real.startswith(root + os.sep) or real == root:
                continue
            if os.path.exists(p):
                hits.append((n, p))
    return hits


def _abs(node, constants):
    """The absolute, non-system path a node stands for, if it is a literal or a module constant."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        v = node.value
    elif isinstance(node, ast.Name) and node.id in constants:
        v = constants[node.id]
    else:
        return None
    return v if v.startswith("/") and len(v) > 2 and not _is_system(v) else None


def paths_used_by_calls(source):
    """(line, path) for absolute non-system paths that reach a call using them as paths."""
    tree = ast.parse(source)
    constants = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    constants[t.id] = node.value.value
    hits = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        args = list(node.args) + [k.value for k in node.keywords]
        flat = []
        for a in args:
            flat.extend(a.elts if isinstance(a, (ast.List, ast.Tuple)) else [a])
        if name in USES_PATH:
            for a in flat:
                if isinstance(a, ast.Call):  # os.path.realpath(X) inside os.symlink(...)
                    flat.extend(a.args)
                p = _abs(a, constants)
                if p:
                    hits.append((node.lineno, p))
        for prev, a in zip(flat, flat[1:]):
            if isinstance(prev, ast.Constant) and prev.value == "--python":
                p = _abs(a, constants)
                if p:
                    hits.append((node.lineno, p))
    return sorted(set(hits))


def test_no_literal_path_that_exists_only_on_this_machine():
    bad = []
    for path in _files():
        for n, p in existing_outside_paths(_read(path)):
            bad.append("%s:%d: %s" % (os.path.relpath(path, ROOT), n, p))
    assert not bad, "paths that exist only on this machine (a fresh clone fails on them):\n" + "\n".join(bad)


def test_no_absolute_path_is_opened_or_run():
    bad = []
    for path in _files():
        if not path.endswith(".py"):
            continue
        for n, p in paths_used_by_calls(_read(path)):
            bad.append("%s:%d: %s" % (os.path.relpath(path, ROOT), n, p))
    assert not bad, "absolute paths outside the clone that tests open or run:\n" + "\n".join(bad)


def test_ci_script_names_no_machine_paths():
    text = _read(os.path.join(ROOT, ".ci", "run"))
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert not _SHELL_PATH.findall(code), _SHELL_PATH.findall(code)


# -- the rules catch what they are for ---------------------------------------------------
OLD_TEST = '''
CPU_PYTHON = "/work/venvs/cpu/bin/python"
PY = "/envs/work/bin/python"

def test_a(tmp_path):
    r = run_cli("report", "--python", CPU_PYTHON, "--output", "x")
    subprocess.run([CPU_PYTHON, "-m", "torch.utils.collect_env"])
    gather(python=CPU_PYTHON, timeout=60)
    os.symlink(os.path.realpath(CPU_PYTHON), "y")
    with open("/work/venvs/cpu/pyvenv.cfg") as f:
        pass
    facts = {"python": {"executable": PY}}
'''


def test_call_rule_catches_a_hand_made_venv_and_spares_fixture_data():
    hits = paths_used_by_calls(OLD_TEST)
    assert {p for _, p in hits} == {"/work/venvs/cpu/bin/python", "/work/venvs/cpu/pyvenv.cfg"}
    assert sorted({n for n, _ in hits}) == [6, 7, 8, 9, 10]


def test_existence_rule_catches_a_path_outside_the_clone():
    home = os.path.expanduser("~")
    if _is_system(home + "/") or not os.path.isdir(home):
        pytest.skip("no home folder outside the system folders here")
    assert existing_outside_paths('X = "%s"\n' % home, root="/nonexistent-root") == [(1, home)]
    assert existing_outside_paths('X = "%s"\n' % home, root=home) == []
    assert existing_outside_paths('PY = "/envs/work/bin/python"\n') == []  # data: exists nowhere


def test_shell_rule_catches_a_venv_in_ci():
    assert _SHELL_PATH.findall("/work/venvs/cpu/bin/python -m pytest") == ["/work/venvs/cpu/bin/python"]
    assert _SHELL_PATH.findall('cd "$(dirname "$0")/.." && .ci-venv/bin/python -m pytest') == []
