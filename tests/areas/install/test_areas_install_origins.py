"""A torch found through PYTHONPATH is named with the variable and the folder, and fixed by
changing the variable (nothing reinstalled); one found in the working directory by renaming the
folder. The real probe of the test venv's real torch, a stray old torch/ of the test's own.
"""

import os
import subprocess

from torchdoctor.diagnose import diagnose
from torchdoctor.gather.probe import gather

from conftest import TORCH_PYTHON, needs_torch

pytestmark = needs_torch


def _stray(folder):
    os.makedirs(os.path.join(str(folder), "torch"))
    with open(os.path.join(str(folder), "torch", "__init__.py"), "w") as fh:
        fh.write("from torch._C import *  # an old copy, without its compiled core\n")
    return str(folder)


def _findings(monkeypatch, pythonpath):
    monkeypatch.setenv("PYTHONPATH", pythonpath)
    return diagnose(gather(python=TORCH_PYTHON, timeout=120)).findings


def test_a_stray_torch_on_pythonpath_names_the_variable_and_the_fix_changes_only_it(tmp_path, monkeypatch):
    stray = _stray(tmp_path / "old")
    found = _findings(monkeypatch, stray)
    ids = [f.id for f in found]
    assert "torch-shadowed" in ids and "torch-import-failed" not in ids, ids  # not "reinstall torch"
    f = next(f for f in found if f.id == "torch-shadowed")
    assert "which PYTHONPATH=%s puts there" % stray in f.detail
    assert f.fix.commands == ["unset PYTHONPATH"] and not any("pip" in c for c in f.fix.commands)
    healed = subprocess.run(["bash", "-c", "%s; %s -c 'import torch, sys; sys.exit(not hasattr(torch, \"tensor\"))'"
                             % (f.fix.commands[0], TORCH_PYTHON)], env=dict(os.environ, PYTHONPATH=stray),
                            timeout=300)
    assert healed.returncode == 0


def test_only_the_stray_entry_leaves_pythonpath(tmp_path, monkeypatch):
    stray = _stray(tmp_path / "old")
    keep = str(tmp_path / "mine")
    os.makedirs(keep)
    f = next(f for f in _findings(monkeypatch, os.pathsep.join([stray, keep])) if f.id == "torch-shadowed")
    assert f.fix.commands == ["export PYTHONPATH=%s" % keep]
