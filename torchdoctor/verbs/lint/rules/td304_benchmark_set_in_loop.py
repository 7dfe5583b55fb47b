"""cudnn.benchmark = True set inside a loop or a per-batch method.

## What it finds
`cudnn.benchmark = True` inside a `for`/`while` loop or a comprehension, or in a method that
runs per batch (`forward`, `training_step`, `train_step`, `*_step`, `__call__`, names with
"batch").

## Why it matters
benchmark is a process-wide switch read when a convolution first meets an input shape;
setting it per batch does nothing after the first time and hides where it really takes
effect.

## Fix
Set it once at start-up, before the training loop.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import PER_BATCH

FIRES = (Example("import torch\nfor batch in range(3):\n    torch.backends.cudnn.benchmark = True\n"),)
QUIET = (Example("import torch\ntorch.backends.cudnn.benchmark = True\nfor batch in range(3):\n    pass\n"),)


@rule("lint", "TD304", severity=WARNING, category="lint", name="benchmark-set-in-loop", on="file", fixable=False,
      source="CUDNN_DOCS", links=("https://docs.pytorch.org/docs/stable/backends.html#torch.backends.cudnn.benchmark",))
def benchmark_set_in_loop(scan):
    out = []
    for b in scan.flag("torch.backends.cudnn.benchmark", True):
        if b.loop or (b.func and b.func.is_def and PER_BATCH.search(b.func.name)):
            where = "inside a loop" if b.loop else "in %s(), which runs per batch" % b.func.name
            out.append(hit(b.pos, "cudnn.benchmark = True set %s: it is a process-wide switch, set it once "
                           "before training" % where))
    return out
