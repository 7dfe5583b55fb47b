"""From the worker's records to the tune result: the result document (schema_version 1),
its run section (how the child ended: finished, error, hung, budget, crashed) and one
entry per workload with the status, time, speedup and drift of every setting.

Everything here is plain Python over the records (no torch), so a saved result can be
re-rendered anywhere and every rule is unit-testable. The numbers (statistics, verdicts,
drift) are in numbers, the advice per workload in recommend, the findings of a run in
run_findings.
"""

import time
from typing import Any, Dict, List, Optional

from ... import __version__
from ...model.findings import sort_findings
from .numbers import MIN_SAMPLES, compare, drift_of, stats
from .recommend import recommend
from .run_findings import findings

SCHEMA_VERSION = 1
KIND = "torchdoctor-tune"
BUILTIN = ("convnet", "attention", "matmul", "lstm")


# ------------------------------------------------------------- assembling --
def assemble(records: List[Dict[str, Any]], opts, proc_result=None, wall_s: Optional[float] = None) -> Dict[str, Any]:
    """The result document (schema_version 1) from the records of one run."""
    tolerance = float(opts.tolerance)
    env = next((r for r in records if r["type"] == "env"), None)
    fatal = next((r for r in records if r["type"] == "fatal"), None)
    stages = [r for r in records if r["type"] == "stage"]
    last_stage = stages[-1] if stages else None
    done = any(r["type"] == "done" for r in records)
    by_wl: Dict[str, Dict[str, Any]] = {}
    order: List[str] = []
    for r in records:
        wl = r.get("workload")
        if wl is None or r["type"] == "stage":
            continue
        if wl not in by_wl:
            by_wl[wl] = {"plan": None, "checks": {}, "times": {}, "errors": {}, "not_measured": {},
                         "baseline": None, "baseline_error": None, "done": False, "error": None,
                         "skipped": None, "flags": None, "leaks": []}
            order.append(wl)
        w = by_wl[wl]
        t = r["type"]
        if t == "plan":
            w["plan"] = r
        elif t == "check":
            w["checks"][r["setting"]] = r
        elif t == "times":
            w["times"].setdefault(r["setting"], []).extend(r.get("times") or [])
        elif t == "setting_error":
            w["errors"].setdefault(r["setting"], r)
        elif t == "not_measured":
            w["not_measured"].setdefault(r["setting"], r)
        elif t == "baseline":
            w["baseline"] = r
        elif t == "baseline_error":
            w["baseline_error"] = r
        elif t == "workload_done":
            w["done"] = True
        elif t == "workload_error":
            w["error"] = r
        elif t == "workload_skipped":
            w["skipped"] = r
        elif t == "model_changes_flags":
            w["flags"] = r
        elif t == "leak":
            w["leaks"].append(r)
    run = _run_info(records, proc_result, wall_s, opts, done, fatal, last_stage)
    run["ending"] = ending = _ending(run, records, done, fatal, last_stage)
    cut = last_stage if ending in ("crashed", "hung", "budget") else None
    workloads = []
    for name in order:
        workloads.append(_workload(name, by_wl[name], tolerance, cut, ending, opts))
    if not opts.model and not opts.list_only and env is not None and fatal is None:
        wanted = opts.workloads or list(BUILTIN)
        for name in wanted:
            if name not in by_wl:
                workloads.append({"name": name, "status": "not_measured", "builtin": True,
                                  "reason": "the budget ran out before this workload started", "settings": []})
    result: Dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "kind": KIND,
        "tool": {"name": "torchdoctor", "version": __version__},
        "created_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "options": _options(opts),
        "environment": _env(env),
        "run": run,
        "workloads": workloads,
    }
    result["findings"] = [f.to_dict() for f in sort_findings(findings(result, records, fatal, last_stage))]
    return result


