"""A torch.backends function (is_available, is_built, version ...) tested without calling it.

## What it finds
A `torch.backends` function named without a call where an `if`, `while`, conditional
expression or `assert` tests its truth, alone or under `and`/`or`/`not`:
`if torch.backends.mps.is_available:`, `assert cudnn.is_available`.

## Why it matters
A function object is always true: the test passes on every machine, so the code picks MPS
(or cuDNN) where there is none and fails later, far from the cause.

## Fix
Call it: `if torch.backends.mps.is_available():`.
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import backends_names as B
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\nif torch.backends.mps.is_available:\n    device = 'mps'\n"),
         Example("import torch.backends.cudnn as cudnn\nassert not cudnn.is_available or True\n",
                 note="under not and or"))
QUIET = (Example("import torch\nif torch.backends.mps.is_available():\n    device = 'mps'\n"),
         Example("import torch\ncheck = torch.backends.mps.is_available\nok = check()\n",
                 note="a function passed on, not tested"))


@rule("lint", "TD106", severity=ERROR, category="lint", name="function-not-called", on="use", fixable=False,
      since="any", source="BACKENDS_SCAN", despite_guards=True,
      links=("https://docs.pytorch.org/docs/stable/backends.html",))
def function_not_called(use):
    if use.call is not None or use.via_import or not use.truth_tested or B.kind(use.path) != "function":
        return None
    return hit(use.pos(), "%s is a function: without () it is always true; call it: %s()" % (use.path, use.path))
