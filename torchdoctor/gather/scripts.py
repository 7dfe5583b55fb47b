"""Where the target interpreter's console scripts (torchrun, accelerate, hf...) would be, which of
them are there, and which of those folders this shell's PATH holds.

"command not found" for a script a package installs is either a package not installed in the
environment at hand or a script in a folder the shell does not search: pip's `--user` folder
(~/.local/bin, %APPDATA%\\Python\\PythonXY\\Scripts), an environment that was not activated.
Read from the python section's prefix and executable and this process's environment, with a few
stat calls: no child, no import.
"""

import os
from typing import Any, Dict, List

from ..model.facts import absent

# The console scripts whose "command not found" torchdoctor reads (areas/install/scripts.py).
SCRIPTS = ("torchrun", "accelerate", "deepspeed", "huggingface-cli", "hf", "tensorboard")


def _norm(path: str, windows: bool) -> str:
    path = os.path.normpath(path)
    return path.lower() if windows else path


def script_dirs(python: Dict[str, Any], environ) -> List[str]:
    """The folders pip puts this interpreter's console scripts in: the environment's own, the
    interpreter's folder, Debian's /usr/local/bin beside a system Python, and the user scheme's."""
    windows = str(python.get("platform", "")).startswith("win")
    prefix, exe = python.get("prefix"), python.get("executable")
    version = str(python.get("version") or "")
    xy = version.split(".")[:2]
    dirs: List[str] = []
    if isinstance(prefix, str) and prefix:
        dirs.append(os.path.join(prefix, "Scripts" if windows else "bin"))
        if not windows and os.path.normpath(prefix) == "/usr":
            dirs.append("/usr/local/bin")  # Debian's pip installs a system Python's scripts here
    if isinstance(exe, str) and exe:
        dirs.append(os.path.dirname(exe))
    home = environ.get("USERPROFILE" if windows else "HOME") or ""
    base = environ.get("PYTHONUSERBASE")
    if windows:
        appdata = environ.get("APPDATA") or (os.path.join(home, "AppData", "Roaming") if home else "")
        if len(xy) == 2 and (base or appdata):
            dirs.append(os.path.join(base or os.path.join(appdata, "Python"), "Python%s%s" % tuple(xy), "Scripts"))
    elif base:
        dirs.append(os.path.join(base, "bin"))
    elif home:
        dirs.append(os.path.join(home, ".local", "bin"))
        if python.get("platform") == "darwin" and len(xy) == 2:  # a framework build's user scheme
            dirs.append(os.path.join(home, "Library", "Python", ".".join(xy), "bin"))
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
    path = [_norm(p, windows) for p in (environ.get("PATH") or "").split(os.pathsep) if p]
    found: Dict[str, Any] = {}
    for name in SCRIPTS:
        for d in dirs:
            candidates = [name + ".exe", name + "-script.py"] if windows else [name]
            hit = next((os.path.join(d, c) for c in candidates if os.path.isfile(os.path.join(d, c))), None)
            if hit:
                found[name] = hit
                break
        else:
            found[name] = absent("not in %s" % ", ".join(dirs))
    return {"dirs": dirs, "on_path": [d for d in dirs if _norm(d, windows) in path], "found": found}
