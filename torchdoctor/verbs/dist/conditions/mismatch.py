"""Dist conditions of facts that must be equal on every rank and are not: torch, CUDA, NCCL,
driver, Python, packages, communication env vars, GPU model, /dev/shm; and NumPy missing
on some ranks (object collectives need it).
"""

import re
from collections import OrderedDict
from typing import Any, Dict, List, Tuple

from ....model import versions
from ....model.findings import ERROR, INFO, WARNING, Finding
from ....model.rules import rule
from .. import jobfacts as J
from .common import OBJECT_STEP, finding, per_rank_of

# Env vars whose difference between ranks changes how the job communicates or computes.
COMM_ENV = re.compile(r"^(?:NCCL_|TORCH_NCCL_|GLOO_|TORCH_DISTRIBUTED_|TORCH_GLOO_|FI_|UCX_|NVSHMEM_|"
                      r"OMP_NUM_THREADS$|MKL_NUM_THREADS$)")
# Env vars that differ per rank by design (or are about the probe, not the job).
PER_RANK_ENV = re.compile(r"^(?:RANK|LOCAL_RANK|GROUP_RANK|ROLE_RANK|CUDA_VISIBLE_DEVICES|TORCHELASTIC_ERROR_FILE|"
                          r"TORCHDOCTOR_.*|SLURM_.*|PMI_.*|OMPI_COMM_WORLD_.*|HOSTNAME)$")
TORCH_INDEX = "https://download.pytorch.org/whl/%s"


def comparable(s: Dict[str, Any]) -> "OrderedDict[Tuple[str, str], str]":
    """(family, fact) -> the value shown, for every fact that must be equal on all ranks."""
    out: "OrderedDict[Tuple[str, str], str]" = OrderedDict()
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
    p = s.get("python") or {}
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


def _differences(job, family: str) -> List[Tuple[str, Any, List[int], List[Tuple[Any, List[int]]]]]:
    ranks = J.with_summary(job)
    if len(ranks) < 2:
        return []
    facts = {r: comparable(J.summary(job, r)) for r in ranks}
    keys: "OrderedDict[Tuple[str, str], None]" = OrderedDict()
    for r in ranks:
        for k in facts[r]:
            if k[0] == family:
                keys[k] = None
    out = []
    for key in keys:
        absent = "not installed" if family == "package" else ("not set" if family == "env" else "unknown")
        values = {r: facts[r].get(key, absent) for r in ranks}
        major, major_ranks, minors = J.split(values)
        if minors:
            out.append((key[1], major, major_ranks, minors))
    return out


def _diff_detail(job, fact: str, major, major_ranks, minors, joiner=" ") -> str:
    parts = ["%s: %s%s%s" % (J.ranks_phrase(job, rs), fact, joiner, v) for v, rs in minors]
    parts.append("%s: %s" % (J.ranks_phrase(job, major_ranks), major))
    return "; ".join(parts)


def _mismatch(job, family: str, cid: str, severity, what: str, why: str, fix_for=None) -> List[Finding]:
    out = []
    for fact, major, major_ranks, minors in _differences(job, family):
        odd = [r for _, rs in minors for r in rs]
        sev = severity(fact, major, minors) if callable(severity) else severity
        fix, cmds = fix_for(fact, major, minors) if fix_for else ("", [])
        out.append(finding(cid, sev, "dist-mismatch",
                           "%s differs between ranks: %s" % (fact, J.ranks_phrase(job, odd)),
                           _diff_detail(job, fact, major, major_ranks, minors,
                                        joiner="=" if family == "env" else " ") + ". " + why,
                           fix=fix, commands=cmds))
    return out


def _torch_fix(fact, major, minors):
    if fact != "torch" or major == "not importable":
        return ("Install the same build everywhere (one container image or one lock file for every node).", [])
    tag = versions.local_tag(major)
    cmd = "python -m pip install torch==%s" % (versions.base(major) or major)
    if tag:
        cmd += " --index-url " + TORCH_INDEX % tag
    return ("Install the torch the other ranks have on the odd ones' nodes (or one image for every node).", [cmd])


@rule("dist", "dist-torch-mismatch", severity=ERROR, category="dist-mismatch")
def torch_mismatch(job):
    return _mismatch(job, "torch", "dist-torch-mismatch", ERROR, "torch",
                     "Ranks with another torch build disagree on kernels, defaults and the wire format of "
                     "collectives; the usual symptoms are hangs, 'NCCL error' at the first collective and numerical "
                     "drift between replicas.", _torch_fix)


@rule("dist", "dist-cuda-mismatch", severity=ERROR, category="dist-mismatch")
def cuda_mismatch(job):
    return _mismatch(job, "cuda", "dist-cuda-mismatch", ERROR, "CUDA",
                     "Every rank should run the same CUDA and cuDNN build of torch: mixed builds compute different "
                     "algorithms and can fail to share a communicator.", _torch_fix)


