"""A context manager (sdp_kernel, cudnn.flags, autocast, no_grad ...) called as a plain statement: it does nothing outside a with statement.

## What it finds
A call that is a whole statement of a torch context manager whose call alone changes
nothing: the `@contextmanager` functions (`torch.backends.cuda.sdp_kernel`,
`torch.nn.attention.sdpa_kernel`, `torch.backends.cudnn.flags`, `torch.backends.mkldnn.flags`,
`torch.random.fork_rng` ...) and the calls whose object acts only on `__enter__`
(`torch.no_grad`, `torch.enable_grad`, `torch.inference_mode`, `torch.autocast`,
`torch.amp.autocast`, `torch.cuda.amp.autocast`, `torch.cuda.device`, `torch.cuda.stream`),
through any alias: `torch.backends.cuda.sdp_kernel(enable_flash=False)`, `torch.no_grad()`,
`torch.cuda.device(1)`.

## Why it matters
Calling a `@contextmanager` function only makes a generator; an autocast, no_grad or
cuda.device object changes the mode (or the device) when entered. Without `with` (or use as a decorator) the line has no
effect: the kernels, the precision or the gradient mode stay what they were, silently.

## Fix
Enter it around the code it should govern: `with torch.backends.cuda.sdp_kernel(...):`.
To change a flag for the rest of the program, assign the flag
(`torch.backends.cudnn.benchmark = True`), use `torch.set_grad_enabled(False)` or
`torch.cuda.set_device(1)`.
"""

from ....model.findings import ERROR
from ....model.rules import rule
from .. import api_kinds as K
from ..examples import Example
from ..located import hit

FIRES = (Example("import torch\ntorch.backends.cuda.sdp_kernel(enable_flash=False)\n", torch="2.2"),
         Example("from torch.nn.attention import sdpa_kernel as k, SDPBackend\nk(SDPBackend.MATH)\n",
                 note="through an alias"),
         Example("import torch\ndef evaluate(model, x):\n    torch.no_grad()\n    return model(x)\n"),
         Example("import torch\ntorch.cuda.device(1)\n", note="the device stays what it was"))
QUIET = (Example("import torch\nwith torch.backends.cuda.sdp_kernel(enable_flash=False):\n    pass\n", torch="2.2"),
         Example("import torch\n@torch.no_grad()\ndef evaluate(model, x):\n    return model(x)\n",
                 note="a decorator enters it on each call"),
         Example("import torch\ntorch.set_grad_enabled(False)\n", note="set_grad_enabled acts when called"),
         Example("import torch\nctx = torch.autocast('cuda')\nwith ctx:\n    pass\n", note="kept and entered later"))


@rule("lint", "TD108", severity=ERROR, category="lint", name="context-manager-not-entered", on="use",
      fixable=False, since="any", source="API_KINDS", despite_guards=True,
      links=("https://docs.python.org/3/library/contextlib.html#contextlib.contextmanager",))
def context_manager_not_entered(use):
    if not use.discarded or use.call.func is not use.node or K.context_manager(use.path) is None:
        return None
    return hit(use.pos(use.call), "%s(...) does nothing outside a with statement: it is a context manager; "
               "write `with %s(...):` around the code it should govern" % (use.path, use.path))
