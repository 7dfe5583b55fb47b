"""Where the target interpreter's console scripts (torchrun, accelerate, hf...) would be, which of
them are there, and which of those folders this shell's PATH holds.

"command not found" for a script a package installs is either a package not installed in the
environment at hand or a script in a folder the shell does not search: pip's `--user` folder
(~/.local/bin, %APPDATA%\\Python\\PythonXY\\Scripts), an environment that was not activated.
Read from the python section's prefix and executable and this process's environment, with a few
stat calls: no child, no import.
"""

import ntpath
import os
import posixpath
from typing import Any, Dict, List

from ..model.facts import absent

# The console scripts whose "command not found" torchdoctor reads (areas/install/scripts.py).
SCRIPTS = ("torchrun", "accelerate", "deepspeed", "huggingface-cli", "hf", "tensorboard")


def _norm(path: str, windows: bool, home: str = "") -> str:
    """A folder as the loader sees it: ~ expanded (bash expands it in PATH), symlinks resolved (a
    venv reached through a linked folder is the same folder), case folded on Windows."""
    if windows:
        return ntpath.normpath(path).lower()
    if home and (path == "~" or path.startswith("~/")):
        path = home + path[1:]
    path = posixpath.normpath(path)
    try:
        return os.path.realpath(path)
    except OSError:
        return path


def _shebang(path: str):
    """The interpreter a script's #! line names (after /usr/bin/env, the program it looks up), or None."""
    try:
        with open(path, "rb") as fh:
            first = fh.readline(512).decode("utf-8", "replace").strip()
    except OSError:
        return None
    if not first.startswith("#!"):
        return None
    words = first[2:].split()
    if not words:
        return None
    if os.path.basename(words[0]) == "env" and len(words) > 1:
        return None  # looked up on PATH when run: nothing fixed to check
    return words[0]


def script_dirs(python: Dict[str, Any], environ) -> List[str]:
    """The folders pip puts this interpreter's console scripts in: the environment's own, the
    interpreter's folder, Debian's /usr/local/bin beside a system Python, and the user scheme's."""
    windows = str(python.get("platform", "")).startswith("win")
    prefix, exe = python.get("prefix"), python.get("executable")
    version = str(python.get("version") or "")
    xy = version.split(".")[:2]
    join, dirname = (ntpath.join, ntpath.dirname) if windows else (posixpath.join, posixpath.dirname)
    dirs: List[str] = []
    if isinstance(prefix, str) and prefix:
        dirs.append(join(prefix, "Scripts" if windows else "bin"))
        if not windows and posixpath.normpath(prefix) == "/usr":
            dirs.append("/usr/local/bin")  # Debian's pip installs a system Python's scripts here
    if isinstance(exe, str) and exe:
        dirs.append(dirname(exe))
    home = environ.get("USERPROFILE" if windows else "HOME") or ""
    base = environ.get("PYTHONUSERBASE")
    if windows:
        appdata = environ.get("APPDATA") or (join(home, "AppData", "Roaming") if home else "")
        if len(xy) == 2 and (base or appdata):
            # 32-bit Pythons use PythonXY-32 for their user scheme
            folder = "Python%s%s%s" % (xy[0], xy[1], "-32" if python.get("bits") == 32 else "")
            dirs.append(join(base or join(appdata, "Python"), folder, "Scripts"))
    elif base:
        dirs.append(join(base, "bin"))
    elif home:
        dirs.append(join(home, ".local", "bin"))
        if python.get("platform") == "darwin" and len(xy) == 2:  # a framework build's user scheme
            dirs.append(join(home, "Library", "Python", ".".join(xy), "bin"))
    seen, out = set(), []
    for d in dirs:
        key = _norm(d, windows)
        if key not in seen:
            seen.add(key)
            out.append(d)
    return out


def scripts_facts(python: Dict[str, Any], environ=None) -> Dict[str, Any]:
    environ = os.environ if environ is None else environ
    if not isinstance(python, dict) or not python.get("prefix"):
        return {"dirs": absent("the interpreter's prefix is unknown")}
    windows = str(python.get("platform", "")).startswith("win")
    dirs = script_dirs(python, environ)
    home = environ.get("HOME") or ""
    path = [_norm(p, windows, home) for p in (environ.get("PATH") or "").split(";" if windows else ":") if p]
    found: Dict[str, Any] = {}
    interpreters: Dict[str, Any] = {}
    for name in SCRIPTS:
        for d in dirs:
            # deepspeed installs a .bat beside its script on Windows (setup.py scripts=)
            candidates = [name + ".exe", name + "-script.py", name + ".bat"] if windows else [name]
            hit = next((os.path.join(d, c) for c in candidates if os.path.isfile(os.path.join(d, c))), None)
            if hit:
                found[name] = hit
                interp = None if windows else _shebang(hit)
                if interp:  # a launcher whose #! interpreter is gone (a moved or renamed env) cannot start
                    interpreters[name] = {"path": interp, "exists": os.path.exists(interp)}
                break
        else:
            found[name] = absent("not in %s" % ", ".join(dirs))
    return {"dirs": dirs, "on_path": [d for d in dirs if _norm(d, windows) in path], "found": found,
            "interpreters": interpreters}
