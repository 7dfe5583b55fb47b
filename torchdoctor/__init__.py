"""torchdoctor: diagnose PyTorch environments and explain PyTorch errors."""

__version__ = "0.1.0"
__all__ = ["check", "explain_text", "fix_plan", "install", "uninstall", "__version__"]


def __getattr__(name):
    # Lazy, so `torchdoctor explain` does not pay for the probe's imports at start-up.
    # (Not `explain`: that name is the torchdoctor.match subpackage.)
    if name in ("check", "explain_text", "fix_plan"):
        from . import api
        return getattr(api, name)
    if name in ("install", "uninstall"):  # the exception hook (torchdoctor/surfaces/hook.py)
        from .surfaces import hook
        return getattr(hook, name)
    raise AttributeError("module 'torchdoctor' has no attribute %r" % name)


def load_ipython_extension(ipython):
    """`%load_ext torchdoctor`: the %torchdoctor magic and the diagnosis under tracebacks."""
    from .surfaces.ipython import load
    load(ipython)


def unload_ipython_extension(ipython):
    from .surfaces.ipython import unload
    unload(ipython)
