"""How to add an optional package to torchdoctor's own environment, said the way that
works for how it was installed: `pip install "torchdoctor[lint]"` reinstalls from an index
the project may not be on, and does nothing for a pipx or `uv tool` install, whose
environment pip from PATH never touches."""

import os
import sys


def add_package(package: str, extra: str) -> str:
    """The command that adds `package` (what the extra `extra` installs) to the doctor's environment."""
    parts = [p.lower() for p in os.path.abspath(sys.prefix).split(os.sep)]
    if "pipx" in parts and "venvs" in parts:
        return "pipx inject torchdoctor %s" % package
    if "uv" in parts and "tools" in parts:
        return "uv tool install --with %s torchdoctor (from a checkout: uv tool install '.[%s]')" % (package, extra)
    return "%s -m pip install %s" % (sys.executable, package)
