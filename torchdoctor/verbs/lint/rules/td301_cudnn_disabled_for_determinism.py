"""torch.backends.cudnn.enabled = False presented as a reproducibility measure.

## What it finds
`torch.backends.cudnn.enabled = False` (or `cudnn.flags(enabled=False)`) wherever the code
around it says it is about seeding, determinism or reproducibility: a comment on its line or
the two lines above (`# make runs reproducible`), the test of the `if` it is in
(`if cfg.deterministic:`, `if args.seed is not None:`), the name or docstring of its function
(`set_seed`, `make_deterministic`), or a function (or module) that seeds (`manual_seed`,
`seed_everything`, ...) or sets `cudnn.deterministic = True`.

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
                 "    torch.backends.cudnn.enabled = False\n"),
         Example("import torch\n# make runs reproducible\ntorch.backends.cudnn.enabled = False\n",
                 note="a comment says why"),
         Example("import torch\n\ndef setup(cfg):\n    if cfg.deterministic:\n        torch.backends.cudnn.enabled = False\n",
                 note="a config key in the condition"))
QUIET = (Example("import torch\n\ndef low_memory_mode():\n    torch.backends.cudnn.enabled = False\n",
                 note="switching cuDNN off for another reason"),
         Example("import torch\n# cuDNN has no double-backward for this op\ntorch.backends.cudnn.enabled = False\n",
                 note="a comment that gives another reason"))


@rule("lint", "TD301", severity=WARNING, category="lint", name="cudnn-disabled-for-determinism", on="file",
      fixable=False, source="RANDOMNESS+CUDNN_DOCS",
      links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",
             "https://docs.pytorch.org/docs/stable/backends.html#torch-backends-cudnn"))
def cudnn_disabled_for_determinism(scan):
    out = []
    seeding: Dict[int, bool] = {}   # per function: once, however many stores it has
    for s in scan.flag("torch.backends.cudnn.enabled", False):
        f = s.func
        ctx = scan.claimed(s)
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
