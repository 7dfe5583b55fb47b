"""cudnn.benchmark = True in a file whose training DataLoader keeps a last batch of another size (a hint).

## What it finds
`torch.backends.cudnn.benchmark = True` in a file that also builds a shuffled (training)
`torch.utils.data.DataLoader` (`shuffle=True`) with a `batch_size` and without
`drop_last=True` (nor a `batch_sampler`, which decides the sizes itself): the last batch of
each epoch usually has another size. An info-level hint. Evaluation loaders (not shuffled)
are left alone: dropping their last batch would drop samples from the evaluation.

## Why it matters
With benchmark on, cuDNN times its convolution algorithms again for every input shape it has
not seen: a last batch of another size costs one more round of autotuning (and its memory
peak) per shape. With shapes that vary every batch (variable-length sequences, multi-scale
resizing) benchmark costs more than it gains.

## Fix
`drop_last=True` on the training loader, or pad the last batch; keep benchmark = False where
input shapes vary from batch to batch.
"""

from ....model.findings import INFO
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyevents import DATALOADERS, call_flag

FIRES = (Example("import torch\nfrom torch.utils.data import DataLoader\ntorch.backends.cudnn.benchmark = True\n"
                 "loader = DataLoader(dataset, batch_size=64, shuffle=True)\n"),)
QUIET = (Example("import torch\nfrom torch.utils.data import DataLoader\ntorch.backends.cudnn.benchmark = True\n"
                 "loader = DataLoader(dataset, batch_size=64, shuffle=True, drop_last=True)\n"),
         Example("import torch\nfrom torch.utils.data import DataLoader\ntorch.backends.cudnn.benchmark = True\n"
                 "loader = DataLoader(dataset, batch_sampler=sampler)\n", note="the sampler decides the sizes"),
         Example("import torch\nfrom torch.utils.data import DataLoader\ntorch.backends.cudnn.benchmark = True\n"
                 "val = DataLoader(dataset, batch_size=64, shuffle=False)\n",
                 note="an evaluation loader: every sample counts"))


def _keeps_last_batch(e) -> bool:
    """A batch size other than 1 and drop_last literally False (or left out); anything the
    call does not spell out (`drop_last=cfg.drop`, `**kwargs`) counts as unknown: quiet."""
    kw = e.value.keywords
    size = call_flag(e, 1, "batch_size")
    if size is ... and "batch_size" not in kw and len(e.value.args) < 2:
        size = 1   # DataLoader's default
    return size != 1 and size is not None and call_flag(e, 2, "shuffle") is True and \
        kw.get("drop_last", False) is False and "batch_sampler" not in kw and "**" not in kw


@rule("lint", "TD306", severity=INFO, category="lint", name="benchmark-with-varying-shapes", on="file",
      fixable=False, source="CUDNN_DOCS",
      links=("https://docs.pytorch.org/docs/stable/backends.html#torch.backends.cudnn.benchmark",))
def benchmark_with_varying_shapes(scan):
    bench = scan.flag("torch.backends.cudnn.benchmark", True)
    if not bench:
        return None
    loader = next((e for e in scan.calls if e.path in DATALOADERS and _keeps_last_batch(e)), None)
    if loader is None:
        return None
    return [hit(b.pos, "cudnn.benchmark = True with a shuffled DataLoader (line %d) that keeps a last batch of another size "
                "(no drop_last=True): every new input shape re-runs cuDNN's autotuning; where shapes vary every batch "
                "benchmark costs more than it gains" % loader.pos.line) for b in bench]