def _ending(run, records, done, fatal, last_stage) -> Optional[str]:
    """How the child ended when it did not finish: error (a fatal record: the model
    raised, bad input, no torch), hung (killed at the deadline inside a model call that
    had run far longer than any step before), budget (killed at the deadline, just
    slow), crashed (a signal or an exit status), or None when it finished."""
    if done and fatal is None:
        return None
    if fatal is not None:
        return "error"
    if run.get("start_error") or run.get("python_too_old"):
        return "error"
    if run.get("timed_out"):
        if last_stage is not None and last_stage.get("what") == "import torch":
            return "hung"
        if last_stage is not None and last_stage.get("calls_model") and \
                _hung(records, last_stage, run.get("stage_running_s") or 0.0):
            return "hung"
        return "budget"
    return "crashed"


HUNG_FACTOR, HUNG_MIN_S = 20.0, 5.0


def _hung(records, last_stage, running: float) -> bool:
    """Whether the stage the deadline cut was stuck rather than slow: it had run more
    than HUNG_FACTOR times the slowest step seen in that workload (and HUNG_MIN_S), or
    the model never finished one step at all."""
    wl = last_stage.get("workload")
    steps = [float(r["step_s"]) for r in records if r.get("workload") == wl and isinstance(r.get("step_s"), (int, float))]
    steps += [float(r["first_run_s"]) for r in records if r.get("workload") == wl and r["type"] == "plan"
              and isinstance(r.get("first_run_s"), (int, float))]
    for r in records:
        if r["type"] == "times" and r.get("workload") == wl and r.get("times"):
            steps.append(max(r["times"]) * (r.get("number_per_run") or 1))
    if not steps:
        return True
    return running > max(HUNG_MIN_S, HUNG_FACTOR * max(steps))


def _options(opts) -> Dict[str, Any]:
    d = opts.to_dict() if hasattr(opts, "to_dict") else dict(opts)
    return {k: d.get(k) for k in ("python", "model", "inputs", "input_shapes", "mode", "device", "budget",
                                  "tolerance", "workloads", "size", "list_only", "repro_runs")}


