"""Kernels and dtypes that need a newer GPU than this one (FlashAttention, bfloat16, FP8,
sparse kernels): the GPU's compute capability decides whether the GPU is too old (nothing a
torch reinstall can fix), or newer than the library's build knows.
"""

import re
from typing import List, Optional, Tuple

from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook, match_groups

Cap = Tuple[int, int]

# What each entry's message needs when the text names no number itself.
_NEEDS_BY_ENTRY = {"flash-attn-needs-ampere": (8, 0), "bf16-needs-ampere": (8, 0)}
_NEEDS_BY_WORD = ((re.compile(r"SM100|Blackwell"), (10, 0)), (re.compile(r"Supported: 9\.x|Hopper"), (9, 0)),
                  (re.compile(r"FP8 mixed precision|fp8"), (8, 9)), (re.compile(r"Ampere"), (8, 0)),
                  (re.compile(r"\b53\b|5\.3"), (5, 3)))
_INSTEAD = {
    "flash-attn-needs-ampere": "use PyTorch's SDPA (attn_implementation=\"sdpa\"), xformers or eager attention and turn "
                               "the application's FlashAttention option off",
    "bf16-needs-ampere": "run in float16 or float32 (vLLM: --dtype=half; transformers: torch_dtype=torch.float16)",
}


def parse_cap(text: Optional[str]) -> Optional[Cap]:
    """'8.9' -> (8, 9); '8' (an '8.x' family) -> (8, 0); 'sm80'-style '80' / '121' -> (8, 0) / (12, 1)."""
    if not text:
        return None
    if "." in text:
        major, _, minor = text.partition(".")
        return (int(major), int(minor)) if major.isdigit() and minor.isdigit() else None
    if not text.isdigit():
        return None
    if len(text) == 1:
        return int(text), 0
    return int(text[:-1]), int(text[-1])


def needed_cap(match) -> Optional[Cap]:
    groups = match_groups(match)
    # "compute capability >= 9.0 or 8.9": the lowest one named is what the GPU needs
    named = [c for c in (parse_cap(groups.get("need")), parse_cap(groups.get("alt"))) if c]
    if named:
        return min(named)
    entry = getattr(match, "id", "")
    if entry in _NEEDS_BY_ENTRY and "Supported: 9.x" not in getattr(match, "text", ""):
        return _NEEDS_BY_ENTRY[entry]
    text = getattr(match, "text", "")
    return next((cap for rx, cap in _NEEDS_BY_WORD if rx.search(text)), None)


def _sm(cap: Cap) -> str:
    return "sm_%d%d" % cap


def _gpus_with_caps(facts: Facts) -> Tuple[List[Tuple[str, Cap]], List[str]]:
    """The GPUs whose compute capability is known, as (name, capability), and a note for each."""
    gpus = [(g.get("name") or "GPU", F.capability(g)) for g in F.all_gpus(facts)]
    gpus = [(n, c) for n, c in gpus if c]
    return gpus, ["%s is %s" % (n, _sm(c)) for n, c in gpus]


def kernel_gpu_remedy(facts: Facts, need: Optional[Cap], upper: Optional[Cap], entry: str) -> Optional[Tailored]:
    """The answer from the GPUs' compute capabilities: too old for the kernel, newer than the
    range a build knows, or all new enough (so the failing process saw another GPU)."""
    gpus, notes = _gpus_with_caps(facts)
    if not gpus or not need:
        return None
    old: List[Tuple[str, Cap]] = [(n, c) for n, c in gpus if c < need]
    if old:
        name, cap = old[0]
        instead = _INSTEAD.get(entry, "choose a path that does not need this kernel (another dtype or backend)")
        return Tailored(summary="%s is %s, older than the %s this kernel needs: the GPU cannot run it, and no torch "
                                "reinstall changes that. On this GPU, %s." % (name, _sm(cap), _sm(need), instead),
                        notes=notes)
    newer = [(n, c) for n, c in gpus if upper and c > upper]
    if newer:
        name, cap = newer[0]
        return Tailored(summary="%s is %s, newer than the %s this build's kernels go up to: upgrade to a torch (or library) "
                                "release built for %s." % (name, _sm(cap), _sm(upper), _sm(cap)), notes=notes)
    if entry == "flash-attn-needs-ampere" and all(c >= (10, 0) for _, c in gpus):
        return Tailored(summary="Every GPU here is %s or newer, which this FlashAttention build predates: upgrade "
                                "flash-attn (or the xformers/vLLM that bundles it) to a release built for this GPU."
                                % _sm(min(c for _, c in gpus)), notes=notes)
    return Tailored(summary="Every GPU here is %s or newer, so this GPU can run the kernel: the failing process used "
                            "another GPU (check CUDA_VISIBLE_DEVICES and which machine ran it)." % _sm(need),
                    notes=notes)


