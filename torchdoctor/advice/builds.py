"""What a build is: the variant (cpu, cu130, ...) of a wheel pip plans to install (its +tag,
the CUDA its requirements pull in, its version.py, else what an untagged wheel of that release
is) and of an installed package; and `judge`, which holds what a dry run would install to
what a fix means and to what must agree afterwards (torch and its companions built for one
platform, one release pair).
"""

import re
import zipfile
from typing import Dict, List, Optional, Sequence, Tuple, TYPE_CHECKING

from ..kb import compat
from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from . import pipdry
from .commands import build_kind

if TYPE_CHECKING:
    from .intent import Want

FAMILY = ("torch", "torchvision", "torchaudio")
COMPANIONS = FAMILY[1:]

_CUDA_REQ = re.compile(r"^(?:nvidia-cuda-runtime(?:-cu\d+)?|cuda-toolkit(?:\[[^\]]*\])?)\s*[=~]=\s*(\d+)\.(\d+)")


def untagged(name: str, version: str, facts: Facts) -> Optional[str]:
    """The build an untagged torch-family wheel is: PyPI's default CUDA variant on Linux x86_64
    (for a companion, that of the torch it was released with), the CPU build on macOS and
    Windows. Any other package (NumPy, ...) has one build per platform: None."""
    if name not in FAMILY:
        return None
    osn = F.os_name(facts)
    if osn in ("macos", "windows"):
        return "cpu"
    if osn != "linux" or str(F.python_machine(facts) or "x86_64").lower() not in ("x86_64", "amd64"):
        return None
    paired = version if name != "torchvision" else compat.torch_for_torchvision(version)
    return compat.default_cuda(paired) if paired else None


def _wheel_build(p: pipdry.Planned) -> Optional[str]:
    """'0.28.0+cu130' from a local companion wheel's version.py (read in place, no download)."""
    path = p.local_path
    if not path or p.name not in COMPANIONS:
        return None
    try:
        with zipfile.ZipFile(path) as z:
            text = z.read("%s/version.py" % p.name).decode("utf-8", "replace")
    except (OSError, KeyError, zipfile.BadZipFile):
        return None
    m = re.search(r"""^__version__\s*=\s*['"]([^'"]+)['"]""", text, re.M)
    return m.group(1) if m else None


def planned_variant(p: pipdry.Planned, facts: Facts) -> Optional[str]:
    """The build a planned wheel is: its +tag, the CUDA its requirements pull in, what its
    version.py says, else what an untagged wheel of that release is."""
    tag = V.local_tag(p.version)
    if tag:
        return tag
    if p.name == "torch":
        for req in p.requires:
            m = _CUDA_REQ.match(req.replace(" ", "").replace("(", "").split(";")[0])
            if m:
                return "cu%s%s" % (m.group(1), m.group(2))
    built = _wheel_build(p)
    if built:
        return V.local_tag(built) or untagged(p.name, p.version, facts)
    return untagged(p.name, p.version, facts)


def installed_build(facts: Facts, name: str) -> Optional[Tuple[str, Optional[str]]]:
    """(version, variant) of an installed torch-family package, None when not installed."""
    version = F.package_version(facts, name)
    if not version:
        return None
    built = facts.value("packages.installed.%s.build_version" % name)
    if isinstance(built, str) and V.base(built) == V.base(version) and V.local_tag(built):
        version = built
    variant = V.local_tag(version)
    if variant is None and name == "torch" and facts.has("torch.cuda"):
        cuda = F.torch_cuda(facts)
        variant = compat.variant_for_cuda(cuda) if cuda else "cpu"
    return version, variant or untagged(name, version, facts)


def show(name: str, version: str, variant: Optional[str]) -> str:
    return "%s %s%s" % (name, version, "" if "+" in version or not variant else " (%s build)" % variant)


def judge(wants: Sequence["Want"], dry: pipdry.DryRun, facts: Facts, intent: bool = True) -> List[str]:
    """What is wrong with what `dry` would install: a want resolved to another release or
    build, or kept installed when that is not the wanted build (pip calls `==2.13.0` satisfied
    by 2.13.0+cpu); torch and its companions left on different platforms or releases (checked
    for what the command touches). [] when it is what the fix means. intent=False: only that
    the torch-family wants end up installed and agreeing."""
    planned = {p.name: p for p in dry.planned}
    final: Dict[str, Tuple[str, Optional[str]]] = {}
    for name in FAMILY:
        have = installed_build(facts, name)
        if name in planned:
            final[name] = (planned[name].version, planned_variant(planned[name], facts))
        elif have:
            final[name] = have
    problems: List[str] = []
    for w in wants:
        got, p = final.get(w.name), planned.get(w.name)
        if got is None:
            if w.name in FAMILY:
                problems.append("%s would not be installed" % w.name)
            continue  # another package: pip's own resolution of the spec is the answer
        if not intent:
            continue
        shown = show(w.name, got[0], got[1])
        from_ = ", from %s," % pipdry.where_from(dry, p) if p is not None else ""
        if w.version and V.base(got[0]) != w.version:
            problems.append("pip would %s %s%s not %s %s" % ("install" if p else "keep", shown, from_, w.name, w.version))
        elif w.variant and got[1] and got[1] != w.variant:
            problems.append("pip would %s %s%s not the %s build%s" % (
                "install" if p else "keep the installed", shown, from_, w.variant,
                "" if p else " (PEP 440 ignores the +tag, so it counts as satisfied)"))
    if problems:
        return problems
    # A pair the command touches must agree afterwards when the command names the companion (it
    # is meant to fix it; one pip keeps, "already satisfied", counts as much as one it installs)
    # or when the pair agreed before (it must not break it). A mismatch it neither aims at nor
    # causes (a torch reinstall beside an old torchvision) is another finding's.
    named = {w.name for w in wants}
    touched = (set(planned) | named) & set(FAMILY)
    torch = final.get("torch")
    for name in COMPANIONS:
        comp = final.get(name)
        if not comp or not torch or not touched & {"torch", name}:
            continue
        clash = _clash(torch, name, comp)
        if clash and (name in named or not _clash(installed_build(facts, "torch"), name, installed_build(facts, name))):
            problems.append(clash)
    return problems


def _clash(torch: Optional[Tuple[str, Optional[str]]], name: str,
           comp: Optional[Tuple[str, Optional[str]]]) -> str:
    """Why torch and companion `name` do not go together ('' when they do or it cannot be told)."""
    if not torch or not comp:
        return ""
    ok = (compat.torchvision_compatible if name == "torchvision" else compat.torchaudio_compatible)(
        V.base(torch[0]), V.base(comp[0]))
    if ok is False:
        return "%s and %s would not be a release pair" % (show("torch", *torch), show(name, *comp))
    if torch[1] and comp[1] and build_kind(torch[1]) != build_kind(comp[1]):
        return "%s and %s would be built for different platforms" % (show("torch", *torch), show(name, *comp))
    return ""
