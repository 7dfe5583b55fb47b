"""A package pinned to another torch than the one installed (pip's `X requires torch==A, but you
have torch B`): the command that keeps the installed torch and lets pip pick a release of X that
accepts it, spelled for the target interpreter from the names pip printed."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
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
