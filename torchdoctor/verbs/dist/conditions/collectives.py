"""Dist conditions of the collective steps: the process group that did not start, a
collective that failed, timed out, gave a wrong result or was cut short, and
all_gather_object failing where the tensor collectives work.
"""

from collections import OrderedDict
from typing import Any, Dict, List, Tuple

from ....model.findings import ERROR, INFO, WARNING, Finding
from ....model.rules import rule
from .. import jobfacts as J
from .. import topology as T
from . import hangs
from .common import (DIST_DOCS, OBJECT_STEP, cuda_job, explained, finding, on_ranks, per_rank_of, sentence,
                     short_error)
from .mismatch import group_env_differences, group_env_text

COLLECTIVE_STEPS = ("barrier", "all_reduce", "all_gather", "broadcast", "reduce_scatter")
GLOO_DEBUG = "https://docs.pytorch.org/docs/stable/distributed.html#debugging-torch-distributed-applications"
NCCL_FR = "https://docs.pytorch.org/tutorials/prototype/flight_recorder_tutorial.html"
NCCL_ENV = "https://docs.pytorch.org/docs/stable/torch_nccl_environment_variables.html"


def _debug_commands(job: Dict[str, Any]) -> Tuple[str, List[str]]:
    """The backend's own debugging switches (gloo's for gloo, NCCL's flight recorder for NCCL),
    to set on every rank: set on some ranks only, a debug switch is itself a difference
    between ranks (TORCH_DISTRIBUTED_DEBUG=DETAIL on one rank hangs init)."""
    kind = "nccl" if cuda_job(job) else "gloo"
    differ = {d[0] for d in group_env_differences(job)}
    items = [d for d in T.data()["timeout_debug"][kind] if d["name"] not in differ]
    env = " ".join("%s=%s" % (d["name"], d["value"]) for d in items)
    lines = "; ".join("%s=%s: %s" % (d["name"], d["value"], d["what"]) for d in items)
    return lines + " (on every rank alike)", ["export " + env] if items else []


def _hang(job: Dict[str, Any], name: str, st: Dict[str, Any]) -> Finding:
    """A collective that did not complete in time: the rank that never entered it named apart
    from those that waited in it, and the backend's own way to see more."""
    rs = hangs.roles(job, name)
    lines, cmds = _debug_commands(job)
    blamed = hangs.blamed(job, name)
    title = hangs.title(job, name, rs) or "%s did not complete within %g s on %s" % (
        name, st.get("timeout_s") or 0, J.ranks_phrase(job, [r for k in ("waited", "silent") for r, _ in rs[k]]))
    detail = sentence(hangs.detail(job, name, rs) or "no rank completed it") + group_env_text(job)
    pids = [(J.where(job, r).get("pid"), r) for r in blamed if J.where(job, r).get("pid")]
    if cuda_job(job):
        return finding("dist-collective-timeout", ERROR, "dist-collective", title,
                       detail + " To see why on the next run, set: " + lines + ".",
                       fix="Rerun with these variables set on every rank and read the flight recorder's dumps "
                           "and NCCL's log.", commands=cmds + ["torchfrtrace /tmp -p nccl_trace_rank_"],
                       links=[NCCL_FR, NCCL_ENV])
    return finding("dist-collective-timeout", ERROR, "dist-collective", title,
                   detail + " gloo keeps no record of its collectives: what the blamed rank was doing is its Python "
                   "stack (above, or py-spy's while it hangs). To see more on the next run, set: " + lines + ".",
                   fix=("Find why %s did not reach %s (the stack above; `py-spy dump` shows it live)" % (
                       J.ranks_text(blamed), name) if blamed else "Rerun with these variables set on every rank") +
                       "; in your own program, torch.distributed.monitored_barrier() (gloo) names the ranks that "
                       "do not arrive.",
                   commands=["py-spy dump --pid %d  # rank %d, on its node" % (pid, r) for pid, r in pids[:2]] + cmds,
                   links=[GLOO_DEBUG])


def _group_errors(per_rank: Dict[int, str]) -> List[Tuple[str, List[int]]]:
    groups: "OrderedDict[str, List[int]]" = OrderedDict()
    for r in sorted(per_rank):
        groups.setdefault(short_error(per_rank[r]), []).append(r)
    return list(groups.items())


