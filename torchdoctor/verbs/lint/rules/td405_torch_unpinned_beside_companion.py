"""torch installed without a pin beside a pinned torchvision / torchaudio.

## What it finds
A file that installs torch without a version (and without a local tag) and, by another
command, torchvision or torchaudio pinned exactly: a Dockerfile's RUN lines, a notebook's
`!pip` lines.

## Why it matters
The companion pin decides which torch it needs, but whichever install runs last decides
the torch you get: the pair breaks when either is installed on its own. Within one
resolution (a requirements file, a project's dependencies, a conda environment, one
`pip install` line) pip or conda already installs the torch the companion requires, so
the rule stays quiet there.

## Fix
Pin torch to the release the companion goes with (the message names it).
"""

from ....kb import compat
from ....model.findings import WARNING
from ....model.rules import rule
from ..envcheck import exact
from ..envfiles import COMPANIONS
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("FROM python:3.11\nRUN pip install torch\nRUN pip install torchvision==0.16.0\n", file="Dockerfile"),)
QUIET = (Example("torch==2.1.0\ntorchvision==0.16.0\n", file="requirements.txt"),
         Example("torch\ntorchvision==0.16.0\n", file="requirements.txt",
                 note="one resolution: pip installs the torch torchvision 0.16.0 requires"),
         Example("FROM python:3.11\nRUN pip install torch torchvision==0.16.0\n", file="Dockerfile",
                 note="one command, one resolution"))
# Files whose requirements pip or conda resolve as one set.
ONE_RESOLUTION = ("requirements", "pyproject", "setupcfg", "setuppy", "conda")


@rule("lint", "TD405", severity=WARNING, category="lint", name="torch-unpinned-beside-companion", on="env",
      fixable=False, source="kb/data/compat.json (TV_README)", links=("https://github.com/pytorch/vision#installation",))
def torch_unpinned_beside_companion(case):
    torch_pins = case.torch_pins
    if not torch_pins or any(p.spec or p.local for p in torch_pins) or case.group.kind in ONE_RESOLUTION:
        return None
    for name in COMPANIONS:
        for pin in case.group.of(name):
            ver = exact(pin)
            if not ver or any(t.line == pin.line for t in torch_pins):   # one command resolves both
                continue
            want = compat.torch_for_torchvision(ver) if name == "torchvision" else None
            hint = " (it was released with torch %s: pin torch==%s)" % (want, want) if want and want[0].isdigit() else ""
            return hit(Pos(torch_pins[0].line, torch_pins[0].col),
                       "torch is not pinned but %s is (%s==%s)%s; whichever install runs last decides the "
                       "torch you get" % (name, name, ver, hint))
    return None
