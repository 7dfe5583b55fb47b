"""A torch API that the oldest target release does not have yet (AttributeError / ImportError there).

## What it finds
An attribute, import or literal `getattr` of a torch API, through any alias (`import
torch.backends.cudnn as cudnn`, `from torch.backends import cuda`, `tbc = torch.backends.cuda`),
that some release of the target does not have yet: `torch.backends.mps` (1.12),
`torch.compile` (2.0), `torch.nn.attention.sdpa_kernel` (2.3), `torch.backends.cuda.matmul.fp32_precision`
(2.9) and every other name of the API history (docs/lint-rules.md).

## Why it matters
On those releases the line raises AttributeError or ImportError when it runs: the code
works on the machine it was written on and fails on the oldest torch its pins admit.

## Fix
Raise the floor of the torch pin to the release that added the API, or guard the use
(`hasattr`, a torch version check whose bound excludes the releases without it, `try` /
`except ImportError`, `assert` of such a check, `@pytest.mark.skipif(not ...)`). A test of
something else (`hasattr(m, "x")`, a parameter called `version`) guards nothing.
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import history as H
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\nok = torch.backends.mps.is_available()\n", torch="1.11",
                 note="torch.backends.mps arrived in 1.12"),
         Example("import torch\ndef attend(q, version):\n    if version >= 2.0:\n"
                 "        return torch.nn.functional.scaled_dot_product_attention(q, q, q)\n", torch=">=1.13",
                 note="a parameter called version is not torch's version: no guard"))
QUIET = (Example("import torch\nok = torch.backends.mps.is_available()\n", torch="1.12"),
         Example("import torch\nif hasattr(torch.backends, 'mps'):\n    ok = torch.backends.mps.is_available()\n",
                 torch="1.11", note="a guard that names the API"),
         Example("import torch\nhas_compile = hasattr(torch, 'compile')\nassert has_compile\nfast = torch.compile(len)\n",
                 torch=">=1.13", note="an assert of a flag assigned from hasattr guards the rest of its block"),
         Example("import pytest\nimport torch\n\n@pytest.mark.skipif(not hasattr(torch, 'compile'), reason='needs it')\n"
                 "def test_compiled():\n    torch.compile(len)\n", torch=">=1.13",
                 note="skipif(not <guard>) guards the test"))


@rule("lint", "TD101", severity=ERROR, category="lint", name="api-not-yet-added", on="use", fixable=False,
      since="per API", source="WHEELS+BACKENDS_IMPORTS", about_absence=True, links=("https://docs.pytorch.org/docs/stable/backends.html",))
def api_not_yet_added(use):
    m = use.miss()
    if not m or m[2]["kind"] != "added":
        return None
    path, whole, miss = m
    repl = miss["entry"].get("replacement")
    msg = "%s does not exist in torch %s of the target (first in %s)" % (path, H.span(miss["versions"]), miss["added"])
    if repl:
        msg += "; use %s" % repl
    call = use.call if whole else None
    return hit(use.pos(call), msg, edit=use.edit_for(path) if whole else None, replacement=repl)
