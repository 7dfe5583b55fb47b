"""The GPU's compute capability against the architectures torch was built for.
"""

import re
from typing import Dict, Optional, Tuple

from ...advice import install_advice, installable_releases, unavailable_reason
from ...model import versions as V
from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat
from ..registry import ERROR, Remedy, Tailored, rule, finding, hook, installed_torch_note, match_groups
from ...advice import INSTALL_URL
from .common import other_env_note



def arch_remedy(facts: Facts, cap: Tuple[int, int]) -> Remedy:
    """The torch build that has kernels for a GPU of capability `cap`, for this machine: a
    variant of the installed release (the newest one this driver also runs), else the newest
    release with a wheel for this Python and platform that has them, else a source build."""
    os_, drv = F.os_name(facts), F.driver_version(facts)
    base = F.torch_base_version(facts)
    sm, fam = "sm_%d%d" % cap, compat.gpu_family(cap)
    variants = compat.variants_supporting_cc(base, cap) if base else []
    if variants:
        pick = max(variants, key=lambda v: V.release(compat.cuda_of_variant(v)))
        if drv:  # prefer the newest variant this driver also runs
            ok = [v for v in variants if compat.driver_supports_cuda(drv, compat.cuda_of_variant(v), os_) is not False]
            pick = max(ok, key=lambda v: V.release(compat.cuda_of_variant(v))) if ok else pick
        summary = "Install the %s build of torch %s: its kernels run on %s." % (pick, base, sm)
        if drv and compat.driver_supports_cuda(drv, compat.cuda_of_variant(pick), os_) is False:
            summary += " It needs NVIDIA driver >= %s (you have %s): update the driver first." % (
                F.driver_floor(compat.cuda_of_variant(pick), os_), drv)
        return Remedy(summary, install_advice(facts, version=base, variant=pick).commands)
    usable = compat.newest_release_supporting_cc(cap, drv, os_, releases=installable_releases(facts))
    newest = usable or compat.newest_release_supporting_cc(cap, drv, os_)
    if not newest:
        return Remedy("None of the torch releases whose architecture lists torchdoctor knows supports %s: use an older "
                      "release that still shipped it (see https://pytorch.org/get-started/previous-versions/) or build "
                      "torch from source with TORCH_CUDA_ARCH_LIST=%d.%d." % ((sm,) + cap))
    minor, variant = newest
    version = compat.latest_patch(minor) or minor
    runs = compat.driver_supports_cuda(drv, compat.cuda_of_variant(variant), os_) if drv else None
    older = base and V.release(minor) < V.release(".".join(base.split(".")[:2]))
    summary = ("No build of torch %s supports %s%s. The newest release that does%s is torch %s (%s)"
               % (base or "(installed)", sm, " (%s)" % fam if fam else "", " and runs on driver %s" % drv if runs else "",
                  version, variant))
    if not usable:
        return Remedy(summary + ", but %s. Use an interpreter that release supports, or build torch from source with "
                      "TORCH_CUDA_ARCH_LIST=%d.%d." % ((unavailable_reason(facts, version),) + cap))
    summary += (": this GPU is too old for newer releases, so stay on it (or build from source with "
                "TORCH_CUDA_ARCH_LIST=%d.%d)." % cap) if older else "."
    if runs is False:
        summary += " It needs NVIDIA driver >= %s (you have %s): update the driver first." % (
            F.driver_floor(compat.cuda_of_variant(variant), os_), drv)
    return Remedy(summary, install_advice(facts, version=version, variant=variant).commands)


@rule("check", "arch-unsupported", category="arch-unsupported", severity=ERROR,
       # On a machine without a visible GPU (where the error was pasted from elsewhere, or the
       # driver is gone) it says that it cannot verify there, instead of failing as if the fix had not worked.
       verify=('python -c "import torch; print(torch.ones(1, device=\'cuda\').sum().item() if torch.cuda.is_available() '
               'else \'not verifiable here: torch sees no CUDA device; run this where the error happened\')"', '1.0'))
