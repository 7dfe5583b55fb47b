"""GPUs that exist but that torch cannot see or use: CUDA_VISIBLE_DEVICES, containers,
CUDA unknown errors, checkpoints saved on a GPU and loaded where there is none.
"""

from typing import Optional, Tuple

from ...advice import install_advice
from ...model.facts import UNKNOWN, Facts
from ...model import derived as F
from ..registry import ERROR, INFO, WARNING, Remedy, Tailored, rule, finding, hook, installed_torch_note, entry_id_of
from .common import hip_reading
from ..cpu_only_build import rocm_on_nvidia, tailor_cpu_only_build


def _valid_entry(entry: str, n_gpus: int, uuids=()) -> bool:
    """An entry CUDA accepts: an index below the GPU count, or a GPU-/MIG- UUID (prefix) of a GPU
    the driver lists (any such UUID when the driver's list is not known)."""
    if entry.isdigit():
        return not n_gpus or int(entry) < n_gpus
    if not entry.upper().startswith(("GPU-", "MIG-")):
        return False
    known = [u.upper() for u in uuids if isinstance(u, str) and u]
    return not known or entry.upper().startswith("MIG-") or any(u.startswith(entry.upper()) for u in known)


def hiding_remedy(facts: Facts, cvd: str, n_gpus: int) -> Optional[Tuple[str, bool, Remedy]]:
    """(title, hides every GPU?, remedy) when CUDA_VISIBLE_DEVICES hides GPUs by mistake:
    empty, negative, or with an entry that names no GPU. CUDA reads the list up to its first
    invalid entry, so a bad entry in front hides every GPU, one further back those after it."""
    ids = [x.strip() for x in cvd.split(",")]
    ids = [] if ids == [""] else ids
    existing = ",".join(str(i) for i in range(n_gpus)) or "0"
    if not ids or ids[0].startswith("-") or ids[0].lower() in ("none", "void"):
        return ("CUDA_VISIBLE_DEVICES=%r hides all %d GPU(s) from torch" % (cvd, n_gpus), True,
                Remedy("CUDA_VISIBLE_DEVICES=%r hides every GPU from this process: unset it or list the GPUs to use, "
                       "before the process first touches CUDA." % cvd,
                       [F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES"), F.set_env_cmd(facts, "CUDA_VISIBLE_DEVICES", "0")]))
    uuids = [g.get("uuid") for g in F.driver_gpus(facts)]
    first_bad = next((i for i, x in enumerate(ids) if not _valid_entry(x, n_gpus, uuids)), None)
    if first_bad is None:
        return None
    bad = [x for x in ids[first_bad:] if not _valid_entry(x, n_gpus, uuids)]
    sees = "torch sees none" if first_bad == 0 else "torch sees only %s" % ",".join(ids[:first_bad])
    return ("CUDA_VISIBLE_DEVICES=%s names GPUs that do not exist" % cvd, first_bad == 0,
            Remedy("CUDA_VISIBLE_DEVICES=%s names GPU %s, but this machine has %s. CUDA stops at the first invalid entry "
                   "(%s), so %s: use existing indices (or GPU UUIDs from `nvidia-smi -L`)."
                   % (cvd, ", ".join(bad), "only GPU 0..%d" % (n_gpus - 1) if n_gpus else "no such GPU",
                      ids[first_bad], sees),
                   ["nvidia-smi -L", F.set_env_cmd(facts, "CUDA_VISIBLE_DEVICES", existing)]))


@rule("check", "gpu-hidden", category="gpu-hidden", severity=ERROR, requires=('driver.gpus',),
       verify=('python -c "import torch; print(torch.cuda.device_count())"', 'the number of GPUs this job should see'))
def gpu_hidden(facts):
    """The driver sees GPUs that CUDA_VISIBLE_DEVICES (or the container) hides from torch."""
    n_driver = len(F.driver_gpus(facts))
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    nvd = F.env(facts, "NVIDIA_VISIBLE_DEVICES")
    n_torch = facts.value("cuda.device_count")
    if cvd is not None and n_driver:
        hidden = hiding_remedy(facts, cvd, n_driver)
        if hidden and hidden[1]:  # a later bad entry only shortens the list: the masking note below says so
            title, _, remedy = hidden
            return finding(title, detail="The driver sees %s. %s" % (F.gpu_names(facts), remedy.summary),
                           fix="Unset it, or list GPUs that exist (it must be set before the process first touches CUDA).",
                           commands=remedy.commands)
        if isinstance(n_torch, int) and n_torch < n_driver and cvd.strip():
            return finding(
                "torch sees %d of the %d GPUs (CUDA_VISIBLE_DEVICES=%s)" % (n_torch, n_driver, cvd), severity=INFO,
                detail="This is deliberate masking; cuda:0 is the first *listed* GPU, not physical GPU 0.",
                fix="Nothing to do if intended.")
    if cvd is not None and not n_driver and F.is_cuda_build(facts):
        hides = _hides_all_without_driver(facts, cvd)
        if hides:
            return hides
    if nvd is not None and nvd.strip().lower() in ("void", "none", ""):
        return finding(
            "NVIDIA_VISIBLE_DEVICES=%r: the container runtime exposes no GPU" % nvd, severity=WARNING,
            detail="The NVIDIA container runtime reads NVIDIA_VISIBLE_DEVICES; 'void', 'none' or empty mount no GPU.",
            fix="Start the container with GPUs.", commands=["docker run --gpus all ..."])
    return None


def _hides_all_without_driver(facts: Facts, cvd: str):
    """A CUDA build, no driver visible, and CUDA_VISIBLE_DEVICES set so that torch would see no
    GPU even with one: a finding of its own (the job that sets it may run where the driver is)."""
    hidden = hiding_remedy(facts, cvd, 0)
    seen = facts.value("cuda.device_count")
    if hidden and hidden[1]:
        title, remedy = hidden[0].replace(" all 0 GPU(s)", " every GPU"), hidden[2]
    elif cvd.strip() and seen == 0:
        title = "CUDA_VISIBLE_DEVICES=%s and torch sees no GPU" % cvd
        remedy = Remedy("CUDA_VISIBLE_DEVICES=%s: torch (a CUDA build) sees no GPU, and no NVIDIA driver is visible to "
                        "tell whether GPU %s exists; unset it to let CUDA pick from every GPU." % (cvd, cvd),
                        [F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES")])
    else:
        return None
    return finding(title, severity=WARNING,
                   detail="torch %s is a CUDA build; no NVIDIA driver is visible here either, but with this value "
                          "CUDA would hide every GPU even where one is. %s" % (F.torch_version_str(facts) or "",
                                                                              remedy.summary),
                   fix="Unset it (or list GPUs that exist where the job runs), before the process first touches CUDA.",
                   commands=[F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES")])


@hook("gpu-hidden")
def gpu_visibility(match, facts: Facts) -> Optional[Tailored]:
    if F.is_rocm_build(facts) and entry_id_of(match) == "no-cuda-gpus-available" and F.os_name(facts) != "windows":
        # A ROCm build says CUDA for HIP: no NVIDIA driver or CUDA_VISIBLE_DEVICES reading applies,
        # HIP found no AMD GPU it may open (one place for that fix: the HIP entry, whose commands are Linux's).
        return hip_reading(facts, "no-hip-gpus-available",
                           "so 'No CUDA GPUs are available' means HIP found no AMD GPU this process may use.",
                           installed_torch_note(facts))
    gpus = F.driver_gpus(facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if not gpus and cvd is None:
        return None
    notes = []
    if gpus:
        notes.append("the driver sees %d GPU(s): %s" % (len(gpus), ", ".join("%d: %s" % (i, F.gpu_desc(g)) for i, g in enumerate(gpus))))
    if cvd is not None:
        notes.append("CUDA_VISIBLE_DEVICES=%r" % cvd)
        hidden = hiding_remedy(facts, cvd, len(gpus))
        if hidden:
            return Tailored(summary=hidden[2].summary, commands=hidden[2].commands, notes=notes)
        ids = [x.strip() for x in cvd.split(",") if x.strip()]
        if ids:
            return Tailored(summary="With CUDA_VISIBLE_DEVICES=%s the process sees %d GPU(s), renumbered from 0: use "
                                    "'cuda:0'..'cuda:%d' (not the physical numbers), and start at most %d ranks per node."
                                    % (cvd, len(ids), len(ids) - 1, len(ids)),
                            commands=["nvidia-smi -L"], notes=notes)
    return Tailored(summary="This machine has %d GPU(s), so valid devices are 'cuda:0'..'cuda:%d'. Use an index below %d in the "
                            "code/config (and --nproc_per_node <= %d), or pick GPUs with CUDA_VISIBLE_DEVICES before start."
                            % (len(gpus), len(gpus) - 1, len(gpus), len(gpus)),
                    commands=["nvidia-smi -L", "python -c \"import torch; print(torch.cuda.device_count())\""], notes=notes)


@hook("cuda-unknown-error")
def cuda_unknown_error(match, facts: Facts) -> Optional[Tailored]:
    notes = [n for n in (F.driver_desc(facts),) if n]
    if facts.value("os.wsl") is True:
        return Tailored(summary="This is WSL: restart the WSL VM (and update the Windows NVIDIA driver if it persists).",
                        commands=["wsl --shutdown"], notes=notes + ["running under WSL"])
    if F.os_name(facts) == "windows":
        return Tailored(summary="On Windows, restart the machine; if it persists reinstall the NVIDIA driver (clean install).",
                        commands=["nvidia-smi"], notes=notes)
    if F.os_name(facts) != "linux":
        return None
    container = facts.value("os.container")
    if isinstance(container, str) and container:
        return Tailored(summary="This runs in a container (%s): reload nvidia_uvm on the *host* (or reboot it), then restart "
                                "the container; inside it, check that /dev/nvidia-uvm exists." % container,
                        commands=["ls -l /dev/nvidia-uvm*", "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"],
                        notes=notes + ["container: %s" % container])
    return None


@hook("deserialize-cuda")
def deserialize_cuda(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    drv = F.driver_desc(facts)
    if drv:
        notes.append(drv)
    if F.is_cuda_build(facts) is False and F.has_nvidia_driver(facts):
        adv = install_advice(facts)
        if adv.commands:
            return Tailored(summary="This machine has an NVIDIA GPU but torch is a CPU-only build (+%s): install a CUDA "
                                    "build to load the checkpoint onto the GPU (%s), or pass map_location='cpu'."
                                    % (F.local_tag(facts) or "cpu", adv.why), commands=adv.commands, notes=notes)
    if F.is_cuda_build(facts) and (F.has_nvidia_driver(facts) or facts.state("driver.present") == UNKNOWN):
        return None  # CUDA should work here (or nobody looked): the generic text applies
    if F.torch_version_str(facts):
        return Tailored(summary="There is no usable GPU here: load the checkpoint onto the CPU with "
                                "torch.load(path, map_location='cpu') (or map_location=torch.device('cpu')).",
                        notes=notes)
    return None


@hook("no-hip-gpus")
def no_hip_gpus(match, facts: Facts) -> Optional[Tailored]:
    """A ROCm torch that sees no GPU on a machine whose NVIDIA driver works is the wrong build, not
    a missing AMD GPU: the CUDA build's install, as the check says."""
    if not rocm_on_nvidia(facts):
        return None
    return tailor_cpu_only_build(match, facts)
