"""Settings that change speed, memory or reproducibility: torch flags, threads and
environment variables (known errors of their own: kb/errors/config.json).

A fresh probe sees torch's defaults, so most of these only fire for settings changed by an
environment variable or read from a live process (the Python API's in-process probe).
Plain settings are reported as info with what they do; the ones that often cause trouble
are warnings.
"""

import re
from typing import List, Optional, Tuple

from ..model.facts import Facts
from ..model import derived as F
from ..kb import compat
from .registry import INFO, WARNING, Remedy, Tailored, rule, finding, hook



REPRO_URL = "https://docs.pytorch.org/docs/stable/notes/randomness.html"


TF32_URL = "https://docs.pytorch.org/docs/stable/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices"


CUBLAS_URL = "https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility"


THREADS_URL = "https://docs.pytorch.org/docs/stable/notes/cpu_threading_torchscript_inference.html"


# Heuristic, not a compatibility fact: "many cores" for the shm and torchrun checks.
MANY_CORES = 16


ALLOC_URL = "https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"


LAZY_URL = "https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#lazy-loading"


ALLOC_CONF_VARS = ("PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_ALLOC_CONF", "PYTORCH_HIP_ALLOC_CONF")


def _gpu_build(facts) -> bool:
    return F.is_cuda_build(facts) is True or F.is_rocm_build(facts)


def _not_cpu_only(facts) -> bool:
    """A GPU build, or one we cannot tell (torch did not import)."""
    return F.is_cuda_build(facts) is not False or F.is_rocm_build(facts)


def runtime_setting(facts, name):
    return facts.value("torch.runtime." + name)


@rule("check", "cudnn-benchmark", category="config", severity=INFO)
def cudnn_benchmark(facts):
    """torch.backends.cudnn.benchmark is on (autotuned convolution algorithms)."""
    if not _gpu_build(facts) or F.backend_value(facts, "cudnn", "benchmark") is not True:
        return None
    limit = F.backend_value(facts, "cudnn", "benchmark_limit")
    return finding(
        "cudnn.benchmark is on: convolution algorithms are autotuned per input shape",
        detail="torch.backends.cudnn.benchmark = True (default False). The first call with each new input shape times "
               "the available cuDNN algorithms and caches the fastest%s. Good for fixed input sizes (most CNN "
               "training); with varying shapes (dynamic resolution, variable sequence lengths) every new shape pays "
               "the search again, and the algorithm picked can differ between runs, so results are not bit-for-bit "
               "reproducible." % (" (trying up to %s algorithms, cudnn.benchmark_limit)" % limit if isinstance(limit, int) and limit else ""),
        fix="Keep it for fixed-shape workloads; set torch.backends.cudnn.benchmark = False for varying shapes or "
            "reproducible runs.", links=[REPRO_URL])


@rule("check", "cudnn-deterministic", category="config", severity=INFO)
def cudnn_deterministic(facts):
    """torch.backends.cudnn.deterministic is on (reproducible, possibly slower convolutions)."""
    if not _gpu_build(facts) or F.backend_value(facts, "cudnn", "deterministic") is not True:
        return None
    bench = F.backend_value(facts, "cudnn", "benchmark")
    return finding(
        "cudnn.deterministic is on: only deterministic cuDNN convolution algorithms are used",
        detail="torch.backends.cudnn.deterministic = True (default False) restricts cuDNN to algorithms that give the "
               "same result every run, which can be noticeably slower for some layer shapes.%s It covers cuDNN only; "
               "torch.use_deterministic_algorithms(True) covers the other nondeterministic ops."
               % (" cudnn.benchmark is also on; it now only chooses among deterministic algorithms." if bench is True else ""),
        fix="Keep it for reproducible experiments; turn it off (the default) for speed.", links=[REPRO_URL])


