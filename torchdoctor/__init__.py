"""torchdoctor: diagnose PyTorch environments and explain PyTorch errors."""

__version__ = "0.1.0"
