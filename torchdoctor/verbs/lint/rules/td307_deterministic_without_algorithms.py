"""cudnn.deterministic = True with no torch.use_deterministic_algorithms anywhere in the project.

## What it finds
`torch.backends.cudnn.deterministic = True` (or `cudnn.flags(deterministic=True)`) when no
file of the scan names `torch.use_deterministic_algorithms`.

## Why it matters
cudnn.deterministic covers cuDNN's convolutions only. Other CUDA ops (`index_add_`,
`scatter_add_`, `put_`, the backward of `interpolate`, embedding bags, cuBLAS reductions...)
stay nondeterministic, so runs still differ: the code looks reproducible and is not.
`torch.use_deterministic_algorithms(True)` (1.8+) makes every such op deterministic or makes
it raise, and implies cudnn.deterministic.

## Fix
Call `torch.use_deterministic_algorithms(True)` once at start-up (on torch up to 2.9 with CUDA,
with `CUBLAS_WORKSPACE_CONFIG=:4096:8` set: TD303); `warn_only=True` lists the
nondeterministic ops without stopping.
"""

from ....model.findings import INFO
from ....model.rules import rule
from ..examples import Example
from ..located import hit

NAME = "use_deterministic_algorithms"

FIRES = (Example("import torch\n\ndef set_seed(seed):\n    torch.manual_seed(seed)\n"
                 "    torch.backends.cudnn.deterministic = True\n    torch.backends.cudnn.benchmark = False\n"),)
QUIET = (Example("import torch\ntorch.backends.cudnn.deterministic = True\ntorch.use_deterministic_algorithms(True)\n",
                 torch="2.10"),
         Example("import torch\ntorch.backends.cudnn.deterministic = False\n"))


@rule("lint", "TD307", severity=INFO, category="lint", name="deterministic-without-algorithms", on="file",
      fixable=False, source="RANDOMNESS+DOCS_18_UDA",
      links=("https://docs.pytorch.org/docs/stable/notes/randomness.html",
             "https://docs.pytorch.org/docs/stable/generated/torch.use_deterministic_algorithms.html"))
def deterministic_without_algorithms(scan):
    return [hit(d.pos, "cudnn.deterministic = True makes only cuDNN convolutions deterministic; other CUDA ops "
                "(index_add_, scatter_add_, interpolate's backward ...) still vary between runs: call "
                "torch.use_deterministic_algorithms(True)", needs_absent=NAME)
            for d in scan.flag("torch.backends.cudnn.deterministic", True)]
