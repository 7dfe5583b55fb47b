"""timed.which finds what shutil.which finds, without importing shutil on POSIX."""

import os
import shutil
import stat
import subprocess
import sys

import pytest

from torchdoctor.children import timed

pytestmark = pytest.mark.skipif(os.name == "nt", reason="the POSIX search; Windows uses shutil")


def _exe(path, mode=0o755):
    with open(path, "w") as fh:
        fh.write("#!/bin/sh\n")
    os.chmod(path, mode)
    return path


def test_the_same_answers_as_shutil_which(tmp_path):
    a, b, c = (tmp_path / n for n in "abc")
    for d in (a, b, c):
        d.mkdir()
    _exe(str(a / "tool"), 0o644)  # not executable: skipped
    _exe(str(b / "tool"))
    (c / "dirname").mkdir()  # a directory is never the answer
    _exe(str(c / "only"))
    path = os.pathsep.join([str(a), "", str(b), str(b), str(c), "/nonexistent"])
    for name in ("tool", "dirname", "only", "missing", str(b / "tool"), str(a / "tool"), str(c / "dirname")):
        for p in (path, "", str(c)):
            assert timed._which_posix(name, p) == shutil.which(name, path=p), (name, p)
    assert timed.which("tool", path=path) == str(b / "tool")


def test_a_pinned_which_still_decides(monkeypatch):
    monkeypatch.setitem(timed._PINNED, "which", lambda name, path=None: "/pinned/" + name)
    assert timed.which("nvidia-smi") == "/pinned/nvidia-smi"


def test_explain_with_machine_facts_imports_neither_shutil_nor_platform(tmp_path):
    code = ("import sys, runpy; sys.argv = ['torchdoctor', 'explain', 'AssertionError: Torch not compiled with CUDA enabled']\n"
            "try:\n    runpy.run_module('torchdoctor', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "sys.stderr.write('LOADED %s %s' % ('shutil' in sys.modules, 'platform' in sys.modules))")
    env = dict(os.environ, PATH=str(tmp_path))  # no nvcc, no nvidia-smi: nothing to start
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert "LOADED False False" in r.stderr, r.stderr[-2000:]
