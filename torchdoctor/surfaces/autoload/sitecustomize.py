"""Installs torchdoctor's exception hook at start-up, for interpreters started with this
folder on PYTHONPATH (see torchdoctor/auto.py), then runs the sitecustomize it shadows.

Where torchdoctor is not importable from the program's own environment (installed with
pipx, say), it is loaded from this folder's package without adding anything to sys.path;
the diagnosis then needs its dependencies (packaging, psutil) there, and says so if not.
"""


def _load():
    import importlib.util
    import os
    import sys
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        import torchdoctor.auto  # noqa: F401
    except ImportError:
        pkg = os.path.dirname(os.path.dirname(here))
        spec = importlib.util.spec_from_file_location("torchdoctor", os.path.join(pkg, "__init__.py"),
                                                      submodule_search_locations=[pkg])
        if spec is not None and spec.loader is not None:
            mod = importlib.util.module_from_spec(spec)
            sys.modules["torchdoctor"] = mod
            spec.loader.exec_module(mod)
            import torchdoctor.auto  # noqa: F401,F811
    # The sitecustomize this one hides (a distribution's, a conda env's), if any.
    from importlib.machinery import PathFinder
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != here]
    spec = PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.origin and os.path.abspath(spec.origin) != os.path.abspath(__file__):
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)


try:
    _load()
except Exception as _e:  # noqa: BLE001 - never break the interpreter's start-up
    import sys as _sys
    _sys.stderr.write("torchdoctor: the exception hook was not installed (%s: %s)\n" % (type(_e).__name__, _e))
