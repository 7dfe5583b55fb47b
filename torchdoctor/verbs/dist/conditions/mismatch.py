"""Dist conditions of facts that must be equal on every rank and are not: the Python
environment, torch, CUDA, NCCL, driver, Python, packages, communication env vars, GPU model,
/dev/shm; and NumPy missing on some ranks (object collectives need it).

A difference that follows from another (another interpreter: another torch; another torch:
other CUDA libraries) is said under its root cause, not as a finding of its own (causes.py).
Fix commands that run Python run the odd ranks' own interpreter.
"""

import re
from typing import Any, List, Tuple

from ....model import versions
from ....model.findings import ERROR, INFO, WARNING, Finding, severity_rank
from ....model.rules import rule
from .. import jobfacts as J
from . import causes
from .common import OBJECT_STEP, finding, on_ranks, per_rank_of
from .differ import diff_detail, differences, odd

# Env vars whose difference between ranks changes how the job communicates or computes.
COMM_ENV = re.compile(r"^(?:NCCL_|TORCH_NCCL_|GLOO_|TORCH_DISTRIBUTED_|TORCH_GLOO_|FI_|UCX_|NVSHMEM_|"
                      r"OMP_NUM_THREADS$|MKL_NUM_THREADS$)")
TORCH_INDEX = "https://download.pytorch.org/whl/%s"
# Env vars that change what a rank's process group does. Set on some ranks only, those ranks
# run other collectives (TORCH_DISTRIBUTED_DEBUG=DETAIL wraps the group in one that creates a
# second group and checks every call's shapes with collectives of its own) or other
# transports than the rest, and init or the first collective waits for ever.
GROUP_ENV = re.compile(r"^(?:TORCH_DISTRIBUTED_DEBUG$|TORCH_NCCL_(?!TRACE|DUMP|DEBUG)|NCCL_(?!DEBUG)|GLOO_|TORCH_GLOO_)")
GROUP_ENV_WHY = {
    "TORCH_DISTRIBUTED_DEBUG": "with DETAIL a rank wraps its process group in a checking wrapper, which creates a "
                               "second (gloo) group and runs collectives of its own that ranks without it never "
                               "join, so init and the first collective wait for ever",
}


FAILED_STEP = ("failed", "error", "timeout", "interrupted")


def _worst(*sevs: str) -> str:
    return max(sevs, key=severity_rank)


def _mismatch(job, family: str, cid: str, severity, why: str, fix_for=None, note_for=None) -> List[Finding]:
    """One finding per fact of `family` that differs, unless it follows from a root cause (then
    it is said under that one); a root cause lists what follows from it. severity: a level or
    f(fact, major, minors); fix_for(fact, major, minors) -> (summary, commands), the commands
    run on the odd ranks; note_for(fact) -> (severity or None, text) for what only the job tells."""
    under, taken = causes.consequences(job)
    out = []
    for d in differences(job, family):
        fam, fact, major, major_ranks, minors = d
        if (fam, fact) in taken:
            continue
        ranks = odd(d)
        sev = severity(fact, major, minors) if callable(severity) else severity
        fix, cmds = fix_for(fact, major, minors) if fix_for else ("", [])
        detail = diff_detail(job, fact, major, major_ranks, minors, joiner="=" if family == "env" else " ") + ". " + why
        more = under.get((fam, fact)) or []
        if more:
            detail += "\nWhat differs with it, on the same rank(s):\n" + causes.lines(job, more)
            sev = _worst(sev, *[WARNING if m[0] == "package" else ERROR for m in more])
        if note_for:
            raise_to, note = note_for(fact)
            sev = _worst(sev, raise_to) if raise_to else sev
            detail += note
        title = "%s differs between ranks: %s" % (fact, J.ranks_phrase(job, ranks))
        if family == "environment":
            title = "%s %s another Python environment: %s" % (
                J.ranks_phrase(job, ranks), "runs" if len(ranks) == 1 else "run", " / ".join(str(v) for v, _ in minors))
        out.append(finding(cid, sev, "dist-mismatch", title, detail, fix=fix,
                           commands=on_ranks(job, ranks, cmds)))
    return out


@rule("dist", "dist-environment-mismatch", severity=WARNING, category="dist-mismatch")
def environment_mismatch(job):
    """Ranks run another Python interpreter than the others: another environment, whose torch
    and packages are its own."""
    return _mismatch(job, "environment", "dist-environment-mismatch", INFO,
                     "A rank started by another interpreter runs another environment, with its own torch and "
                     "packages: a wrapper or job script that picks `python` from PATH, a virtualenv or conda env "
                     "not activated on that node, a container image of its own.",
                     lambda f, m, mi: ("Start every rank with the same interpreter (%s), or give the odd ranks' "
                                       "environment the same packages (compare the two lists)." % m,
                                       ["python -m pip freeze > odd-rank-packages.txt",
                                        "%s -m pip freeze | diff - odd-rank-packages.txt" % m]))


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
    return _mismatch(job, "torch", "dist-torch-mismatch", ERROR,
                     "Ranks with another torch build disagree on kernels, defaults and the wire format of "
                     "collectives; the usual symptoms are hangs, 'NCCL error' at the first collective and numerical "
                     "drift between replicas.", _torch_fix)


@rule("dist", "dist-cuda-mismatch", severity=ERROR, category="dist-mismatch")
def cuda_mismatch(job):
    return _mismatch(job, "cuda", "dist-cuda-mismatch", ERROR,
                     "Every rank should run the same CUDA and cuDNN build of torch: mixed builds compute different "
                     "algorithms and can fail to share a communicator.", _torch_fix)


