"""The command `torchdoctor run` starts: finding it as a shell would (127 / 126 when it
cannot run), and finding the Python interpreter it runs, so the diagnosis is tailored to
the environment the program used, not to the doctor's own.

The interpreter: CMD itself when it is a python (`python`, `python3.12`, `pypy3`, a path
to one), else the interpreter of a script's shebang (`#!/usr/bin/env python3`, a venv's
console scripts such as `torchrun`, `accelerate`, `deepspeed`, pip's `/bin/sh`
trampoline for long paths), looking through `env [-i] [-u NAME] [VAR=value]... CMD`.
"""

import os
import re
import shutil
from typing import List, Optional, Tuple

PYTHON_NAME = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?t?(?:\.exe)?", re.IGNORECASE)
# pip (distlib) writes this second line when the interpreter's path is too long for a
# shebang:  '''exec' "/very/long/path/bin/python3" "$0" "$@"
TRAMPOLINE = re.compile(r"^'''exec' (?:\"([^\"]+)\"|(\S+))", re.MULTILINE)


class StartError(Exception):
    """The command could not be started: `status` is the shell's (127 not found, 126 not
    executable, 2 no command), `message` one line."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def start_error(prog: str, e: OSError) -> StartError:
    """What a shell says when exec fails."""
    if isinstance(e, FileNotFoundError):
        return StartError(127, "%s: %s" % (prog, e.strerror or e))
    if isinstance(e, PermissionError):
        return StartError(126, "%s: %s" % (prog, e.strerror or e))
    # ENOEXEC (no shebang, another architecture), E2BIG, ...
    return StartError(126, "%s: cannot execute: %s" % (prog, e.strerror or e))


def resolve_command(argv: List[str]) -> str:
    """The executable argv[0] names, as a shell finds it; StartError otherwise."""
    if not argv or not argv[0]:
        raise StartError(2, "no command given: torchdoctor run -- CMD [ARGS...]")
    prog = argv[0]
    if os.sep in prog or (os.altsep and os.altsep in prog):
        if not os.path.exists(prog):
            raise StartError(127, "%s: No such file or directory" % prog)
        path = prog
    else:
        path = shutil.which(prog)
        if path is None:
            # shutil.which skips files on PATH that exist but cannot be executed
            for folder in (os.environ.get("PATH") or "").split(os.pathsep):
                cand = os.path.join(folder or ".", prog)
                if os.path.isfile(cand):
                    raise StartError(126, "%s: Permission denied" % cand)
            raise StartError(127, "%s: command not found" % prog)
    if os.path.isdir(path):
        raise StartError(126, "%s: Is a directory" % path)
    if not os.access(path, os.X_OK):
        raise StartError(126, "%s: Permission denied" % path)
    return path


def _env_skip(argv: List[str]) -> List[str]:
    """`env [-i] [-u NAME] [--] [VAR=value]... CMD ARGS` -> [CMD, ARGS...]."""
    if not argv or os.path.basename(argv[0]) != "env":
        return argv
    i = 1
    while i < len(argv):
        a = argv[i]
        if a in ("-i", "--ignore-environment", "-", "-0", "--null"):
            i += 1
        elif a in ("-u", "--unset", "-C", "--chdir") and i + 1 < len(argv):
            i += 2
        elif a.startswith(("-u", "--unset=", "-C", "--chdir=")):
            i += 1
        elif a == "--":
            i += 1
            break
        elif "=" in a and not a.startswith("="):
            i += 1
        else:
            break
    while i < len(argv) and "=" in argv[i] and not argv[i].startswith("="):
        i += 1
    return argv[i:]


def _which(name: str) -> Optional[str]:
    if os.sep in name:
        return name if os.path.isfile(name) else None
    return shutil.which(name)


def shebang_python(path: str) -> Optional[str]:
    """The Python interpreter a script's first line (or pip's trampoline) names."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(1024)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    text = head.decode("utf-8", "replace")
    words = text.splitlines()[0][2:].split()
    if not words:
        return None
    prog = words[0]
    if os.path.basename(prog) == "env":
        rest = [w for w in words[1:] if not w.startswith("-") and "=" not in w]
        if rest and PYTHON_NAME.fullmatch(os.path.basename(rest[0])):
            return _which(rest[0]) or rest[0]
        return None
    if PYTHON_NAME.fullmatch(os.path.basename(prog)):
        return prog
    if os.path.basename(prog) == "sh":
        m = TRAMPOLINE.search(text)
        if m:
            return m.group(1) or m.group(2)
    return None


def interpreter_of(argv: List[str]) -> Tuple[Optional[str], str]:
    """(the interpreter CMD runs, how that was found), or (None, why not)."""
    argv = _env_skip(list(argv))
    if not argv:
        return None, "no command after env"
    prog = argv[0]
    path = _which(prog)
    if path is None:
        return None, "%s was not found" % prog
    if PYTHON_NAME.fullmatch(os.path.basename(prog)) or PYTHON_NAME.fullmatch(os.path.basename(path)):
        return path, "the command is %s" % prog
    py = shebang_python(path)
    if py:
        return py, "the shebang of %s" % path
    return None, "%s is not a Python interpreter or script" % prog
