"""Every diagnosis of a distributed job: pure functions, job facts -> findings.

One module on purpose (the per-area layout can fold it in whole). Each condition takes
the job result rank 0 assembled (see jobfacts) and returns a list of findings; none reads
the machine, imports torch or prints. `diagnose(job)` runs them all; a condition that
raises becomes one `dist-condition-crashed` finding instead of a traceback.

Ranks are named as jobfacts names them: "rank 5 (node b, local 1)", "ranks 0-4,6-7".
"""

import re
from collections import OrderedDict
from typing import Any, Callable, Dict, List, Optional, Tuple

from .. import versions
from ..findings import ERROR, INFO, WARNING, Finding, Fix, sort_findings
from . import jobfacts as J
from . import topology as T

CONDITIONS: "OrderedDict[str, Callable[[Dict[str, Any]], List[Finding]]]" = OrderedDict()

COLLECTIVE_STEPS = ("barrier", "all_reduce", "all_gather", "broadcast", "reduce_scatter")
OBJECT_STEP = "all_gather_object"
# Env vars whose difference between ranks changes how the job communicates or computes.
COMM_ENV = re.compile(r"^(?:NCCL_|TORCH_NCCL_|GLOO_|TORCH_DISTRIBUTED_|TORCH_GLOO_|FI_|UCX_|NVSHMEM_|"
                      r"OMP_NUM_THREADS$|MKL_NUM_THREADS$)")
# Env vars that differ per rank by design (or are about the probe, not the job).
PER_RANK_ENV = re.compile(r"^(?:RANK|LOCAL_RANK|GROUP_RANK|ROLE_RANK|CUDA_VISIBLE_DEVICES|TORCHELASTIC_ERROR_FILE|"
                          r"TORCHDOCTOR_.*|SLURM_.*|PMI_.*|OMPI_COMM_WORLD_.*|HOSTNAME)$")
TRUE = ("1", "true", "yes", "on")
TORCH_INDEX = "https://download.pytorch.org/whl/%s"
DIST_DOCS = "https://docs.pytorch.org/docs/stable/distributed.html"
NCCL_ENV_DOCS = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"


def condition(cid: str):
    def deco(fn):
        CONDITIONS[cid] = fn
        fn.condition_id = cid
        return fn
    return deco


def finding(cid: str, severity: str, category: str, title: str, detail: str = "", fix: str = "",
            commands: Optional[List[str]] = None, links: Optional[List[str]] = None) -> Finding:
    return Finding(id=cid, category=category, severity=severity, title=title, detail=detail,
                   fix=Fix(summary=fix, commands=list(commands or [])), links=list(links or []), check=cid)


def diagnose(job: Dict[str, Any]) -> List[Finding]:
    out: List[Finding] = []
    for cid, fn in CONDITIONS.items():
        try:
            out.extend(fn(job) or [])
        except Exception as e:  # noqa: BLE001 - a broken condition is a finding, not a traceback
            out.append(finding("dist-condition-crashed", INFO, "internal", "torchdoctor's %s condition crashed" % cid,
                               "%s: %s" % (type(e).__name__, e)))
    return sort_findings(out)


# ------------------------------------------------------------------ helpers --
def _cuda_job(job: Dict[str, Any]) -> bool:
    """NCCL is (or would be) the backend: the planned one, else every rank with a GPU."""
    if job.get("backend"):
        return job["backend"] == "nccl"
    sums = [J.summary(job, r) for r in J.with_summary(job)]
    return bool(sums) and all((s.get("cuda") or {}).get("available") for s in sums)


def _env(s: Dict[str, Any], name: str) -> Optional[str]:
    v = (s.get("env") or {}).get(name)
    return v if isinstance(v, str) else None


def _per_node(job: Dict[str, Any]) -> Dict[str, List[int]]:
    return J.ranks_per_node(job)


def _debug_commands(job: Dict[str, Any]) -> Tuple[str, List[str]]:
    kind = "nccl" if _cuda_job(job) else "gloo"
    items = T.data()["timeout_debug"][kind]
    env = " ".join("%s=%s" % (d["name"], d["value"]) for d in items)
    lines = "; ".join("%s=%s: %s" % (d["name"], d["value"], d["what"]) for d in items)
    return lines, ["export " + env]


