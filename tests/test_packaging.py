"""What a real (non-editable) install ships: every module and every data file."""

import os
import shutil
import subprocess
import sys
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PKG = os.path.join(ROOT, "torchdoctor")


def test_every_folder_with_code_is_a_package():
    for dirpath, dirnames, filenames in os.walk(PKG):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        if any(f.endswith(".py") for f in filenames):
            assert "__init__.py" in filenames, "%s has modules but no __init__.py: find_packages skips it" % dirpath


def test_the_wheel_holds_every_module_and_data_file(tmp_path):
    # Built from a clean copy: an in-tree build/ left by an earlier build would hide a gap.
    src = tmp_path / "src"
    src.mkdir()
    for name in ("setup.cfg", "setup.py", "pyproject.toml", "README.md"):
        shutil.copy(os.path.join(ROOT, name), str(src / name))
    shutil.copytree(PKG, str(src / "torchdoctor"), ignore=shutil.ignore_patterns("__pycache__"))
    p = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                        "-w", str(tmp_path), str(src)], capture_output=True, text=True, timeout=600)
    if p.returncode != 0:
        pytest.skip("cannot build a wheel here: %s" % p.stderr[-300:])
    wheel = next(f for f in os.listdir(str(tmp_path)) if f.endswith(".whl"))
    names = set(zipfile.ZipFile(os.path.join(str(tmp_path), wheel)).namelist())
    for dirpath, dirnames, filenames in os.walk(PKG):
        dirnames[:] = [d for d in dirnames if d != "__pycache__"]
        for f in filenames:
            if f.endswith((".py", ".json")):
                rel = os.path.relpath(os.path.join(dirpath, f), ROOT).replace(os.sep, "/")
                assert rel in names, "%s is missing from the wheel" % rel
