"""Legacy TF32 flags (allow_tf32) and the 2.9 fp32_precision API both used in one file: torch warns or raises about 'a mix of the legacy and new APIs'.

## What it finds
A legacy TF32 flag (`torch.backends.cuda.matmul.allow_tf32`, `torch.backends.cudnn.allow_tf32`,
`torch.backends.mkldnn.allow_tf32`), set or read, and an `fp32_precision` setting (2.9+) in
one file, in code that may run together (not the two branches of one `if`, nor under a
version or `hasattr` guard).

## Why it matters
From 2.9 torch keeps one state behind both APIs and warns, or raises, when a program
uses "a mix of the legacy and new APIs to set the TF32 flags".

## Fix
Use `fp32_precision` only (on targets from 2.9), or the legacy flags only (on older ones);
branch on the torch version where the target spans both.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import LEGACY_TF32, NEW_TF32, Paths, first_together

FIRES = (Example("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n"
                 "torch.backends.cuda.matmul.fp32_precision = 'tf32'\n", torch="2.9"),)
QUIET = (Example("import torch\nif torch.__version__ >= '2.9':\n    torch.backends.cuda.matmul.fp32_precision = 'tf32'\n"
                 "else:\n    torch.backends.cuda.matmul.allow_tf32 = True\n", torch=">=2.8,<2.10",
                 note="alternatives for the releases before and after the change"),)


@rule("lint", "TD202", severity=WARNING, category="lint", name="tf32-api-mix", on="file", fixable=False,
      since="2.9", source="TF32_DOCS",
      links=("https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",))
def tf32_api_mix(scan):
    legacy = [e for e in scan.events if e.path in LEGACY_TF32 and e.kind in ("store", "load") and not e.guarded]
    new = [e for e in scan.events if e.path in NEW_TF32 and e.kind == "store" and not e.guarded]
    legacy_paths = Paths(legacy)
    for n in new:
        old = first_together(n, legacy, legacy_paths)
        if old is not None:
            later = n if n.pos.line >= old.pos.line else old
            return hit(later.pos, "%s (line %d) and %s (line %d) in one file: torch warns or raises about "
                       "'a mix of the legacy and new APIs to set the TF32 flags'; use fp32_precision only"
                       % (old.path, old.pos.line, n.path, n.pos.line))
    return None