def _explained(texts: List[str]) -> str:
    """Known errors in `texts`, by the explain matcher: ' Known error: <title> [id].'"""
    joined = "\n".join(t for t in texts if t)
    if not joined.strip():
        return ""
    try:
        from ..explain.matcher import match_text
        matches = match_text(joined[-20000:])
    except Exception:  # noqa: BLE001 - explaining is a bonus; never let it break a finding
        return ""
    if not matches:
        return ""
    m = matches[0]
    return " Known error: %s [%s]; `torchdoctor explain %s` says why and how to fix it." % (
        m.entry.title, m.id, m.id)


def short_error(text: str, limit: int = 240) -> str:
    """An error as a reader needs it: no C++ source locations, no boilerplate after the cause."""
    text = re.sub(r"\[[^\]\s]*\.(?:cc|cpp|h|hpp|cu):\d+\]\s*", "", text or "")
    text = re.sub(r"\s*(?:This is typically caused by|Exception raised from)\b.*", "", text, flags=re.S)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _group_errors(per_rank: Dict[int, str]) -> List[Tuple[str, List[int]]]:
    groups: "OrderedDict[str, List[int]]" = OrderedDict()
    for r in sorted(per_rank):
        groups.setdefault(short_error(per_rank[r]), []).append(r)
    return list(groups.items())


def _per_rank(stepd: Optional[Dict[str, Any]]) -> Dict[int, Dict[str, Any]]:
    if not stepd:
        return {}
    return {int(k): v for k, v in (stepd.get("per_rank") or {}).items() if isinstance(v, dict)}


def _fate_text(job: Dict[str, Any], r: int) -> str:
    fate = J.rank_record(job, r).get("fate") or {}
    bits = []
    if fate.get("exitcode") is not None:
        code = fate["exitcode"]
        bits.append("exit code %s" % code if code >= 0 else "killed by signal %d" % -code)
    if fate.get("reason"):
        bits.append(fate["reason"])
    return ", ".join(bits)


# ---------------------------------------------------------- join and fates --
@condition("dist-rank-never-joined")
def rank_never_joined(job):
    js = J.step(job, "join")
    if not js:
        return []
    missing = [rec["rank"] for rec in job.get("ranks") or [] if not rec.get("joined")]
    if not missing:
        return []
    who = "; ".join(J.rank_label(job, r) + (" - " + _fate_text(job, r) if _fate_text(job, r) else "")
                    for r in missing[:16])
    more = " (and %d more)" % (len(missing) - 16) if len(missing) > 16 else ""
    tails = [(r, (J.rank_record(job, r).get("fate") or {}).get("stderr_tail")) for r in missing[:4]]
    tails = [(r, t) for r, t in tails if t]
    said = "".join("\nLast lines of rank %d's stderr:\n%s" % (r, "\n".join("    " + ln for ln in t.splitlines()[-6:]))
                   for r, t in tails)
    if js.get("status") == "interrupted":
        title = "%d of %d ranks had not joined when the run was stopped (after %.0f s): %s" % (
            len(missing), J.world(job), js.get("seconds") or 0, J.ranks_phrase(job, missing))
    else:
        title = "%d of %d ranks never joined within %g s: %s" % (len(missing), J.world(job), js.get("timeout_s") or 0,
                                                                 J.ranks_phrase(job, missing))
    return [finding(
        "dist-rank-never-joined", ERROR, "dist-rank", title,
        "Never registered in the rendezvous store: %s%s. A rank that never joins did not start, hangs before "
        "torchdoctor runs (a wrapper script, a slow or stuck `import torch`, a shared file system), or cannot reach "
        "the store at MASTER_ADDR:MASTER_PORT from its node. Node and local rank marked '?' are inferred from the "
        "ranks that did join (torchrun places LOCAL_WORLD_SIZE consecutive ranks on each node). No collective was "
        "run: a process group cannot form without every rank.%s%s" % (
            who, more, said, ("\n" if said else "") + _explained([t for _, t in tails]).lstrip()),
        fix="Look at the launcher's log for those ranks; from their node, check that MASTER_ADDR:MASTER_PORT is "
            "reachable and that the same command starts there.",
        commands=["python -c \"import torch\"", "nc -zv $MASTER_ADDR $MASTER_PORT"])]


