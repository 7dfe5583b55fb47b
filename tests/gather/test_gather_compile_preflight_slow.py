"""The torch.compile preflight for real, on this machine's CPU torch: a healthy compile, then
each toolchain failure made through the environment, named with its fix; the fix applied
gives an environment whose preflight passes.

A real compile takes 20-45 s cold (more on a busy machine), so the healthy run (the real CLI,
`check --compile`) is made once and is also the "fixed" run wherever a fix's commands give back
exactly its environment (checked: the commands are run by a shell and its environment compared).

How each failure is made:
- CXX: CXX=/nonexistent/g++.
- no compiler on PATH: PATH is a test-made empty folder (the compiler stays in its folder).
- unusable cache folder: TORCHINDUCTOR_CACHE_DIR under a regular file (cannot be created, even
  by root); and, not as root, a folder without write permission.
- Python without headers: PYTHONHOME names a test-made prefix whose lib/pythonX.Y is this
  Python's standard library and which has no include folder, so sysconfig (and TorchInductor's
  -I) point at a folder without Python.h, as for a distribution Python without its -dev package.
"""

import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from torchdoctor.areas.checks import run_checks
from torchdoctor.gather.compile import compile_facts, toolchain_facts
from torchdoctor.gather.system import os_facts
from torchdoctor.model.facts import Facts

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="the toolchain of Linux")]
IDS = ["compile-preflight", "compile-timings"]
# The user's own settings of what the failures are made of.
CLEARED = ("CXX", "CC", "PYTHONHOME", "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TRITON_HOME")
CACHE_FIX_DIR = "$HOME/.cache/torchinductor"
BASH = shutil.which("bash")  # found now: a test's PATH may hold no programs at all
# What a non-interactive bash sets or drops by itself (it unsets an inherited PS1/PS2), so
# neither side of an environment comparison counts them.
SHELL_OWNED = ("_", "SHLVL", "PWD", "OLDPWD", "PS1", "PS2")


def _findings(section):
    facts = Facts.from_dict({"schema_version": 1, "os": os_facts(), "compile": section,
                             "python": {"executable": sys.executable,
                                        "version": "%d.%d.%d" % sys.version_info[:3]}})
    return run_checks(facts, only=IDS)


def _errors(findings):
    return [f for f in findings if f.check == "compile-preflight"]


def _applied(commands, env):
    """The environment after a shell runs `commands` in `env`."""
    script = "; ".join(commands) + "; env -0"
    out = subprocess.run([BASH, "-c", script], env=env, stdout=subprocess.PIPE, check=True, timeout=30).stdout
    got = dict(item.split("=", 1) for item in out.decode().split("\0") if "=" in item)
    return _comparable(got)


def _comparable(env):
    return {k: v for k, v in env.items() if k not in SHELL_OWNED}


@pytest.fixture(scope="module")
def healthy(tmp_path_factory):
    """`check --compile` through the real CLI, with a cache folder of the user's own."""
    home = tmp_path_factory.mktemp("home")
    env = {k: v for k, v in os.environ.items() if k not in CLEARED}
    env["HOME"] = str(home)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(home / ".cache" / "torchinductor")
    os.makedirs(env["TORCHINDUCTOR_CACHE_DIR"])
    r = subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--compile", "--json", "--only", ",".join(IDS)],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=600)
    assert r.returncode == 0, r.stderr.decode()[-3000:]
    return env, json.loads(r.stdout)


def test_a_healthy_cpu_compile_passes_with_its_timings(healthy):
    _, report = healthy
    cpu = report["facts"]["compile"]["devices"]["cpu"]
    assert cpu["ok"] is True and cpu["matches_eager"] is True
    assert cpu["cold_s"] > cpu["warm_s"] > 0  # the warm compile hit the cache the cold one filled
    [note] = report["findings"]
    assert note["check"] == "compile-timings" and "first compile %.1f s" % cpu["cold_s"] in note["detail"]
    # the preflight never touched the user's cache folder
    assert os.listdir(healthy[0]["TORCHINDUCTOR_CACHE_DIR"]) == []


def test_cxx_naming_a_missing_compiler(healthy):
    env = dict(healthy[0], CXX="/nonexistent/g++")
    section = compile_facts(sys.executable, environ=env)
    [f] = _errors(_findings(section))
    assert f.severity == "error"
    assert "CXX=/nonexistent/g++ names a file that does not exist" in f.title
    assert f.fix.commands[0] == "unset CXX"
    assert _applied(f.fix.commands[:1], env) == _comparable(healthy[0])  # the fix gives the healthy run's environment


def test_a_path_without_a_compiler(healthy, tmp_path):
    gpp = shutil.which("g++", path=healthy[0].get("PATH"))
    if not gpp or os.path.dirname(gpp) not in ("/usr/bin", "/usr/local/bin"):
        pytest.skip("needs g++ in /usr/bin or /usr/local/bin")
    empty = tmp_path / "bin"
    empty.mkdir()
    env = dict(healthy[0], PATH=str(empty))
    section = compile_facts(sys.executable, environ=env)
    [f] = _errors(_findings(section))
    assert "`g++` is not on PATH (1 folders searched)" in f.title
    assert f.fix.commands[0] == 'export PATH=%s:"$PATH"' % os.path.dirname(gpp)
    fixed = _applied(f.fix.commands[:1], env)
    assert fixed["PATH"] == "%s:%s" % (os.path.dirname(gpp), empty)
    after = compile_facts(sys.executable, environ=fixed)
    assert _errors(_findings(after)) == [] and after["devices"]["cpu"]["ok"] is True


def test_an_unusable_cache_folder(healthy, tmp_path):
    notes = tmp_path / "notes.txt"
    notes.write_text("mine\n")
    cases = [(str(notes / "cache"), "cannot be created: %s is a file" % notes)]
    if os.geteuid() != 0:  # root writes anywhere: only the file in the way stops it
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        cases.append((str(locked / "cache"), "is not writable by this user"))
    for folder, words in cases:
        env = dict(healthy[0], TORCHINDUCTOR_CACHE_DIR=folder)
        [f] = _errors(_findings(toolchain_facts(sys.executable, environ=env)))
        assert words in f.title
        assert f.fix.commands == ['mkdir -p "%s"' % CACHE_FIX_DIR, 'export TORCHINDUCTOR_CACHE_DIR="%s"' % CACHE_FIX_DIR]
        assert _applied(f.fix.commands, env) == _comparable(healthy[0])
    assert notes.read_text() == "mine\n"  # looked at, never written


def test_a_python_without_headers(healthy, tmp_path):
    stdlib = sysconfig.get_path("stdlib")
    version = "python%d.%d" % sys.version_info[:2]
    if os.path.basename(stdlib) != version or not os.path.isfile(os.path.join(sysconfig.get_path("include"), "Python.h")):
        pytest.skip("needs a Python with its headers and a lib/pythonX.Y standard library")
    prefix = tmp_path / "prefix"
    (prefix / "lib").mkdir(parents=True)
    os.symlink(stdlib, str(prefix / "lib" / version))
    env = dict(healthy[0], PYTHONHOME=str(prefix))
    section = compile_facts(sys.executable, environ=env)
    assert section["headers"]["python_h"] is False
    [f] = _errors(_findings(section))
    assert "Python.h is missing (%s)" % (prefix / "include" / version) in f.title
    assert section["devices"]["cpu"]["ok"] is False  # the compile itself failed on it
    assert f.fix.commands[0] == "unset PYTHONHOME"
    assert _applied(f.fix.commands[:1], env) == _comparable(healthy[0])