@rule("dist", "dist-nccl-mismatch", severity=ERROR, category="dist-mismatch")
def nccl_mismatch(job):
    return _mismatch(job, "nccl", "dist-nccl-mismatch", ERROR,
                     "Ranks must load one NCCL version: NCCL versions differ in their wire protocol, and a mismatch "
                     "shows up as hangs or 'NCCL error: unhandled system error' / 'internal error' at init or at the "
                     "first collective (pytorch/pytorch#122571, #149885).",
                     lambda f, m, mi: ("Use the NCCL the majority has: the nvidia-nccl wheel torch pins, with no other "
                                       "libnccl.so on LD_LIBRARY_PATH or LD_PRELOAD.",
                                       ["python -c \"import torch; print(torch.cuda.nccl.version())\""]))


@rule("dist", "dist-driver-mismatch", severity=WARNING, category="dist-mismatch")
def driver_mismatch(job):
    return _mismatch(job, "driver", "dist-driver-mismatch", WARNING,
                     "Different NVIDIA drivers on the nodes of one job: each must be new enough for torch's CUDA, "
                     "and mixed drivers are a common cause of one node behaving differently.",
                     lambda f, m, mi: ("Install one driver branch on every node of the pool.", ["nvidia-smi"]))


def _python_severity(fact, major, minors):
    return ERROR if any(versions.minor(str(v).split()[-1]) != versions.minor(str(major).split()[-1])
                        for v, _ in minors) else WARNING


@rule("dist", "dist-python-mismatch", severity=ERROR, category="dist-mismatch")
def python_mismatch(job):
    return _mismatch(job, "python", "dist-python-mismatch", _python_severity,
                     "Another Python minor version means other wheels of torch and of every compiled package, and "
                     "pickles (object collectives, checkpoints) that may not load on the other side.")


def _package_fix(fact, major, minors):
    if major == "not installed":
        return ("Remove it where the others lack it (or install it everywhere).",
                ["python -m pip uninstall -y %s" % fact])
    return ("Install the version the other ranks have.", ["python -m pip install %s==%s" % (fact, major)])


@rule("dist", "dist-package-mismatch", severity=WARNING, category="dist-mismatch")
def package_mismatch(job):
    return _mismatch(job, "package", "dist-package-mismatch", WARNING,
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
    return _mismatch(job, "env", "dist-env-mismatch", _env_severity,
                     "Ranks were started with different environment variables.", _env_fix,
                     note_for=lambda fact: _group_env_note(job, fact))


def _group_env_note(job, fact: str):
    """A process-group setting that differs, in a job whose process group then failed: the likely cause."""
    if not GROUP_ENV.match(fact):
        return None, ""
    failed = [st["name"] for st in job.get("steps") or [] if st.get("kind") not in ("join", "gather")
              and st.get("status") in FAILED_STEP]
    if not failed:
        return None, ""
    return ERROR, " It is the likely cause of %s failing (its own finding)%s." % (
        failed[0], ": " + GROUP_ENV_WHY[fact] if fact in GROUP_ENV_WHY else "")


@rule("dist", "dist-gpu-mismatch", severity=WARNING, category="dist-mismatch")
def gpu_mismatch(job):
    return _mismatch(job, "gpu", "dist-gpu-mismatch", WARNING,
                     "The ranks do not use the same kind of GPU: the slowest (or smallest) paces and bounds the "
                     "whole job, and a rank without a GPU forces the job off NCCL.")


@rule("dist", "dist-shm-mismatch", severity=INFO, category="dist-mismatch")
def shm_mismatch(job):
    return _mismatch(job, "shm", "dist-shm-mismatch", INFO,
                     "The nodes give their containers different shared memory.")


@rule("dist", "dist-numpy-missing", severity=WARNING, category="dist-mismatch")
def numpy_missing(job):
    bad = {r: (J.summary(job, r).get("numpy") or {}) for r in J.with_summary(job)}
    bad = {r: v for r, v in bad.items() if v and v.get("ok") is False}
    if not bad:
        return []
    first = bad[min(bad)]
    warned = [w for r in bad for w in (J.summary(job, r).get("torch_import_warnings") or []) if "NumPy" in w][:1]
    env = [d for d in differences(job, "environment") if set(bad) <= set(odd(d))]
    other = "; ".join("%s runs %s" % (J.ranks_phrase(job, rs), v) for v, rs in env[0][4]) if env else ""
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
        fix="Install NumPy into that rank's environment (or fix the PYTHONPATH that hides it).%s" % (
            " That is another environment than the other ranks' (dist-environment-mismatch): %s." % other
            if other else ""),
        commands=on_ranks(job, list(bad), ["python -m pip install numpy",
                                           "python -c \"import numpy, torch; torch.zeros(1).numpy()\""]))]


def group_env_differences(job) -> List[Tuple[str, Any, List[int], List[Tuple[Any, List[int]]]]]:
    """The env vars that change a process group's behaviour and differ between ranks: the
    likely cause when init or a collective then fails or hangs."""
    return [d[1:] for d in differences(job, "env") if GROUP_ENV.match(d[1])]


def group_env_text(job) -> str:
    """' Likely cause: X differs between ranks (...): why. Set it the same on every rank (or on none).'"""
    diffs = group_env_differences(job)
    if not diffs:
        return ""
    parts = []
    for fact, major, major_ranks, minors in diffs[:3]:
        parts.append("%s differs between ranks (%s; see dist-env-mismatch)%s" % (
            fact, diff_detail(job, fact, major, major_ranks, minors, joiner="="),
            ": " + GROUP_ENV_WHY[fact] if fact in GROUP_ENV_WHY else ""))
    return (" Likely cause: %s. Set %s the same on every rank, or on none." % (
        "; ".join(parts), "it" if len(diffs) == 1 else "them"))
