"""Tailoring for API errors: names that moved, appeared or were deprecated
between torch releases (torch.backends.*, SDPA, torch.load weights_only, ...).

The pattern is always the same: the error names an API; the installed torch
version says whether that API is *too new* for it (upgrade), *present* (so the
failing process imported another torch), or *deprecated* (show the
replacement). Version facts come from kb/compat.py (backends) or from the
small tables below, each with the source it was taken from.
"""

import difflib
from typing import Dict, List, Optional, Tuple

from ...checks import _facts as F
from ...facts import Facts
from ...kb import compat
from ..tailor import Tailored, hook, installed_torch_note

# Which process imported which torch: the first thing to run when the installed
# torch should have the API but the error says it does not.
WHICH_TORCH = "python -c \"import torch; print(torch.__version__, torch.__file__)\""

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

# API -> (first release that has it, where that fact comes from). Only names
# whose first release a public source states.
NEWER_APIS: Dict[str, Tuple[str, str]] = {
    "torch.compile": ("2.0", "PyTorch 2.0 introduced torch.compile (pytorch/pytorch#90137)"),
    "torch.frombuffer": ("1.10", "added by pytorch/pytorch#59077; rlaphoenix/VSGAN#19 (needs torch 1.10.0 or newer)"),
    "torch.compiler.is_compiling": ("2.3", "listed in the torch.compiler API reference from 2.3; absent in 2.2.2 (NVIDIA/apex#1857)"),
    "torch.linalg.lstsq": ("1.9", "thuml/Time-Series-Library#552 (introduced in torch 1.9.0)"),
    "torch.linalg.solve": ("1.8", "kail8/UnsupDIS-pytorch#17 (supported from pytorch 1.8.0)"),
    "torch.utils._pytree.register_pytree_node": ("2.2", "pytorch/pytorch#112111 (public name added, private one deprecated in 2.2)"),
    "torch.serialization.add_safe_globals": ("2.4", "pytorch/xla#7799 (add_safe_globals in torch 2.4)"),
    "torch.serialization.get_safe_globals": ("2.4", "torch/_weights_only_unpickler.py (added with add_safe_globals)"),
    "torch.serialization.clear_safe_globals": ("2.4", "torch/_weights_only_unpickler.py (added with add_safe_globals)"),
    "torch.serialization.safe_globals": ("2.5", "pytorch/pytorch#127939; pytorch/xla#7799 (context manager after 2.4)"),
    "torch.load(weights_only=...)": ("1.13", "pytorch/pytorch#86812, cherry-picked into 1.13"),
    "torch.nn.attention": ("2.3", "backends_api.json: torch.nn.attention absent in 2.2.2, present in 2.3.1"),
    "torch.backends.cuda.sdp_kernel": ("1.13", "backends_api.json static scan of released wheels"),
    "torch.mps (imported by import torch)": ("2.1", "pytorch/pytorch#100165, fixed by #98837 after 2.0"),
    "torch.ao.quantization": ("1.10", "AO migration PRs pytorch/pytorch#64086 (Aug 2021) .. #66058; torch 1.9.1 lacks it (facebookresearch/d2go#127)"),
    "torch.ao": ("1.10", "AO migration PRs pytorch/pytorch#64086 (Aug 2021) .. #66058; torch 1.9.1 lacks it (facebookresearch/d2go#127)"),
}

# sdp_kernel keyword -> first release that accepts it (backends_api.json note).
SDP_KWARGS = {"enable_flash": "1.13", "enable_math": "1.13", "enable_mem_efficient": "2.0", "enable_cudnn": "2.3"}
# sdp_kernel keyword -> the SDPBackend member that replaces it.
SDP_BACKEND_OF = {"enable_flash": "FLASH_ATTENTION", "enable_mem_efficient": "EFFICIENT_ATTENTION",
                  "enable_math": "MATH", "enable_cudnn": "CUDNN_ATTENTION"}

SDPA_CODE = ("from torch.nn.attention import SDPBackend, sdpa_kernel\n"
             "with sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH]):\n"
             "    out = torch.nn.functional.scaled_dot_product_attention(q, k, v)")


