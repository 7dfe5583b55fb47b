"""Companions published for some operating systems only: where this machine is not one of them,
the remedy is another OS (WSL2, a container), not another version."""

from typing import Optional

from ...advice import install_advice
from ...advice.commands import pip
from ...model import derived as F
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups


@hook("fbgemm-linux-only")
def fbgemm_linux_only(match, facts: Facts) -> Optional[Tailored]:
    """FBGEMM_GPU has Linux wheels only: off Linux say so; on Linux the same index as torch."""
    pkg = match_groups(match).get("pkg") or "fbgemm-gpu"
    os_ = F.os_of(facts)
    if os_ == "windows":
        return Tailored(cause="This is Windows, for which %s publishes no wheel." % pkg,
                        summary="Use WSL2 (or a Linux container) and install torch and fbgemm-gpu there, from one "
                                "PyTorch index.", commands=["wsl --install -d Ubuntu"])
    if os_ == "macos":
        return Tailored(cause="This is macOS, for which %s publishes no wheel." % pkg,
                        summary="Use a Linux machine or container (docker run with a Linux image) for TorchRec and "
                                "fbgemm-gpu.")
    if os_ == "linux":
        # Linux has the wheels: the one asked for is not of this torch's index or Python
        index = next((c.split("--index-url ", 1)[1].split()[0] for c in install_advice(facts).commands
                      if "--index-url " in c), None)
        tag = F.local_tag(facts)
        if tag and not index:
            index = "https://download.pytorch.org/whl/%s" % tag
        if not index:
            return None
        return Tailored(cause="This is Linux, which FBGEMM_GPU supports: its wheels are built per torch release and "
                              "CUDA variant and served from PyTorch's index, beside the torch of that index.",
                        summary="Install fbgemm-gpu from the index of the installed torch's variant.",
                        commands=[pip(facts, "install %s --index-url %s" % (pkg, index))])
    return None
