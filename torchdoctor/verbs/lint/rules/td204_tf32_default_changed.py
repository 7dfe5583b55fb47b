"""A TF32 flag read and never set, on a target whose releases have different defaults for it.

## What it finds
A read of `torch.backends.cuda.matmul.allow_tf32` in a file that never sets it (nor calls
`torch.set_float32_matmul_precision`, which sets it too), when the
target holds releases on both sides of the change of its default (True up to 1.11, False from
1.12): `if torch.backends.cuda.matmul.allow_tf32: ...`, `log(allow_tf32=...)`. The defaults and
the release they changed in are data (data/api_kinds.json), not code.

## Why it matters
The same program computes float32 matmuls in TF32 (about 10 bits of mantissa) on one release
and in full float32 on the next: results and speed change with the torch version, and code
that reads the flag to decide something decides differently.

## Fix
Set it explicitly where the program starts (`torch.backends.cuda.matmul.allow_tf32 = True`
or False; on 1.12+ `torch.set_float32_matmul_precision("high")` or `"highest"`), or narrow
the target.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from .. import api_kinds as K
from .. import history as H
from ..examples import Example
from ..located import hit

PATH = "torch.backends.cuda.matmul.allow_tf32"

FIRES = (Example("import torch\nif torch.backends.cuda.matmul.allow_tf32:\n    print('tf32 on')\n",
                 torch=">=1.11,<1.13"),)
QUIET = (Example("import torch\nif torch.backends.cuda.matmul.allow_tf32:\n    print('tf32 on')\n", torch=">=1.12"),
         Example("import torch\ntorch.backends.cuda.matmul.allow_tf32 = False\nprint(torch.backends.cuda.matmul.allow_tf32)\n",
                 torch=">=1.11,<1.13", note="set explicitly: the default does not matter"))


def _default(changes, t):
    value = None
    for v, d in changes:
        if H.mt(v) <= t:
            value = d
    return value


@rule("lint", "TD204", severity=WARNING, category="lint", name="tf32-default-changed", on="file", fixable=False,
      since="1.12", source="API_KINDS+TF32_DOCS",
      links=("https://pytorch.org/docs/main/notes/cuda.html#tensorfloat-32-tf32-on-ampere-and-later-devices",))
def tf32_default_changed(scan):
    changes = K.default_changes(PATH)
    by_default = {}
    for t in scan.targets:
        by_default.setdefault(_default(changes, t), []).append(t)
    # torch.set_float32_matmul_precision sets the same flag ("high": True, "highest": False)
    if len(by_default) < 2 or any(s.path == PATH for s in scan.stores) or \
            any(c.path == "torch.set_float32_matmul_precision" for c in scan.calls):
        return None
    spans = "; ".join("%s in %s" % (d, H.span(ts)) for d, ts in by_default.items())
    return [hit(e.pos, "%s is read but never set here, and its default differs across the target (%s): "
                "set it explicitly" % (PATH, spans))
            for e in scan.events if e.kind == "load" and e.path == PATH and not e.guarded]