@rule("check", "cudnn-disabled", category="config", severity=WARNING)
def cudnn_disabled(facts):
    """torch.backends.cudnn.enabled is off: GPU convolutions and RNNs use slow fallbacks."""
    if not _gpu_build(facts) or F.backend_value(facts, "cudnn", "enabled") is not False:
        return None
    return finding(
        "cuDNN is switched off (torch.backends.cudnn.enabled = False)",
        detail="With cuDNN disabled, convolutions, batch norm and RNNs on the GPU run torch's native CUDA kernels, "
               "often several times slower, and cuDNN attention is not used. It is sometimes set to work around a "
               "cuDNN error or to get determinism.",
        fix="Remove `torch.backends.cudnn.enabled = False` unless it works around a specific cuDNN bug; for "
            "reproducibility use torch.backends.cudnn.deterministic = True instead.", links=[REPRO_URL])


@rule("check", "deterministic-algorithms", category="config", severity=INFO)
def deterministic_algorithms(facts):
    """torch.use_deterministic_algorithms(True) is in effect."""
    if runtime_setting(facts, "are_deterministic_algorithms_enabled") is not True:
        return None
    warn_only = runtime_setting(facts, "is_deterministic_algorithms_warn_only_enabled") is True
    return finding(
        "Deterministic algorithms are enforced%s" % (" (warn only)" if warn_only else ""),
        detail="torch.are_deterministic_algorithms_enabled() is True (default False): ops with a deterministic "
               "implementation use it (often slower: atomics-free scatter/index_add, no cuDNN autotuning), and ops "
               "without one %s." % ("emit a UserWarning" if warn_only else
                                   "raise `RuntimeError: ... does not have a deterministic implementation`"),
        fix="Keep it for reproducibility work; use torch.use_deterministic_algorithms(True, warn_only=True) to find "
            "offending ops without failing.", links=[REPRO_URL])


@rule("check", "cublas-workspace-config", category="config", severity=INFO)
def cublas_workspace_config(facts):
    """CUBLAS_WORKSPACE_CONFIG is set: what it does (and whether it parses)."""
    v = F.env(facts, "CUBLAS_WORKSPACE_CONFIG")
    if v is None:
        return None
    pairs = re.findall(r":(\d+):(\d+)", v)
    if not re.fullmatch(r"(?::\d+:\d+)+", v.strip()):
        return finding(
            "CUBLAS_WORKSPACE_CONFIG=%r cannot be parsed" % v, severity=WARNING,
            detail="The format is :SIZE_KiB:COUNT, repeatable (e.g. :4096:8). torch logs 'Could not parse "
                   "CUBLAS_WORKSPACE_CONFIG, using default workspace size' and cuBLAS ignores it, so it does not give "
                   "the determinism or memory limit it was meant for.",
            fix="Use :4096:8 (deterministic, 32 MiB) or :16:8 (deterministic, small).",
            commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], links=[CUBLAS_URL])
    parts = " + ".join("%s x %s KiB" % (c, s) for s, c in pairs)
    total = sum(int(s) * int(c) for s, c in pairs)
    notes = []
    if v.strip() in compat.cublas_deterministic_values():
        notes.append("This value makes cuBLAS results reproducible run to run, which "
                     "torch.use_deterministic_algorithms(True) relies on.")
    api = compat.backend_api("torch.backends.cuda.cublas_workspace_size") or {}
    tv, added = F.torch_version(facts), F.parse_version(api.get("added"))
    if tv and added and tv.release[:2] >= added.release[:2]:
        notes.append("In torch %s, torch.backends.cuda.cublas_workspace_size() takes precedence over this variable "
                     "when a script calls it." % F.torch_base_version(facts))
    if F.is_cuda_build(facts) is False and not F.is_rocm_build(facts):
        notes.append("This torch is not a CUDA build, so the variable has no effect here.")
    return finding(
        "CUBLAS_WORKSPACE_CONFIG=%s fixes cuBLAS's workspace at %s (%s KiB per handle)" % (v, parts, total),
        detail="cuBLAS gives each handle (one per device and stream) this workspace instead of sizing it itself. "
               + " ".join(notes),
        fix="Nothing to do if intended; unset it to let cuBLAS choose (faster, not bit-reproducible).",
        links=[CUBLAS_URL])


