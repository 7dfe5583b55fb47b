"""Package indexes and channels torch is installed from: uv's index order, conda channels.
"""

from typing import Optional

from ..model.facts import Facts
from .registry import Tailored, hook, match_groups


@hook("conda-channels")
def conda_channels(match, facts: Facts) -> Optional[Tailored]:
    pkg = match_groups(match).get("pkg", "")
    if pkg == "torch":
        return Tailored(summary="`torch` is the pip name; conda calls the package `pytorch`. Better: install torch with "
                                "pip from the PyTorch wheel index inside this environment.",
                        notes=["the missing package is named `torch`"])
    if pkg in ("pytorch-cuda", "cudatoolkit"):
        return Tailored(cause="%s comes from the nvidia/pytorch channels and exists only for the CUDA versions those "
                              "channels published; the pytorch channel stopped after torch 2.5." % pkg,
                        notes=["the missing package is %s" % pkg])
    return None
