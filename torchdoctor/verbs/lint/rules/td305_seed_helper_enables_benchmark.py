"""A seeding / determinism helper that sets cudnn.benchmark = True.

## What it finds
`cudnn.benchmark = True` in a function whose name or docstring is about seeding,
determinism or reproducibility (`seed_everything`, `set_seed`, `make_deterministic`, ...).

## Why it matters
A helper named or documented for seeding or determinism promises repeatable runs, but
cudnn.benchmark = True lets cuDNN pick convolution algorithms by timing, which can differ
between runs.

## Fix
Set benchmark = False there (and deterministic = True), or drop the claim.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from ..examples import Example
from ..located import hit

FIRES = (Example('import torch\n\ndef seed_everything(seed):\n    """Make training reproducible."""\n'
                 "    torch.manual_seed(seed)\n    torch.backends.cudnn.benchmark = True\n"),)
QUIET = (Example("import torch\n\ndef seed_everything(seed):\n    torch.manual_seed(seed)\n"
                 "    torch.backends.cudnn.benchmark = False\n"),)


@rule("lint", "TD305", severity=WARNING, category="lint", name="seed-helper-enables-benchmark", on="file",
      fixable=False, source="RANDOMNESS", links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",))
def seed_helper_enables_benchmark(scan):
    return [hit(b.pos, "%s() is about seeding/determinism but sets cudnn.benchmark = True, which makes convolution "
                "algorithm choice vary between runs" % b.func.name)
            for b in scan.flag("torch.backends.cudnn.benchmark", True)
            if b.func is not None and b.func.is_def and b.func.claims_determinism()]
