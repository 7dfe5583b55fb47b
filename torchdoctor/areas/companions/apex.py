"""NVIDIA apex without its Python-only parts: amp, fp16_utils, parallel and RNN left apex's source in
May 2025, and apex is only ever built from that source (every build calls itself 0.1), so the reading
turns on who imported it and how: transformers' Trainer before 4.53 at import time, a project inside
`try:`, or no apex at all behind an empty folder."""

from typing import Optional

from ...advice.commands import pip, which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups
from .hf_stack import transformers_upgrade

# The first transformers whose trainer.py imports apex.amp only when half_precision_backend is "apex".
TRAINER_IMPORTS_LAZILY = "4.53.0"
# apex's last commit before amp, fp16_utils, parallel and RNN were removed (its pull request #1896).
LAST_WITH_AMP = "e13873debc4699d39c6861074b9a3b2a02327f92"
BUILD = ('install -v --disable-pip-version-check --no-cache-dir --no-build-isolation --config-settings '
         '"--build-option=--cpp_ext" --config-settings "--build-option=--cuda_ext" '
         'git+https://github.com/NVIDIA/apex@' + LAST_WITH_AMP)


def pinned_build(facts: Facts) -> str:
    """pip's command building apex from its last commit with amp, for the target interpreter."""
    return pip(facts, BUILD)


@hook("apex-amp-removed")
def apex_amp_removed(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    check = '%s -c "from apex import amp"' % F.python_cmd(facts)
    if groups.get("where"):  # `(unknown location)`: a folder without __init__.py, no package
        return Tailored(summary="No apex package was imported: Python found a folder named apex without an "
                                "__init__.py (a clone of NVIDIA/apex in the directory the program ran from, or what "
                                "a failed install left) and imported it as an empty namespace package. Run from "
                                "another directory and install apex into this environment, from its last commit "
                                "with amp when the code imports apex.amp.",
                        commands=[pinned_build(facts), check])
    if groups.get("name") is None:  # imported inside try: and went on without it
        if F.package_absent(facts, "apex"):
            return Tailored(summary="apex is not installed in %s, and the program imports it only if it can: run "
                                    "without the apex option (timm's --amp-impl native), or build apex from its last "
                                    "commit with amp (apex's current source has none)." % facts.value("python.executable"),
                            commands=[pinned_build(facts)])
        return Tailored(summary="The program imports apex only if it can and went on without it: either apex is "
                                "not installed in the environment that ran it, or it is one built since May 2025, "
                                "which has no amp. The check below says which; then run without the apex option "
                                "(timm's --amp-impl native), or build apex from its last commit with amp.",
                        commands=[check, pinned_build(facts)])
    return Tailored(summary="The apex here has no %s: code of your own moves to torch's equivalents (torch.amp, "
                            "torch.nn.parallel.DistributedDataParallel, torch.nn.SyncBatchNorm); for code you cannot "
                            "change, build apex from its last commit with it." % (groups.get("name") or "amp"),
                    commands=[pinned_build(facts)])


@hook("apex-amp-imported-by-old-trainer")
def apex_imported_by_old_trainer(match, facts: Facts) -> Optional[Tailored]:
    tf = F.package_release(facts, "transformers")
    if not tf:
        return None
    notes = ["installed transformers: %s" % tf]
    if not V.older(tf, TRAINER_IMPORTS_LAZILY):
        return Tailored(summary="transformers %s here imports apex.amp only for half_precision_backend='apex': the "
                                "failing process imported an older transformers (another environment)." % tf,
                        commands=[which_import(facts, "transformers")], notes=notes)
    upgrade = transformers_upgrade(facts, TRAINER_IMPORTS_LAZILY)
    return Tailored(summary="transformers %s here imports apex.amp whenever apex is installed. %s, or uninstall apex "
                            "if nothing here uses it." % (
                                tf, "Upgrade transformers to 4.53 or newer, which imports it only for "
                                    "half_precision_backend='apex'" if upgrade else
                                "No transformers that imports it lazily runs with this torch or Python: build apex "
                                "from its last commit with amp"),
                    commands=([upgrade] if upgrade else [pinned_build(facts)]) + [pip(facts, "uninstall -y apex")],
                    notes=notes)