@condition("dist-rank-exited")
def rank_exited(job):
    out = []
    join_step = J.step(job, "join") is not None
    for rec in job.get("ranks") or []:
        fate = rec.get("fate")
        if not isinstance(fate, dict) or fate.get("victim") or fate.get("how") == "terminated":
            continue
        if not rec.get("joined") and join_step:
            continue  # never joined: dist-rank-never-joined names it, with this exit reason
        r = rec["rank"]
        how = {"exited": "exited", "gone": "stopped responding", "terminated": "was stopped",
               "crashed": "crashed"}.get(fate.get("how"), fate.get("how") or "stopped")
        what = _fate_text(job, r)
        victims = [x["rank"] for x in job.get("ranks") or []
                   if isinstance(x.get("fate"), dict) and x["fate"].get("victim")]
        tail = fate.get("stderr_tail") or ""
        detail = "%s %s during %s%s." % (J.rank_label(job, r), how, fate.get("step") or "the run",
                                        " (%s)" % what if what else "")
        if fate.get("how") == "gone":
            detail += (" Its heartbeat in the rendezvous store stopped and it left no exit reason: killed by a "
                       "signal, os._exit, an out-of-memory kill or a native crash.")
        if victims:
            detail += " The launcher then stopped %s." % J.ranks_phrase(job, victims)
        if tail:
            detail += "\nLast lines of its stderr:\n" + "\n".join("    " + ln for ln in tail.splitlines()[-8:])
        detail += _explained([tail, fate.get("reason") or ""])
        out.append(finding("dist-rank-exited", ERROR, "dist-rank",
                           "%s %s during %s" % (J.rank_label(job, r), how, fate.get("step") or "the run"), detail,
                           fix="Run that rank's command alone on its node, or read its log; the exit reason above "
                               "is what it left.",
                           links=["https://docs.pytorch.org/docs/stable/elastic/errors.html"]))
    return out


@condition("dist-launcher-failed")
def launcher_failed(job):
    e = job.get("launcher_error")
    if not isinstance(e, dict):
        return []
    err = e.get("error") or ""
    fix = "Run the launcher yourself to see all it says."
    if "Cuda is not available" in err or "CUDA is not available" in err:
        fix = "`--nproc-per-node gpu` needs a visible GPU; give a number of (CPU) ranks instead."
    return [finding(
        "dist-launcher-failed", ERROR, "dist-rank", "torchrun failed before any rank ran: %s" % short_error(err, 200),
        "`%s` exited with %s and started no rank.%s" % (e.get("command"), e.get("returncode"), _explained([err])),
        fix=fix, commands=["torchdoctor dist --nproc-per-node 2"] if "gpu" in fix else [])]


@condition("dist-interrupted")
def interrupted(job):
    why = job.get("interrupted")
    if not why:
        return []
    ran = {s.get("name") for s in job.get("steps") or [] if s.get("status") not in ("skipped", "interrupted")}
    stopped = [x["rank"] for x in job.get("ranks") or [] if isinstance(x.get("fate"), dict)
               and x["fate"].get("how") == "terminated"]
    roots = [x["rank"] for x in job.get("ranks") or [] if isinstance(x.get("fate"), dict)
             and x["fate"].get("how") != "terminated" and not x["fate"].get("victim")]
    return [finding(
        "dist-interrupted", INFO if roots else ERROR, "dist-rank", "The run was stopped before it finished: %s%s" % (
            why, " (after %s left)" % J.ranks_phrase(job, roots) if roots else ""),
        "Steps that finished: %s. torchrun stops every rank (SIGTERM) as soon as one of them exits with an error, "
        "so the cause is usually the rank named in another finding here%s." % (
            ", ".join(sorted(ran)) or "none",
            "; stopped by the launcher: %s" % J.ranks_phrase(job, stopped) if stopped else ""),
        fix="Fix the rank that failed first and run again.")]


@condition("dist-gather-failed")
def gather_failed(job):
    if J.step(job, "gather") is None:
        return []
    out = []
    for rec in job.get("ranks") or []:
        if not rec.get("joined") or isinstance(rec.get("fate"), dict):
            continue
        g = rec.get("gather") or {}
        s = rec.get("summary")
        if isinstance(s, dict) and not g.get("error"):
            continue
        err = g.get("error") or "no facts arrived"
        out.append(finding(
            "dist-gather-failed", WARNING if isinstance(s, dict) else ERROR, "dist-rank",
            "%s: its facts %s" % (J.rank_label(job, rec["rank"]),
                                  "are incomplete" if isinstance(s, dict) else "could not be gathered"),
            "The probe on this rank reported: %s. %s" % (
                err, "What it did collect is compared with the other ranks." if isinstance(s, dict)
                else "It is left out of the comparison between ranks."),
            fix="Run `torchdoctor check` on that rank's node with the same environment."))
    return out