def _precision_changes(facts) -> List[Tuple[str, str]]:
    """(setting, what it means) for each float32-precision flag that differs from torch's default."""
    out: List[Tuple[str, str]] = []
    if _gpu_build(facts):
        if F.backend_value(facts, "cuda", "matmul.allow_tf32") is True:
            out.append(("torch.backends.cuda.matmul.allow_tf32 = True",
                        "float32 matmuls on Ampere and newer GPUs run in TF32 (10-bit mantissa): much faster, "
                        "relative error around 1e-3"))
        if F.backend_value(facts, "cuda", "matmul.fp32_precision") == "tf32":
            out.append(("torch.backends.cuda.matmul.fp32_precision = 'tf32'", "the same, through the newer API"))
        if F.backend_value(facts, "cudnn", "allow_tf32") is False:
            out.append(("torch.backends.cudnn.allow_tf32 = False",
                        "cuDNN convolutions run in full FP32 (default True): more exact, slower on Ampere and newer"))
        for op in ("conv", "rnn"):
            if F.backend_value(facts, "cudnn", op + ".fp32_precision") == "ieee":
                out.append(("torch.backends.cudnn.%s.fp32_precision = 'ieee'" % op,
                            "cuDNN %ss run in full FP32 (TF32 is allowed by default)" % ("convolution" if op == "conv" else "RNN")))
    prec = runtime_setting(facts, "get_float32_matmul_precision")
    if prec in ("high", "medium"):
        out.append(("torch.get_float32_matmul_precision() = %r" % prec,
                     "float32 matmuls may use %s (default 'highest')"
                     % ("TF32 or bfloat16x3" if prec == "high" else "bfloat16 internally")))
    g = facts.value("backends.fp32_precision")
    if g in ("tf32", "bf16"):
        out.append(("torch.backends.fp32_precision = %r" % g,
                    "the global default for every backend's float32 precision is reduced to %s" % g))
    for op in ("matmul", "conv", "rnn"):
        v = F.backend_value(facts, "mkldnn", op + ".fp32_precision")
        if v in ("tf32", "bf16"):
            out.append(("torch.backends.mkldnn.%s.fp32_precision = %r" % (op, v),
                        "oneDNN (CPU / Intel GPU) float32 %ss compute in %s" % (op, v)))
    override = F.env(facts, "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE")
    if override and override.strip().lower() not in F.ENV_FALSE:
        out.append(("TORCH_ALLOW_TF32_CUBLAS_OVERRIDE=%s" % override,
                    "by its name, forces TF32 for cuBLAS whatever the flags say (meaning not verified)"))
    return out


@rule("check", "fp32-precision", category="config", severity=INFO)
def fp32_precision(facts):
    """Float32 precision flags (TF32, matmul precision) that differ from torch's defaults."""
    changes = _precision_changes(facts)
    if not changes:
        return None
    return finding(
        "Float32 precision differs from torch's defaults: %s" % "; ".join(s for s, _ in changes),
        detail="\n".join("- %s: %s." % c for c in changes)
        + "\nReduced precision (TF32/bf16) speeds up training and inference with little effect on most models, but "
          "changes numerics: results differ from full FP32 and from machines without TF32.",
        fix="Keep it if intended. For exact float32: torch.set_float32_matmul_precision('highest') and "
            "torch.backends.cudnn.allow_tf32 = True/False as needed (newer torch: the fp32_precision attributes).",
        links=[TF32_URL])


def torch_threads(facts) -> Optional[int]:
    for path in ("torch.runtime.get_num_threads", "torch.parallel.get_num_threads"):
        v = facts.value(path)
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            return v
    return None