@rule("dist", "dist-init-failed", severity=ERROR, category="dist-collective")
def init_failed(job):
    st = J.step(job, "init")
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = {r: v.get("error") or ("did not finish within %g s" % (st.get("timeout_s") or 0)
                                 if v.get("status") in ("timeout", "missing") else v.get("status"))
           for r, v in per_rank_of(st).items() if v.get("status") != "ok"}
    groups = _group_errors({r: e for r, e in per.items() if e})
    detail = "; ".join("%s: %s" % (J.ranks_phrase(job, rs), err) for err, rs in groups[:4]) or st.get("detail", "")
    lines, cmds = _debug_commands(job)
    cause = group_env_text(job)
    return [finding(
        "dist-init-failed", ERROR, "dist-collective",
        "The %s process group did not start: %s" % (st.get("backend") or job.get("backend") or "",
                                                     J.ranks_phrase(job, list(per)) if per else "every rank"),
        sentence(detail) + (cause or explained([e for e, _ in groups])) + " To see more: " + lines,
        fix=("Make the setting above the same on every rank." if cause else
             "Fix the error above; on a GPU job `--backend gloo` shows whether the problem is NCCL's alone."),
        commands=cmds, links=[DIST_DOCS])]


def _step_findings(job, name: str) -> List[Finding]:
    st = J.step(job, name)
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = per_rank_of(st)
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
        if not cuda_job(job):
            return [finding("dist-collective-wrong", ERROR, "dist-collective", title,
                            "Every rank checks the result against the known values it expects; %s. On CPU ranks "
                            "(gloo) a wrong result with no error is that rank's own doing: a library that changes "
                            "tensors there (a patched torch.distributed, another build), or its node's memory."
                            % "; ".join(parts[:8]),
                            fix="Compare the named rank's environment with the others' (the mismatch findings), "
                                "and check its node's memory errors.",
                            commands=on_ranks(job, names, ['python -c "import torch; print(torch.__file__)"']) +
                            ["dmesg -T | grep -i -E 'mce|hardware error|edac'"])]
        return [finding("dist-collective-wrong", ERROR, "dist-collective", title,
                        "Every rank checks the result against the known values it expects; %s. A wrong result with "
                        "no error means corrupted data in transit or on a GPU: test that rank's GPU and links alone."
                        % "; ".join(parts[:8]),
                        fix="Take the named rank's node out of the pool and test it (nvidia-smi -q -d ECC, "
                            "dcgmi diag -r 3, nccl-tests on that node alone).",
                        commands=["nvidia-smi -q -d ECC", "dcgmi diag -r 3"])]
    lines, cmds = _debug_commands(job)
    if status == "timeout":
        return [_hang(job, name, st)]
    if status == "interrupted" and not any(v.get("status") in ("error", "gone") for v in per.values()):
        unfinished = [r for r, v in per.items() if v.get("status") in ("missing", "timeout", "stopped")]
        rs = hangs.roles(job, name)
        never = [r for r, _ in rs["never"]]
        return [finding("dist-collective-unfinished", WARNING, "dist-collective",
                        "%s had not finished on %s when the run was stopped%s" % (
                            name, J.ranks_phrase(job, unfinished or J.all_ranks(job)),
                            ": %s never entered it" % J.ranks_phrase(job, never) if never else ""),
                        "Entered it: %s. %s%s" % (
                            J.ranges(r for r, v in per.items() if v.get("entered")) or "none",
                            hangs.detail(job, name, rs) + ". " if never else "",
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
                    sentence(detail or st.get("detail") or "") + explained([e for e, _ in groups]) +
                    " To see more: " + lines,
                    fix="Fix the first error above; the remaining steps were skipped.", commands=cmds,
                    links=[DIST_DOCS])]


@rule("dist", "dist-collective", severity=ERROR, category="dist-collective")
def collectives(job):
    """Every collective step after init (the checks, the sweep, the pairs) that did not pass."""
    out: List[Finding] = []
    for st in job.get("steps") or []:
        if st.get("kind") not in ("join", "gather", "init", OBJECT_STEP, "plan", "start", "done"):
            out.extend(_step_findings(job, st["name"]))
    return out


@rule("dist", "dist-object-collective-failed", severity=ERROR, category="dist-collective")
def object_collective(job):
    st = J.step(job, OBJECT_STEP)
    if not st or st.get("status") in ("ok", "skipped", None):
        return []
    per = per_rank_of(st)
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
        commands=on_ranks(job, list(errs), ["python -m pip install numpy"]) if numpy else [])]
