"""Run `torchdoctor dist` (a rank, or the torchrun that starts them) in the user's
interpreter, which has torch, when torchdoctor is installed in another one without it (pipx,
`uv tool install`): `PYTHON foreign.py dist ARGS...` or `PYTHON foreign.py -m MODULE ARGS...`.

Nothing is installed into the user's environment. This file is run as a script by path, so
the package it sits in is imported from here, ahead of any torchdoctor the user's
environment may hold (the ranks must run the doctor that started them), while the doctor's
own dependencies (click, packaging, psutil) are appended at the end of sys.path: the user's
environment keeps its own versions of them, ours only fill what it lacks. torchrun hands the
environment to every rank, so DEPS_ENV reaches them all.

Standard library only, Python 3.8 syntax: it runs in whatever Python the user names.
"""

import os
import sys

DEPS_ENV = "TORCHDOCTOR_FOREIGN_DEPS"  # the doctor's import folders for its dependencies (os.pathsep-joined)
PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def command(python, args, deps):
    """argv that runs `args` (["dist", ...] or ["-m", MODULE, ...]) in `python`, and the
    environment variable it needs: (argv, {name: value})."""
    return [python, os.path.abspath(__file__)] + list(args), {DEPS_ENV: os.pathsep.join(deps)}


def doctor_deps():
    """Where this interpreter imports the doctor's dependencies from."""
    import importlib.util
    out = []
    for name in ("click", "packaging", "psutil"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            folder = os.path.dirname(os.path.dirname(spec.origin))
            if folder not in out:
                out.append(folder)
    return out


def _import_ours():
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        del sys.path[0]  # the script's folder: dist/ itself, whose modules must not be top-level names
    sys.path.insert(0, PACKAGE_PARENT)
    try:
        import torchdoctor  # noqa: F401 - ours; its submodules follow its __path__
    finally:
        sys.path.remove(PACKAGE_PARENT)  # nothing else of that folder is to shadow the user's packages
    for folder in (os.environ.get(DEPS_ENV) or "").split(os.pathsep):
        if folder and folder not in sys.path:
            sys.path.append(folder)


def main(argv):
    _import_ours()
    if argv[:1] == ["-m"] and len(argv) > 1:
        import runpy
        sys.argv = [argv[1]] + argv[2:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return
    from torchdoctor.cli import main as cli_main
    sys.argv = ["torchdoctor"] + argv
    cli_main(argv)


if __name__ == "__main__":
    main(sys.argv[1:])