# -- helpers ---------------------------------------------------------------------
def _code(text: str) -> str:
    """Indent a code block so it reads as one under the "Fix:" line."""
    return "\n".join("      " + line for line in text.splitlines())


def _ver(text: Optional[str]):
    return F.parse_version(text) if text else None


def _has(installed, need: str) -> bool:
    """installed >= need, comparing release numbers only (2.3.0a0 counts as 2.3)."""
    return tuple(installed.release[:3]) >= tuple(_ver(need).release)


def _minor(v) -> str:
    return "%d.%d" % (v.release[0], v.release[1] if len(v.release) > 1 else 0)


def _upgrade_target(facts: Facts) -> str:
    """Newest release with wheels for the target Python (else the newest release)."""
    py = facts.value("python.version")
    minor = compat.newest_torch_for_python(py) if isinstance(py, str) else None
    return minor or compat.latest_release()


def _upgrade(facts: Facts, need: str) -> Tuple[List[str], str]:
    """Commands that put a torch >= `need` into the target environment."""
    from ...advice import install_advice
    target = _upgrade_target(facts)
    adv = install_advice(facts, version=target)
    cmds = list(adv.commands)
    if not cmds:
        cmds = ["%s install --upgrade \"torch>=%s\"" % (F.pip_cmd(facts), need)]
    return cmds, target


def _too_old(facts: Facts, what: str, need: str, notes: List[str], extra: str = "") -> Tailored:
    cmds, target = _upgrade(facts, need)
    return Tailored(
        summary="The installed torch %s predates %s (first in torch %s): upgrade torch to %s or newer "
                "(the commands install %s, the newest release for this Python)%s."
                % (F.torch_version_str(facts), what, need, need, target, extra),
        commands=cmds, notes=notes)


def _present(facts: Facts, what: str, notes: List[str], extra: str = "") -> Tailored:
    return Tailored(
        summary="No upgrade needed here: find which torch the failing program really imports (run the first "
                "command with the same interpreter and working directory as the program), then remove or update "
                "that copy, or run the program with %s." % facts.value("python.executable", "this Python"),
        cause="The torch installed in %s (%s) does have %s, so the process that failed imported a different, "
              "older torch: another virtual environment, a stale copy earlier on sys.path, or a vendored/frozen "
              "torch.%s" % (facts.value("python.executable", "this Python"), F.torch_version_str(facts), what, extra),
        commands=[WHICH_TORCH, "%s show torch" % F.pip_cmd(facts)], notes=notes)


def _version_or_none(facts: Facts):
    v = F.torch_version(facts)
    return v, installed_torch_note(facts)


# -- torch.backends ---------------------------------------------------------------
@hook("backends_mps_missing")
def backends_mps_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    need = (compat.backend_api("torch.backends.mps") or {}).get("added") or "1.12"
    if not _has(v, need):
        extra = ""
        if F.os_name(facts) != "macos":
            extra = ("; on Linux/Windows torch.backends.mps.is_available() then simply returns False, "
                     "which is what code written for Apple silicon expects")
        return _too_old(facts, "torch.backends.mps", need, notes, extra)
    return _present(facts, "torch.backends.mps (added in %s)" % need, notes)


