"""torchdoctor: diagnose PyTorch environments and explain PyTorch errors."""

__version__ = "0.1.0"
__all__ = ["check", "explain_text", "__version__"]


def __getattr__(name):
    # Lazy, so `torchdoctor explain` does not pay for the probe's imports at start-up.
    # (Not `explain`: that name is the torchdoctor.explain subpackage.)
    if name in ("check", "explain_text"):
        from . import api
        return getattr(api, name)
    raise AttributeError("module 'torchdoctor' has no attribute %r" % name)
