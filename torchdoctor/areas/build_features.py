"""Backends and libraries a torch build was compiled without: which build has the feature,
and whether the installed torch is that build.
"""

from typing import Optional

from ..advice import install_advice
from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook, installed_torch_note, match_groups

_CUDA_FEATURES = ("cudnn", "nvtx", "magma", "cusolver", "green context")
_ROCM_FEATURES = ("hip", "aten_hip", "miopen")


@hook("torch-build-feature")
def torch_build_feature(match, facts: Facts) -> Optional[Tailored]:
    feature = (match_groups(match).get("feature") or "").lower()
    if not feature or not F.torch_version_str(facts):
        return None
    notes = installed_torch_note(facts)
    if any(feature.startswith(f) for f in _CUDA_FEATURES):
        if F.is_cuda_build(facts):
            return Tailored(summary="torch here is a CUDA build, which has %s: the message came from another torch "
                                    "(another interpreter, or a build from another channel)." % feature, notes=notes)
        adv = install_advice(facts)
        return Tailored(summary="torch %s is not a CUDA build, and %s exists only in the CUDA builds: install one."
                                % (F.torch_version_str(facts), feature),
                        commands=adv.commands or None, notes=notes)
    if any(feature.startswith(f) for f in _ROCM_FEATURES):
        if F.is_rocm_build(facts):
            return None
        return Tailored(summary="torch %s is not a ROCm build: HIP and MIOpen exist only in the ROCm wheels "
                                "(download.pytorch.org/whl/rocm*)." % F.torch_version_str(facts), notes=notes)
    if feature in ("torch_xla", "xla") and not F.package_installed(facts, "torch_xla"):
        return Tailored(summary="torch_xla is not installed: install the torch_xla release that matches torch %s "
                                "(XLA devices such as TPUs run only through it)." % F.torch_version_str(facts),
                        notes=notes + ["torch_xla is not installed"])
    return None
