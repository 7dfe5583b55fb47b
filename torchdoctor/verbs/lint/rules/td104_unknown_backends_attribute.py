"""A name under torch.backends that no torch release has (a typo), with the closest real names.

## What it finds
An attribute or import of a `torch.backends` module that the module has in none of the
scanned releases (1.11 to 2.15), through any alias: `cudnn.ver` after
`import torch.backends.cudnn as cudnn`, `from torch.backends.cuda import flash_sdp_enable`,
`torch.backends.cuda.matmul.allow_fp32`. The message names the closest real names
(`version()`).

## Why it matters
The line raises AttributeError (or ImportError) on every release, and an assignment to a
misspelt flag (`cudnn.benchmarks = True`) silently sets nothing: torch keeps its default.

## Fix
Use the name the message suggests; `torchdoctor lint --explain TD104` and the
torch.backends documentation list the real ones.
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import backends_names as B
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch.backends.cudnn as cudnn\nprint(cudnn.ver)\n", note="did you mean version()?"),
         Example("import torch\ntorch.backends.cudnn.benchmarks = True\n", note="a misspelt flag sets nothing"))
QUIET = (Example("import torch.backends.cudnn as cudnn\nprint(cudnn.version())\n"),
         Example("import torch\nif hasattr(torch.backends.cudnn, 'ver'):\n    print(torch.backends.cudnn.ver)\n",
                 note="a guard that names the attribute"),
         Example("import torch\ntorch.backends.cudnn._private_thing = 1\n", note="private names are not checked"))


@rule("lint", "TD104", severity=ERROR, category="lint", name="unknown-backends-attribute", on="use", fixable=False,
      since="any", source="BACKENDS_SCAN", about_absence=True, links=("https://docs.pytorch.org/docs/stable/backends.html",))
def unknown_backends_attribute(use):
    u = B.unknown(use.path)
    if u is None:
        return None
    prefix, close = u
    parent = prefix.rpartition(".")[0]
    msg = "%s exists in no torch release (1.11 to 2.15 scanned)" % prefix
    if close:
        msg += "; did you mean %s?" % " or ".join("%s.%s" % (parent, B.spelled(parent, c)) for c in close)
    return hit(use.pos(), msg)
