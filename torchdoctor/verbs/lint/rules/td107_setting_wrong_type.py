"""A torch.backends setting assigned a literal of the wrong type or a value torch refuses.

## What it finds
An assignment (or a `cudnn.flags(...)` argument) of a literal a `torch.backends` setting does
not accept: a string or a number to a bool flag (`cudnn.benchmark = "yes"`,
`cuda.matmul.allow_tf32 = 1`), a bool to `fp32_precision`, or a string no release accepts
there (`cuda.matmul.fp32_precision = "bf16"`, `"high"`). The types and the accepted strings
are asked of torch itself (tools/lint_api_kinds.py), through any alias.

## Why it matters
torch checks the value when it is set: the line raises RuntimeError ("set_benchmark_cudnn
expects a bool, but got str", "Unknown precision: high") or TypeError, and nothing is set.
Even `1` is refused by a bool flag.

## Fix
Assign what the message names: `True`/`False` for a flag; `"ieee"`, `"tf32"` or `"none"`
for `fp32_precision` (`"bf16"` only on mkldnn and the generic `torch.backends.fp32_precision`).
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import api_kinds as K
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\ntorch.backends.cudnn.benchmark = 'yes'\n"),
         Example("import torch.backends.cuda as tbc\ntbc.matmul.fp32_precision = True\n",
                 note="a bool given to fp32_precision, through an alias"),
         Example("import torch\ntorch.backends.cuda.matmul.allow_tf32 = 1\n", note="1 is not a bool to torch"),
         Example("import torch\ntorch.backends.cuda.matmul.fp32_precision = 'bf16'\n",
                 note="cuda refuses bf16"))
QUIET = (Example("import torch\ntorch.backends.cudnn.benchmark = True\n"
                 "torch.backends.cuda.matmul.fp32_precision = 'tf32'\n"
                 "torch.backends.mkldnn.fp32_precision = 'bf16'\n"),
         Example("import torch, os\ntorch.backends.cudnn.benchmark = os.environ.get('BENCH') == '1'\n",
                 note="not a literal: unknown until it runs"))


@rule("lint", "TD107", severity=ERROR, category="lint", name="setting-wrong-type", on="file", fixable=False,
      since="any", source="API_KINDS", links=("https://docs.pytorch.org/docs/stable/backends.html",))
def setting_wrong_type(scan):
    out = []
    for s in scan.stores:
        why = K.wrong_value(s.path, s.value)
        if why:
            out.append(hit(s.pos, "%s %s: torch raises when it is set" % (s.path, why)))
    return out
