"""Companions published for some operating systems only: where this machine is not one of them,
the remedy is another OS (WSL2, a container), not another version."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups


@hook("fbgemm-linux-only")
def fbgemm_linux_only(match, facts: Facts) -> Optional[Tailored]:
    """FBGEMM_GPU has Linux x86_64 wheels only: elsewhere say so; there, the installed torch's index."""
    pkg = match_groups(match).get("pkg") or "fbgemm-gpu"
    os_, machine = F.os_of(facts), F.machine(facts)
    if os_ == "windows":
        return Tailored(cause="This is Windows, for which %s publishes no wheel." % pkg,
                        summary="Use WSL2 (or a Linux container) and install torch and fbgemm-gpu there, from one "
                                "PyTorch index.", commands=["wsl --install -d Ubuntu"])
    if os_ == "macos":
        return Tailored(cause="This is macOS, for which %s publishes no wheel." % pkg,
                        summary="Use a Linux x86_64 machine or container for TorchRec and fbgemm-gpu (on Apple silicon "
                                "an x86_64 image: docker run --platform linux/amd64).")
    if os_ != "linux":
        return None
    if machine and machine not in ("x86_64", "amd64"):
        return Tailored(cause="This is Linux on %s: %s publishes x86_64 wheels only." % (machine, pkg),
                        summary="Use an x86_64 machine, or build FBGEMM_GPU from source for this CPU.")
    torch = F.torch_base_version(facts)
    if not torch:
        return None
    # The wheel of the installed torch's variant: its index for a +cpu/+cuXXX build, PyPI's for a plain one.
    tag = F.local_tag(facts)
    where = " --index-url https://download.pytorch.org/whl/%s" % tag if tag else ""
    return Tailored(cause="This is Linux x86_64, which FBGEMM_GPU supports: each of its releases is built for one torch "
                          "release and CUDA variant, and for a range of Python versions.",
                    summary="Install the fbgemm-gpu release made for torch %s (FBGEMM's release notes pair them) from "
                            "the index of the installed torch's variant; a Python outside that release's range has no "
                            "wheel either." % torch,
                    commands=[pip(facts, "install %s%s" % (pkg, where))],
                    notes=["installed torch: %s" % F.torch_version_str(facts)])
