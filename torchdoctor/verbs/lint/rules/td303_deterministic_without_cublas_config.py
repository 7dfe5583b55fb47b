"""torch.use_deterministic_algorithms(True) with no CUBLAS_WORKSPACE_CONFIG in sight, on a CUDA target whose releases still demand it.

## What it finds
`torch.use_deterministic_algorithms(True)` (not `warn_only=True`) when no file of the scan
names `CUBLAS_WORKSPACE_CONFIG` (a Dockerfile `ENV`, a launcher script, `os.environ`), on a
target that may run on CUDA and includes a release up to 2.9.

## Why it matters
Up to torch 2.9, cuBLAS ops under deterministic algorithms raise a RuntimeError unless
CUBLAS_WORKSPACE_CONFIG is :4096:8 or :16:8 before the process starts. From 2.10 torch no
longer demands it.

## Fix
Set `CUBLAS_WORKSPACE_CONFIG=:4096:8` in the environment before the program starts (or in
`os.environ` before the first CUDA call).
"""

from ....kb import compat
from ....model.findings import WARNING
from ....model.rules import rule
from .. import history as H
from ..examples import Example
from ..located import hit
from ..pyevents import call_flag
from ..pyrecords import truthy

FIRES = (Example("import torch\ntorch.use_deterministic_algorithms(True)\n", torch="2.4"),)
QUIET = (Example("import os, torch\nos.environ['CUBLAS_WORKSPACE_CONFIG'] = ':4096:8'\n"
                 "torch.use_deterministic_algorithms(True)\n", torch="2.4"),
         Example("import torch\ntorch.use_deterministic_algorithms(True)\n", torch="2.10", note="2.10 no longer needs it"))

NAME = "CUBLAS_WORKSPACE_CONFIG"


@rule("lint", "TD303", severity=WARNING, category="lint", name="deterministic-without-cublas-config", on="file",
      fixable=False, since="<= 2.9", source="RANDOMNESS",
      links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",
             "https://docs.nvidia.com/cuda/cublas/index.html#results-reproducibility"))
def deterministic_without_cublas_config(scan):
    if scan.target_cuda is False or scan.text_has_cublas:
        return None
    needs = [t for t in scan.targets if compat.cublas_env_required(H.fmt(t))]
    if not needs:
        return None
    out = []
    for e in scan.calls:
        if e.path != "torch.use_deterministic_algorithms":
            continue
        if truthy(call_flag(e, 0, "mode")) is not True or truthy(call_flag(e, 1, "warn_only")) is True:
            continue
        out.append(hit(e.pos, "torch.use_deterministic_algorithms(True) with no %s in sight: on CUDA, torch %s "
                       "raise%s for cuBLAS ops unless it is :4096:8 or :16:8"
                       % (NAME, H.span(needs), "" if len(needs) > 1 else "s"), needs_absent=NAME))
    return out
