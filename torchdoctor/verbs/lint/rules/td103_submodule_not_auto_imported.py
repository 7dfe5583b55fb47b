"""A torch submodule used as an attribute of torch that `import torch` does not import in some target release: import it explicitly.

## What it finds
`torch.backends.opt_einsum.enabled`, `torch.backends.xnnpack.enabled`, `torch.mps.empty_cache()`
and the like, reached through `import torch` alone, on a target where `import torch` does
not import that submodule (torch.backends.opt_einsum before 2.9, torch.mps in 2.0,
torch.backends.xnnpack never).

## Why it matters
The attribute exists only once something imported the submodule: the line raises
AttributeError, or works only because another module happened to import it first.

## Fix
Add `import torch.backends.opt_einsum` (the submodule the message names) beside `import torch`.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from .. import history as H
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\nx = torch.backends.opt_einsum.enabled\n", torch="2.8",
                 note="torch.backends imports opt_einsum itself from 2.9 on"),)
QUIET = (Example("import torch\nimport torch.backends.opt_einsum\nx = torch.backends.opt_einsum.enabled\n", torch="2.8"),)


@rule("lint", "TD103", severity=WARNING, category="lint", name="submodule-not-auto-imported", on="use",
      fixable=False, since="per module", source="BACKENDS_IMPORTS+MPS_IMPORT", about_absence=True)
def submodule_not_auto_imported(use):
    if use.via_import or use.miss():
        return None  # an import imports it; a missing API is TD101's, which says more
    parts = use.parts
    for n in range(max(use.start, 2), len(parts)):
        mod = ".".join(parts[:n])
        listed, since = H.imported_by_torch_from(mod)
        # every dotted prefix of what was imported is in `imported` too: one lookup
        if not listed or mod in use.walk.imported:
            continue
        if H.missing_in(mod, use.targets):
            return None  # TD101 says more
        early = [t for t in use.targets if since is None or t < since]
        if not early:
            return None
        when = "any release" if since is None else "torch < %s" % H.fmt(since)
        return hit(use.pos(), "%s is not imported by `import torch` in %s (the target includes %s): add `import %s`"
                   % (mod, when, H.fmt(early[0]), mod))
    return None
