"""torch / torchvision / torchaudio pins that no release pairs together.

## What it finds
An exact torchvision or torchaudio pin that does not pair with any torch release the torch
pins of the same file admit (requirements, pyproject.toml, setup.cfg, setup.py, conda
environment files, Dockerfiles, a notebook's `!pip install` lines).

## Why it matters
Each torchvision and torchaudio release is built against one torch release: pip either
refuses the set, or installs another torch than the one pinned, or the import fails with
undefined symbols.

## Fix
Pin the companion release that goes with the torch pin (the message names it), or the
torch release that goes with the companion.
"""

from ....kb import compat
from ....model.findings import ERROR
from ....model.rules import rule
from ..envcheck import exact, short
from ..envfiles import COMPANIONS
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("torch==2.1.0\ntorchvision==0.17.0\n", file="requirements.txt"),)
QUIET = (Example("torch==2.1.0\ntorchvision==0.16.0\n", file="requirements.txt"),)


@rule("lint", "TD401", severity=ERROR, category="lint", name="companion-pins-unpaired", on="env", fixable=False,
      source="kb/data/compat.json (TV_README, TV_META, TA_DOCS)",
      links=("https://github.com/pytorch/vision#installation", "https://pytorch.org/get-started/previous-versions/"))
def companion_pins_unpaired(case):
    patches = case.patches
    if not patches:
        return None
    tp = case.torch_pins[0]
    out = []
    for name in COMPANIONS:
        ok_fn = compat.torchvision_compatible if name == "torchvision" else compat.torchaudio_compatible
        for pin in case.group.of(name):
            ver = exact(pin)
            if not ver:
                continue
            answers = [ok_fn(p, ver) for p in patches]
            if any(a is True for a in answers) or not answers or any(a is None for a in answers):
                continue
            best = (compat.torch_for_torchvision(ver) if name == "torchvision" else None)
            pairs = "; %s %s goes with torch %s" % (name, ver, best) if best else ""
            match = (compat.matching_torchvision(patches[-1]) if name == "torchvision"
                     else compat.matching_torchaudio(patches[-1]))
            shown = tp.text or ("torch" + tp.spec)
            within = "" if len(patches) == 1 and shown.endswith(patches[0]) else " (%s)" % short(patches)
            out.append(hit(Pos(pin.line, pin.col), "%s==%s does not pair with %s%s: torch %s pairs with %s %s%s" % (
                name, ver, shown, within, patches[-1], name, match or "(unknown)", pairs)))
    return out
