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


@hook("unexpanded-variable")
def unexpanded_variable(match, facts: Facts) -> Optional[Tailored]:
    """Name the placeholder the requirement still holds, in the form pip expands and in the
    command that sets it."""
    groups = match_groups(match)
    var, ph = groups.get("var"), groups.get("ph") or ""
    if not var:
        return None
    name = var.upper()
    value = "cpu" if name in _VARIANT_VARS else "<value>"
    notes = ["the requirement %s still holds %s" % (groups.get("req", "").strip(), ph)]
    if ph == "${%s}" % var and var == name:
        return Tailored(summary="Set %s before pip reads the requirement (`export %s=%s`), or write the value into "
                                "the requirement in its place." % (var, var, value),
                        commands=["export %s=%s" % (var, value), "pip install -r requirements.txt"], notes=notes)
    return Tailored(summary="pip never expands %s: write it as ${%s} (braces, uppercase) and set %s, or write the "
                            "value into the requirement." % (ph, name, name),
                    commands=["export %s=%s" % (name, value), "pip install -r requirements.txt"], notes=notes)


# Placeholders setup scripts use for torch's variant (+cpu, +cu121...): "cpu" always exists.
_VARIANT_VARS = ("DEVICE", "CUDA", "CUDA_VERSION", "CU", "CUDA_TAG", "VARIANT", "COMPUTE_PLATFORM", "TORCH_VARIANT")
