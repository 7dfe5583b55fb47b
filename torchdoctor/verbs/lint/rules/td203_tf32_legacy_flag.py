"""A legacy allow_tf32 flag on a target whose releases all have the fp32_precision API (opt-in).

## What it finds
A store to a legacy TF32 flag (`allow_tf32`) when every release of the target has the
`fp32_precision` API (2.9+). Off by default: select it with `--select TD203` or
`extend-select = ["TD203"]`.

## Why it matters
The legacy flags still work, but the fp32_precision API is where torch is going, and
mixing the two warns (TD202).

## Fix
`torch.backends.cuda.matmul.fp32_precision = "tf32"` for matmuls,
`torch.backends.cudnn.conv.fp32_precision = "tf32"` (and `rnn`) for cuDNN.
"""

from ....model.findings import INFO
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import LEGACY_TF32

FIRES = (Example("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", torch="2.9"),)
QUIET = (Example("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n", torch=">=2.8,<2.10",
                 note="the target includes 2.8, which has no fp32_precision"),)


@rule("lint", "TD203", severity=INFO, category="lint", name="tf32-legacy-flag", on="file", fixable=False,
      since="2.9", source="TF32_DOCS", default=False,
      links=("https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",))
def tf32_legacy_flag(scan):
    if not scan.targets or not all(t >= (2, 9) for t in scan.targets):
        return None
    return [hit(e.pos, "%s is the legacy TF32 flag; every target release has %s" % (
                e.path, "torch.backends.cuda.matmul.fp32_precision" if "matmul" in e.path
                else "torch.backends.cudnn.conv/rnn.fp32_precision"))
            for e in scan.events if e.path in LEGACY_TF32 and e.kind == "store" and not e.guarded]
