"""Installs torchdoctor's exception hook at start-up, for interpreters started with this
folder on PYTHONPATH (see torchdoctor/auto.py), then runs the sitecustomize it shadows.

Where torchdoctor is not importable from the program's own environment (installed with
pipx, say), it is loaded from this folder's package without adding anything to sys.path;
the diagnosis then needs its dependencies (packaging, psutil) there, and says so if not.

Each sitecustomize runs once: the one chained to is the first after this folder on
sys.path that has not run in this process, so this folder listed twice or through a
link, or a sitecustomize that chains back to this one, ends instead of recursing.
"""


def _install():
    import importlib.util
    import os
    import sys
    try:
        import torchdoctor.auto  # noqa: F401
    except ImportError:
        pkg = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        spec = importlib.util.spec_from_file_location("torchdoctor", os.path.join(pkg, "__init__.py"),
                                                      submodule_search_locations=[pkg])
        if spec is not None and spec.loader is not None:
            mod = importlib.util.module_from_spec(spec)
            sys.modules["torchdoctor"] = mod
            spec.loader.exec_module(mod)
            import torchdoctor.auto  # noqa: F401,F811


def _identity(path):
    """One key per file or folder, however its path is spelled (links, '.', '//')."""
    import os
    try:
        st = os.stat(path)
        return (st.st_dev, st.st_ino)
    except OSError:
        return os.path.realpath(path)


def _ran():
    """The sitecustomize files run so far, shared by every copy of this one that runs
    (a chained copy is a new module object, so its own globals would not do)."""
    try:
        from torchdoctor.surfaces import autoload
        return autoload.RAN
    except Exception:  # noqa: BLE001 - torchdoctor could not be loaded: this copy's own set
        return set()


def _next():
    """The spec of the sitecustomize this one shadows, or None."""
    import os
    import sys
    from importlib.machinery import PathFinder
    ran = _ran()
    ran.add(_identity(__file__))
    here = _identity(os.path.dirname(os.path.abspath(__file__)))
    entries = [p for p in sys.path if isinstance(p, str)]
    mine = [i for i, p in enumerate(entries) if _identity(os.path.abspath(p or os.curdir)) == here]
    for entry in entries[mine[0] + 1:] if mine else entries:
        spec = PathFinder.find_spec("sitecustomize", [entry])
        if spec is None or not spec.origin or spec.loader is None:
            continue
        key = _identity(spec.origin)
        if key in ran:
            continue
        ran.add(key)
        return spec
    return None


try:
    _install()
except Exception as _e:  # noqa: BLE001 - never break the interpreter's start-up
    import sys as _sys
    _sys.stderr.write("torchdoctor: the exception hook was not installed (%s: %s)\n" % (type(_e).__name__, _e))

try:
    _spec = _next()
except Exception:  # noqa: BLE001 - finding nothing to chain to must not break start-up either
    _spec = None
if _spec is not None:
    # Errors of that sitecustomize are reported by site.py as if it had been imported itself.
    import importlib.util as _util
    _spec.loader.exec_module(_util.module_from_spec(_spec))
