"""Manners for the surfaces that run inside someone else's process (the exception hook,
the pytest plugin, the IPython extension): while one of them diagnoses, what torchdoctor's
own code imports comes only from the interpreter's library folders (its standard library
and site-packages) or from the folder torchdoctor itself was loaded from.

The program's folder (sys.path[0]), the current directory ('' follows a chdir), PYTHONPATH
entries and a test suite's root are the host's business: a `packaging.py` or `json.py`
lying there is never imported by the doctor. The host's own imports are untouched: the
guard acts only on imports made with torchdoctor code on the stack, and only during a
visit. Imported when a surface is installed, from modules the interpreter has already
loaded, so setting up the guard at exception time imports nothing itself.
"""

import os
import sys
import threading
from importlib.machinery import PathFinder

_lock = threading.Lock()
_state = {"depth": 0, "finder": None}
_PACKAGE = __name__.split(".")[0]


def _under(path: str, roots) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def _real(entry) -> str:
    return os.path.realpath(os.path.abspath(entry)) if isinstance(entry, str) else ""


def library_roots() -> list:
    """The interpreter's standard library and site-packages folders (real paths)."""
    stdlib = getattr(os, "__file__", None)
    # the standard library (a zip's path when it is zipped); an embedder's frozen os has no file
    roots = [os.path.dirname(stdlib)] if stdlib else [getattr(sys, "_stdlib_dir", None) or ""]
    if sys.platform == "win32":
        roots.append(os.path.join(sys.base_exec_prefix, "DLLs"))
    site = sys.modules.get("site")  # not imported here (-S): then site-packages entries count by name
    for name in ("getsitepackages", "getusersitepackages"):
        fn = getattr(site, name, None)
        try:
            found = fn() if callable(fn) else []
        except Exception:  # noqa: BLE001 - an old virtualenv's site.py
            found = []
        roots.extend([found] if isinstance(found, str) else list(found))
    if site is None or not callable(getattr(site, "getsitepackages", None)):
        roots.extend(p for p in sys.path if isinstance(p, str) and os.path.basename(p) in ("site-packages",
                                                                                           "dist-packages"))
    return [_real(r) for r in roots if r]


def trusted_path() -> list:
    """The sys.path entries the doctor may import from: those in library_roots(), and
    the folder torchdoctor was loaded from where it is on sys.path (an install with
    --target, a source checkout): the code running already came from there."""
    roots = library_roots()
    own = sys.modules.get(_PACKAGE)
    own_file = getattr(own, "__file__", None)
    own_root = _real(os.path.dirname(os.path.dirname(own_file))) if isinstance(own_file, str) else None
    out = []
    for entry in list(sys.path):
        if not isinstance(entry, str) or not entry or not os.path.isabs(entry):
            continue  # '' and relative entries name whatever the current directory is now
        real = _real(entry)
        if _under(real, roots) or real == own_root:
            out.append(entry)
    return out


def _ours_on_stack() -> bool:
    """Whether torchdoctor's code is doing this import (directly, or through a module it
    is importing): a frame of the package anywhere on this thread's stack."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_globals.get("__name__")
        if isinstance(name, str) and (name == _PACKAGE or name.startswith(_PACKAGE + ".")):
            return True
        f = f.f_back
    return False


class _Finder:
    """Sits just before the path finder during a visit. A top-level name imported by
    torchdoctor's code is looked for on trusted_path() only; not found there, it is not
    found (the path finder after it would look in the host's folders). Submodules are
    looked for in their package's own folder, as always."""

    def __init__(self, path):
        self.path = path
        self.active = True  # False once removed: a copy of sys.meta_path that kept it does nothing

    def find_spec(self, name, path=None, target=None):
        if path is not None or not self.active or not _ours_on_stack():
            return None
        spec = PathFinder.find_spec(name, self.path)
        if spec is None:
            raise ModuleNotFoundError("No module named %r in this interpreter's library folders (torchdoctor "
                                      "does not import from the program's folder or the current directory)"
                                      % name, name=name)
        return spec


class ImportGuard:
    """`with ImportGuard():` the doctor's imports follow the rule above. Re-entrant and
    shared by threads: the guard is on while any guarded block runs."""

    def __enter__(self):
        with _lock:
            _state["depth"] += 1
            if _state["depth"] == 1:
                _install()
        return self

    def __exit__(self, etype, value, tb):
        with _lock:
            _state["depth"] -= 1
            if _state["depth"] == 0:
                _remove()
        return False


def guarded(fn):
    """`fn` with its imports under ImportGuard: for what the host calls back later (a
    notebook's display of a result calls its _repr_html_)."""
    def wrapper(*args, **kwargs):
        with ImportGuard():
            return fn(*args, **kwargs)
    wrapper.__name__, wrapper.__doc__ = fn.__name__, fn.__doc__
    return wrapper


class Visit(ImportGuard):
    """`with Visit() as v:` the import guard, and whatever the body raises ends in
    v.error ("Type: message") instead of reaching the host: pytest.fail's exception and
    SystemExit too, which would turn a failed test into an error or end the host. A
    KeyboardInterrupt still interrupts."""

    def __init__(self):
        self.error = None

    def __exit__(self, etype, value, tb):
        super().__exit__(etype, value, tb)
        if value is None or isinstance(value, KeyboardInterrupt):
            return False
        try:
            self.error = "%s: %s" % (type(value).__name__, value)
        except Exception:  # noqa: BLE001 - an exception whose str() raises
            self.error = type(value).__name__
        return True


def _install() -> None:
    finder = _Finder(trusted_path())
    meta = sys.meta_path
    at = next((i for i, f in enumerate(meta) if f is PathFinder), None)
    if at is None:
        return  # an import system of the host's own making: leave it alone
    meta.insert(at, finder)
    _state["finder"] = finder


def _remove() -> None:
    finder, _state["finder"] = _state["finder"], None
    if finder is not None:
        finder.active = False
        try:
            sys.meta_path.remove(finder)
        except ValueError:
            pass  # the host rebuilt sys.meta_path meanwhile