def arch_unsupported(facts):
    """A GPU whose compute capability this torch build has no kernels for."""
    if not F.is_cuda_build(facts):
        return None
    arch, where = F.arch_list(facts)
    if not arch:
        return None
    out = []
    seen = set()
    for g in F.all_gpus(facts):
        cap = F.capability(g)
        if not cap or compat.cc_supported_by(arch, cap) or (g.get("name"), cap) in seen:
            continue
        seen.add((g.get("name"), cap))
        sm, fam = "sm_%d%d" % cap, compat.gpu_family(cap)
        remedy = arch_remedy(facts, cap)
        out.append(finding(
            "%s (%s%s) is not supported by torch %s" % (g.get("name", "GPU"), sm, ", " + fam if fam else "", F.torch_version_str(facts)),
            detail="This build has kernels for %s (from %s); a %s GPU needs %s (or PTX for an older arch), so CUDA ops "
                   "fail with 'no kernel image is available for execution on the device'." % (" ".join(arch), where, sm, sm),
            fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL]))
    return out


def _cap_from_groups(groups: Dict[str, str]) -> Optional[Tuple[int, int]]:
    sm = groups.get("sm")
    if sm and sm.isdigit() and len(sm) >= 2:
        return int(sm[:-1]), int(sm[-1])
    cap = groups.get("cap")
    m = re.fullmatch(r"(\d{1,2})\.(\d{1,2})", cap or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


_GPU_IN_TEXT = (
    re.compile(r"Found GPU ?\d{1,2} (?P<gpu>[\w .()/-]{1,80}?) which is of (?:cuda|compute) capability (?:\(CC\) )?"
               r"(?P<cap>\d{1,2}\.\d{1,2})"),
    re.compile(r"(?P<gpu>\w[\w .()/-]{0,60}) with CUDA capability sm_(?P<sm>\d{2,3}) is not compatible"),
)


def _gpu_from_text(text: str) -> Dict[str, str]:
    """GPU name and capability from the matched line when the best pattern had no groups."""
    for rx in _GPU_IN_TEXT:
        m = rx.search(text or "")
        if m:
            return {k: v for k, v in m.groupdict().items() if v}
    return {}


@hook("arch-unsupported")
def tailor_arch_unsupported(match, facts: Facts) -> Optional[Tailored]:
    groups = dict(_gpu_from_text(getattr(match, "text", "")), **match_groups(match))
    arch, where = F.arch_list(facts)
    cap = _cap_from_groups(groups)
    name = (groups.get("gpu") or "").strip()
    if cap is None:
        # No capability in the message: use the GPUs of this machine the build cannot run on.
        for g in F.all_gpus(facts):
            c = F.capability(g)
            if c and (arch is None or not compat.cc_supported_by(arch, c)):
                cap, name = c, g.get("name", "GPU")
                if arch is not None:
                    break
        if cap is None or arch is None:
            return None
    sm = "sm_%d%d" % cap
    fam = compat.gpu_family(cap)
    notes = installed_torch_note(facts) + ["GPU: %s %s%s" % (name or "GPU", sm, " (%s)" % fam if fam else "")]
    if arch:
        notes.append("kernels in this build (%s): %s" % (where, " ".join(arch)))
        if compat.cc_supported_by(arch, cap):
            return Tailored(
                summary="This build does include kernels that run on %s (%s): the message is a false alarm of torch's "
                        "capability check for this GPU (compare torch.cuda.get_arch_list()). If CUDA ops really fail, look "
                        "for another cause, e.g. a custom extension built for other arches." % (sm, " ".join(arch)),
                commands=["python -c \"import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())\""],
                notes=notes)
    remedy = arch_remedy(facts, cap)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes,
                    cause=other_env_note(facts) if remedy.commands else None)
