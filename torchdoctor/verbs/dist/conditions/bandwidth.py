"""Dist conditions of bandwidth: the all_reduce bus bandwidth against what the slowest link
of the topology should reach (expected_bound), and node pairs much slower than the median.
"""

from typing import Any, Dict, Optional

from ....model.findings import WARNING
from ....model.rules import rule
from .. import jobfacts as J
from .. import topology as T
from .common import cuda_job, finding


def _rank_gpu_index(node: Dict[str, Any], s: Dict[str, Any]) -> Optional[int]:
    dev = s.get("device") or {}
    for g in node.get("gpus") or []:
        if isinstance(g, dict) and ((dev.get("gpu_hash") and g.get("gpu_hash") == dev.get("gpu_hash"))
                                    or (dev.get("pci_bus_id") and g.get("pci_bus_id") == dev.get("pci_bus_id"))):
            return g.get("index")
    return None


def expected_bound(job: Dict[str, Any]) -> Optional[Dict[str, Any]]:
    """What the job's all_reduce bus bandwidth should reach: the slowest node's GPU links,
    and with several nodes also the slowest node's network (see topology)."""
    if not cuda_job(job):
        return None
    bounds = []
    topos = []
    for node in job.get("nodes") or []:
        topo = None
        for r in node.get("ranks") or []:
            s = J.summary(job, r)
            if s and isinstance(s.get("node"), dict):
                topo = dict(s["node"], label=node["label"])
                break
        if topo is None:
            continue
        topos.append(topo)
        idx = [_rank_gpu_index(topo, J.summary(job, r)) for r in node["ranks"] if J.summary(job, r)]
        if any(i is None for i in idx):
            continue
        b = T.intra_node_bound(topo, sorted(set(idx)))
        if b:
            bounds.append(dict(b, scope="inside node %s" % node["label"]))
    if len(job.get("nodes") or []) > 1:
        b = T.inter_node_bound(topos) if len(topos) == len(job.get("nodes") or []) else None
        if b:
            bounds.append(dict(b, scope="between nodes (node %s's network)" % b.get("node")))
    known = [b for b in bounds if b.get("gbps")]
    if not known:
        return bounds[0] if bounds else None
    return min(known, key=lambda b: b["gbps"])


def _largest(job, op: str) -> Optional[Dict[str, Any]]:
    rows = [r for r in (job.get("bandwidth") or {}).get("rows") or [] if r.get("op") == op and r.get("busbw")]
    return max(rows, key=lambda r: r["bytes"]) if rows else None


@rule("dist", "dist-bandwidth-below-topology", severity=WARNING, category="dist-bandwidth")
def bandwidth_below_topology(job):
    exp = job.get("expectation") if "expectation" in job else expected_bound(job)
    row = _largest(job, "all_reduce")
    conf = T.data()["expectation"]
    if not exp or not exp.get("judged") or not exp.get("gbps") or not row or row["bytes"] < conf["min_bytes"]:
        return []
    share = row["busbw"] / exp["gbps"]
    if share >= conf["fraction"]:
        return []
    return [finding(
        "dist-bandwidth-below-topology", WARNING, "dist-bandwidth",
        "all_reduce bus bandwidth is %.1f GB/s, %d%% of what %s should reach (%.0f GB/s)" % (
            row["busbw"], round(share * 100), exp.get("link"), exp["gbps"]),
        "Measured at %d MiB over %d ranks (busbw = algbw x 2(n-1)/n, nccl-tests' definition); the bound is the "
        "nominal one-direction bandwidth of the slowest link %s. Flagged below %d%% of it, at messages of at least "
        "%d MiB. Usual causes: NCCL_P2P_DISABLE/NCCL_IB_DISABLE left set, P2P blocked by PCIe ACS or a VM, a GPU "
        "or NIC on a degraded PCIe link, traffic on the wrong NIC." % (
            row["bytes"] // 2 ** 20, row.get("ranks") or J.world(job), exp.get("scope", ""),
            conf["fraction"] * 100, conf["min_bytes"] // 2 ** 20),
        fix="Rerun with NCCL_DEBUG=INFO and read which transport each ring uses (P2P/NVLink, SHM, NET).",
        commands=["NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH torchdoctor dist ...", "nvidia-smi topo -m",
                  "nvidia-smi -q | grep -A3 'Link Width'"],
        links=[T.data()["expectation"]["source"]])]


@rule("dist", "dist-slow-pair", severity=WARNING, category="dist-bandwidth")
def slow_pair(job):
    if not cuda_job(job):
        return []
    pairs = [p for p in job.get("pairs") or [] if p.get("busbw")]
    if len(pairs) < 3:
        return []
    vals = sorted(p["busbw"] for p in pairs)
    median = vals[len(vals) // 2]
    frac = T.data()["expectation"]["slow_pair_fraction"]
    slow = [p for p in pairs if p["busbw"] < frac * median]
    if not slow:
        return []
    return [finding(
        "dist-slow-pair", WARNING, "dist-bandwidth",
        "%d slow link(s): %s" % (len(slow), ", ".join(p["what"] for p in slow[:6])),
        "; ".join("%s: %.1f GB/s" % (p["what"], p["busbw"]) for p in slow[:12]) +
        "; the median pair reaches %.1f GB/s. Flagged below %d%% of the median." % (median, frac * 100),
        fix="Test the named nodes' links alone (nccl-tests between two nodes, ib_write_bw between their HCAs).",
        commands=["ibstat", "ib_write_bw"])]
