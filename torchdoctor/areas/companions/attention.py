"""SageAttention's "SM89 kernel is not available": which compiled module to import to see the
error its start-up swallowed."""

from typing import Optional

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
