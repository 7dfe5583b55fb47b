"""NVIDIA apex without its Python-only parts: amp, fp16_utils, parallel and RNN left apex's source in
May 2025, and apex is only ever built from that source (every build calls itself 0.1), so the reading
turns on who imported it and how: transformers' Trainer before 4.53 at import time, a project inside
`try:`, or no apex at all behind an empty folder of that name."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, entry_commands, hook, match_groups
from .hf_stack import transformers_upgrade

# The first transformers whose trainer.py imports apex.amp only when half_precision_backend is "apex".
TRAINER_IMPORTS_LAZILY = "4.53.0"


@hook("apex-amp-removed")
def apex_amp_removed(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    pinned = entry_commands(match)
    check = '%s -c "from apex import amp"' % F.python_cmd(facts)
    if groups.get("where"):  # `(unknown location)`: a folder without __init__.py, no package
        return Tailored(summary="No apex package was imported: Python found a folder named apex without an "
                                "__init__.py (a clone of NVIDIA/apex in the directory the program ran from, or what "
                                "a failed install left) and imported it as an empty namespace package. Run from "
                                "another directory and install apex into this environment, from its last commit "
                                "with amp when the code imports apex.amp.",
                        commands=pinned + [check])
    tf = F.package_release(facts, "transformers")
    if groups.get("name") is not None and tf and V.older(tf, TRAINER_IMPORTS_LAZILY):
        upgrade = transformers_upgrade(facts, TRAINER_IMPORTS_LAZILY)
        return Tailored(summary="transformers %s here imports apex.amp whenever apex is installed, so its Trainer "
                                "(and trl, or anything importing it) fails beside an apex built since May 2025. "
                                "%s, or uninstall apex if nothing here uses it; code of your own that imports "
                                "apex.amp moves to torch.amp." % (
                                    tf, "Upgrade transformers to 4.53 or newer, which imports it only for "
                                        "half_precision_backend='apex'" if upgrade else
                                    "No transformers that imports it lazily runs with this torch or Python: "
                                    "build apex from its last commit with amp"),
                        commands=([upgrade] if upgrade else pinned) + [pip(facts, "uninstall -y apex")],
                        notes=["installed transformers: %s" % tf])
    if groups.get("name") is None:  # the project imported apex inside try: and went on without it
        return Tailored(summary="The program imports apex only if it can and went on without it: either apex is "
                                "not installed in the environment that ran it, or it is one built since May 2025, "
                                "which has no amp. The check below says which; then run without the apex option "
                                "(timm's --amp-impl native), or build apex from its last commit with amp.",
                        commands=[check] + pinned)
    return None