@rule("check", "thread-oversubscription", category="config", severity=WARNING)
def thread_oversubscription(facts):
    """More CPU threads requested than this process has cores."""
    usable = F.usable_cores(facts)
    if not usable:
        return None
    phys = F.physical_cores(facts)
    env_limit = min(x for x in (usable, phys) if x)
    over = []
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        n = F.env_int(facts, name)
        if n and n > env_limit:
            over.append("%s=%d" % (name, n))
    threads = torch_threads(facts)
    if threads and threads > usable:
        over.append("torch.get_num_threads() = %d" % threads)
    if not over:
        return None
    capped = bool(threads and threads <= usable)
    quota = facts.value("cpu.cgroup_cpu_limit")
    why = (" torch itself kept its intra-op pool at %d thread(s); other OpenMP/MKL users in the process (NumPy, SciPy, "
           "OpenCV) still follow the variable." % threads) if capped else ""
    if isinstance(quota, (int, float)) and F.logical_cores(facts) and quota < F.logical_cores(facts):
        why += (" The cgroup CPU quota (%g CPUs) is below the %d cores the host shows; OpenMP and MKL size their thread "
               "pools from the host's count, not the quota." % (quota, F.logical_cores(facts)))
    return finding(
        "CPU threads oversubscribed: %s on %d usable core(s)" % (", ".join(over), usable),
        severity=INFO if capped else None,
        detail="This process can use %d core(s) (%s).%s More compute threads than cores makes them time-slice and "
               "spin in OpenMP barriers, which slows CPU ops, and multiplies with DataLoader workers and several "
               "processes per machine." % (usable, F.cpu_limits_text(facts), why),
        fix="Set the thread count to the cores this process really has (in code: torch.set_num_threads(%d))." % env_limit,
        commands=[F.set_env_cmd(facts, "OMP_NUM_THREADS", str(env_limit))], links=[THREADS_URL])


@rule("check", "cuda-launch-blocking", category="config", severity=WARNING)
def cuda_launch_blocking(facts):
    """CUDA_LAUNCH_BLOCKING=1 is left on: every kernel launch waits for the GPU."""
    v = F.env(facts, "CUDA_LAUNCH_BLOCKING")
    if v is None or v.strip() != "1" or not _not_cpu_only(facts):
        return None
    return finding(
        "CUDA_LAUNCH_BLOCKING=1 is set: all GPU work runs synchronously",
        detail="It makes every kernel launch wait for completion, so a CUDA error is reported at the op that caused it "
               "(what torch suggests for debugging), but the CPU can no longer queue work ahead of the GPU: training "
               "and inference get much slower.",
        fix="Use it only while debugging a CUDA error; unset it for normal runs.",
        commands=[F.unset_env_cmd(facts, "CUDA_LAUNCH_BLOCKING")])


@rule("check", "no-cuda-memory-caching", category="config", severity=WARNING)
def no_cuda_memory_caching(facts):
    """PYTORCH_NO_CUDA_MEMORY_CACHING disables torch's CUDA caching allocator."""
    v = F.env(facts, "PYTORCH_NO_CUDA_MEMORY_CACHING")
    if v is None or v.strip().lower() in F.ENV_FALSE or not _not_cpu_only(facts):
        return None
    return finding(
        "PYTORCH_NO_CUDA_MEMORY_CACHING=%s: the CUDA caching allocator is off" % v,
        detail="Every tensor allocation and free goes straight to cudaMalloc/cudaFree, which synchronise the device: "
               "very slow. It is a debugging aid (memory checkers such as compute-sanitizer); memory statistics and "
               "PYTORCH_CUDA_ALLOC_CONF options no longer apply.",
        fix="Unset it outside debugging sessions.",
        commands=[F.unset_env_cmd(facts, "PYTORCH_NO_CUDA_MEMORY_CACHING")], links=[ALLOC_URL])


def _arch_entries(value: str) -> List[Tuple[int, int, bool]]:
    out = []
    for tok in re.split(r"[;\s,]+", value.strip()):
        m = re.fullmatch(r"(\d+)\.(\d+)[a-z]?(\+PTX)?", tok, re.I)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), bool(m.group(3))))
    return out