# ------------------------------------------------------- facts that differ --
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


@condition("dist-torch-mismatch")
def torch_mismatch(job):
    return _mismatch(job, "torch", "dist-torch-mismatch", ERROR, "torch",
                     "Ranks with another torch build disagree on kernels, defaults and the wire format of "
                     "collectives; the usual symptoms are hangs, 'NCCL error' at the first collective and numerical "
                     "drift between replicas.", _torch_fix)


@condition("dist-cuda-mismatch")
def cuda_mismatch(job):
    return _mismatch(job, "cuda", "dist-cuda-mismatch", ERROR, "CUDA",
                     "Every rank should run the same CUDA and cuDNN build of torch: mixed builds compute different "
                     "algorithms and can fail to share a communicator.", _torch_fix)


@condition("dist-nccl-mismatch")
def nccl_mismatch(job):
    return _mismatch(job, "nccl", "dist-nccl-mismatch", ERROR, "NCCL",
                     "Ranks must load one NCCL version: NCCL versions differ in their wire protocol, and a mismatch "
                     "shows up as hangs or 'NCCL error: unhandled system error' / 'internal error' at init or at the "
                     "first collective (pytorch/pytorch#122571, #149885).",
                     lambda f, m, mi: ("Use the NCCL the majority has: the nvidia-nccl wheel torch pins, with no other "
                                       "libnccl.so on LD_LIBRARY_PATH or LD_PRELOAD.",
                                       ["python -c \"import torch; print(torch.cuda.nccl.version())\""]))


@condition("dist-driver-mismatch")
def driver_mismatch(job):
    return _mismatch(job, "driver", "dist-driver-mismatch", WARNING, "driver",
                     "Different NVIDIA drivers on the nodes of one job: each must be new enough for torch's CUDA, "
                     "and mixed drivers are a common cause of one node behaving differently.",
                     lambda f, m, mi: ("Install one driver branch on every node of the pool.", ["nvidia-smi"]))


def _python_severity(fact, major, minors):
    return ERROR if any(versions.minor(str(v).split()[-1]) != versions.minor(str(major).split()[-1])
                        for v, _ in minors) else WARNING


@condition("dist-python-mismatch")
def python_mismatch(job):
    return _mismatch(job, "python", "dist-python-mismatch", _python_severity, "Python",
                     "Another Python minor version means other wheels of torch and of every compiled package, and "
                     "pickles (object collectives, checkpoints) that may not load on the other side.")


def _package_fix(fact, major, minors):
    if major == "not installed":
        return ("Remove it where the others lack it (or install it everywhere).",
                ["python -m pip uninstall -y %s" % fact])
    return ("Install the version the other ranks have.", ["python -m pip install %s==%s" % (fact, major)])


@condition("dist-package-mismatch")
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


@condition("dist-env-mismatch")
def env_mismatch(job):
    return _mismatch(job, "env", "dist-env-mismatch", _env_severity, "env",
                     "Ranks were started with different environment variables.", _env_fix)


@condition("dist-gpu-mismatch")
def gpu_mismatch(job):
    return _mismatch(job, "gpu", "dist-gpu-mismatch", WARNING, "GPU",
                     "The ranks do not use the same kind of GPU: the slowest (or smallest) paces and bounds the "
                     "whole job, and a rank without a GPU forces the job off NCCL.")


@condition("dist-shm-mismatch")
def shm_mismatch(job):
    return _mismatch(job, "shm", "dist-shm-mismatch", INFO, "/dev/shm",
                     "The nodes give their containers different shared memory.")


@condition("dist-numpy-missing")
def numpy_missing(job):
    bad = {r: (J.summary(job, r).get("numpy") or {}) for r in J.with_summary(job)}
    bad = {r: v for r, v in bad.items() if v and v.get("ok") is False}
    if not bad:
        return []
    first = bad[min(bad)]
    warned = [w for r in bad for w in (J.summary(job, r).get("torch_import_warnings") or []) if "NumPy" in w][:1]
    obj = _per_rank(J.step(job, OBJECT_STEP))
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


