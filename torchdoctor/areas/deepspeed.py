"""DeepSpeed's accelerator choice: DS_ACCELERATOR, and whether this torch can see a GPU at all.
"""

from typing import Optional

from ..advice.commands import pip, which_import
from ..model import derived as F
from ..model import versions as V
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


# deepspeed.init_distributed falls back to the host name's address when `hostname -I` fails
# from this release on (deepspeedai/DeepSpeed PR 6990).
DISCOVERY_FALLBACK = "0.16.4"


@hook("deepspeed-hostname")
def deepspeed_hostname(match, facts: Facts) -> Optional[Tailored]:
    """The launcher's message wants --master_addr whatever the version; the discovery crash of
    a script run without a launcher is gone from 0.16.4."""
    if match_groups(match).get("runner"):
        return Tailored(summary="The multi-node launcher asks the first host of the hostfile for its address with "
                                "`hostname -I`: pass --master_addr=<that node's IP> to deepspeed.")
    ds = F.package_release(facts, "deepspeed")
    falls_back = V.at_least(ds, DISCOVERY_FALLBACK) if ds else None
    if falls_back is None:
        return None
    notes = ["deepspeed %s" % ds]
    if match_groups(match).get("crash") is not None and falls_back:
        return Tailored(summary="deepspeed %s here no longer raises on `hostname -I`: the crash came from an older "
                                "deepspeed (another environment), or from a launcher's own lookup; start the script "
                                "with the deepspeed launcher or torchrun." % ds,
                        commands=[which_import(facts, "deepspeed")], notes=notes)
    if falls_back:
        return Tailored(summary="deepspeed %s here falls back to the host name's address when `hostname -I` fails: the "
                                "refusal it still prints is harmless, so the failure is elsewhere in the log (unless "
                                "the run used an older deepspeed from another environment)." % ds, notes=notes)
    return Tailored(summary="deepspeed %s runs `hostname -I` when a script calls init_distributed without a launcher: "
                            "start it with `deepspeed script.py` or torchrun, or upgrade deepspeed to 0.16.4 or later."
                            % ds, commands=[pip(facts, 'install "deepspeed>=0.16.4"')], notes=notes)