@hook("gpu-too-old-for-kernel")
def gpu_too_old_for_kernel(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    return kernel_gpu_remedy(facts, needed_cap(match), parse_cap(groups.get("hi")), getattr(match, "id", ""))


@hook("flash-attn-fallback")
def flash_attn_fallback(match, facts: Facts) -> Optional[Tailored]:
    """A model's notice that it uses SDPA instead of FlashAttention: the GPU generation says
    whether that is all it can do here, and the installed flash-attn whether its import failed."""
    torch_v = F.torch_version_str(facts) or "the installed torch"
    if F.is_cuda_build(facts) is False:
        # The model asks torch.cuda first: a CPU-only torch never tries FlashAttention.
        return Tailored(summary="torch %s is a CPU-only build, so the model runs on the CPU and never tries "
                                "FlashAttention: to use the GPU, install the CUDA build of torch first." % torch_v,
                        notes=["torch %s" % torch_v])
    gpus, notes = _gpus_with_caps(facts)
    if not gpus:
        return None
    name, cap = gpus[0]
    if cap < (8, 0):
        return Tailored(summary="%s is %s, older than the Ampere (sm_80) FlashAttention needs: the fallback to "
                                "scaled_dot_product_attention is all this GPU can do, and nothing needs fixing."
                                % (name, _sm(cap)), notes=notes)
    fa = F.package_version(facts, "flash-attn")
    if fa is None:
        return Tailored(summary="%s (%s) can run FlashAttention, but flash-attn is not installed in this environment: "
                                "install a flash-attn build made for torch %s, or keep the fallback."
                                % (name, _sm(cap), torch_v), notes=notes)
    return Tailored(summary="%s (%s) can run FlashAttention and flash-attn %s is installed, so importing it failed: "
                            "its compiled extension was built for another torch or CUDA than torch %s. Run `python -c "
                            "\"import flash_attn\"` to see the error, then install the flash-attn build for this torch."
                            % (name, _sm(cap), fa, torch_v), notes=notes + ["flash-attn %s" % fa])


# Shared memory a block may use (opt-in maximum) on NVIDIA GPUs, by compute capability, from
# the CUDA C Programming Guide's table of technical specifications per compute capability.
_SHARED_PER_BLOCK = ((49152, "sm_50-sm_62 (Maxwell, Pascal)"),
                     (65536, "sm_75 (Turing: T4, RTX 20)"),
                     (98304, "sm_70/sm_72 (V100, Titan V, Jetson Xavier)"),
                     (101376, "sm_86/sm_89/sm_120 (RTX 30/40/50, A10, A40, L4, L40)"),
                     (166912, "sm_80/sm_87 (A100, A30, Jetson Orin)"),
                     (232448, "sm_90/sm_100 (H100, H200, B200)"))


@hook("triton-shared-memory")
def triton_shared_memory(match, facts: Facts) -> Optional[Tailored]:
    """Name the GPU class whose per-block limit the message quotes: a kernel tuned on an
    A100/H100 asks for more shared memory than consumer and older GPUs have. AMD (64 KiB of
    LDS per block) and other vendors' GPUs print the same message: no NVIDIA class for them."""
    groups = match_groups(match)
    need, limit = groups.get("need"), groups.get("limit")
    if not (need and need.isdigit() and limit and limit.isdigit()):
        return None
    need_b, limit_b = int(need), int(limit)
    sizes = "The kernel asks for %d KiB of shared memory per block; the GPU allows %d KiB" % (need_b // 1024, limit_b // 1024)
    if F.is_rocm_build(facts):
        return Tailored(cause=sizes + " (an AMD GPU's per-block LDS is 64 KiB): the kernel's configuration is "
                                      "tuned for NVIDIA GPUs with more.")
    gpu_class = next((name for b, name in _SHARED_PER_BLOCK if b == limit_b), None)
    fits = [name for b, name in _SHARED_PER_BLOCK if b >= need_b]
    return Tailored(cause="%s%s. %s" % (
        sizes, " (on NVIDIA: %s)" % gpu_class if gpu_class else "",
        "On NVIDIA, only %s GPUs have that much." % " or ".join(fits) if fits else
        "No NVIDIA GPU has that much: the kernel's block sizes or num_stages are simply too large."))
