"""Which Python the user means when they give no --python.

Installed the way CLI tools are installed (pipx, `uv tool install`, a venv of its own),
torchdoctor's own interpreter has no torch, and diagnosing it would answer a question
nobody asked ("torch is not installed in .../pipx/venvs/torchdoctor/bin/python"). Then the
environment the user is working in is the one to diagnose: the active virtualenv or conda
environment, else the first python3/python on PATH that is not the doctor's own.
"""

import importlib.util
import os
import sys
from ..model.records import record
from typing import Optional


@record
class Choice:
    python: str
    why: Optional[str] = None  # None: the user named it, or the doctor's own has torch

    def note(self) -> Optional[str]:
        if not self.why:
            return None
        return ("torchdoctor's own Python (%s) has no torch, so this diagnoses %s (%s); "
                "choose another with --python PATH" % (sys.executable, self.python, self.why))


def _env_python(prefix: str) -> Optional[str]:
    names = ("python.exe", os.path.join("Scripts", "python.exe")) if os.name == "nt" else \
        (os.path.join("bin", "python3"), os.path.join("bin", "python"))
    for name in names:
        p = os.path.join(prefix, name)
        if os.path.isfile(p) and os.access(p, os.X_OK):
            return p
    return None


def _same_env(path: str) -> bool:
    """Is `path` an interpreter of the doctor's own environment? Compared by the folder it
    sits in, not by realpath: a venv's python is a link to the base interpreter, which is
    exactly what must still count as another environment."""
    own = os.path.dirname(os.path.abspath(sys.executable))
    return os.path.normcase(os.path.dirname(os.path.abspath(path))) == os.path.normcase(own)


def own_has_torch() -> bool:
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):  # a broken or half-imported torch is still a torch to diagnose
        return True


def resolve(python: Optional[str], environ=None) -> Choice:
    """The interpreter to diagnose: `python` when given (a bare name is looked up on PATH),
    else this one when it has torch, else the one the user is working in."""
    if python:
        if not os.path.exists(python) and os.sep not in python:
            import shutil  # bz2, lzma, zlib: not for the common case
            python = shutil.which(python) or python
        return Choice(python)
    if own_has_torch():
        return Choice(sys.executable)
    env = os.environ if environ is None else environ
    for var, what in (("VIRTUAL_ENV", "the active virtualenv, $VIRTUAL_ENV"),
                      ("CONDA_PREFIX", "the active conda environment, $CONDA_PREFIX")):
        prefix = env.get(var)
        exe = _env_python(prefix) if prefix else None
        if exe and not _same_env(exe):
            return Choice(exe, what)
    import shutil
    for name in ("python3", "python"):
        for folder in (env.get("PATH") or "").split(os.pathsep):
            exe = shutil.which(name, path=folder) if folder else None
            if exe and not _same_env(exe):
                return Choice(exe, "the first %s on PATH" % name)
    return Choice(sys.executable)
