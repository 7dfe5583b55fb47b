"""Dist conditions of node and NCCL settings: NCCL debug switches left set, a
NCCL_SOCKET_IFNAME that matches no (or only the loopback) interface, OMP_NUM_THREADS unset
with several ranks on a node, a /dev/shm too small for NCCL.
"""

from collections import OrderedDict
from typing import Any, Dict, List, Optional, Tuple

from ....model.findings import ERROR, INFO, WARNING
from ....model.rules import rule
from .. import jobfacts as J
from .. import topology as T
from .common import cuda_job, finding

TRUE = ("1", "true", "yes", "on")
NCCL_ENV_DOCS = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"


def _env(s: Dict[str, Any], name: str) -> Optional[str]:
    v = (s.get("env") or {}).get(name)
    return v if isinstance(v, str) else None


def _per_node(job: Dict[str, Any]) -> Dict[str, List[int]]:
    return J.ranks_per_node(job)


@rule("dist", "dist-nccl-debug-left-set", severity=WARNING, category="dist-config")
def nccl_debug_left_set(job):
    if not cuda_job(job):
        return []
    d = T.data()["nccl_env"]
    out = []
    for name, what in d["left_set"].items():
        ranks = [r for r in J.with_summary(job) if (_env(J.summary(job, r), name) or "").strip().lower() in TRUE]
        if not ranks:
            continue
        out.append(finding(
            "dist-nccl-debug-left-set", WARNING, "dist-config",
            "%s=1 is set on %s" % (name, "every rank" if len(ranks) == J.world(job) else J.ranks_phrase(job, ranks)),
            "%s %s. NCCL's documentation: \"%s\"" % (name, what, d["debug_section_quote"]),
            fix="Unset it unless it is a deliberate, temporary workaround.", commands=["unset %s" % name],
            links=[d["source"]]))
    return out


@rule("dist", "dist-nccl-socket-ifname", severity=ERROR, category="dist-config")
def nccl_socket_ifname(job):
    if not cuda_job(job):
        return []
    out = []
    by_spec: "OrderedDict[Tuple[str, str], List[int]]" = OrderedDict()
    for r in J.with_summary(job):
        s = J.summary(job, r)
        spec = _env(s, "NCCL_SOCKET_IFNAME")
        if spec is None:
            continue
        names = s.get("ifaces") or []
        hits = T.ifname_matches(spec, names)
        multi = len(job.get("nodes") or []) > 1
        if not hits:
            kind = "none"
        elif multi and all(h == "lo" for h in hits):
            kind = "lo"
        else:
            kind = "ok:" + ",".join(hits)
        by_spec.setdefault((spec, kind), []).append(r)
    for (spec, kind), ranks in by_spec.items():
        names = J.summary(job, ranks[0]).get("ifaces") or []
        where = J.ranks_phrase(job, ranks)
        if kind == "none":
            out.append(finding(
                "dist-nccl-socket-ifname", ERROR, "dist-config",
                "NCCL_SOCKET_IFNAME=%s matches no network interface on %s" % (spec, where),
                "Interfaces there: %s. NCCL then finds no interface for its bootstrap and fails at init ('Bootstrap : "
                "no socket interface found') or hangs. NCCL's rule: \"%s\"" % (
                    ", ".join(names) or "none", T.data()["nccl_env"]["socket_ifname_quote"]),
                fix="Set it to a prefix of an interface that exists on every node (or unset it).",
                commands=["ip -br link", "unset NCCL_SOCKET_IFNAME"], links=[NCCL_ENV_DOCS]))
        elif kind == "lo":
            out.append(finding(
                "dist-nccl-socket-ifname", ERROR, "dist-config",
                "NCCL_SOCKET_IFNAME=%s selects only the loopback interface on %s, in a multi-node job" % (spec, where),
                "Other nodes cannot reach a rank over lo.", fix="Name the interface the nodes share.",
                commands=["ip -br addr"], links=[NCCL_ENV_DOCS]))
        else:
            out.append(finding(
                "dist-nccl-socket-ifname", INFO, "dist-config",
                "NCCL_SOCKET_IFNAME=%s pins NCCL's socket traffic to %s on %s" % (spec, kind[3:], where),
                "Fine while those interfaces are the ones the nodes reach each other on; a stale value after a "
                "network change is a classic cause of NCCL hangs.", links=[NCCL_ENV_DOCS]))
    return out


@rule("dist", "dist-omp-unset", severity=WARNING, category="dist-config")
def omp_unset(job):
    out = []
    for label, ranks in _per_node(job).items():
        if len(ranks) < 2:
            continue
        unset = [r for r in ranks if J.summary(job, r) is not None and _env(J.summary(job, r), "OMP_NUM_THREADS") is None]
        if not unset:
            continue
        cores = max([J.summary(job, r).get("cores") or 0 for r in unset] or [0])
        if cores and cores < 2:
            continue
        per = max(1, (cores or len(ranks)) // len(ranks))
        out.append(finding(
            "dist-omp-unset", WARNING, "dist-config",
            "OMP_NUM_THREADS is unset with %d ranks on node %s" % (len(ranks), label),
            "%s start one CPU thread per core each (%s cores), so %d ranks oversubscribe the node. torchrun sets "
            "OMP_NUM_THREADS=1 itself when it starts several processes per node (\"%s\"); srun, mpirun and plain "
            "scripts do not." % (J.ranks_phrase(job, unset), cores or "?", len(ranks),
                                 T.data()["texts"]["omp_banner"]["text"]),
            fix="Give each rank its share of the cores.", commands=["export OMP_NUM_THREADS=%d" % per]))
    return out


@rule("dist", "dist-shm-small", severity=WARNING, category="dist-config")
def shm_small(job):
    if not cuda_job(job):
        return []
    d = T.data()["shm"]
    out = []
    for label, ranks in _per_node(job).items():
        sizes = [J.summary(job, r).get("shm_bytes") for r in ranks if J.summary(job, r) is not None]
        sizes = [x for x in sizes if isinstance(x, int)]
        if len(ranks) < 2 or not sizes or min(sizes) >= d["min_bytes"]:
            continue
        out.append(finding(
            "dist-shm-small", WARNING, "dist-config",
            "/dev/shm on node %s is %.0f MiB, for %d NCCL ranks" % (label, min(sizes) / 2 ** 20, len(ranks)),
            "NCCL's shared-memory transport between ranks of one node lives in /dev/shm. NVIDIA: \"%s\"" % d["quote"],
            fix="Give the container at least 1 GiB of /dev/shm.", commands=["df -h /dev/shm",
                                                                             "docker run %s ..." % d["docker"]],
            links=[d["source"]]))
    return out
