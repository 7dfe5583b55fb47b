"""How to add an optional package to torchdoctor's own environment, said the way that
works for how it was installed: `pip install "torchdoctor[lint]"` reinstalls from an index
the project may not be on, and does nothing for a pipx or `uv tool` install, whose
environment pip from PATH never touches."""

import importlib.util
import os
import sys


def add_package(package: str) -> str:
    """The command that adds `package` to the doctor's environment."""
    parts = [p.lower() for p in os.path.abspath(sys.prefix).split(os.sep)]
    if "pipx" in parts and "venvs" in parts:
        return "pipx inject torchdoctor %s" % package
    # A `uv tool` environment, and a venv uv made (`uv venv`), have no pip. uv installs into
    # this interpreter's environment whatever torchdoctor was installed from (an index, a
    # checkout, a wheel); `uv tool install --with` would fetch torchdoctor again from an index.
    if ("uv" in parts and "tools" in parts) or importlib.util.find_spec("pip") is None:
        return "uv pip install --python %s %s" % (sys.executable, package)
    return "%s -m pip install %s" % (sys.executable, package)
