"""Fix commands of knowledge-base entries run against a real broken environment: the error is
made for real in a fresh venv with this machine's pip configuration, explain names the entry on
the real message, and the entry's own command heals the venv."""

import os
import shlex
import subprocess
import sys
import venv

from torchdoctor.kb.errors import get_entry
from torchdoctor.match.matcher import match_text

from conftest import TORCH_PYTHON, needs_torch


def _run(argv, timeout=600):
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def test_pkg_resources_removed_is_healed_by_its_own_command(tmp_path):
    env_dir = str(tmp_path / "venv")
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = os.path.join(env_dir, "Scripts" if sys.platform == "win32" else "bin", "python")
    # setuptools 82 and later ship no pkg_resources.
    p = _run([py, "-m", "pip", "install", "--quiet", "setuptools>=82"])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([py, "-c", "import pkg_resources"])
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "pkg-resources-removed", broken.stderr[-500:]
    fix = [c for c in get_entry("pkg-resources-removed").fix["commands"] if "install" in c]
    assert fix == ['python -m pip install "setuptools<82"']
    argv = shlex.split(fix[0])
    p = _run([py] + argv[1:] + ["--quiet"])
    assert p.returncode == 0, p.stderr[-2000:]
    healed = _run([py, "-c", "import pkg_resources"])
    assert healed.returncode == 0, healed.stderr[-500:]


@needs_torch
def test_a_checkpoint_of_an_unknown_device_loads_with_the_entrys_map_location(tmp_path):
    # A checkpoint saved where its storages carry a device tag this torch has no deserializer for
    # (npu:0: an Ascend NPU's torch_npu): the real error, named by explain, healed by the fix.
    ckpt = tmp_path / "model.pt"
    make = ("import torch, torch.serialization as S, sys\n"
            "S.register_package(1, lambda s: 'npu:0', lambda s, l: None)\n"
            "torch.save({'w': torch.ones(3)}, sys.argv[1])\n")
    p = _run([TORCH_PYTHON, "-c", make, str(ckpt)])
    assert p.returncode == 0, p.stderr[-2000:]
    broken = _run([TORCH_PYTHON, "-c", "import torch, sys; torch.load(sys.argv[1])", str(ckpt)])
    assert broken.returncode != 0
    found = match_text(broken.stderr)
    assert found and found[0].id == "torch-load-unknown-device-tag", broken.stderr[-500:]
    (fix,) = get_entry("torch-load-unknown-device-tag").fix["commands"]
    argv = shlex.split(fix.replace("model.pt", shlex.quote(str(ckpt))))
    healed = _run([TORCH_PYTHON] + argv[1:])
    assert healed.returncode == 0 and "dict" in healed.stdout, healed.stderr[-500:]