@rule("dist", "dist-nccl-mismatch", severity=ERROR, category="dist-mismatch")
def nccl_mismatch(job):
    return _mismatch(job, "nccl", "dist-nccl-mismatch", ERROR, "NCCL",
                     "Ranks must load one NCCL version: NCCL versions differ in their wire protocol, and a mismatch "
                     "shows up as hangs or 'NCCL error: unhandled system error' / 'internal error' at init or at the "
                     "first collective (pytorch/pytorch#122571, #149885).",
                     lambda f, m, mi: ("Use the NCCL the majority has: the nvidia-nccl wheel torch pins, with no other "
                                       "libnccl.so on LD_LIBRARY_PATH or LD_PRELOAD.",
                                       ["python -c \"import torch; print(torch.cuda.nccl.version())\""]))


@rule("dist", "dist-driver-mismatch", severity=WARNING, category="dist-mismatch")
def driver_mismatch(job):
    return _mismatch(job, "driver", "dist-driver-mismatch", WARNING, "driver",
                     "Different NVIDIA drivers on the nodes of one job: each must be new enough for torch's CUDA, "
                     "and mixed drivers are a common cause of one node behaving differently.",
                     lambda f, m, mi: ("Install one driver branch on every node of the pool.", ["nvidia-smi"]))


def _python_severity(fact, major, minors):
    return ERROR if any(versions.minor(str(v).split()[-1]) != versions.minor(str(major).split()[-1])
                        for v, _ in minors) else WARNING


@rule("dist", "dist-python-mismatch", severity=ERROR, category="dist-mismatch")
def python_mismatch(job):
    return _mismatch(job, "python", "dist-python-mismatch", _python_severity, "Python",
                     "Another Python minor version means other wheels of torch and of every compiled package, and "
                     "pickles (object collectives, checkpoints) that may not load on the other side.")


def _package_fix(fact, major, minors):
    if major == "not installed":
        return ("Remove it where the others lack it (or install it everywhere).",
                ["python -m pip uninstall -y %s" % fact])
    return ("Install the version the other ranks have.", ["python -m pip install %s==%s" % (fact, major)])


@rule("dist", "dist-package-mismatch", severity=WARNING, category="dist-mismatch")
def package_mismatch(job):
    return _mismatch(job, "package", "dist-package-mismatch", WARNING, "package",
                     "A package that differs between ranks computes differently on some of them (or fails to "
                     "import there); check PYTHONPATH, the venv and the image of the odd ranks.", _package_fix)


def _env_severity(fact, major, minors):
    return WARNING if COMM_ENV.match(fact) else INFO


def _env_fix(fact, major, minors):
    if major == "not set":
        return ("Unset it where it is set, or set it for every rank in the job script.", ["unset %s" % fact])
    return ("Set it the same for every rank (export it in the job script, not per node).",
            ["export %s=%s" % (fact, major)])


@rule("dist", "dist-env-mismatch", severity=WARNING, category="dist-mismatch")
def env_mismatch(job):
    return _mismatch(job, "env", "dist-env-mismatch", _env_severity, "env",
                     "Ranks were started with different environment variables.", _env_fix)


@rule("dist", "dist-gpu-mismatch", severity=WARNING, category="dist-mismatch")
def gpu_mismatch(job):
    return _mismatch(job, "gpu", "dist-gpu-mismatch", WARNING, "GPU",
                     "The ranks do not use the same kind of GPU: the slowest (or smallest) paces and bounds the "
                     "whole job, and a rank without a GPU forces the job off NCCL.")


@rule("dist", "dist-shm-mismatch", severity=INFO, category="dist-mismatch")
def shm_mismatch(job):
    return _mismatch(job, "shm", "dist-shm-mismatch", INFO, "/dev/shm",
                     "The nodes give their containers different shared memory.")


@rule("dist", "dist-numpy-missing", severity=WARNING, category="dist-mismatch")
def numpy_missing(job):
    bad = {r: (J.summary(job, r).get("numpy") or {}) for r in J.with_summary(job)}
    bad = {r: v for r, v in bad.items() if v and v.get("ok") is False}
    if not bad:
        return []
    first = bad[min(bad)]
    warned = [w for r in bad for w in (J.summary(job, r).get("torch_import_warnings") or []) if "NumPy" in w][:1]
    obj = per_rank_of(J.step(job, OBJECT_STEP))
    seen = [r for r, v in obj.items() if v.get("status") == "error" and "umpy" in (v.get("error") or "")]
    return [finding(
        "dist-numpy-missing", WARNING, "dist-mismatch",
        "NumPy cannot be imported on %s" % J.ranks_phrase(job, list(bad)),
        "`import numpy` fails there (%s). torch itself runs, and so does this tool's store-based gather, but "
        "torch.distributed's object collectives (all_gather_object, broadcast_object_list, gather_object, "
        "scatter_object_list) turn received bytes back into objects with tensor.numpy() and fail with "
        "'RuntimeError: Numpy is not available'%s.%s" % (
            first.get("error") or "ImportError",
            "; all_gather_object just failed that way on %s" % J.ranks_phrase(job, seen) if seen else "",
            " torch warned at import: %s" % warned[0] if warned else ""),
        fix="Install NumPy into that rank's environment (or fix the PYTHONPATH that hides it).",
        commands=["python -m pip install numpy", "python -c \"import numpy, torch; torch.zeros(1).numpy()\""])]
