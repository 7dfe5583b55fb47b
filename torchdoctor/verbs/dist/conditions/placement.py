"""Dist conditions of where ranks run: two ranks of one node on the same GPU, and a
LOCAL_RANK beyond the GPUs the rank can see.
"""

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from ....model.findings import ERROR, WARNING
from ....model.rules import rule
from .. import jobfacts as J
from .common import DIST_DOCS, finding


def _device_id(s: Dict[str, Any]) -> Optional[str]:
    dev = s.get("device") or {}
    return dev.get("gpu_hash") or dev.get("pci_bus_id")


@rule("dist", "dist-gpu-shared", severity=ERROR, category="dist-placement")
def gpu_shared(job):
    groups: "OrderedDict[Tuple[str, str], List[int]]" = OrderedDict()
    for r in J.with_summary(job):
        s = J.summary(job, r)
        if not (s.get("cuda") or {}).get("available"):
            continue
        ident = _device_id(s)
        node = J.node_of(job, r)
        if ident and node:
            groups.setdefault((node["label"], ident), []).append(r)
    out = []
    for (label, ident), rs in groups.items():
        if len(rs) < 2:
            continue
        dev = J.summary(job, rs[0]).get("device") or {}
        out.append(finding(
            "dist-gpu-shared", ERROR, "dist-placement",
            "%s share one GPU on node %s" % (J.ranks_phrase(job, rs), label),
            "They use the same device (%s%s). NCCL refuses two ranks of one communicator on one GPU: "
            "'ncclInvalidUsage ... Duplicate GPU detected : rank 1 and rank 0 both on CUDA device ...'. Usually "
            "CUDA_VISIBLE_DEVICES is the same for every rank, or more ranks per node were started than it has GPUs."
            % (dev.get("name") or "GPU", ", PCI %s" % dev["pci_bus_id"] if dev.get("pci_bus_id") else ""),
            fix="One GPU per rank: start as many ranks per node as it has GPUs and select the device from LOCAL_RANK.",
            commands=["torchrun --nproc-per-node gpu ...",
                      "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))"],
            links=[DIST_DOCS]))
    return out


@rule("dist", "dist-device-outside-visible", severity=ERROR, category="dist-placement")
def device_outside_visible(job):
    out = []
    for r in J.with_summary(job):
        s = J.summary(job, r)
        cuda = s.get("cuda") or {}
        local = J.where(job, r).get("local_rank")
        count = cuda.get("device_count")
        if not cuda.get("available") or local is None or not isinstance(count, int) or local < count:
            continue
        vis = cuda.get("visible")
        seen = "CUDA_VISIBLE_DEVICES=%s" % vis if vis is not None else "CUDA_VISIBLE_DEVICES unset"
        if count == 1 and vis is not None:
            out.append(finding(
                "dist-device-outside-visible", WARNING, "dist-placement",
                "%s sees one GPU (%s): cuda:LOCAL_RANK would be cuda:%d" % (J.rank_label(job, r), seen, local),
                "The launcher binds one GPU per rank, so this rank's device is cuda:0. Code that selects "
                "torch.device('cuda', LOCAL_RANK) fails here with 'CUDA error: invalid device ordinal'.",
                fix="Select the device as LOCAL_RANK % torch.cuda.device_count() (or cuda:0 under per-rank binding).",
                commands=["torch.cuda.set_device(int(os.environ['LOCAL_RANK']) % torch.cuda.device_count())"]))
        else:
            out.append(finding(
                "dist-device-outside-visible", ERROR, "dist-placement",
                "%s has LOCAL_RANK %d but sees %d GPU(s) (%s)" % (J.rank_label(job, r), local, count, seen),
                "torch.cuda.set_device(%d) raises 'CUDA error: invalid device ordinal' on this rank; wrapping the "
                "index around puts two ranks on one GPU instead." % local,
                fix="Start no more ranks per node than it has visible GPUs, or widen CUDA_VISIBLE_DEVICES.",
                commands=["nvidia-smi -L", "torchrun --nproc-per-node gpu ..."]))
    return out
