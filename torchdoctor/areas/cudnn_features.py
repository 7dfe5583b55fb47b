"""cuDNN features gated by version (attention and convolution graphs of the cuDNN frontend),
the cuDNN attention backend of SDPA, and cuDNN's engine sub-libraries: answered from the cuDNN
this torch loads (or ships) and the torch release.
"""

import re
from typing import List, Optional, Tuple

from ..advice.commands import pip
from ..kb import compat
from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from .registry import Tailored, hook, match_groups

Ver = Tuple[int, ...]


def _ver(text: Optional[str]) -> Optional[Ver]:
    return tuple(int(p) for p in text.split(".")) if text and re.fullmatch(r"\d{1,2}(?:\.\d{1,2}){1,2}", text) else None


def cudnn_here(facts: Facts) -> Tuple[Optional[Ver], str]:
    """The cuDNN torch loads here ((9, 10, 2), 'torch.backends.cudnn.version() is 91002'), else
    the one its wheel ships, else (None, '')."""
    v = F.backend_value(facts, "cudnn", "version")
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        text = compat.cudnn_int_to_version(v)
        return _ver(text), "torch.backends.cudnn.version() is %d (%s)" % (v, text)
    cuda = F.torch_cuda(facts)
    name = "nvidia-cudnn-cu%s" % cuda.split(".")[0] if cuda else None
    wheel = F.package_version(facts, name) if name else None
    if wheel:
        return _ver(".".join(wheel.split(".")[:3])), "%s %s is installed" % (name, wheel)
    return None, ""


def _cudnn_wheel_name(facts: Facts) -> Optional[str]:
    cuda = F.torch_cuda(facts)
    return "nvidia-cudnn-cu%s" % cuda.split(".")[0] if cuda and F.os_name(facts) == "linux" else None


def _show(v: Ver) -> str:
    return ".".join(str(x) for x in v)


@hook("cudnn-too-old-for-feature")
def cudnn_too_old_for_feature(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    need, have_max = _ver(groups.get("need")), _ver(groups.get("have"))
    here, why = cudnn_here(facts)
    if here is None or not (need or have_max):
        return None
    notes: List[str] = [why]
    new_enough = (need and here >= need) or (have_max and here[:len(have_max)] > have_max)
    if new_enough:
        return Tailored(summary="The cuDNN here (%s) is new enough, so the failing run loaded an older cuDNN: another "
                                "environment, or an older libcudnn found first on LD_LIBRARY_PATH." % _show(here),
                        commands=["echo $LD_LIBRARY_PATH"], notes=notes)
    # "for backend version 9.9 or below": the next minor is the first that has it
    want = need if need else (have_max[0], have_max[1] + 1)
    name = _cudnn_wheel_name(facts)
    cmds = [pip(facts, 'install -U "%s>=%s"' % (name, _show(want)))] if name else []
    return Tailored(summary="torch loads cuDNN %s here; this feature needs %s or newer. Upgrade cuDNN%s, or turn the "
                            "cuDNN path off (torch.backends.cuda.enable_cudnn_sdp(False) for attention)."
                            % (_show(here), _show(want), " (%s)" % name if name else ""),
                    commands=cmds, notes=notes)


@hook("cudnn-sdpa-backend")
def cudnn_sdpa_backend(match, facts: Facts) -> Optional[Tailored]:
    tv = F.torch_version_str(facts)
    if not tv:
        return None
    notes = ["installed torch: %s" % tv]
    if V.patch(tv) == "2.5.0":
        return Tailored(summary="torch 2.5.0 prefers the cuDNN attention backend on Hopper-class GPUs; 2.5.1 stopped "
                                "doing so. Upgrade to torch 2.5.1 or newer, or call "
                                "torch.backends.cuda.enable_cudnn_sdp(False) before running the model.", notes=notes)
    return None


@hook("cudnn-sublibrary")
def cudnn_sublibrary(match, facts: Facts) -> Optional[Tailored]:
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if ld and re.search(r"cuda|cudnn", ld, re.I):
        return Tailored(summary="LD_LIBRARY_PATH (%s) names CUDA/cuDNN directories: cuDNN loads its engine libraries "
                                "from there instead of torch's wheel. Run without them (unset LD_LIBRARY_PATH, or drop "
                                "those entries)." % ld[:300],
                        commands=["env -u LD_LIBRARY_PATH %s -c \"import torch; print(torch.backends.cudnn.version())\""
                                  % F.python_cmd(facts)],
                        notes=["LD_LIBRARY_PATH=%s" % ld[:300]])
    name = _cudnn_wheel_name(facts)
    if not name or not F.package_version(facts, name):
        return None
    others = [k for k in F.installed_starting(facts, "nvidia-cudnn-cu") if k != name]
    if others:  # a notebook's or another library's pin: its libcudnn_* can be loaded beside torch's
        # the cu11 and cu12 wheels write the same nvidia/cudnn/lib files: removing the other one
        # removes torch's libraries too, so torch's wheel is put back right after
        return Tailored(summary="Two cuDNN wheels are installed: %s, the one torch %s loads, and %s, which nothing in "
                                "torch asks for; both install into nvidia/cudnn/lib, so one can replace or shadow the other's files. "
                                "Uninstall %s and reinstall torch's (a library that asked for the other one, such as "
                                "TensorFlow, JAX or CTranslate2, then needs its own environment)."
                                % (name, F.torch_version_str(facts) or "", ", ".join(others),
                                   "it" if len(others) == 1 else "them"),
                        commands=[pip(facts, "uninstall -y %s" % " ".join(others)),
                                  pip(facts, "install --force-reinstall --no-deps %s==%s"
                                      % (name, F.package_version(facts, name)))],
                        notes=["%s %s is installed" % (k, F.package_version(facts, k)) for k in [name] + others])
    return Tailored(summary="Nothing on LD_LIBRARY_PATH overrides cuDNN here, so the %s wheel itself is incomplete: "
                            "reinstall it." % name,
                    commands=[pip(facts, "install --force-reinstall --no-deps %s==%s" % (name, F.package_version(facts, name)))],
                    notes=["%s %s is installed" % (name, F.package_version(facts, name))])
