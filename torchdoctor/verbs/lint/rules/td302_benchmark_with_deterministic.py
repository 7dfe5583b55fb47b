"""cudnn.benchmark = True together with cudnn.deterministic = True in one file.

## What it finds
`cudnn.benchmark = True` and `cudnn.deterministic = True` set in one function (directly or
through `cudnn.flags(...)`), not in the two branches of one `if`.

## Why it matters
benchmark = True times several convolution algorithms on the first call and keeps the
fastest, a choice that can differ from run to run; deterministic = True restricts the
candidates to deterministic ones but the autotuning still varies. For reproducible runs set
benchmark = False; keep benchmark = True only where speed matters more than repeatability.

## Fix
`cudnn.benchmark = False` where determinism is wanted.
"""

from typing import Dict, List

from ....model.findings import WARNING
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import Paths, first_together
from ..pyrecords import Event

FIRES = (Example("import torch\ntorch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = True\n"),)
QUIET = (Example("import torch\nimport sys\nif '--fast' in sys.argv:\n    torch.backends.cudnn.benchmark = True\n"
                 "else:\n    torch.backends.cudnn.deterministic = True\n", note="alternatives"),)


@rule("lint", "TD302", severity=WARNING, category="lint", name="benchmark-with-deterministic", on="file",
      fixable=False, source="RANDOMNESS", links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",))
def benchmark_with_deterministic(scan):
    det_in: Dict[int, List[Event]] = {}
    for d in scan.flag("torch.backends.cudnn.deterministic", True):
        det_in.setdefault(id(d.func), []).append(d)
    det_paths = {f: Paths(ds) for f, ds in det_in.items()}
    for b in scan.flag("torch.backends.cudnn.benchmark", True):
        d = first_together(b, det_in[id(b.func)], det_paths[id(b.func)]) if id(b.func) in det_in else None
        if d is not None:
            later = b if (b.pos.line, b.pos.col) > (d.pos.line, d.pos.col) else d
            other = d if later is b else b
            return hit(later.pos, "cudnn.benchmark = True and cudnn.deterministic = True (line %d) in one "
                       "place: benchmark's autotuning picks algorithms by timing, so runs are not repeatable"
                       % other.pos.line)
    return None