@rule("check", "torch-cuda-arch-list", category="config", severity=INFO)
def torch_cuda_arch_list(facts):
    """TORCH_CUDA_ARCH_LIST is set: it only affects CUDA extension builds."""
    v = F.env(facts, "TORCH_CUDA_ARCH_LIST")
    if v is None:
        return None
    entries = _arch_entries(v)
    missing = []
    if entries and len(entries) == len([t for t in re.split(r"[;\s,]+", v.strip()) if t]):
        for g in F.visible_gpus(facts):
            cap = F.capability(g)
            if not cap:
                continue
            ok = any((maj == cap[0] and mi <= cap[1]) or (ptx and (maj, mi) <= cap) for maj, mi, ptx in entries)
            if not ok:
                missing.append("%s (%d.%d)" % ((g.get("name", "GPU"),) + cap))
    return finding(
        "TORCH_CUDA_ARCH_LIST=%s only affects compiling CUDA extensions" % v,
        severity=WARNING if missing else None,
        detail="It picks the GPU architectures that torch.utils.cpp_extension (and pip installs that compile CUDA code: "
               "flash-attn, apex, custom ops) and source builds of torch generate code for. It does not change what "
               "the installed torch supports. When unset, extensions are built for the GPUs visible at build time."
               + (" It covers none of: %s, so extensions built now fail there with 'no kernel image is available'."
                  % ", ".join(missing) if missing else ""),
        fix="Nothing to do if intended%s." % ("; add the missing architectures, e.g. %s" % ";".join(
            sorted({m.rsplit("(", 1)[1].rstrip(")") for m in missing})) if missing else ""))


@rule("check", "cuda-module-loading-eager", category="config", severity=INFO)
def cuda_module_loading_eager(facts):
    """CUDA_MODULE_LOADING=EAGER: slower start-up and more GPU memory than lazy loading."""
    v = F.env(facts, "CUDA_MODULE_LOADING")
    if v is None or v.strip().upper() != "EAGER" or not _not_cpu_only(facts):
        return None
    return finding(
        "CUDA_MODULE_LOADING=EAGER: every kernel is loaded when CUDA starts",
        detail="Eager loading loads all kernels of torch's CUDA libraries at initialisation: start-up takes longer and "
               "each process uses more GPU memory for code it never runs. torch sets LAZY itself when the variable is "
               "unset (pytorch/pytorch#86509).",
        fix="Unset it unless a tool (some profilers/debuggers) needs eager loading.",
        commands=[F.unset_env_cmd(facts, "CUDA_MODULE_LOADING")], links=[LAZY_URL])


# -- expandable segments -----------------------------------------------------------------
# torch defines PYTORCH_C10_DRIVER_API_SUPPORTED for c10_cuda only `if(NOT WIN32)`
# (c10/cuda/CMakeLists.txt) and compiles every expandable-segment code path inside
# `#if !defined(USE_ROCM) && defined(PYTORCH_C10_DRIVER_API_SUPPORTED)`; elsewhere the
# setting is ignored with "expandable_segments not supported on this platform".
EXPANDABLE_URL = "https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf"


def expandable_segments_requested(facts: Facts) -> Optional[Tuple[str, str]]:
    """(variable, value) of the allocator setting that turns expandable segments on."""
    for var in ALLOC_CONF_VARS:
        v = F.env(facts, var) or ""
        if re.search(r"(?:^|,)\s*expandable_segments\s*:\s*[Tt]rue\b", v):
            return var, v
    return None


def expandable_segments_supported(facts: Facts) -> Optional[bool]:
    """Does this torch build have expandable segments? False on Windows and ROCm builds,
    True on Linux CUDA builds, None where torch or the OS is unknown."""
    if F.is_rocm_build(facts):
        return False
    if F.is_cuda_build(facts) is not True or facts.value("os.wsl") is True:
        return None  # WSL: the driver's virtual-memory API there is not documented either way
    return {"windows": False, "linux": True}.get(F.os_name(facts))