def _env(env: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if env is None:
        return None
    return {k: v for k, v in env.items() if k not in ("type", "t")}


def _run_info(records, proc_result, wall_s, opts, done, fatal, last_stage) -> Dict[str, Any]:
    from ...children import timed
    imported = next((r for r in records if r["type"] == "imported" and not r.get("module")), None)
    info: Dict[str, Any] = {"python": opts.python, "budget_s": float(opts.budget),
                            "wall_s": round(wall_s, 3) if wall_s is not None else None,
                            "completed": bool(done and fatal is None),
                            "import_s": imported.get("seconds") if imported else None,
                            "last_stage": last_stage.get("what") if last_stage else None}
    if proc_result is not None:
        info.update({"returncode": proc_result.returncode, "signal": proc_result.signal,
                     "timed_out": proc_result.timed_out, "start_error": proc_result.start_error,
                     "stderr_tail": timed.last_lines(proc_result.stderr, 20),
                     "stdout_tail": timed.last_lines(proc_result.stdout, 10)})
        from ...gather.probe import TOO_OLD_MARK
        if TOO_OLD_MARK in (proc_result.stderr or ""):
            info["python_too_old"] = proc_result.stderr.split(TOO_OLD_MARK, 1)[1].split()[0]
    if fatal is not None:
        info["fatal"] = {k: fatal.get(k) for k in ("kind", "error", "exception", "stage", "where")
                         if fatal.get(k) is not None}
    ended = (getattr(proc_result, "extra", None) or {}).get("ended_at") if proc_result is not None else None
    if last_stage is not None and not done and ended:
        # How long the last stage had been running when the child ended.
        info["stage_running_s"] = round(max(0.0, ended - last_stage["t"]), 3)
    return info


ENDING_STATUS = {"crashed": "crashed", "hung": "hung", "budget": "not_measured"}


def _workload(name, w, tolerance, cut, ending, opts) -> Dict[str, Any]:
    plan = w["plan"]
    out: Dict[str, Any] = {"name": name, "builtin": name in BUILTIN and not opts.model}
    if plan is None:
        if w["skipped"]:
            out.update(status="not_measured", reason="the budget ran out before this workload started", settings=[])
        elif w["error"]:
            e = w["error"]
            out.update(status="error", reason="%s failed: %s" % (e.get("phase") or e.get("stage"), e.get("error")),
                       error=_err(e), settings=[])
        elif cut is not None and cut.get("workload") == name:
            out.update(status=ENDING_STATUS[ending] if ending != "budget" else "partial",
                       reason="the run ended (%s) during %s" % (ending, cut.get("what")), settings=[])
        else:
            out.update(status="not_measured", reason="not reached", settings=[])
        return out
    out.update(description=plan.get("description"), input=plan.get("input"), mode=plan.get("mode"),
               ops=plan.get("ops"), builtin=bool(plan.get("builtin")))
    base = w["baseline"]
    out["baseline"] = ({"reproducible": base.get("reproducible"), "runs": base.get("runs"),
                        "description": base.get("description")} if base else
                       ({"error": _err(w["baseline_error"])} if w["baseline_error"] else None))
    if w["flags"]:
        out["model_changes_flags"] = {"keys": w["flags"].get("keys"), "values": w["flags"].get("values")}
    if w["leaks"]:
        out["leaks"] = [{"setting": r.get("setting"), "keys": r.get("keys")} for r in w["leaks"]]
    stats_of = {sid: stats(ts) for sid, ts in w["times"].items()}
    settings = []
    cut_setting = cut.get("setting") if (cut and cut.get("workload") == name) else None
    for s in plan.get("settings") or []:
        sid = s["id"]
        item = {k: s.get(k) for k in ("id", "family", "label", "code", "group", "reference", "role", "api",
                                      "varying_shapes")}
        item["status"], item["reason"] = s.get("status"), s.get("reason")
        check = w["checks"].get(sid)
        st = stats_of.get(sid)
        item["time"] = st
        ref = s.get("reference")
        item["speedup"] = None
        if ref and st:
            sp = compare(st, stats_of.get(ref))
            if sp:
                sp["reference"] = ref
            item["speedup"] = sp
        item["drift"] = drift_of(check, tolerance)
        item["reproducible"] = check.get("reproducible") if check else None
        item["runs"] = check.get("runs") if check else None
        item["step_s"] = check.get("step_s") if check else None
        err = w["errors"].get(sid)
        item["error"] = _err(err) if err else None
        if s.get("status") == "planned" and not opts.list_only:
            if err:
                item["status"] = "error"
                item["reason"] = "%s raised %s" % ("the drift check" if err.get("phase") == "check" else "timing",
                                                   err.get("error"))
            elif st and (check or s.get("varying_shapes")):
                item["status"], item["reason"] = "measured", None
                if st["n"] < MIN_SAMPLES:
                    item["reason"] = "only %d timed block(s) within the budget" % st["n"]
            elif check and not st:
                item["status"], item["reason"] = "partial", "drift checked; not timed within the budget"
            elif cut_setting == sid:
                item["status"] = ENDING_STATUS[ending]
                item["reason"] = {"crashed": "the process crashed during %s",
                                  "hung": "did not return: the deadline cut %s",
                                  "budget": "the budget ran out during %s"}[ending] % cut.get("what")
            else:
                nm = w["not_measured"].get(sid)
                item["status"] = "not_measured"
                why = nm.get("reason") if nm else ("budget" if ending in (None, "budget") else "ended")
                item["reason"] = {"budget": "the budget ran out first",
                                  "ended": "not reached: the run ended before it"}.get(why, why)
        settings.append(item)
    out["settings"] = settings
    if w["done"]:
        out["status"] = "measured"
    elif cut is not None and cut.get("workload") == name and ending in ("crashed", "hung"):
        out["status"] = ending
        out["reason"] = "the run ended (%s) during %s" % (ending, cut.get("what"))
    else:
        out["status"] = "partial"
    out["recommendations"] = recommend(out, tolerance)
    return out


def _err(r) -> Optional[Dict[str, Any]]:
    if not r:
        return None
    return {k: r.get(k) for k in ("error", "exception", "where", "stage", "phase") if r.get(k) is not None}
