"""A torch.backends setting (a flag such as cudnn.benchmark) called as if it were a function.

## What it finds
A call of a `torch.backends` setting: a bool or string property such as
`cudnn.benchmark`, `cudnn.enabled`, `cudnn.deterministic`, `cuda.matmul.allow_tf32` or
`fp32_precision`: `torch.backends.cudnn.benchmark()`, `if cudnn.enabled(): ...`.

## Why it matters
A setting is a value, not a function: the call raises `TypeError: 'bool' object is not
callable` (or `'str' object ...`) on every release, under a guard too.

## Fix
Read it without the call (`if torch.backends.cudnn.enabled:`) or set it
(`torch.backends.cudnn.benchmark = True`).
"""

import ast

from ....model.findings import ERROR
from ....model.rules import rule
from .. import backends_names as B
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\ntorch.backends.cudnn.benchmark()\n"),
         Example("import torch.backends.cudnn as cudnn\nif cudnn.enabled():\n    pass\n", note="through an alias"))
QUIET = (Example("import torch\ntorch.backends.cudnn.benchmark = True\nif torch.backends.cudnn.enabled:\n    pass\n"),
         Example("import torch\nprint(torch.backends.cudnn.version())\n", note="version is a function"))


@rule("lint", "TD105", severity=ERROR, category="lint", name="setting-called", on="use", fixable=False,
      since="any", source="BACKENDS_SCAN", despite_guards=True,
      links=("https://docs.pytorch.org/docs/stable/backends.html",))
def setting_called(use):
    call = use.call
    if not isinstance(call, ast.Call) or call.func is not use.node or B.kind(use.path) != "setting":
        return None
    return hit(use.pos(call), "%s is a setting, not a function: calling it raises TypeError ('bool' object is not "
               "callable); read it as %s or assign it" % (use.path, use.path))
