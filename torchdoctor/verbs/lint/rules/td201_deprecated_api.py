"""A torch API deprecated in a target release (sdp_kernel, torch.cuda.amp.*, set_deterministic ...), with its replacement.

## What it finds
A call, import or decorator of a torch API that a release of the target deprecates (and
still has): `torch.backends.cuda.sdp_kernel` (2.3), `torch.cuda.amp.autocast` and its kin
(2.4), `torch.nn.utils.weight_norm` (2.1), the legacy linear-algebra functions, torchvision's
`transforms.v2.ToTensor` (torchvision 0.15, which pairs with torch 2.0: the torch target
decides) and every other deprecation of the API history (docs/lint-rules.md). A name only compared or listed
(`f is torch.cuda.amp.autocast`) warns nowhere and is not reported.

## Why it matters
The call warns on every run, and the API goes in a later release: the code breaks on an
upgrade.

A from-imported name is reported at each call as well as at the import
(`from torch.backends.cuda import sdp_kernel as sk; with sk(...)`), as TorchFix does.

## Fix
Use the replacement the message names. Where the replacement does not exist in every release
of the target (`torch.amp.GradScaler("cuda")` is 2.3+, `torch.nn.attention.sdpa_kernel` 2.3+),
the message advises another name of the same object that every target release has
(`torch.autocast("cuda", ...)`, 1.10+, for `torch.amp.autocast`, 1.12+), or else names the
releases without the replacement; either way it offers no rewrite. `--fix` rewrites where the replacement is exactly
equivalent on every target release: `sdp_kernel(enable_flash=True, enable_math=False,
enable_mem_efficient=False)` becomes `sdpa_kernel([SDPBackend.FLASH_ATTENTION,
SDPBackend.CUDNN_ATTENTION])` (sdp_kernel itself adds CUDNN_ATTENTION for its default
`enable_cudnn=True`), at each call, through any alias, when every flag is a literal.
"""

import ast

from ....model.findings import WARNING
from ....model.rules import rule
from .. import api_kinds as K
from .. import history as H
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=False,"
                 " enable_mem_efficient=False):\n    pass\n", torch="2.4",
                 note="--fix writes sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.CUDNN_ATTENTION])"),
         Example("import torch\nfrom packaging import version\n"
                 "if version.parse(torch.__version__) >= version.parse('2.0'):\n"
                 "    ctx = torch.backends.cuda.sdp_kernel(enable_flash=True)\n", torch=">=2.0",
                 note="a version bound that lets 2.3+ through does not hide a deprecation from 2.3"),
         Example("from torch.backends.cuda import sdp_kernel as sk\nwith sk(enable_math=False):\n    pass\n",
                 torch="2.4", note="each use of a from-imported name, through its alias; --fix rewrites the call"),
         Example("import torch\nscaler = torch.cuda.amp.GradScaler()\n", torch=">=2.0",
                 note="torch.amp.GradScaler is 2.3+: the message says so and offers no rewrite"),
         Example("import torch\nwith torch.cuda.amp.autocast():\n    pass\n", torch=">=1.11",
                 note="torch.amp.autocast is 1.12+: the message advises torch.autocast (1.10+), the same object"))
QUIET = (Example("import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=True):\n    pass\n", torch="2.2",
                 note="not deprecated yet in 2.2"),
         Example("import torch\nuses_old_amp = f is torch.cuda.amp.autocast\n", torch="2.4",
                 note="only compared: nothing warns"),
         Example("import torch\nif torch.__version__ < '2.3':\n    ctx = torch.backends.cuda.sdp_kernel(enable_flash=True)\n",
                 torch=">=2.0", note="a version bound that keeps out the releases that deprecate it"))


@rule("lint", "TD201", severity=WARNING, category="lint", name="deprecated-api", on="use", fixable="some",
      since="per API", source="WHEELS+AMP_24+PR_49904")
def deprecated_api(use):
    if use.miss() or (not use.via_import and use.call is None):
        return None  # a missing API is TD101/TD102's; a name only referenced warns nowhere
    d = use.deprecation()
    if d is None:
        return None
    path, whole, dep = d
    repl = dep["entry"].get("replacement")
    msg = "%s is deprecated since %s" % (path, dep["since"])
    gap = H.replacement_missing(path, use.targets)
    wide = next((a for a in K.aliases(gap[0]) if not H.missing_in(a, use.targets)), None) if gap else None
    if repl and wide:
        msg += "; use %s (the same object as %s, which is not in every target release)" % (
            repl.replace(gap[0], wide, 1), gap[0])
    elif repl and gap:
        # Advice that breaks part of the target is no advice: name the releases, offer no rewrite.
        why = gap[1]   # replacement_missing gives only "added" gaps, which carry their release
        msg += "; its replacement %s exists only from torch %s, not in %s of the target: keep %s there or " \
               "branch on the torch version" % (repl, why["added"], H.span(why["versions"]), path)
    elif repl:
        msg += "; use %s" % repl
    call = use.call if whole and isinstance(use.call, ast.Call) and not gap else None
    return hit(use.pos(call), msg, edit=use.edit_for(path) if call is not None else None, replacement=repl)
