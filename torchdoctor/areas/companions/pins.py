"""A package pinned to another release than the one installed (pip's `X requires torch==A, but
you have torch B`, the same for any dependency, numba's own NumPy check): the command that keeps the
installed release and lets pip pick a release of X that accepts it, spelled for the target
interpreter from the names pip printed."""

import re
from typing import Optional

from ...advice.commands import pip, which_import
from ...advice.pipdry import normalize
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups


@hook("package-pins-other-torch")
def tailor_package_pins(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    pkg, ver, want, have = g.get("pkg"), g.get("ver"), g.get("want"), g.get("have")
    if not (pkg and want and have):
        return None  # the resolver's refusal names no installed torch: the entry's own fix
    named = ("%s %s" % (pkg, ver or "")).strip()  # pkg_resources' conflict names no version of the package
    notes = ["%s pins torch%s; pip saw torch %s" % (named, want, have)]
    listed = isinstance(facts.value("packages.installed"), dict)
    installed = F.package_version(facts, "torch")
    if (listed and not installed) or (installed and installed != have):
        # Run here, the pin would install or swap this interpreter's torch (another release, or the
        # same release of another CUDA/CPU build): say what to run there, never run it here.
        here = "has no torch" if not installed else "has torch %s" % installed
        notes.append("this interpreter %s" % here)
        return Tailored(
            summary="The conflict was printed by another environment: this interpreter %s, not %s. There, "
                    "`python -m pip install \"%s\" \"torch==%s\"` keeps that torch and lets pip pick a %s release "
                    "that accepts it; here, `pip check` shows whether this environment has the same conflict."
                    % (here, have, pkg, have, pkg),
            commands=[pip(facts, "check")], notes=notes)
    keep = 'install "%s" "torch==%s"' % (pkg, installed or have)
    return Tailored(
        summary="%s accepts torch%s, and torch %s is what pip found. To keep that torch, ask pip for a %s release "
                "that accepts it (torch stays pinned in the same command, so pip changes only %s, or says "
                "ResolutionImpossible if no release does); to keep %s instead, install a torch it accepts with "
                "torchvision and torchaudio paired, from torch's index." % (named, want, installed or have, pkg, pkg,
                                                                             named),
        commands=[pip(facts, keep), pip(facts, "check")],
        notes=notes)


# torch pins its own builds' libraries exactly (triton, the nvidia-* wheels): the pinned release is
# the fix, never another torch
_TORCH_BUILD = ("torch", "torchvision", "torchaudio")


# What a CUDA build of torch on Linux pins for itself: triton, the nvidia-*-cuNN libraries, and from
# CUDA 13 on the cuda-toolkit metapackage and cuda-bindings (read in torch 2.14.1's METADATA).
_TORCH_OWN = ("triton", "pytorch-triton", "cuda-toolkit", "cuda-bindings")


def _torch_owns(dep: str, facts: Facts) -> bool:
    """A library this torch's own wheel pins: moving it breaks torch. CPU, ROCm, macOS and Windows
    builds pin none of these."""
    tag = F.local_tag(facts) or ""
    if tag == "cpu" or tag.startswith("rocm") or F.os_of(facts) in ("windows", "macos"):
        return False
    return dep in _TORCH_OWN or re.match(r"nvidia-[a-z-]{2,40}-cu\d{2}$", dep) is not None


def _numba_range(top: str) -> str:
    """numba's own `Numba needs NumPy 1.24 or less` as a specifier pip accepts: <1.25."""
    major, minor = top.split(".")
    return "<%s.%d" % (major, int(minor) + 1)


@hook("package-pins-other-dependency")
def tailor_dependency_pins(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    numba = bool(g.get("numba_max"))
    if numba:
        # numba's import-time check: the NumPy it imported is known here only if this is that interpreter
        pkg, ver, dep, want, have = "numba", None, "numpy", _numba_range(g["numba_max"]), None
        seen = "it imported NumPy %s" % g["numba_have"] if g.get("numba_have") else "it imported a newer NumPy"
    else:
        pkg, ver, dep, want, have = g.get("pkg"), g.get("ver"), g.get("dep"), g.get("want"), g.get("have")
        seen = "pip saw %s %s" % (dep, have)
    if not (pkg and dep and want):
        return None
    pkg_n, dep_n = normalize(pkg), normalize(dep)
    named = ("%s %s" % (pkg, ver or "")).strip()
    notes = ["%s needs %s%s; %s" % (named, dep, want, seen)]
    pkg_here, dep_here = F.package_release(facts, pkg_n), F.package_release(facts, dep_n)
    if F.package_absent(facts, pkg_n):
        notes.append("this interpreter has no %s" % pkg)
        where = "The failing process imported numba from" if numba else "The conflict was printed by"
        return Tailored(summary="%s another environment: this interpreter has no %s. Run `pip check` there."
                                % (where, pkg), commands=[pip(facts, "check")], notes=notes)
    if not numba and F.package_absent(facts, dep_n):
        notes.append("this interpreter has no %s" % dep)
        return Tailored(summary="The conflict was printed by another environment: this interpreter has no %s. Run "
                                "`pip check` there." % dep, commands=[pip(facts, "check")], notes=notes)
    here = [x for x in ("%s %s" % (pkg, pkg_here) if pkg_here else "", "%s %s" % (dep, dep_here) if dep_here else "")
            if x]
    if here:
        notes.append("this interpreter: %s" % ", ".join(here))
    if ver and pkg_here and pkg_here != ver:
        return Tailored(summary="%s here is %s, not %s: the conflict was printed by another environment, or has "
                                "been resolved since. `pip check` says whether any is left here."
                                % (pkg, pkg_here, ver), commands=[pip(facts, "check")], notes=notes)
    if dep_here and V.admits(want, dep_here) is True:
        if numba:
            return Tailored(summary="numpy %s here is inside numba's range (%s): the failing process imported another "
                                    "NumPy (another environment, or a numpy folder beside the script)."
                                    % (dep_here, want), commands=[which_import(facts, "numpy")], notes=notes)
        return Tailored(summary="%s %s here is inside %s's range (%s%s): this conflict is gone; `pip check` says "
                                "whether another is left." % (dep, dep_here, pkg, dep, want),
                        commands=[pip(facts, "check")], notes=notes)
    torch = F.package_release(facts, "torch") if pkg_n not in _TORCH_BUILD else None
    # torch held where it is: pip moves only what the command names, or says ResolutionImpossible
    held = ' "torch==%s"' % torch if torch else ""
    back = pip(facts, 'install "%s%s"%s' % (dep, want, held))
    if pkg_n in _TORCH_BUILD:
        return Tailored(summary="%s pins %s%s for its own build: install that release of %s (moving torch instead "
                                "would change the build)." % (named, dep, want, dep),
                        commands=[back, pip(facts, "check")], notes=notes)
    keep = dep_here or have
    if not keep:
        return Tailored(summary="Put %s back inside %s's range, or let pip choose releases of both in one command."
                                % (dep, pkg), commands=[back, pip(facts, "check")], notes=notes)
    move = pip(facts, 'install --upgrade "%s" "%s==%s"%s' % (pkg, dep, keep, held))
    if torch and _torch_owns(dep_n, facts):
        return Tailored(summary="torch %s pins %s %s for its own build, and %s wants %s%s: keep torch's and let pip "
                                "move %s to a release that accepts it (torch held in the same command; pip says "
                                "ResolutionImpossible if none does), or give %s an environment of its own."
                                % (torch, dep, keep, named, dep, want, pkg, pkg),
                        commands=[move, pip(facts, "check")], notes=notes)
    return Tailored(
        summary="%s %s is outside %s's range (%s%s). To keep %s %s, let pip move %s to a release that accepts it "
                "(both named in one command%s; pip says ResolutionImpossible and changes nothing if no release "
                "does); to keep %s as it is, put %s back in its range, which may break what asked for %s %s."
                % (dep, keep, named, dep, want, dep, keep, pkg, ", torch held" if torch else "", pkg, dep, dep, keep),
        commands=[move, back, pip(facts, "check")], notes=notes)
