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
