"""torch.backends and its neighbours across releases: submodules and attributes that do
not exist yet or any more, torch.backends.mps before 1.12, SDPA's context managers,
the TF32 API, reproducibility flags.
"""

from typing import List, Optional, Tuple

from ..advice import reinstall_same_build
from ..model.facts import ABSENT, Facts
from ..model import derived as F
from ..kb import compat
from ..advice.commands import which_import
from .registry import WARNING, Tailored, rule, finding, hook, match_groups
import difflib
from .api import code_block, has_at_least, present, too_old, upgrade, version_or_none
from .mps import MPS_URL, on_macos



@rule("check", "backends-mps-missing", category="backends-mps-missing", severity=WARNING,
       verify=('python -c "import torch; print(torch.backends.mps.is_available())"', 'True (False on a Mac without MPS, but no AttributeError)'))
def backends_mps_missing(facts):
    """torch.backends.mps does not exist: this torch predates Apple-GPU support."""
    if not on_macos(facts) or facts.state("backends.mps") != ABSENT:
        return None
    api = compat.backend_api("torch.backends.mps") or {}
    added = api.get("added")
    # the same upgrade the explain hook offers: the newest release with a wheel for this
    # Python *and* this Mac (x86_64 wheels stop at 2.2)
    cmds, target = upgrade(facts, added or "1.12")
    return finding(
        "torch %s has no torch.backends.mps%s" % (F.torch_version_str(facts), " (added in torch %s)" % added if added else ""),
        detail="%s. Code that calls torch.backends.mps.is_available() fails with `AttributeError: module "
               "'torch.backends' has no attribute 'mps'`, and this torch cannot use the Apple GPU."
               % (facts.reason("backends.mps") or "torch.backends.mps is missing"),
        fix="Upgrade torch (torch %s is the newest release for Python %s on this Mac)." % (target, F.python_minor(facts))
        if F.python_minor(facts) else "Upgrade torch%s." % (" to %s or newer" % added if added else ""),
        commands=cmds, links=[MPS_URL])


# torch.backends submodules that `import torch` loads by itself, by release
# (reference backends_api.json _meta.auto_imported_submodules_by_torch_backends:
# torch/__init__.py imports cuda, cudnn, mkl, mkldnn, openmp, quantized in 1.11,
# + mps from 1.12; torch/backends/__init__.py imports cpu, cuda, cudnn, mkl,
# mkldnn, mps, openmp, quantized from 2.1; +mha, nnpack 2.3; +cusparselt 2.5;
# +kleidiai 2.7; +miopen, opt_einsum 2.9; +python_native 2.12. xeon and xnnpack
# are never auto-imported).
_AUTO_IMPORTED: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("1.11", ("cuda", "cudnn", "mkl", "mkldnn", "openmp", "quantized")),
    ("1.12", ("mps",)),
    ("2.1", ("cpu",)),
    ("2.3", ("mha", "nnpack")),
    ("2.5", ("cusparselt",)),
    ("2.7", ("kleidiai",)),
    ("2.9", ("miopen", "opt_einsum")),
    ("2.12", ("python_native",)),
)


_NEVER_AUTO = ("xeon", "xnnpack")


# sdp_kernel keyword -> first release that accepts it (backends_api.json note).
SDP_KWARGS = {"enable_flash": "1.13", "enable_math": "1.13", "enable_mem_efficient": "2.0", "enable_cudnn": "2.3"}


# sdp_kernel keyword -> the SDPBackend member that replaces it.
SDP_BACKEND_OF = {"enable_flash": "FLASH_ATTENTION", "enable_mem_efficient": "EFFICIENT_ATTENTION",
                  "enable_math": "MATH", "enable_cudnn": "CUDNN_ATTENTION"}


SDPA_CODE = ("from torch.nn.attention import SDPBackend, sdpa_kernel\n"
             "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):\n"
             "    out = torch.nn.functional.scaled_dot_product_attention(q, k, v)")


