"""The facts that must be equal on every rank, and which of them differ: per fact, the value
most ranks have and the minorities, as every mismatch condition and the root-cause grouping
read them."""

import re
from collections import OrderedDict
from typing import Any, Dict, List, Tuple

from .. import jobfacts as J

# Env vars that differ per rank by design (or are about the probe, not the job).
PER_RANK_ENV = re.compile(r"^(?:RANK|LOCAL_RANK|GROUP_RANK|ROLE_RANK|CUDA_VISIBLE_DEVICES|TORCHELASTIC_ERROR_FILE|"
                          r"TORCHDOCTOR_.*|SLURM_.*|PMI_.*|OMPI_COMM_WORLD_.*|HOSTNAME)$")
INTERPRETER = "Python interpreter"

# (family, fact, the value most ranks have, their ranks, [(another value, its ranks)])
Diff = Tuple[str, str, Any, List[int], List[Tuple[Any, List[int]]]]


def comparable(s: Dict[str, Any]) -> "OrderedDict[Tuple[str, str], str]":
    """(family, fact) -> the value shown, for every fact that must be equal on all ranks."""
    out: "OrderedDict[Tuple[str, str], str]" = OrderedDict()
    p = s.get("python") or {}
    if p.get("executable"):
        out[("environment", INTERPRETER)] = p["executable"]
    t = s.get("torch") or {}
    out[("torch", "torch")] = t.get("version") or "not importable"
    if t.get("git"):
        out[("torch", "torch build (git)")] = t["git"]
    out[("cuda", "CUDA (torch build)")] = t.get("cuda") or "none"
    out[("cuda", "cuDNN (torch)")] = str(t.get("cudnn")) if t.get("cudnn") is not None else "none"
    if t.get("hip"):
        out[("cuda", "ROCm/HIP (torch build)")] = t["hip"]
    n = s.get("nccl") or {}
    if n.get("torch"):
        out[("nccl", "NCCL (torch)")] = n["torch"]
    for name, ver in sorted((n.get("wheels") or {}).items()):
        out[("nccl", "NCCL wheel " + name)] = ver
    if n.get("system"):
        out[("nccl", "system libnccl")] = ", ".join(n["system"])
    d = s.get("driver") or {}
    out[("driver", "NVIDIA driver")] = d.get("version") or "none"
    out[("python", "Python")] = ("%s %s" % (p.get("implementation") or "", p.get("version") or "?")).strip()
    for name, ver in sorted((s.get("packages") or {}).items()):
        out[("package", name)] = ver if isinstance(ver, str) else "not installed"
    for name, val in sorted((s.get("env") or {}).items()):
        if not PER_RANK_ENV.match(name):
            out[("env", name)] = val if isinstance(val, str) else "not set"
    dev = s.get("device") or {}
    cuda = s.get("cuda") or {}
    if cuda.get("available"):
        out[("gpu", "GPU model")] = dev.get("name") or "?"
        if dev.get("memory"):
            out[("gpu", "GPU memory")] = "%.1f GiB" % (dev["memory"] / 2 ** 30)
    else:
        out[("gpu", "GPU model")] = "none (CUDA not available)"
    if isinstance(s.get("shm_bytes"), int):
        out[("shm", "/dev/shm size")] = "%.1f GiB" % (s["shm_bytes"] / 2 ** 30)
    return out


def all_differences(job) -> List[Diff]:
    """Every fact that differs between the ranks that reported, in the order comparable lists them."""
    ranks = J.with_summary(job)
    if len(ranks) < 2:
        return []
    facts = {r: comparable(J.summary(job, r)) for r in ranks}
    keys: "OrderedDict[Tuple[str, str], None]" = OrderedDict()
    for r in ranks:
        for k in facts[r]:
            keys[k] = None
    out = []
    for key in keys:
        family = key[0]
        absent = "not installed" if family == "package" else ("not set" if family == "env" else "unknown")
        values = {r: facts[r].get(key, absent) for r in ranks}
        major, major_ranks, minors = J.split(values)
        if minors:
            out.append((family, key[1], major, major_ranks, minors))
    return out


def differences(job, family: str) -> List[Diff]:
    return [d for d in all_differences(job) if d[0] == family]


def odd(diff: Diff) -> List[int]:
    """The ranks that have another value than most."""
    return sorted(r for _, rs in diff[4] for r in rs)


def diff_detail(job, fact: str, major, major_ranks, minors, joiner=" ") -> str:
    parts = ["%s: %s%s%s" % (J.ranks_phrase(job, rs), fact, joiner, v) for v, rs in minors]
    parts.append("%s: %s" % (J.ranks_phrase(job, major_ranks), major))
    return "; ".join(parts)
