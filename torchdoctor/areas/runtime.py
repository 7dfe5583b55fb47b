"""Errors of a running program: CUDA out of memory, cuBLAS failures on GPUs torch has no
kernels for, dtype mismatches, cuBLAS determinism.
"""

import re
from typing import List, Optional, Tuple

from ..model import versions as V
from ..model.facts import Facts
from ..model import derived as F
from ..kb import compat
from ..advice import install_advice, newest_installable
from .registry import WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups, remedy_verify
from .config import (CUBLAS_URL, REPRO_URL, expandable_segments_off_cmd, expandable_segments_requested,
                     fragmentation_remedy, runtime_setting)
from .cpu_only_build import cpu_only_remedy
from .cuda.arch import tailor_arch_unsupported
from .cuda.common import hip_reading
from .rocm import hip_launch_failure



@rule("check", "determinism-cublas", category="determinism-cublas", severity=WARNING,
       verify=('python -c "import os; print(os.environ.get(\'CUBLAS_WORKSPACE_CONFIG\'))"', ':4096:8 or :16:8'))
def determinism_cublas(facts):
    """Deterministic algorithms on a CUDA build without a deterministic CUBLAS_WORKSPACE_CONFIG."""
    if F.is_cuda_build(facts) is not True or runtime_setting(facts, "are_deterministic_algorithms_enabled") is not True:
        return None
    if compat.cublas_env_required(F.torch_base_version(facts)) is not True:
        return None  # from 2.10 torch no longer demands the variable
    v = F.env(facts, "CUBLAS_WORKSPACE_CONFIG")
    if v is not None and v.strip() in compat.cublas_deterministic_values():
        return None
    warn_only = runtime_setting(facts, "is_deterministic_algorithms_warn_only_enabled") is True
    state = "is not set" if v is None else "is %r, not one of %s" % (v, " / ".join(compat.cublas_deterministic_values()))
    return finding(
        "Deterministic algorithms are on, but CUBLAS_WORKSPACE_CONFIG %s" % state,
        detail="torch %s with CUDA %s: cuBLAS matmuls are only reproducible with a fixed workspace configuration, so "
               "with torch.use_deterministic_algorithms(True) the first matmul on the GPU %s `RuntimeError: Deterministic "
               "behavior was enabled ... but this operation is not deterministic because it uses CuBLAS and you have "
               "CUDA >= 10.2`." % (F.torch_version_str(facts), F.torch_cuda(facts),
                                   "warns with" if warn_only else "raises"),
        fix="Set it before the process starts (it is read when cuBLAS initialises): :4096:8 (8 buffers of 4 MiB) or "
            ":16:8 (less memory, may be slower).",
        commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], links=[REPRO_URL, CUBLAS_URL])


_SIZE = r"(\d[\d.]{0,15}) ([KMGT]i?B|bytes)"