# -- torch.backends ---------------------------------------------------------------
@hook("backends-mps-missing")
def tailor_backends_mps_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    need = (compat.backend_api("torch.backends.mps") or {}).get("added") or "1.12"
    if not has_at_least(v, need):
        extra = ""
        if F.os_name(facts) != "macos":
            extra = ("; on Linux/Windows torch.backends.mps.is_available() then simply returns False, "
                     "which is what code written for Apple silicon expects")
        return too_old(facts, "torch.backends.mps", need, notes, extra)
    return present(facts, "torch.backends.mps (added in %s)" % need, notes)


@hook("torch-mps-module")
def torch_mps_module(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if has_at_least(v, "2.1"):
        return present(facts, "torch.mps, loaded by `import torch`", notes)
    if has_at_least(v, "2.0"):
        cmds, target = upgrade(facts, "2.1")
        return Tailored(
            summary="torch %s ships torch.mps but `import torch` does not load it (fixed after 2.0): add "
                    "`import torch.mps` next to `import torch`, or upgrade torch (the commands install %s)."
                    % (F.torch_version_str(facts), target),
            commands=["python -c \"import torch, torch.mps; print(torch.mps)\""] + cmds, notes=notes)
    return too_old(facts, "a torch.mps module loaded by `import torch`", "2.1", notes)


def _auto_imported(sub: str, v) -> Optional[bool]:
    if sub in _NEVER_AUTO:
        return False
    if not has_at_least(v, _AUTO_IMPORTED[0][0]):
        return None  # releases before the oldest sampled wheel (1.11): unknown
    for since, names in _AUTO_IMPORTED:
        if sub in names:
            return has_at_least(v, since)
    return None


def _backend_names() -> List[str]:
    """Every dotted name the compatibility KB knows below torch.backends / torch.nn.attention."""
    try:
        return compat.backend_paths()
    except (KeyError, TypeError):
        return []


def _first_release(prefix: str) -> Tuple[Optional[str], bool]:
    """(earliest 'added' of `prefix` or of any name below it, whether that is only
    'present in the oldest sampled release'); (None, False) when unknown."""
    best, or_earlier = None, False
    for path in _backend_names():
        if path != prefix and not path.startswith(prefix + "."):
            continue
        e = compat.backend_api(path) or {}
        added = e.get("added")
        if added and (best is None or F.parse_version(added) < F.parse_version(best)):
            best, or_earlier = added, bool(e.get("added_or_earlier"))
    return best, or_earlier


@hook("backends-submodule")
def backends_submodule(match, facts: Facts) -> Optional[Tailored]:
    sub = match_groups(match).get("sub")
    v, notes = version_or_none(facts)
    if not sub or v is None:
        return None
    need, or_earlier = _first_release("torch.backends." + sub)
    if need and not has_at_least(v, need):
        if or_earlier:
            return None  # older than every sampled release: nothing known
        return too_old(facts, "torch.backends.%s" % sub, need, notes)
    auto = _auto_imported(sub, v)
    if auto is False:
        return Tailored(
            summary="torch %s has torch.backends.%s but `import torch` does not load it: import it explicitly "
                    "before use (`import torch.backends.%s`)." % (F.torch_version_str(facts), sub, sub),
            commands=["python -c \"import torch.backends.%s as m; print(m)\"" % sub], notes=notes)
    if auto:
        return present(facts, "torch.backends.%s, loaded by `import torch`" % sub, notes)
    return None


@hook("backends-attr-missing")
def backends_attr_missing(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    mod, attr = g.get("mod"), g.get("attr")
    if not mod or not attr:
        return None
    path = "torch.backends.%s.%s" % (mod, attr)
    entry = compat.backend_api(path)
    v, notes = version_or_none(facts)
    if entry is None:
        # Not a name any sampled release (1.11-2.15) has: suggest the nearest real ones.
        known = [k for k in _backend_names() if k.startswith("torch.backends.%s." % mod)]
        near = difflib.get_close_matches(path, known, n=3, cutoff=0.6)
        if not near:
            near = [k for k in known if k.rsplit(".", 1)[-1].startswith(attr[:3])][:3]
        if not near:
            return None
        return Tailored(
            summary="torch.backends.%s has never had an attribute `%s` (not in any release from 1.11 to 2.15); "
                    "the code most likely means %s." % (mod, attr, " or ".join("`%s`" % n for n in near)),
            commands=["python -c \"import torch; print(%s)\"" % (near[0] + "()" if near[0].endswith("version") else near[0])],
            notes=notes)
    if v is None:
        return None
    need = entry.get("added")
    if not need:
        return None
    if not has_at_least(v, need):
        if entry.get("added_or_earlier"):
            return None  # present in 1.11 already; older releases were not sampled
        return too_old(facts, path, need, notes)
    return present(facts, "%s (in every release since %s)" % (path, need), notes)


# -- scaled dot-product attention ---------------------------------------------------
@hook("sdp-kernel")
def sdp_kernel(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    info = compat.backend_api("torch.backends.cuda.sdp_kernel") or {}
    added, deprecated = info.get("added") or "1.13", info.get("deprecated") or "2.3"
    if not has_at_least(v, added):
        cmds, target = upgrade(facts, "2.3")
        return Tailored(
            summary="torch %s is older than torch.backends.cuda.sdp_kernel (first in %s; the successor "
                    "torch.nn.attention.sdpa_kernel arrived in %s). Upgrade torch (the commands install %s) "
                    "and use the new context manager:\n%s" % (F.torch_version_str(facts), added, deprecated, target, code_block(SDPA_CODE)),
            commands=cmds, notes=notes)
    if not has_at_least(v, deprecated):
        return present(facts, "torch.backends.cuda.sdp_kernel (added in %s)" % added, notes)
    return Tailored(
        summary="torch %s still has torch.backends.cuda.sdp_kernel, but it is deprecated since %s, so the process "
                "that failed imported another torch. When you fix that, move to the replacement:\n%s"
                % (F.torch_version_str(facts), deprecated, code_block(SDPA_CODE)),
        commands=[which_import(facts, "torch")], notes=notes)


@hook("sdp-kernel-kwarg")
def sdp_kernel_kwarg(match, facts: Facts) -> Optional[Tailored]:
    arg = match_groups(match).get("arg")
    need = SDP_KWARGS.get(arg or "")
    v, notes = version_or_none(facts)
    if not need or v is None:
        return None
    if not has_at_least(v, need):
        cmds, target = upgrade(facts, need)
        return Tailored(
            summary="sdp_kernel() in torch %s does not take `%s` (accepted from torch %s on). Upgrade torch "
                    "(the commands install %s); on 2.3+ prefer sdpa_kernel([SDPBackend.%s, ...])."
                    % (F.torch_version_str(facts), arg, need, target, SDP_BACKEND_OF.get(arg, "MATH")),
            commands=cmds, notes=notes)
    return present(facts, "sdp_kernel(%s=...) (from %s)" % (arg, need), notes)


@hook("sdp-kernel-deprecated")
def sdp_kernel_deprecated(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if not has_at_least(v, "2.3"):
        return Tailored(
            cause="This warning is only raised by torch 2.3 and newer, but the torch installed here is %s: the "
                  "warning came from another environment." % F.torch_version_str(facts),
            commands=[which_import(facts, "torch")], notes=notes)
    return Tailored(
        summary="torch %s: replace the deprecated context manager with torch.nn.attention.sdpa_kernel. Each "
                "enable_X=True flag becomes an SDPBackend in the list (enable_flash -> FLASH_ATTENTION, "
                "enable_mem_efficient -> EFFICIENT_ATTENTION, enable_math -> MATH, enable_cudnn -> "
                "CUDNN_ATTENTION):\n%s" % (F.torch_version_str(facts), code_block(SDPA_CODE)),
        commands=[], notes=notes)


@hook("nn-attention-missing")
def nn_attention_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if has_at_least(v, "2.3"):
        return present(facts, "torch.nn.attention (added in 2.3)", notes)
    extra = ""
    if has_at_least(v, "2.0"):
        extra = ("; if you cannot upgrade, the same selection on %s is `with torch.backends.cuda.sdp_kernel("
                 "enable_flash=True, enable_mem_efficient=True, enable_math=True):`" % F.torch_version_str(facts))
    return too_old(facts, "torch.nn.attention (sdpa_kernel, SDPBackend)", "2.3", notes, extra)


# -- TF32 / reproducibility -------------------------------------------------------
TF32_NEW = ("torch.backends.cuda.matmul.fp32_precision = \"ieee\"   # or \"tf32\"\n"
            "torch.backends.cudnn.conv.fp32_precision = \"ieee\"\n"
            "torch.backends.cudnn.rnn.fp32_precision = \"ieee\"")


@hook("tf32-mixed-api")
def tf32_mixed_api(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if not has_at_least(v, "2.9"):
        return Tailored(
            cause="The fp32_precision API that this check guards arrived in torch 2.9; the torch installed here is "
                  "%s, so the message came from another environment." % F.torch_version_str(facts),
            commands=[which_import(facts, "torch")], notes=notes)
    return Tailored(
        summary="torch %s: set TF32 only through the fp32_precision API and stop reading or writing "
                "allow_tf32 (in your code and in libraries you call), e.g.\n%s"
                % (F.torch_version_str(facts), code_block(TF32_NEW)),
        commands=["python -c \"import torch; b=torch.backends; print(b.cuda.matmul.fp32_precision, "
                  "b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision)\""],
        notes=notes)


@hook("reproducibility")
def reproducibility(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    parts = []
    tag = F.local_tag(facts)
    if tag == "cpu" or F.os_name(facts) == "macos":
        parts.append("This torch (%s) runs no cuDNN, so both cudnn flags do nothing here; on the CPU the seeds and "
                     "torch.use_deterministic_algorithms(True) are what matter." % F.torch_version_str(facts))
    elif has_at_least(v, "2.10"):
        parts.append("torch %s no longer demands CUBLAS_WORKSPACE_CONFIG when deterministic algorithms are on "
                     "(that check was removed in 2.10); setting it does no harm." % F.torch_version_str(facts))
    else:
        parts.append("With torch %s on CUDA, torch.use_deterministic_algorithms(True) raises for cuBLAS calls "
                     "unless CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8) is set before the process starts."
                     % F.torch_version_str(facts))
    return Tailored(cause="\n\n".join(parts), notes=notes)


@hook("batchnorm-channels")
def batchnorm_channels(match, facts: Facts) -> Optional[Tailored]:
    # ATen's check_dims_match_num_input_features(name, expected=input.size(1), actual=buffer.numel()):
    # the first number is the input's channel count, the second the layer's num_features.
    g = match_groups(match)
    channels, num_features = g.get("expected"), g.get("got")
    if not channels or not num_features:
        return None
    return Tailored(
        cause="Here the tensor reaching the BatchNorm layer has %s channels (dimension 1), but the layer was built "
              "(or loaded) with num_features=%s. Either build that layer with num_features=%s, or make the layer "
              "before it output %s channels (or load the checkpoint that belongs to this architecture)."
              % (channels, num_features, channels, num_features),
        notes=["from the message: input has %s channels, layer has num_features=%s" % (channels, num_features)])


@hook("nn-backends-removed")
def nn_backends_removed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = version_or_none(facts)
    if v is None:
        return None
    if not has_at_least(v, "1.3"):
        return present(facts, "torch.nn.backends (removed only in 1.3)", notes)
    apex = F.package_version(facts, "apex")
    if apex:
        notes = notes + ["installed apex: %s" % apex]
    pip = F.pip_cmd(facts)
    return Tailored(
        summary="torch %s has no torch.nn.backends; the caller (usually an old NVIDIA apex build) must be replaced. "
                "Prefer torch's own AMP (torch.amp.autocast / GradScaler) and remove apex, or rebuild apex from its "
                "current source." % F.torch_version_str(facts),
        commands=["%s uninstall -y apex" % pip,
                  "%s install -v --no-build-isolation --no-cache-dir git+https://github.com/NVIDIA/apex.git" % pip],
        notes=notes)


@hook("torch-files-broken")
def torch_files_broken(match, facts: Facts) -> Optional[Tailored]:
    """A torch whose own files are missing or from two releases: reinstall it cleanly."""
    v, notes = version_or_none(facts)
    if v is None:
        return None
    adv = reinstall_same_build(facts, clean=True)
    if not adv.commands:
        return None
    return Tailored(
        summary="Remove torch %s and install the same build again, so no file of another copy is left behind; "
                "the last command then shows that the new files load." % F.torch_version_str(facts),
        commands=adv.commands + [which_import(facts, "torch")], notes=notes)
