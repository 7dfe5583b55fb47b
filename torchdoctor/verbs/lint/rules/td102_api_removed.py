"""A torch API that was removed before a target release.

## What it finds
A use of a torch API that a release of the target no longer has, or keeps only as a stub
that raises: `torch.set_deterministic` (removed in 1.10), `torch.solve` (1.12), `torch.symeig`,
`torch._six` (2.0) and every other removal the API history records (docs/lint-rules.md).

## Why it matters
On those releases the line raises (AttributeError, ImportError, or the stub's RuntimeError)
when it runs.

## Fix
Use the replacement the message names. Where the rewrite is exactly equivalent on every
target release (`torch.set_deterministic(d)` -> `torch.use_deterministic_algorithms(d)`),
`--fix` applies it.
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import history as H
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\ntorch.set_deterministic(True)\n", torch="2.1",
                 note="removed in 1.10; --fix writes torch.use_deterministic_algorithms(True)"),
         Example("import torch\ndef seed(m):\n    if hasattr(m, 'x') or m.has_cache:\n"
                 "        torch.set_deterministic(True)\n", torch="2.1",
                 note="a test of something else does not guard it"))
QUIET = (Example("import torch\ntorch.use_deterministic_algorithms(True)\n", torch="2.1"),)


@rule("lint", "TD102", severity=ERROR, category="lint", name="api-removed", on="use", fixable="some",
      since="per API", source="WHEELS", about_absence=True)
def api_removed(use):
    m = use.miss()
    if not m or m[2]["kind"] != "removed":
        return None
    path, whole, miss = m
    repl = miss["entry"].get("replacement")
    msg = "%s was removed in torch %s (the target includes %s)" % (path, miss["removed"], H.span(miss["versions"]))
    if repl:
        msg += "; use %s" % repl
    call = use.call if whole else None
    return hit(use.pos(call), msg, edit=use.edit_for(path) if whole else None, replacement=repl)