# ------------------------------------------------------- per-rank placement --
def _device_id(s: Dict[str, Any]) -> Optional[str]:
    dev = s.get("device") or {}
    return dev.get("gpu_hash") or dev.get("pci_bus_id")


@condition("dist-gpu-shared")
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


@condition("dist-device-outside-visible")
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


@condition("dist-nccl-debug-left-set")
def nccl_debug_left_set(job):
    if not _cuda_job(job):
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


@condition("dist-nccl-socket-ifname")
def nccl_socket_ifname(job):
    if not _cuda_job(job):
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


@condition("dist-omp-unset")
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


@condition("dist-shm-small")
def shm_small(job):
    if not _cuda_job(job):
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


# ------------------------------------------------------------- collectives --
@condition("dist-init-failed")
def init_failed(job):
    st = J.step(job, "init")
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = {r: v.get("error") or ("did not finish within %g s" % (st.get("timeout_s") or 0)
                                 if v.get("status") in ("timeout", "missing") else v.get("status"))
           for r, v in _per_rank(st).items() if v.get("status") != "ok"}
    groups = _group_errors({r: e for r, e in per.items() if e})
    detail = "; ".join("%s: %s" % (J.ranks_phrase(job, rs), err) for err, rs in groups[:4]) or st.get("detail", "")
    lines, cmds = _debug_commands(job)
    return [finding(
        "dist-init-failed", ERROR, "dist-collective",
        "The %s process group did not start: %s" % (st.get("backend") or job.get("backend") or "",
                                                     J.ranks_phrase(job, list(per)) if per else "every rank"),
        detail + "." + _explained([e for e, _ in groups]) + " To see more: " + lines,
        fix="Fix the error above; on a GPU job `--backend gloo` shows whether the problem is NCCL's alone.",
        commands=cmds, links=[DIST_DOCS])]


