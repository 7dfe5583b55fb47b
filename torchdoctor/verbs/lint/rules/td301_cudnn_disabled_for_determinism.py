"""torch.backends.cudnn.enabled = False in code about seeding or determinism.

## What it finds
`torch.backends.cudnn.enabled = False` (or `cudnn.flags(enabled=False)`) in a function
whose name or docstring is about seeding, determinism or reproducibility, or that seeds
(`manual_seed`, `seed_everything`, ...) or sets `cudnn.deterministic = True`.

## Why it matters
cudnn.enabled = False does not make results reproducible: it switches cuDNN off, so
convolutions and RNNs take slow native fallbacks. Reproducibility needs
cudnn.deterministic = True, cudnn.benchmark = False and
torch.use_deterministic_algorithms(True) instead.

## Fix
Keep cuDNN on; set `cudnn.deterministic = True`, `cudnn.benchmark = False` and call
`torch.use_deterministic_algorithms(True)`.
"""

from typing import Dict

from ....model.findings import WARNING
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import SEEDING_CALLS

FIRES = (Example("import torch\n\ndef seed_everything(seed):\n    torch.manual_seed(seed)\n"
                 "    torch.backends.cudnn.enabled = False\n"),)
QUIET = (Example("import torch\n\ndef low_memory_mode():\n    torch.backends.cudnn.enabled = False\n",
                 note="switching cuDNN off for another reason"),)


@rule("lint", "TD301", severity=WARNING, category="lint", name="cudnn-disabled-for-determinism", on="file",
      fixable=False, source="RANDOMNESS+CUDNN_DOCS",
      links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",
             "https://docs.pytorch.org/docs/stable/backends.html#torch-backends-cudnn"))
def cudnn_disabled_for_determinism(scan):
    out = []
    seeding: Dict[int, bool] = {}   # per function: once, however many stores it has
    for s in scan.flag("torch.backends.cudnn.enabled", False):
        f = s.func
        ctx = f.claims_determinism() if f and f.is_def else False
        if not ctx and f is not None:
            if id(f) not in seeding:
                seeding[id(f)] = any((e.kind == "call" and e.path.rsplit(".", 1)[-1] in SEEDING_CALLS) or
                                     (e.kind == "store" and e.path == "torch.backends.cudnn.deterministic")
                                     for e in f.events)
            ctx = seeding[id(f)]
        if ctx:
            out.append(hit(s.pos, "cudnn.enabled = False does not make runs reproducible, it switches cuDNN off "
                           "(slow fallbacks); set cudnn.deterministic = True, cudnn.benchmark = False and "
                           "torch.use_deterministic_algorithms(True) instead"))
    return out
