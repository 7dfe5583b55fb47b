"""Dist conditions of joining and fates: ranks that never joined the rendezvous, ranks that
exited or stopped responding, torchrun failing before any rank ran, a run stopped early,
ranks whose facts could not be gathered.
"""

from ....model.findings import ERROR, INFO, WARNING
from ....model.rules import rule
from .. import jobfacts as J
from .common import explained, fate_how, fate_text, finding, short_error


@rule("dist", "dist-rank-never-joined", severity=ERROR, category="dist-rank")
def rank_never_joined(job):
    js = J.step(job, "join")
    if not js or js.get("unknown"):
        return []
    missing = [rec["rank"] for rec in job.get("ranks") or [] if not rec.get("joined")]
    if not missing:
        return []
    if js.get("status") == "interrupted" and not any(fate_text(job, r) for r in missing):
        return []  # stopped while they were joining, with nothing more to say: dist-interrupted names them
    who = "; ".join(J.rank_label(job, r) + (" - " + fate_text(job, r) if fate_text(job, r) else "")
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
            who, more, said, ("\n" if said else "") + explained([t for _, t in tails]).lstrip()),
        fix="Look at the launcher's log for those ranks; from their node, check that MASTER_ADDR:MASTER_PORT is "
            "reachable and that the same command starts there.",
        commands=["python -c \"import torch\"", "nc -zv $MASTER_ADDR $MASTER_PORT"])]


@rule("dist", "dist-rank-exited", severity=ERROR, category="dist-rank")
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
        how = fate_how(fate)
        what = fate_text(job, r)
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
        known = explained([tail, fate.get("reason") or ""])
        detail += ("\n" + known.lstrip()) if tail and known else known
        out.append(finding("dist-rank-exited", ERROR, "dist-rank",
                           "%s %s during %s" % (J.rank_label(job, r), how, fate.get("step") or "the run"), detail,
                           fix="Run that rank's command alone on its node, or read its log; the exit reason above "
                               "is what it left.",
                           links=["https://docs.pytorch.org/docs/stable/elastic/errors.html"]))
    return out


@rule("dist", "dist-launcher-failed", severity=ERROR, category="dist-rank")
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
        "`%s` exited with %s and started no rank.%s" % (e.get("command"), e.get("returncode"), explained([err])),
        fix=fix, commands=["torchdoctor dist --nproc-per-node 2"] if "gpu" in fix else [])]


STARTING = {"start-up": "starting the command", "import torch": "importing torch",
            "connect": "connecting to the rendezvous store"}
TORCHRUN_SUMMARY = ("torchrun stops every rank (SIGTERM) as soon as one of them exits with an error; it prints "
                    "which rank failed first, its exit code and error file under 'Root Cause (first observed "
                    "failure)' in its summary after this report, and keeps each rank's output with --redirects 3 "
                    "--log-dir DIR (or shows it with --tee 3).")


@rule("dist", "dist-interrupted", severity=ERROR, category="dist-rank")
def interrupted(job):
    """The launcher stopped the job before the doctor finished: what rank 0 knew by then, who is
    likely to blame, and where the launcher says more."""
    why = job.get("interrupted")
    if not why:
        return []
    ran = {s.get("name") for s in job.get("steps") or [] if s.get("status") not in ("skipped", "interrupted")}
    stopped = [x["rank"] for x in job.get("ranks") or [] if isinstance(x.get("fate"), dict)
               and x["fate"].get("how") == "terminated"]
    roots = [x["rank"] for x in job.get("ranks") or [] if isinstance(x.get("fate"), dict)
             and x["fate"].get("how") != "terminated" and not x["fate"].get("victim")]
    js = J.step(job, "join") or {}
    unknown = bool(js.get("unknown"))
    joining = js.get("status") == "interrupted" and not unknown
    missing = [rec["rank"] for rec in job.get("ranks") or [] if not rec.get("joined")] if joining else []
    culprits = roots or missing
    stop = job.get("stopped") or {}
    when = " (%s during %s, %.1f s after rank 0 started)" % (stop.get("signal"), stop.get("during"),
                                                             stop.get("after_s") or 0) if stop.get("signal") else ""
    own = (job.get("launcher") or {}).get("name") == "torchrun" and not (job.get("launcher") or {}).get("self_launched")
    if culprits:
        title = "The launcher stopped the job%s: %s %s" % (
            when, J.ranks_phrase(job, culprits), "had not joined" if not roots else "left first")
    elif unknown:
        title = "The launcher stopped the job%s before rank 0 reached the rendezvous store" % when
    else:
        title = "The run was stopped before it finished: %s" % why
    bits = []
    if unknown:
        bits.append("Rank 0 was still %s, so it cannot tell which ranks started; the rank that failed is in the "
                    "launcher's output." % STARTING.get(stop.get("during"), "starting"))
    elif joining:
        joined = [rec["rank"] for rec in job.get("ranks") or [] if rec.get("joined")]
        bits.append("Joined the rendezvous: %s; had not: %s." % (
            J.ranks_text(joined) if joined else "none", J.ranks_phrase(job, missing) if missing else "none"))
    bits.append("Steps that finished: %s." % (", ".join(sorted(ran)) or "none"))
    if stopped:
        bits.append("Stopped by the launcher: %s." % J.ranks_phrase(job, stopped))
    bits.append(TORCHRUN_SUMMARY if own or unknown else
                "torchrun stops every rank (SIGTERM) as soon as one of them exits with an error, so the cause is "
                "usually the rank named in another finding here.")
    return [finding(
        "dist-interrupted", INFO if roots else ERROR, "dist-rank", title, " ".join(bits),
        fix="Fix the rank that failed first (%s) and run again." % (
            J.ranks_phrase(job, culprits) if culprits else "torchrun's summary names it"))]


@rule("dist", "dist-gather-failed", severity=ERROR, category="dist-rank")
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
