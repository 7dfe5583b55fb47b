"""Attention kernel libraries: SageAttention's "SM89 kernel is not available" (which compiled module
to import to see the error its start-up swallowed), and flashinfer's kernel packages from another
release than flashinfer."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model.facts import Facts
from ..registry import Tailored, entry_commands, hook, match_groups


@hook("sageattention-kernel")
def tailor_sageattention_kernel(match, facts: Facts) -> Optional[Tailored]:
    """The entry's commands name the SM89 modules; for an SM80 or SM90 message, that family's
    (its start-up imported them inside a bare except, so importing them plainly shows why)."""
    sm = match_groups(match).get("sm")
    commands = entry_commands(match)
    if not sm or sm == "89" or not commands:
        return None
    return Tailored(commands=[c.replace("_qattn_sm89", "_qattn_sm" + sm).replace("sm89_compile", "sm%s_compile" % sm)
                              for c in commands])


@hook("flashinfer-parts")
def tailor_flashinfer_parts(match, facts: Facts) -> Optional[Tailored]:
    """flashinfer refuses a cubin or jit-cache package of another release than itself: the part
    moved to flashinfer's release (without its dependencies, which are flashinfer's), or flashinfer
    back to the part's release where the part was never published at flashinfer's."""
    g = match_groups(match)
    part, have, want = "flashinfer-%s" % g["part"], g["have"], g["want"]
    back = have.split("+")[0]  # jit-cache carries its CUDA tag; flashinfer-python's release has none
    commands = [pip(facts, 'install --no-deps "%s==%s"' % (part, want)),
                pip(facts, 'install "flashinfer-python==%s"' % back)]
    torch = F.package_release(facts, "torch")
    if torch:  # the put-back must not move torch: flashinfer-python's own requirement names it
        commands[1] += ' "torch==%s"' % torch
    return Tailored(summary="%s %s beside flashinfer %s: install %s %s (the first command%s), or, where that release of "
                            "%s was never published or the package that installed flashinfer accepts it, put flashinfer "
                            "back to %s (the second)." % (
                                part, have, want, part, want,
                                "; jit-cache wheels come from flashinfer's own index for this CUDA, add its "
                                "--extra-index-url" if g["part"] == "jit-cache" else "", part, back),
                    commands=commands)