def _without_expandable(value: str) -> str:
    items = [i.strip() for i in value.split(",") if i.strip() and not i.strip().startswith("expandable_segments")]
    if not any(i.startswith("max_split_size_mb") for i in items):
        items.append("max_split_size_mb:256")
    return ",".join(items)


def expandable_segments_off_cmd(facts: Facts) -> str:
    """The command that turns expandable segments off, keeping the other allocator keys (the
    variable that asked for them, else PYTORCH_CUDA_ALLOC_CONF): for platforms whose driver lacks
    the virtual-memory calls they need (WSL, vGPU, MIG)."""
    asked = expandable_segments_requested(facts)
    var, value = asked if asked else ("PYTORCH_CUDA_ALLOC_CONF", "")
    items = [i.strip() for i in value.split(",") if i.strip() and not i.strip().startswith("expandable_segments")]
    return F.set_env_cmd(facts, var, ",".join(items + ["expandable_segments:False"]))


def fragmentation_remedy(facts: Facts) -> Remedy:
    """What fights allocator fragmentation with this torch build: expandable segments where
    they exist, max_split_size_mb where they do not (Windows, ROCm)."""
    if expandable_segments_supported(facts) is False:
        asked = expandable_segments_requested(facts)
        var = asked[0] if asked else ("PYTORCH_HIP_ALLOC_CONF" if F.is_rocm_build(facts) else "PYTORCH_CUDA_ALLOC_CONF")
        value = _without_expandable(asked[1]) if asked else "max_split_size_mb:256"
        return Remedy("This torch build (%s) has no expandable segments: the allocator ignores expandable_segments:True "
                      "with a warning. Against fragmentation set max_split_size_mb instead (blocks larger than it are "
                      "never split; try 128-512), before the process starts."
                      % ("ROCm" if F.is_rocm_build(facts) else "CUDA on Windows"),
                      [F.set_env_cmd(facts, var, value)])
    return Remedy("Enable expandable segments before the process starts: the allocator then grows segments instead of "
                  "leaving unusable gaps.",
                  [F.set_env_cmd(facts, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")])


@rule("check", "expandable-segments-unsupported", category="config", severity=WARNING,
       verify=('python -W error -c "import torch; torch.empty(1, device=\'cuda\')"',
               'no "expandable_segments not supported on this platform" (exit status 0)'))
def expandable_segments_unsupported(facts):
    """expandable_segments:True is set for a torch build that has no expandable segments (Windows, ROCm)."""
    asked = expandable_segments_requested(facts)
    if not asked or expandable_segments_supported(facts) is not False:
        return None
    remedy = fragmentation_remedy(facts)
    return finding(
        "%s=%s: this torch build ignores expandable_segments" % asked,
        detail="torch %s on %s: %s" % (F.torch_version_str(facts), F.os_name(facts), remedy.summary),
        fix="Replace expandable_segments:True by max_split_size_mb (keep the other keys).",
        commands=remedy.commands, links=[EXPANDABLE_URL])


@hook("expandable-segments-unsupported")
def tailor_expandable_segments(match, facts: Facts) -> Optional[Tailored]:
    supported = expandable_segments_supported(facts)
    notes = ["torch %s on %s" % (F.torch_version_str(facts), F.os_name(facts))] if F.torch_version_str(facts) else []
    if supported is False:
        remedy = fragmentation_remedy(facts)
        return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)
    if supported is True:
        return Tailored(summary="On this Linux CUDA build torch's allocator does use expandable segments. The warning "
                                "comes from code compiled outside torch's c10_cuda library (an extension such as DGL's "
                                "GraphBolt, or torch's own ProcessGroupNCCL before pytorch#137828), where the check always "
                                "answers false: harmless, nothing to change.", commands=[], notes=notes)
    return None