def _bytes(num: str, unit: str) -> Optional[float]:
    try:
        n = float(num)
    except ValueError:
        return None
    scale = {"bytes": 1, "B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4,
             "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}.get(unit)
    return n * scale if scale else None


def _find(pattern: str, text: str) -> Optional[float]:
    m = re.search(pattern, text)
    return _bytes(m.group(1), m.group(2)) if m else None


def _gib(n: float) -> str:
    return "%.2f GiB" % (n / 1024 ** 3)


@hook("cuda-oom")
def cuda_oom(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    tried = _find(r"Tried to allocate " + _SIZE, text)
    total = _find(r"total capacity of " + _SIZE, text) or _find(_SIZE + r" total capacity", text)
    free = _find(r"of which " + _SIZE + r" is free", text) or _find(_SIZE + r" free", text)
    spare = _find(_SIZE + r" is reserved by PyTorch but unallocated", text)
    others = re.findall(r"Process \d{1,10} has " + _SIZE + r" memory in use", text)
    notes = []
    if tried:
        notes.append("tried to allocate %s" % _gib(tried))
    if total:
        notes.append("GPU capacity %s, %s free" % (_gib(total), _gib(free) if free is not None else "?"))
    if spare:
        notes.append("%s reserved by PyTorch but unallocated" % _gib(spare))
    if not total:
        for g in F.all_gpus(facts):
            if isinstance(g.get("total_memory"), int):
                total = float(g["total_memory"])
                notes.append("GPU %s with %s" % (g.get("name", "?"), _gib(total)))
                break
    if tried and total and tried > total:
        return Tailored(summary="A single allocation of %s is larger than the whole GPU (%s): no allocator setting helps. "
                                "Shrink the work per step (batch size, resolution, sequence length), use float16/bfloat16, "
                                "gradient checkpointing, or offloading, or use a larger GPU." % (_gib(tried), _gib(total)),
                        # the entry's allocator setting would contradict the summary: show the GPU's size instead
                        commands=["nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv"], notes=notes)
    if others:
        held = sum(_bytes(n, u) or 0 for n, u in others)
        notes.append("%d other process(es) hold %s" % (len(others), _gib(held)))
        return Tailored(summary="Other processes hold %s of this GPU: stop them (or use another GPU) before blaming the model."
                                % _gib(held), commands=["nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"],
                        notes=notes)
    if spare and (not tried or spare >= tried or (total and spare > 0.2 * total)):
        remedy = fragmentation_remedy(facts)
        return Tailored(summary="%s is reserved by PyTorch but unused: the memory is fragmented. %s Or reduce the batch "
                                "size." % (_gib(spare), remedy.summary), commands=remedy.commands, notes=notes)
    if not notes:
        return None
    return Tailored(notes=notes)


@hook("quantized-offload")
def quantized_offload(match, facts: Facts) -> Optional[Tailored]:
    """What made device_map put bitsandbytes modules on the CPU: no GPU this torch can use, or
    one too small (or too full) for the model."""
    tf = F.package_release(facts, "transformers")
    # From 4.36 transformers refuses a process without a GPU before mapping, in other words: here
    # the GPU was seen, and too small or too full.
    gpu_seen = bool(tf and not V.older(tf, "4.36"))
    cpu_only = (F.is_cuda_build(facts) is False and not F.is_rocm_build(facts)
                and not (F.local_tag(facts) or "").startswith("xpu"))
    if cpu_only and not gpu_seen:
        first = ("torch %s here is a CPU-only build: device_map='auto' finds no GPU and puts every module on the "
                 "CPU, where bitsandbytes' 8-bit and 4-bit layers cannot run." % F.torch_version_str(facts))
        remedy = cpu_only_remedy(facts)
        if remedy is None or remedy.settled:  # no NVIDIA GPU here: the CPU build is right, the quantization is not
            return Tailored(summary=first + " Without an NVIDIA GPU, load the model unquantized (no load_in_8bit / "
                                            "load_in_4bit) or run it where there is one.", notes=installed_torch_note(facts))
        return Tailored(summary=first + " " + remedy.summary, commands=remedy.commands or None,
                        notes=installed_torch_note(facts), verify=remedy_verify(remedy, facts))
    visible = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if visible is not None and visible.strip() in ("", "-1") and not gpu_seen:
        return Tailored(summary="CUDA_VISIBLE_DEVICES=%r hides every GPU from this process, so device_map='auto' has "
                                "only the CPU: unset it or list the GPUs." % visible,
                        commands=[F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES")], notes=["CUDA_VISIBLE_DEVICES=%r" % visible])
    sizes = [(g.get("name", "?"), g["total_memory"]) for g in F.all_gpus(facts) if isinstance(g.get("total_memory"), int)]
    if not sizes:
        return None
    name, largest = max(sizes, key=lambda s: s[1])
    return Tailored(summary="The largest GPU here (%s) has %s in all: the model at this precision, with what else the "
                            "process or other processes hold, needs more. Free the GPU (nvidia-smi lists who holds it), "
                            "load in 4-bit, or use a smaller model or a larger GPU." % (name, _gib(largest)),
                    notes=["GPU %s: %s" % (n, _gib(m)) for n, m in sizes])


@hook("cublas-not-supported")
def cublas_not_supported(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    bf16 = "16BF" in text or "bf16" in text.lower()
    old = [g for g in F.all_gpus(facts) if F.capability(g) and F.capability(g) < (8, 0)]
    if bf16 and (old or not F.all_gpus(facts)):
        notes = ["GPU: " + F.gpu_desc(g) for g in old] or ["the failing call uses bfloat16 (CUDA_R_16BF)"]
        return Tailored(
            summary="bfloat16 matrix multiplies need compute capability >= 8.0 (Ampere)%s. Run this model in float16 or "
                    "float32 (e.g. torch_dtype=torch.float16, autocast(dtype=torch.float16)), or on a newer GPU."
                    % (": %s is older" % F.gpu_desc(old[0]) if old else ""),
            commands=["python -c \"import torch; print(torch.cuda.get_device_capability(), torch.cuda.is_bf16_supported())\""],
            notes=notes)
    return tailor_arch_unsupported(match, facts)


@hook("cuda-launch-failure")
def cuda_launch_failure(match, facts: Facts) -> Optional[Tailored]:
    """On a ROCm build the words are HIP's launch failure: NVIDIA's driver and Xid advice cannot
    apply there."""
    if not F.is_rocm_build(facts):
        return None
    read = hip_reading(facts, "hip-unspecified-launch-failure",
                       "and 'unspecified launch failure' is HIP's hipErrorLaunchFailure: a kernel crashed on the AMD "
                       "GPU.", installed_torch_note(facts))
    own = hip_launch_failure(match, facts)  # what this machine's override variables say
    if own is None:
        return read
    return Tailored(cause=read.cause, summary=own.summary, commands=own.commands, notes=own.notes)


@hook("type-mismatch")
def type_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    inp, weight = g.get("input") or "", g.get("weight") or ""
    if not inp or not weight:
        return None
    # torch.cuda.FloatTensor (older releases) or CUDAFloatType/HIPBFloat16Type/MPSFloatType (Tensor::toString)
    on_gpu = lambda t: ".cuda." in t or t.startswith(("CUDA", "HIP", "MPS"))  # noqa: E731
    kind = lambda t: re.sub(r"^(?:CUDA|HIP|MPS|CPU)|Type$", "", t.rsplit(".", 1)[-1])  # noqa: E731
    notes = ["input is %s, weights are %s" % (inp, weight)]
    if on_gpu(inp) != on_gpu(weight):
        where = "GPU" if on_gpu(weight) else "CPU"
        return Tailored(summary="Device mismatch: the weights are on the %s, the input is not. Move the input to the "
                                "model's device (x = x.to(next(model.parameters()).device)), or the model to the input's."
                        % where, notes=notes)
    if kind(inp) != kind(weight):
        return Tailored(summary="Same device, different dtypes (%s vs %s): cast the input to the weights' dtype "
                                "(x.to(model.dtype)) or run under torch.autocast." % (kind(inp), kind(weight)), notes=notes)
    return None


@hook("determinism-cublas")
def cublas_workspace(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts)
    cfg = F.env(facts, "CUBLAS_WORKSPACE_CONFIG")
    if cfg is not None:
        notes.append("CUBLAS_WORKSPACE_CONFIG=%r in this environment" % cfg)
    if V.release(base)[:2] >= (2, 10):
        return Tailored(summary="torch %s no longer raises this (the check is gone from 2.10 on): the failing process runs an "
                                "older torch. Set the variable there, or upgrade it." % base,
                        commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)
    if cfg:
        return Tailored(summary="CUBLAS_WORKSPACE_CONFIG=%s is set in this shell, but the failing process did not get it (or got "
                                "it after CUDA initialised): set it in the launcher, job script or IDE run configuration that "
                                "starts the process, not via os.environ inside it." % cfg,
                        commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)
    return Tailored(summary="Set CUBLAS_WORKSPACE_CONFIG before the process starts (in the shell or the launcher; setting "
                            "os.environ after CUDA initialised is too late).",
                    commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)


@hook("native-crash")
def native_crash(match, facts: Facts) -> Optional[Tailored]:
    """The entry's commands are for Linux with an NVIDIA GPU: other platforms get their own."""
    os_ = F.os_name(facts)
    rocm = F.is_rocm_build(facts)
    if os_ not in ("windows", "macos") and not rocm:
        return None
    shown = "Fatal Python error" in (getattr(match, "text", "") or "")
    first = ("The faulthandler output in the paste names the Python line where it crashed." if shown else
             "Rerun with faulthandler to get the Python line where it crashed.")
    notes = installed_torch_note(facts)
    if os_ == "windows":
        return Tailored(summary=first + " Check the GPU driver (a recent update, or the previous release); then try a "
                                "fresh venv with torch and its companions from one index, and the other import order "
                                "for packages that bring their own native libraries.",
                        commands=["python -X faulthandler your_script.py", "nvidia-smi"], notes=notes)
    if os_ == "macos":
        return Tailored(summary=first + " Then try a fresh venv with torch and its companions from one source (pip or "
                                "conda, not both), and the other import order for packages that bring their own "
                                "native libraries.",
                        commands=["python -X faulthandler your_script.py",
                                  "lldb --batch -o run -o bt -- python your_script.py"], notes=notes)
    return Tailored(summary=first + " On this ROCm build check the AMD driver and ROCm release (rocm-smi, the kernel log), "
                            "then try a fresh venv with torch and its companions from one index and LD_LIBRARY_PATH/"
                            "LD_PRELOAD unset.",
                    commands=["python -X faulthandler your_script.py", "rocm-smi", "sudo dmesg | grep -i amdgpu",
                              "env -u LD_LIBRARY_PATH -u LD_PRELOAD python your_script.py"], notes=notes)


@hook("cufft-internal")
def cufft_internal(match, facts: Facts) -> Optional[Tailored]:
    """A build made with CUDA 11.7 or older on a GPU of capability 8.9 or newer is the cause; a newer
    build points at memory instead."""
    cuda = F.torch_cuda(facts)
    if not cuda or not V.release(cuda):
        return None
    notes = installed_torch_note(facts)
    new = [g for g in F.all_gpus(facts) if (F.capability(g) or (0, 0)) >= (8, 9)]
    old_build = V.release(cuda) < (11, 8)
    if old_build and new:
        notes += ["GPU: " + F.gpu_desc(g) for g in new]
        adv = install_advice(facts, version=newest_installable(facts))  # the installed release may be cu117-only
        cmds = list(adv.commands) if (adv.variant or "").startswith("cu") else []
        return Tailored(summary="This torch was built with CUDA %s, whose cuFFT does not support %s: install a build "
                                "made with CUDA 11.8 or newer. %s" % (cuda, F.gpu_desc(new[0]), adv.why or ""),
                        commands=cmds or None, notes=notes)
    if not old_build:
        notes.append("torch was built with CUDA %s (11.8 or newer: not the old-cuFFT cause)" % cuda)
        return Tailored(summary="This build's cuFFT supports current GPUs, so the likely cause is GPU memory nearly full "
                                "when cuFFT made its plan: leave headroom (a smaller batch or input) or set "
                                "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True; on an AMD GPU through ZLUDA, "
                                "use a ZLUDA release that provides cuFFT.",
                        commands=[F.set_env_cmd(facts, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")],
                        notes=notes)
    return None


@hook("cublas-failure")
def cublas_failure(match, facts: Facts) -> Optional[Tailored]:
    """cuBLAS failing outright is, on a GPU torch has no kernels for, the architecture's doing."""
    return tailor_arch_unsupported(match, facts)


# -- host memory -------------------------------------------------------------------------
def host_memory_remedy(facts: Facts, tried: Optional[float]) -> Tuple[Optional[str], List[str]]:
    """What this machine's RAM says about a failed host allocation of `tried` bytes: a
    sentence (None when the facts decide nothing) and the facts it rests on."""
    total, avail = facts.value("memory.total_bytes"), facts.value("memory.available_bytes")
    limit = facts.value("memory.cgroup_limit_bytes")
    total = total if isinstance(total, int) and not isinstance(total, bool) else None
    avail = avail if isinstance(avail, int) and not isinstance(avail, bool) else None
    limit = limit if isinstance(limit, int) and not isinstance(limit, bool) else None
    notes = ["tried to allocate %s" % _gib(tried)] if tried else []
    if total:
        notes.append("this machine: %s RAM, %s available now" % (_gib(total), _gib(avail) if avail is not None else "?"))
    if limit:
        notes.append("memory limit of this cgroup (container/job): %s" % _gib(limit))
    if tried and total and tried > total:
        return ("A single allocation of %s is larger than all of this machine's RAM (%s): no setting helps. Such a "
                "size usually comes from a wrong shape or a whole dataset materialised at once; process it in "
                "chunks, or check the shapes." % (_gib(tried), _gib(total))), notes
    if limit and total and limit < total:
        return ("This process runs under a memory limit of %s (a container's --memory, a Slurm --mem, a Kubernetes "
                "limit) although the machine has %s: raise the limit or make the job fit in it."
                % (_gib(limit), _gib(total))), notes
    if tried and avail is not None and tried > avail:
        return ("%s was requested but only %s of %s is available now: other processes hold the rest, or this one "
                "keeps too much in RAM. Close them, or reduce what the process keeps." % (_gib(tried), _gib(avail),
                                                                                        _gib(total or 0))), notes
    return None, notes


@hook("host-oom")
def host_oom(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    groups = match_groups(match)
    b = groups.get("bytes") or (re.search(r"allocate (\d{1,20}) bytes", text) or [None, None])[1]
    # torch 1.x's TH allocator said gigabytes, rounded down
    size = float(b) if b else (float(groups["gb"]) * 2 ** 30 if groups.get("gb") else None)
    summary, notes = host_memory_remedy(facts, size)
    if match.entry.id == "pinned-memory-alloc-failed" and facts.value("os.wsl") is True:
        notes.append("running under WSL2")
        summary = ("WSL2 limits page-locked (pinned) memory to a part of the RAM it gives the VM: set pin_memory=False, "
                   "or give WSL more memory (.wslconfig). " + (summary or ""))
    if summary is None and not notes:
        return None
    return Tailored(summary=summary, notes=notes)


def _mig(text: str, facts: Facts) -> Optional[str]:
    """Why this looks like a MIG slice: the message's device name, the visible devices, torch's GPUs."""
    if re.search(r"\bMIG \d{1,2}g\.\d{1,4}gb\b", text):
        return "the message names a MIG device"
    for var in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        if "MIG-" in (F.env(facts, var) or ""):
            return "%s names a MIG device" % var
    for g in F.all_gpus(facts):
        if " MIG " in str(g.get("name", "")):
            return "GPU %s is a MIG slice" % g.get("name")
    return None


@hook("oom-nvml")
def oom_nvml(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    if "nvmlInit" in text:
        return Tailored(summary="NVML itself failed to start: the NVIDIA driver was upgraded and the old kernel module "
                                "is still loaded (nvidia-smi says 'Driver/library version mismatch'). Reboot (or reload "
                                "the nvidia modules); the failing allocation behind it is an out-of-memory error.",
                        commands=["nvidia-smi", "cat /proc/driver/nvidia/version"], notes=[])
    mig = _mig(text, facts)
    if mig:
        return Tailored(summary="This is a MIG slice: NVML may not query the parent GPU from here, so an out-of-memory "
                                "error (or expandable segments) ends in this assert. The slice has only its own share "
                                "of memory: fit the work into it or use a larger slice, and turn expandable segments off.",
                        commands=[expandable_segments_off_cmd(facts), "nvidia-smi -L"], notes=[mig])
    if F.is_jetson(facts):
        return Tailored(summary="Jetson/Tegra has only partial NVML support: the error behind this assert is CUDA out of "
                                "memory in the memory the GPU shares with the CPU. Reduce the batch or model size, or "
                                "upgrade torch (newer releases print the plain out-of-memory error).",
                        notes=["Jetson (Tegra) device"])
    return None


@hook("cuda-driver-call")
def cuda_driver_call(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    status = (re.search(r"CUDA driver error: ([^\n]{1,80})", text) or [None, ""])[1].strip()
    notes = ["driver status: %s" % status] if status else []
    asked = expandable_segments_requested(facts)
    if asked:
        notes.append("%s=%s" % asked)
    if "out of memory" in status:
        return Tailored(summary="The driver ran out of GPU memory while the allocator mapped memory: treat it as CUDA out "
                                "of memory (smaller batch, other processes off the GPU).", notes=notes)
    platform = "WSL2" if facts.value("os.wsl") is True else None
    if asked or platform:
        return Tailored(summary="Expandable segments use CUDA's virtual-memory API, which %s does not fully provide: "
                                "turn them off and retry." % (platform or "this driver or GPU setup"),
                        commands=[expandable_segments_off_cmd(facts)], notes=notes + (["running under WSL2"] if platform else []))
    return None
