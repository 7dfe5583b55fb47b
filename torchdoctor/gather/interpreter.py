"""Which Python the user means when they give no --python.

Installed the way CLI tools are installed (pipx, `uv tool install`, a venv of its own),
torchdoctor's own interpreter has no torch, and diagnosing it would answer a question
nobody asked ("torch is not installed in .../pipx/venvs/torchdoctor/bin/python"). Then the
environment the user is working in is the one to diagnose: the active virtualenv or conda
environment, else the first python3/python on PATH that is not the doctor's own.
"""

import importlib.util
import os
import re
import sys
from ..model.records import record
from typing import Optional


@record
class Choice:
    python: str
    why: Optional[str] = None  # None: the user named it, or the doctor's own has torch
    own: bool = False  # the doctor's own interpreter, chosen although it has no torch
    with_torch: tuple = ()  # then: other interpreters that have torch

    def note(self) -> Optional[str]:
        """The one line every verb says on stderr about which interpreter it diagnoses."""
        if not self.why:
            return None
        if self.own:
            others = ("; Pythons with torch: %s" % ", ".join(self.with_torch)) if self.with_torch else ""
            return ("diagnosing %s (%s, where torchdoctor itself is installed; it has no torch yet%s); "
                    "choose another with --python PATH" % (self.python, self.why, others))
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


# Where an installation keeps torch, relative to its prefix: a venv's or conda's site-packages,
# Debian's dist-packages (/usr and /usr/local).
_TORCH_PLACES = (("lib", "python3*", "site-packages"), ("lib", "python3*", "dist-packages"),
                 ("local", "lib", "python3*", "dist-packages"),
                 ("Lib", "site-packages"))


def has_torch_installed(python: str) -> bool:
    """Whether the installation around `python` holds a torch package, read from the file
    system: a look, not a run (the user's site folder and .pth paths are not read)."""
    import glob
    prefix = os.path.dirname(os.path.dirname(os.path.abspath(python)))
    return any(glob.glob(os.path.join(prefix, *place, "torch", "__init__.py")) for place in _TORCH_PLACES)


def _on_path(env) -> list:
    """Every python3/python on PATH that is not the doctor's own, first found first."""
    import shutil
    out = []
    for name in ("python3", "python"):
        for folder in (env.get("PATH") or "").split(os.pathsep):
            exe = shutil.which(name, path=folder) if folder else None
            if exe and not _same_env(exe) and exe not in (p for p, _ in out):
                out.append((exe, "the first %s on PATH" % name))
    return out


def resolve(python: Optional[str], environ=None) -> Choice:
    """The interpreter to diagnose: `python` when given (a bare name is looked up on PATH),
    else this one when it has torch, else the one the user is working in: the active
    virtualenv or conda environment, even when it is the doctor's own (a fresh venv where
    torchdoctor came first: torch is what is missing there), else the first python3 on PATH."""
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
        if exe:
            return Choice(sys.executable, what, own=True,
                          with_torch=tuple(p for p, _ in _on_path(env) if has_torch_installed(p)))
    found = _on_path(env)
    if found:
        return Choice(found[0][0], found[0][1])
    return Choice(sys.executable)


# What CPython, PyPy and GraalPy install their interpreters as: python, python3, python3.13t,
# pythonw.exe, pypy3.10...
PYTHON_NAME_RE = re.compile(r"(?i)(?:python|pypy|graalpy)(?:\d{1,2}(?:\.\d{1,3}){0,2})?[dmtuw]{0,3}(?:\.exe)?")
# The first bytes of a native program: ELF, Mach-O (32/64-bit, both byte orders, universal), PE.
NATIVE_MAGIC = (b"\x7fELF", b"\xfe\xed\xfa\xce", b"\xfe\xed\xfa\xcf", b"\xce\xfa\xed\xfe", b"\xcf\xfa\xed\xfe",
                b"\xca\xfe\xba\xbe", b"MZ")


def not_a_python(path: str, scripts: bool = False) -> Optional[str]:
    """Why `path` is not a Python interpreter that a diagnosis may run, or None when it is one.

    `scripts`: accept a script as well (a pyenv shim, a wrapper that runs a Python in a
    container), which the command line does for the user's own --python: what it runs is
    the user's choice, and a script that turns out to run no Python is a finding of the probe.
    A native program is still judged by its name, so `--python /bin/ls` is refused unrun.

    Decided from the file system alone, since running a program to ask it would already run
    whatever it is: an executable file named like an interpreter (the name given and the file a
    link leads to), a native program rather than a script (a pyenv or asdf shim is a shell
    script that runs some other program), with a Python installation around it: the
    pyvenv.cfg of a virtual environment, or a standard library (os.py) under its prefix. A guard
    against running an arbitrary program, not a sandbox: an interpreter still runs the code of
    its own environment (site-packages, .pth files)."""
    if not os.path.lexists(path):
        return "no such file"
    real = os.path.realpath(path)
    if os.path.isdir(real):
        return "a directory"
    if not os.path.isfile(real) or not os.access(real, os.X_OK):
        return "not an executable file"
    try:
        with open(real, "rb") as fh:
            head = fh.read(4)
    except OSError as e:
        return "cannot read it (%s)" % (e.strerror or e)
    if head.startswith(b"#!") and scripts:
        return None
    for name in dict.fromkeys((os.path.basename(path), os.path.basename(real))):
        if not PYTHON_NAME_RE.fullmatch(name):
            return "%s is not the name of a Python interpreter" % name
    if head.startswith(b"#!"):
        return "a script, not an interpreter (a pyenv or asdf shim? give the interpreter it runs, " \
               "e.g. the output of `pyenv which python`)"
    if not head.startswith(NATIVE_MAGIC):
        return "not a native program"
    if not scripts and not _installation_around(os.path.abspath(path), real):
        return "no Python standard library or virtual environment around it"
    return None


def _installation_around(path: str, real: str) -> bool:
    import glob
    here = os.path.dirname(path)
    if any(os.path.isfile(os.path.join(d, "pyvenv.cfg")) for d in (here, os.path.dirname(here))):
        return True
    bindir = os.path.dirname(real)
    prefix = os.path.dirname(bindir)
    patterns = [os.path.join(prefix, "lib", "python3*", "os.py"), os.path.join(prefix, "lib", "pypy3*", "os.py"),
                os.path.join(prefix, "lib", "python3*.zip"), os.path.join(prefix, "lib-python", "*", "os.py"),
                os.path.join(bindir, "Lib", "os.py"), os.path.join(bindir, "python3*.zip")]
    return any(glob.glob(p) for p in patterns)
