"""DeepSpeed's accelerator choice: DS_ACCELERATOR, and whether this torch can see a GPU at all.
"""

from typing import Optional

from ..model import derived as F
from ..model.facts import Facts
from .cpu_only_build import tailor_cpu_only_build
from .registry import Tailored, hook, match_groups


@hook("deepspeed-accelerator")
def deepspeed_accelerator(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    chosen = F.env(facts, "DS_ACCELERATOR")
    if g.get("plugin"):
        if chosen:
            return Tailored(summary="DS_ACCELERATOR=%s is set here and asks for %s, which is not importable: unset it "
                                    "to let DeepSpeed detect the GPU, or install the vendor's PyTorch plugin."
                                    % (chosen, g["plugin"]),
                            commands=[F.unset_env_cmd(facts, "DS_ACCELERATOR")],
                            notes=["DS_ACCELERATOR=%s" % chosen])
        return Tailored(summary="DS_ACCELERATOR is not set here, so the failing process got it from its launcher, job "
                                "script or container: remove it there, or install %s." % g["plugin"],
                        notes=["DS_ACCELERATOR is not set here"])
    if chosen and chosen != "cuda":
        return Tailored(summary="DS_ACCELERATOR=%s is set here: DeepSpeed uses that instead of detecting the GPU; "
                                "set it to cuda or unset it." % chosen,
                        commands=[F.set_env_cmd(facts, "DS_ACCELERATOR", "cuda")], notes=["DS_ACCELERATOR=%s" % chosen])
    if F.is_cuda_build(facts) is False and F.os_name(facts) != "macos":
        return tailor_cpu_only_build(match, facts)
    visible = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1"):
        return Tailored(summary="CUDA_VISIBLE_DEVICES=%r hides every GPU from this process: unset it or list the GPUs."
                                % visible, commands=[F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES")],
                        notes=["CUDA_VISIBLE_DEVICES=%r" % visible])
    if F.is_cuda_build(facts) and F.torch_gpus(facts):
        return Tailored(summary="This torch is a CUDA build and sees %d GPU(s) here, so the process that printed the "
                                "warning could not (a Ray worker or job step started without GPUs, another "
                                "interpreter): give that process its GPUs, or set DS_ACCELERATOR=cuda there."
                                % len(F.torch_gpus(facts)),
                        notes=["torch %s sees %s" % (F.torch_version_str(facts), F.gpu_names(facts))])
    return None