def _step_findings(job, name: str) -> List[Finding]:
    st = J.step(job, name)
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = _per_rank(st)
    status = st.get("status")
    if status == "unsupported":
        return [finding("dist-collective-unsupported", INFO, "dist-collective",
                        "%s is not supported by %s here; skipped" % (name, st.get("backend") or job.get("backend")),
                        st.get("detail") or "", links=[DIST_DOCS])]
    if status == "wrong":
        seen: "OrderedDict[str, List[int]]" = OrderedDict()
        culprits = set()
        for r, v in sorted(per.items()):
            for bad in v.get("wrong") or []:
                culprits.add(bad.get("from"))
                seen.setdefault(bad.get("what") or "?", []).append(r)
        parts = ["at %s: %s" % (J.ranks_phrase(job, rs), what) for what, rs in seen.items()]
        names = [c for c in culprits if isinstance(c, int)]
        title = ("%s gave a wrong result: the contribution of %s arrived wrong" % (name, J.ranks_phrase(job, names))
                 if names else "%s gave a wrong result" % name)
        return [finding("dist-collective-wrong", ERROR, "dist-collective", title,
                        "Every rank checks the result against the known values it expects; %s. A wrong result with "
                        "no error means corrupted data in transit or on a GPU: test that rank's GPU and links alone."
                        % "; ".join(parts[:8]),
                        fix="Take the named rank's node out of the pool and test it (nvidia-smi -q -d ECC, "
                            "dcgmi diag -r 3, nccl-tests on that node alone).",
                        commands=["nvidia-smi -q -d ECC", "dcgmi diag -r 3"])]
    lines, cmds = _debug_commands(job)
    if status == "timeout":
        entered = [r for r, v in per.items() if v.get("entered")]
        done = [r for r, v in per.items() if v.get("status") == "ok"]
        never = [r for r in J.all_ranks(job) if r not in entered]
        stuck = [r for r in entered if r not in done]
        bits = []
        if never:
            bits.append("never entered it: %s" % "; ".join(
                J.rank_label(job, r) + (" (%s)" % _fate_text(job, r) if _fate_text(job, r) else "") for r in never[:8]))
        if stuck:
            bits.append("entered it and did not complete: %s" % J.ranks_phrase(job, stuck))
        return [finding("dist-collective-timeout", ERROR, "dist-collective",
                        "%s did not complete within %g s on %s" % (name, st.get("timeout_s") or 0,
                                                                   J.ranks_phrase(job, never + stuck)),
                        "; ".join(bits) + ". To see why on the next run, set: " + lines + ".",
                        fix="Rerun with these variables set on every rank and read the dumps and NCCL's log.",
                        commands=cmds + (["torchfrtrace /tmp -p nccl_trace_rank_"] if _cuda_job(job) else []),
                        links=["https://docs.pytorch.org/tutorials/prototype/flight_recorder_tutorial.html",
                               "https://docs.pytorch.org/docs/stable/torch_nccl_environment_variables.html"])]
    if status == "interrupted" and not any(v.get("status") in ("error", "gone") for v in per.values()):
        unfinished = [r for r, v in per.items() if v.get("status") in ("missing", "timeout")]
        return [finding("dist-collective-unfinished", WARNING, "dist-collective",
                        "%s had not finished on %s when the run was stopped" % (
                            name, J.ranks_phrase(job, unfinished or J.all_ranks(job))),
                        "Entered it: %s. %s" % (
                            J.ranges(r for r, v in per.items() if v.get("entered")) or "none",
                            "If it was hanging, set these on the next run to see why: " + lines + "."),
                        fix="Run again with a --timeout shorter than the launcher's limit, so the hang is named.",
                        commands=cmds)]
    errs = {r: v.get("error") for r, v in per.items() if v.get("status") == "error" and v.get("error")}
    groups = _group_errors(errs)
    gone = sorted(set([r for r, v in per.items() if v.get("status") == "gone"] +
                      [rec["rank"] for rec in job.get("ranks") or [] if isinstance(rec.get("fate"), dict)
                       and rec["fate"].get("step") == name and not rec["fate"].get("victim")]))
    detail = "; ".join("%s: %s" % (J.ranks_phrase(job, rs), e) for e, rs in groups[:4])
    if gone:
        detail = "%s left during it (see its own finding)%s" % (J.ranks_phrase(job, gone),
                                                              "; the others saw: " + detail if detail else "")
    return [finding("dist-collective-failed", ERROR, "dist-collective",
                    "%s failed: %s" % (name, "%s left during it" % J.ranks_phrase(job, gone) if gone
                                       else "on " + J.ranks_phrase(job, list(errs) or J.all_ranks(job))),
                    (detail or st.get("detail") or "") + "." + _explained([e for e, _ in groups]) +
                    " To see more: " + lines,
                    fix="Fix the first error above; the remaining steps were skipped.", commands=cmds,
                    links=[DIST_DOCS])]


@condition("dist-collective")
def collectives(job):
    """Every collective step after init (the checks, the sweep, the pairs) that did not pass."""
    out: List[Finding] = []
    for st in job.get("steps") or []:
        if st.get("kind") not in ("join", "gather", "init", OBJECT_STEP, "plan", "start", "done"):
            out.extend(_step_findings(job, st["name"]))
    return out


@condition("dist-object-collective-failed")
def object_collective(job):
    st = J.step(job, OBJECT_STEP)
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = _per_rank(st)
    errs = {r: v.get("error") for r, v in per.items() if v.get("status") == "error" and v.get("error")}
    if not errs:
        return _step_findings(job, OBJECT_STEP)
    groups = _group_errors(errs)
    numpy = any("umpy" in e for e in errs.values())
    return [finding(
        "dist-object-collective-failed", ERROR, "dist-collective",
        "all_gather_object fails on %s" % J.ranks_phrase(job, list(errs)),
        "; ".join("%s: %s" % (J.ranks_phrase(job, rs), e) for e, rs in groups[:4]) + ". " +
        ("The tensor collectives work there: only the pickled-object path, which needs NumPy to turn received bytes "
         "back into objects, fails." if numpy else "The tensor collectives before it worked."),
        fix="Install NumPy in those ranks' environment." if numpy else "See the error above.",
        commands=["python -m pip install numpy"] if numpy else [])]


# ---------------------------------------------------------------- bandwidth --
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
    if not _cuda_job(job):
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


@condition("dist-bandwidth-below-topology")
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


@condition("dist-slow-pair")
def slow_pair(job):
    if not _cuda_job(job):
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