@hook("torch_mps_module")
def torch_mps_module(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if _has(v, "2.1"):
        return _present(facts, "torch.mps, loaded by `import torch`", notes)
    if _has(v, "2.0"):
        cmds, target = _upgrade(facts, "2.1")
        return Tailored(
            summary="torch %s ships torch.mps but `import torch` does not load it (fixed after 2.0): add "
                    "`import torch.mps` next to `import torch`, or upgrade torch (the commands install %s)."
                    % (F.torch_version_str(facts), target),
            commands=["python -c \"import torch, torch.mps; print(torch.mps)\""] + cmds, notes=notes)
    return _too_old(facts, "a torch.mps module loaded by `import torch`", "2.1", notes)


def _auto_imported(sub: str, v) -> Optional[bool]:
    if sub in _NEVER_AUTO:
        return False
    if not _has(v, _AUTO_IMPORTED[0][0]):
        return None  # releases before the oldest sampled wheel (1.11): unknown
    for since, names in _AUTO_IMPORTED:
        if sub in names:
            return _has(v, since)
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
        if added and (best is None or _ver(added) < _ver(best)):
            best, or_earlier = added, bool(e.get("added_or_earlier"))
    return best, or_earlier


@hook("backends_submodule")
def backends_submodule(match, facts: Facts) -> Optional[Tailored]:
    sub = match.groups.get("sub")
    v, notes = _version_or_none(facts)
    if not sub or v is None:
        return None
    need, or_earlier = _first_release("torch.backends." + sub)
    if need and not _has(v, need):
        if or_earlier:
            return None  # older than every sampled release: nothing known
        return _too_old(facts, "torch.backends.%s" % sub, need, notes)
    auto = _auto_imported(sub, v)
    if auto is False:
        return Tailored(
            summary="torch %s has torch.backends.%s but `import torch` does not load it: import it explicitly "
                    "before use (`import torch.backends.%s`)." % (F.torch_version_str(facts), sub, sub),
            commands=["python -c \"import torch.backends.%s as m; print(m)\"" % sub], notes=notes)
    if auto:
        return _present(facts, "torch.backends.%s, loaded by `import torch`" % sub, notes)
    return None


@hook("backends_attr_missing")
def backends_attr_missing(match, facts: Facts) -> Optional[Tailored]:
    mod, attr = match.groups.get("mod"), match.groups.get("attr")
    if not mod or not attr:
        return None
    path = "torch.backends.%s.%s" % (mod, attr)
    entry = compat.backend_api(path)
    v, notes = _version_or_none(facts)
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
    if not _has(v, need):
        if entry.get("added_or_earlier"):
            return None  # present in 1.11 already; older releases were not sampled
        return _too_old(facts, path, need, notes)
    return _present(facts, "%s (in every release since %s)" % (path, need), notes)


# -- scaled dot-product attention ---------------------------------------------------
@hook("sdp_kernel")
def sdp_kernel(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    info = compat.backend_api("torch.backends.cuda.sdp_kernel") or {}
    added, deprecated = info.get("added") or "1.13", info.get("deprecated") or "2.3"
    if not _has(v, added):
        cmds, target = _upgrade(facts, "2.3")
        return Tailored(
            summary="torch %s is older than torch.backends.cuda.sdp_kernel (first in %s; the successor "
                    "torch.nn.attention.sdpa_kernel arrived in %s). Upgrade torch (the commands install %s) "
                    "and use the new context manager:\n%s" % (F.torch_version_str(facts), added, deprecated, target, _code(SDPA_CODE)),
            commands=cmds, notes=notes)
    if not _has(v, deprecated):
        return _present(facts, "torch.backends.cuda.sdp_kernel (added in %s)" % added, notes)
    return Tailored(
        summary="torch %s still has torch.backends.cuda.sdp_kernel, but it is deprecated since %s, so the process "
                "that failed imported another torch. When you fix that, move to the replacement:\n%s"
                % (F.torch_version_str(facts), deprecated, _code(SDPA_CODE)),
        commands=[WHICH_TORCH], notes=notes)


@hook("sdp_kernel_kwarg")
def sdp_kernel_kwarg(match, facts: Facts) -> Optional[Tailored]:
    arg = match.groups.get("arg")
    need = SDP_KWARGS.get(arg or "")
    v, notes = _version_or_none(facts)
    if not need or v is None:
        return None
    if not _has(v, need):
        cmds, target = _upgrade(facts, need)
        return Tailored(
            summary="sdp_kernel() in torch %s does not take `%s` (accepted from torch %s on). Upgrade torch "
                    "(the commands install %s); on 2.3+ prefer sdpa_kernel([SDPBackend.%s, ...])."
                    % (F.torch_version_str(facts), arg, need, target, SDP_BACKEND_OF.get(arg, "MATH")),
            commands=cmds, notes=notes)
    return _present(facts, "sdp_kernel(%s=...) (from %s)" % (arg, need), notes)


@hook("sdp_kernel_deprecated")
def sdp_kernel_deprecated(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if not _has(v, "2.3"):
        return Tailored(
            cause="This warning is only raised by torch 2.3 and newer, but the torch installed here is %s: the "
                  "warning came from another environment." % F.torch_version_str(facts),
            commands=[WHICH_TORCH], notes=notes)
    return Tailored(
        summary="torch %s: replace the deprecated context manager with torch.nn.attention.sdpa_kernel. Each "
                "enable_X=True flag becomes an SDPBackend in the list (enable_flash -> FLASH_ATTENTION, "
                "enable_mem_efficient -> EFFICIENT_ATTENTION, enable_math -> MATH, enable_cudnn -> "
                "CUDNN_ATTENTION):\n%s" % (F.torch_version_str(facts), _code(SDPA_CODE)),
        commands=[], notes=notes)


@hook("nn_attention_missing")
def nn_attention_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if _has(v, "2.3"):
        return _present(facts, "torch.nn.attention (added in 2.3)", notes)
    extra = ""
    if _has(v, "2.0"):
        extra = ("; if you cannot upgrade, the same selection on %s is `with torch.backends.cuda.sdp_kernel("
                 "enable_flash=True, enable_mem_efficient=True, enable_math=True):`" % F.torch_version_str(facts))
    return _too_old(facts, "torch.nn.attention (sdpa_kernel, SDPBackend)", "2.3", notes, extra)


# -- TF32 / reproducibility -------------------------------------------------------
TF32_NEW = ("torch.backends.cuda.matmul.fp32_precision = \"ieee\"   # or \"tf32\"\n"
            "torch.backends.cudnn.conv.fp32_precision = \"ieee\"\n"
            "torch.backends.cudnn.rnn.fp32_precision = \"ieee\"")


@hook("tf32_mixed_api")
def tf32_mixed_api(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if not _has(v, "2.9"):
        return Tailored(
            cause="The fp32_precision API that this check guards arrived in torch 2.9; the torch installed here is "
                  "%s, so the message came from another environment." % F.torch_version_str(facts),
            commands=[WHICH_TORCH], notes=notes)
    return Tailored(
        summary="torch %s: set TF32 only through the fp32_precision API and stop reading or writing "
                "allow_tf32 (in your code and in libraries you call), e.g.\n%s"
                % (F.torch_version_str(facts), _code(TF32_NEW)),
        commands=["python -c \"import torch; b=torch.backends; print(b.cuda.matmul.fp32_precision, "
                  "b.cudnn.conv.fp32_precision, b.cudnn.rnn.fp32_precision)\""],
        notes=notes)


@hook("reproducibility")
def reproducibility(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    parts = []
    tag = F.local_tag(facts)
    if tag == "cpu" or F.os_name(facts) == "macos":
        parts.append("This torch (%s) runs no cuDNN, so both cudnn flags do nothing here; on the CPU the seeds and "
                     "torch.use_deterministic_algorithms(True) are what matter." % F.torch_version_str(facts))
    elif _has(v, "2.10"):
        parts.append("torch %s no longer demands CUBLAS_WORKSPACE_CONFIG when deterministic algorithms are on "
                     "(that check was removed in 2.10); setting it does no harm." % F.torch_version_str(facts))
    else:
        parts.append("With torch %s on CUDA, torch.use_deterministic_algorithms(True) raises for cuBLAS calls "
                     "unless CUBLAS_WORKSPACE_CONFIG=:4096:8 (or :16:8) is set before the process starts."
                     % F.torch_version_str(facts))
    return Tailored(cause="\n\n".join(parts), notes=notes)


@hook("batchnorm_channels")
def batchnorm_channels(match, facts: Facts) -> Optional[Tailored]:
    # ATen's check_dims_match_num_input_features(name, expected=input.size(1), actual=buffer.numel()):
    # the first number is the input's channel count, the second the layer's num_features.
    channels, num_features = match.groups.get("expected"), match.groups.get("got")
    if not channels or not num_features:
        return None
    return Tailored(
        cause="Here the tensor reaching the BatchNorm layer has %s channels (dimension 1), but the layer was built "
              "(or loaded) with num_features=%s. Either build that layer with num_features=%s, or make the layer "
              "before it output %s channels (or load the checkpoint that belongs to this architecture)."
              % (channels, num_features, channels, num_features),
        notes=["from the message: input has %s channels, layer has num_features=%s" % (channels, num_features)])


# -- other torch APIs ---------------------------------------------------------------
def _api_by_name(name: str) -> Optional[Tuple[str, str]]:
    return NEWER_APIS.get(name)


@hook("newer_api")
def newer_api(match, facts: Facts) -> Optional[Tailored]:
    """The error names an API newer than some torch: upgrade or find the other torch."""
    mod, attr = match.groups.get("mod") or "torch", match.groups.get("attr")
    name = "%s.%s" % (mod, attr) if attr else mod
    known = _api_by_name(name)
    v, notes = _version_or_none(facts)
    if not known or v is None:
        return None
    need, src = known
    notes = notes + ["%s first appeared in torch %s (%s)" % (name, need, src)]
    if not _has(v, need):
        return _too_old(facts, name, need, notes)
    return _present(facts, name, notes)


@hook("torch_compile_missing")
def torch_compile_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if not _has(v, "2.0"):
        return _too_old(facts, "torch.compile", "2.0", notes,
                        "; or drop the torch.compile() call, which only speeds the model up")
    return _present(facts, "torch.compile (added in 2.0)", notes)


@hook("pytree_public_missing")
def pytree_public_missing(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if _has(v, "2.2"):
        return _present(facts, "torch.utils._pytree.register_pytree_node (public since 2.2)", notes)
    cmds, target = _upgrade(facts, "2.2")
    tf = F.package_version(facts, "transformers")
    if tf:
        notes = notes + ["installed transformers: %s" % tf]
    return Tailored(
        summary="torch %s only has the private _register_pytree_node; the library calling register_pytree_node "
                "(usually transformers) needs torch 2.2 or newer. Upgrade torch (the commands install %s), or pin "
                "that library to a release that still supports torch %s."
                % (F.torch_version_str(facts), target, _minor(v)),
        commands=cmds, notes=notes)


@hook("torch_six_removed")
def torch_six_removed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if _has(v, "2.0"):
        return Tailored(
            cause="torch %s has no torch._six at all (it was removed in 2.0), so every `from torch._six import ...` "
                  "fails; the library doing the import predates torch 2.0." % F.torch_version_str(facts),
            notes=notes)
    return None


@hook("nn_backends_removed")
def nn_backends_removed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if not _has(v, "1.3"):
        return _present(facts, "torch.nn.backends (removed only in 1.3)", notes)
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


# -- torch.load weights_only --------------------------------------------------------
def _global_name(match) -> Optional[str]:
    g = match.groups.get("glob")
    return g.strip().rstrip(".") if g else None


@hook("weights_only_failed")
def weights_only_failed(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    g = _global_name(match)
    code = []
    if g:
        mod, _, name = g.rpartition(".")
        if mod.startswith("numpy.core") or mod.startswith("numpy._core"):
            # numpy 2 renamed numpy.core -> numpy._core; pass the checkpoint's spelling
            # explicitly (tuple form, pytorch/pytorch#142153).
            code.append("import numpy, torch\n"
                        "fn = getattr(numpy._core.multiarray if hasattr(numpy, '_core') else numpy.core.multiarray, %r)\n"
                        "torch.serialization.add_safe_globals([(fn, %r)])" % (name, g))
        elif mod:
            code.append("import torch\nfrom %s import %s\ntorch.serialization.add_safe_globals([%s])" % (mod, name, name))
    fallback = "torch.load(path, weights_only=False)  # only for a checkpoint from a source you trust"
    if _has(v, "2.6"):
        head = ("torch %s loads with weights_only=True unless the caller says otherwise (the default flipped in "
                "2.6), so checkpoints that pickle more than tensors now stop here." % F.torch_version_str(facts))
    else:
        head = ("torch %s still defaults to weights_only=False, so the code (or TORCH_FORCE_WEIGHTS_ONLY_LOAD=1) "
                "asked for weights_only=True explicitly." % F.torch_version_str(facts))
        if not _has(v, "2.4"):
            head += " This torch has no add_safe_globals (2.4+): upgrade, or load with weights_only=False."
            code = []
    if code:
        summary = head + ("\nAllowlist what the checkpoint needs, if you trust it:\n%s\nor, last resort:\n%s"
                          % (_code("\n".join(code)), _code(fallback)))
    elif _has(v, "2.4"):
        summary = head + ("\nIf you trust the file, allowlist each global named after 'Unsupported global: GLOBAL' in "
                          "the message (import it, then torch.serialization.add_safe_globals([TheClass])) and load "
                          "again; or, last resort:\n%s" % _code(fallback))
    else:
        summary = head + "\nIf you trust the file:\n%s" % _code(fallback)
    return Tailored(summary=summary, commands=[], notes=notes)


@hook("weights_only_warning")
def weights_only_warning(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    if _has(v, "2.6"):
        return Tailored(
            cause="This FutureWarning is printed by torch 2.4 and 2.5; the installed torch is %s, where the default "
                  "already is weights_only=True, so the warning came from another environment (and code that "
                  "relied on the old default will fail there with 'Weights only load failed')."
                  % F.torch_version_str(facts),
            commands=[WHICH_TORCH], notes=notes)
    if _has(v, "2.4"):
        return Tailored(
            cause="torch %s warns because the default will flip to weights_only=True in 2.6; code that loads "
                  "whole pickled objects will then fail unless it passes weights_only=False or allowlists its "
                  "classes with torch.serialization.add_safe_globals." % F.torch_version_str(facts),
            notes=notes)
    return Tailored(cause="torch %s never prints this warning (it was added in 2.4): it came from another environment."
                    % F.torch_version_str(facts), commands=[WHICH_TORCH], notes=notes)


@hook("weights_only_kwarg")
def weights_only_kwarg(match, facts: Facts) -> Optional[Tailored]:
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    need = NEWER_APIS["torch.load(weights_only=...)"][0]
    if not _has(v, need):
        return _too_old(facts, "torch.load(weights_only=...)", need, notes,
                        "; older torch passes unknown keywords on to pickle's Unpickler, which rejects them")
    return _present(facts, "torch.load(weights_only=...) (since %s)" % need, notes)


@hook("safe_globals_missing")
def safe_globals_missing(match, facts: Facts) -> Optional[Tailored]:
    attr = match.groups.get("attr")
    name = "torch.serialization.%s" % attr if attr else None
    known = NEWER_APIS.get(name or "")
    v, notes = _version_or_none(facts)
    if not known or v is None:
        return None
    need = known[0]
    if not _has(v, need):
        extra = ""
        if attr == "safe_globals" and _has(v, "2.4"):
            extra = "; on %s call torch.serialization.add_safe_globals([...]) once instead of the context manager" % F.torch_version_str(facts)
        return _too_old(facts, name, need, notes, extra)
    return _present(facts, name, notes)


@hook("torch_files_broken")
def torch_files_broken(match, facts: Facts) -> Optional[Tailored]:
    """A torch whose own files are missing or from two releases: reinstall it cleanly."""
    from ...advice import reinstall_same_build
    v, notes = _version_or_none(facts)
    if v is None:
        return None
    adv = reinstall_same_build(facts, clean=True)
    if not adv.commands:
        return None
    return Tailored(
        summary="Remove torch %s and install the same build again, so no file of another copy is left behind; "
                "the last command then shows that the new files load." % F.torch_version_str(facts),
        commands=adv.commands + [WHICH_TORCH], notes=notes)
