"""From the worker's records to the tune result: statistics per setting, the verdict
against the reference, drift against the strict baseline, recommendations, findings.

Everything here is plain Python over the records (no torch), so a saved result can be
re-rendered anywhere and every rule is unit-testable.
"""

import math
import statistics
import time
from typing import Any, Dict, List, Optional

from .. import __version__
from ..findings import ERROR, INFO, WARNING, Finding, Fix, sort_findings

SCHEMA_VERSION = 1
KIND = "torchdoctor-tune"
MIN_SAMPLES = 3  # fewer timed blocks than this and a quartile is not a spread
FASTER, SLOWER, SAME, TOO_FEW = "faster", "slower", "no_measurable_difference", "not_enough_data"
VERDICT_WORDS = {FASTER: "faster", SLOWER: "slower", SAME: "no measurable difference", TOO_FEW: "too few samples"}
BUILTIN = ("convnet", "attention", "matmul", "lstm")


# ----------------------------------------------------------------- numbers --
def num(v) -> float:
    """A drift value as the worker wrote it: a float, or 'inf'/'nan' for non-finite."""
    if isinstance(v, (int, float)):
        return float(v)
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def stats(times: List[float]) -> Optional[Dict[str, float]]:
    xs = sorted(float(t) for t in times if isinstance(t, (int, float)) and t > 0)
    if not xs:
        return None
    med = statistics.median(xs)
    if len(xs) >= 2:
        q1, _, q3 = statistics.quantiles(xs, n=4, method="inclusive")
    else:
        q1 = q3 = med
    return {"n": len(xs), "median_s": med, "q1_s": q1, "q3_s": q3, "iqr_s": q3 - q1,
            "spread": (q3 - q1) / med if med > 0 else 0.0}


def compare(cfg: Optional[Dict[str, float]], ref: Optional[Dict[str, float]]) -> Optional[Dict[str, Any]]:
    """Speedup of `cfg` over `ref` with the range the two interquartile ranges allow.

    A setting is faster only when even its slowest quarter beats the reference's fastest
    quarter (low > 1), slower in the mirror case, and otherwise there is no measurable
    difference: a speedup smaller than the measured spread is never claimed."""
    if not cfg or not ref:
        return None
    value = ref["median_s"] / cfg["median_s"]
    low = ref["q1_s"] / cfg["q3_s"]
    high = ref["q3_s"] / cfg["q1_s"]
    if cfg["n"] < MIN_SAMPLES or ref["n"] < MIN_SAMPLES:
        verdict = TOO_FEW
    elif low > 1.0:
        verdict = FASTER
    elif high < 1.0:
        verdict = SLOWER
    else:
        verdict = SAME
    return {"value": value, "low": low, "high": high, "verdict": verdict}


def drift_of(check: Optional[Dict[str, Any]], tolerance: float) -> Optional[Dict[str, Any]]:
    if not check or "drift_output" not in check:
        return None
    out, grad = check.get("drift_output"), check.get("drift_grad")
    if out is None and grad is None:
        return {"output": None, "grad": None, "max_rel": None, "within_tolerance": None,
                "note": "outputs differ in shape from the baseline"}
    parts = [num(d["max_rel"]) for d in (out, grad) if d]
    worst = max(parts) if parts else 0.0
    if math.isnan(worst):
        worst = float("inf")
    return {"output": _drift_part(out), "grad": _drift_part(grad), "max_rel": _finite(worst),
            "within_tolerance": worst <= tolerance}


def _drift_part(d):
    if not d:
        return None
    return {"max_abs": _finite(num(d.get("max_abs"))), "max_rel": _finite(num(d.get("max_rel")))}


def _finite(x: float):
    """JSON has no inf/nan: they are written as the strings 'inf' and 'nan'."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf"
    return x


def fmt_time(s: Optional[float]) -> str:
    if s is None:
        return "-"
    if s >= 1:
        return "%.2f s" % s
    if s >= 1e-3:
        return "%.3g ms" % (s * 1e3)
    return "%.3g us" % (s * 1e6)


def fmt_drift(x) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    return "%.1e" % x


def fmt_speed(sp: Optional[Dict[str, Any]]) -> str:
    if not sp:
        return "-"
    return "%.2fx (%.2f-%.2f)" % (sp["value"], sp["low"], sp["high"])


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


def _options(opts) -> Dict[str, Any]:
    d = opts.to_dict() if hasattr(opts, "to_dict") else dict(opts)
    return {k: d.get(k) for k in ("python", "model", "inputs", "input_shapes", "mode", "device", "budget",
                                  "tolerance", "workloads", "size", "list_only", "repro_runs")}


def _env(env: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    if env is None:
        return None
    return {k: v for k, v in env.items() if k not in ("type", "t")}


def _run_info(records, proc_result, wall_s, opts, done, fatal, last_stage) -> Dict[str, Any]:
    from ..probe import proc
    imported = next((r for r in records if r["type"] == "imported" and not r.get("module")), None)
    info: Dict[str, Any] = {"python": opts.python, "budget_s": float(opts.budget),
                            "wall_s": round(wall_s, 3) if wall_s is not None else None,
                            "completed": bool(done and fatal is None),
                            "import_s": imported.get("seconds") if imported else None,
                            "last_stage": last_stage.get("what") if last_stage else None}
    if proc_result is not None:
        info.update({"returncode": proc_result.returncode, "signal": proc_result.signal,
                     "timed_out": proc_result.timed_out, "start_error": proc_result.start_error,
                     "stderr_tail": proc.last_lines(proc_result.stderr, 20),
                     "stdout_tail": proc.last_lines(proc_result.stdout, 10)})
        from ..probe import TOO_OLD_MARK
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


# --------------------------------------------------------- recommendations --
def _by_id(w):
    return {s["id"]: s for s in w.get("settings") or []}


def recommend(w: Dict[str, Any], tolerance: float) -> Dict[str, Any]:
    """Speed and reproducibility advice for one workload, in words and as code. Each
    setting was measured alone against its reference; their combination was not."""
    settings = [s for s in w.get("settings") or [] if s.get("role") != "default"]
    default = _by_id(w).get("default") or {}
    speed: List[Dict[str, Any]] = []
    notes: List[str] = []
    best_in_group: Dict[str, Dict[str, Any]] = {}
    rejected, slower, same, few = [], [], [], []
    for s in settings:
        sp = s.get("speedup")
        if s.get("status") != "measured" or not sp:
            continue
        d = s.get("drift")
        drift_ok = d is None or d.get("within_tolerance") is not False
        if sp["verdict"] == FASTER:
            if not drift_ok:
                rejected.append(s)
                continue
            g = s.get("group")
            if g:
                if g not in best_in_group or sp["value"] > best_in_group[g]["speedup"]["value"]:
                    best_in_group[g] = s
            else:
                speed.append(_speed_item(s, tolerance))
        elif sp["verdict"] == SLOWER:
            slower.append(s)
        elif sp["verdict"] == SAME:
            same.append(s)
        else:
            few.append(s)
    speed.extend(_speed_item(s, tolerance) for s in best_in_group.values())
    speed.sort(key=lambda x: -x["speedup"])
    for s in rejected:
        d = s["drift"]
        notes.append("%s is %s faster but drifts %s from the strict baseline, more than the tolerance %s "
                     "(accept it with --tolerance %s)" % (s["label"], _x(s["speedup"]), fmt_drift(d["max_rel"]),
                                                         fmt_drift(tolerance), _ceil_tol(d["max_rel"])))
    for s in slower:
        if s.get("varying_shapes") and s.get("family") == "cudnn.benchmark":
            notes.append("with input shapes that change, keep cudnn.benchmark off: on is %.2fx the speed of off "
                         "(%.2f-%.2f), because it benchmarks again for every new shape"
                         % (s["speedup"]["value"], s["speedup"]["low"], s["speedup"]["high"]))
        else:
            notes.append("%s is slower: %.2fx (%.2f-%.2f)" % (s["label"], s["speedup"]["value"], s["speedup"]["low"],
                                                               s["speedup"]["high"]))
    if same:
        notes.append("no measurable difference (within the measured spread): %s" % ", ".join(s["label"] for s in same))
    if few:
        notes.append("too few timed blocks to judge: %s (raise --budget)" % ", ".join(s["label"] for s in few))
    if not speed:
        notes.insert(0, "keep the defaults: no setting was measurably faster than the default here")
    code_speed = "\n".join(["import torch"] + [x["code"] for x in speed if x["code"]]) if speed else ""
    repro, code_repro = _repro(w, settings, default, tolerance)
    return {"speed": speed, "speed_notes": notes, "reproducibility": repro, "code_speed": code_speed,
            "code_reproducibility": code_repro,
            "caveat": "each setting was measured alone against the default; their combination was not measured"
            if len(speed) > 1 else None}


def _x(sp):
    return "%.2fx" % sp["value"]


def _ceil_tol(x) -> str:
    v = num(x)
    if math.isinf(v) or math.isnan(v):
        return "inf"
    if v <= 0:
        return "0"
    exp = math.floor(math.log10(v))
    mant = math.ceil(v / 10 ** exp * 10) / 10
    return "%.1fe%d" % (mant, exp) if mant < 10 else "1e%d" % (exp + 1)


def _speed_item(s, tolerance) -> Dict[str, Any]:
    sp, d = s["speedup"], s.get("drift")
    why = ""
    if s.get("family") == "cudnn.benchmark" and not s.get("varying_shapes"):
        why = ", with input shapes that stay the same"
    if d is None:
        drift_txt = "drift not measured"
    else:
        drift_txt = "drift %s within tolerance %s" % (fmt_drift(d["max_rel"]), fmt_drift(tolerance))
    vs = "" if sp.get("reference") in (None, "default") else " vs %s" % sp["reference"]
    text = "%s: %.2fx faster%s (%.2f-%.2f)%s; %s" % (s["label"], sp["value"], vs, sp["low"], sp["high"], why, drift_txt)
    return {"setting": s["id"], "label": s["label"], "speedup": sp["value"], "low": sp["low"], "high": sp["high"],
            "code": s.get("code") or "", "text": text}


def _repro(w, settings, default, tolerance):
    items: List[Dict[str, Any]] = []
    code = ["import torch", "torch.manual_seed(0)"]
    base = w.get("baseline") or {}
    runs = default.get("runs") or 2
    d_rep = default.get("reproducible")
    if d_rep is True:
        items.append({"setting": "default", "text": "the default settings gave bitwise-equal outputs%s in %d seeded "
                      "runs" % (" and gradients" if w.get("mode") == "train" else "", runs)})
    elif d_rep is None and default.get("runs") == 1:
        items.append({"setting": "default", "text": "not measured: only one run of the default settings fitted in "
                                                    "the budget, nothing to compare it with"})
    elif d_rep is False:
        good = [s for s in settings if s.get("reproducible") is True and s.get("status") in ("measured", "partial")
                and not s.get("varying_shapes")]
        good.sort(key=lambda s: -((s.get("speedup") or {}).get("value") or 0))
        if good:
            s = good[0]
            sp = s.get("speedup")
            cost = (" at %.2fx the default's speed" % sp["value"]) if sp else ""
            items.append({"setting": s["id"], "text": "the default settings are not bitwise reproducible (two seeded "
                          "runs differed); %s gave bitwise-equal runs%s" % (s["label"], cost)})
            if s.get("code"):
                code.append(s["code"])
        else:
            items.append({"setting": "default", "text": "the default settings are not bitwise reproducible (two "
                          "seeded runs differed), and no single setting measured here fixed that"
                          + ("; the strict baseline was" if base.get("reproducible") else "")})
    broke = [s for s in settings if s.get("reproducible") is False and d_rep is True]
    if broke:
        items.append({"setting": None, "text": "avoid for reproducibility (two seeded runs differed): %s"
                      % ", ".join(s["label"] for s in broke)})
    threads_drift = [s for s in settings if s.get("family") == "threads" and s.get("drift")
                     and num(s["drift"].get("max_rel")) > 0]
    if threads_drift and default.get("drift") is not None:
        s = threads_drift[0]
        items.append({"setting": "threads", "text": "results depend on the thread count (%s drifts %s): fix it with "
                      "torch.set_num_threads() to reproduce results on another machine"
                      % (s["label"], fmt_drift(s["drift"]["max_rel"]))})
    dd = default.get("drift")
    if dd and dd.get("within_tolerance") is False:
        fixes = [s for s in settings if (s.get("drift") or {}).get("within_tolerance") and
                 s.get("status") in ("measured", "partial")]
        fixes.sort(key=lambda s: -((s.get("speedup") or {}).get("value") or 0))
        text = "the default settings drift %s from the strict float32 baseline (tolerance %s)" % (
            fmt_drift(dd["max_rel"]), fmt_drift(tolerance))
        if fixes:
            sp = fixes[0].get("speedup")
            text += "; %s is within it%s" % (fixes[0]["label"], (" at %.2fx" % sp["value"]) if sp else "")
            if fixes[0].get("code"):
                code.append(fixes[0]["code"])
        items.append({"setting": fixes[0]["id"] if fixes else "default", "text": text})
    if not items:
        items.append({"setting": None, "text": "not measured: the default settings' runs were not checked within "
                                              "the budget"})
    if len(code) == 2 and d_rep is not True:
        code = []
    return items, "\n".join(code)


# ---------------------------------------------------------------- findings --
def findings(result, records, fatal, last_stage) -> List[Finding]:
    out: List[Finding] = []
    run = result["run"]
    every = [s for w in result["workloads"] for s in w.get("settings") or []]
    timed = sum(1 for s in every if s.get("time"))
    checked = sum(1 for s in every if s.get("drift") is not None or s.get("reproducible") is not None)
    kept = ("; what was measured before it is kept (%d drift check(s), %d timing(s))" % (checked, timed)
            if timed or checked else "; nothing was measured before it")
    stage = run.get("last_stage") or "start-up"
    cut = _cut_setting(result, records, last_stage)
    if run.get("start_error"):
        out.append(Finding("tune-python-failed", "torch-import-crash", ERROR,
                           "Could not start %s" % (run.get("python") or "the interpreter"),
                           detail=run["start_error"],
                           fix=Fix("Give --python the path of a Python interpreter that has torch installed.")))
        return out
    if run.get("python_too_old"):
        out.append(Finding("tune-python-failed", "python-unsupported", ERROR,
                           "%s is Python %s; tune needs Python 3.8+" % (run.get("python"), run["python_too_old"])))
        return out
    if fatal is not None:
        kind = fatal.get("kind")
        if kind == "import":
            out.append(_explained(Finding("tune-import-failed", "torch-import-crash", ERROR,
                                          "import torch failed: %s" % fatal.get("error"),
                                          detail="Nothing could be measured; `torchdoctor check` diagnoses the install.",
                                          fix=Fix("Run torchdoctor check for the cause and the fix.",
                                                  ["torchdoctor check" + (" --python %s" % run["python"] if run.get("python") else "")])),
                                  fatal.get("error"), run))
        elif kind in ("model_error", "spec", "device"):
            where = (" at %s" % fatal["where"]) if fatal.get("where") else ""
            out.append(_explained(Finding("tune-model-raised", "config", ERROR,
                                          "The model raised %s" % _short(fatal.get("error")),
                                          detail="During %s%s%s." % (fatal.get("stage") or stage, where, kept),
                                          fix=Fix("Fix the error in the model (run it once by hand with the same "
                                                  "inputs), then tune again.")),
                                  fatal.get("error"), run))
        else:
            out.append(Finding("tune-internal", "internal", ERROR, "torchdoctor tune failed: %s" % fatal.get("error"),
                               detail="In %s%s%s. This is a bug in torchdoctor." % (
                                   fatal.get("stage") or stage, (" at %s" % fatal["where"]) if fatal.get("where") else "",
                                   kept)))
    elif run.get("ending") in ("hung", "budget"):
        running = run.get("stage_running_s") or 0.0
        if last_stage is not None and last_stage.get("what") == "import torch":
            out.append(Finding("tune-budget-too-small", "torch-import-crash", ERROR,
                               "import torch did not finish within the budget (%.0f s)" % run["budget_s"],
                               detail="The child was killed at the deadline during %s, after %.1f s of it."
                               % (last_stage.get("what"), running),
                               fix=Fix("Raise --budget, or run torchdoctor check if import torch hangs.")))
        elif run["ending"] == "hung":
            out.append(Finding("tune-model-hung", "config", ERROR,
                               "The model did not return within the budget (%.0f s)" % run["budget_s"],
                               detail="The child was still in %s after %.1f s and was killed at the deadline%s."
                               % (stage, running, kept),
                               fix=Fix("Raise --budget if one step of the model is that slow; otherwise find what "
                                       "hangs (a dataloader, a collective, a lock) by running the model by hand.")))
        else:
            out.append(Finding("tune-budget-ran-out", "config", WARNING,
                               "The budget (%.0f s) ran out during %s" % (run["budget_s"], stage),
                               detail="One step took longer than the steps before it; the child was killed at "
                                      "the deadline after %.1f s in it%s." % (running, kept),
                               fix=Fix("Raise --budget.")))
    elif run.get("ending") == "crashed":
        sig = run.get("signal")
        what = "killed by %s" % sig if sig else "exited with status %s" % run.get("returncode")
        out.append(_explained(Finding("tune-crashed", "config", ERROR,
                                      "The process running the model was %s" % what,
                                      detail="It crashed during %s%s%s.%s" % (
                                          stage, _where_crashed(run), kept, _tail_text(run)),
                                      fix=Fix("Run the model by hand with %s to reproduce the crash; a native "
                                              "crash in torch is worth a bug report with `torchdoctor report`."
                                              % (("%s (%s)" % (cut["label"], cut["code"].replace("\n", "; ")))
                                                 if cut and cut.get("code") else "the default settings"))),
                              run.get("stderr_tail"), run))
    for w in result["workloads"]:
        name = w["name"]
        if w.get("status") == "error":
            out.append(Finding("tune-workload-failed", "config", WARNING, "Workload %s failed" % name,
                               detail=w.get("reason") or ""))
        if w.get("model_changes_flags"):
            keys = w["model_changes_flags"].get("keys") or []
            out.append(Finding("tune-model-changes-flags", "config", WARNING,
                               "%s changes global torch settings itself: %s" % (name, ", ".join(keys)),
                               detail="Its first run left %s changed; tune restored them before measuring, but the "
                                      "model's own assignment wins in every run, so measurements of those settings "
                                      "show no difference." % ", ".join(keys)))
        for leak in w.get("leaks") or []:
            out.append(Finding("tune-flag-not-restored", "internal", WARNING,
                               "%s left %s changed after %s" % (name, ", ".join(leak["keys"]), leak["setting"]),
                               detail="The measurements after it may carry that change."))
        for s in w.get("settings") or []:
            if s.get("status") == "error" and s.get("error"):
                out.append(_explained(Finding("tune-setting-failed", "config", WARNING,
                                              "%s fails with %s" % (s["label"], name),
                                              detail="%s%s" % (s["error"].get("error"), (" at %s" % s["error"]["where"])
                                                               if s["error"].get("where") else ""),
                                              fix=Fix("Do not use %s with this model, or fix what it trips over."
                                                      % s["label"])),
                                      s["error"].get("error"), run))
        d = _by_id(w).get("default") or {}
        dd = d.get("drift")
        if dd and dd.get("within_tolerance") is False:
            out.append(Finding("tune-default-drift", "config", WARNING,
                               "%s: the default settings drift %s from the strict float32 baseline" % (
                                   name, fmt_drift(dd["max_rel"])),
                               detail="More than the tolerance %s; see the reproducibility advice for a setting "
                                      "that is within it." % fmt_drift(result["options"]["tolerance"])))
        if d.get("reproducible") is False:
            out.append(Finding("tune-not-reproducible", "config", INFO,
                               "%s: two seeded runs with the default settings were not bitwise equal" % name,
                               detail="See the reproducibility advice for what made them equal.",
                               links=["https://docs.pytorch.org/docs/stable/notes/randomness.html"]))
    unmeasured = [(w["name"], s["label"]) for w in result["workloads"] for s in w.get("settings") or []
                  if s.get("status") in ("not_measured", "partial")]
    skipped_wl = [w["name"] for w in result["workloads"] if w.get("status") == "not_measured"]
    if (unmeasured or skipped_wl) and run.get("ending") in (None, "budget") and not result["options"].get("list_only"):
        parts = []
        if skipped_wl:
            parts.append("workloads not started: %s" % ", ".join(skipped_wl))
        if unmeasured:
            parts.append("%d setting(s) not fully measured" % len(unmeasured))
        out.append(Finding("tune-budget-short", "config", INFO,
                           "The budget (%.0f s) was not enough for everything" % result["run"]["budget_s"],
                           detail="; ".join(parts) + ".", fix=Fix("Raise --budget, or pick workloads with --workload.")))
    return out


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


def _cut_setting(result, records, last_stage):
    """The setting (label, code) that was active when the run ended, if any."""
    if last_stage is None or not last_stage.get("setting"):
        return None
    for w in result["workloads"]:
        if w["name"] == last_stage.get("workload"):
            for s in w.get("settings") or []:
                if s["id"] == last_stage["setting"]:
                    return s
    return None


def _where_crashed(run) -> str:
    """' at FILE:LINE in FUNC' from the faulthandler stack the worker prints on a fatal
    signal: its first frame outside torch and torchdoctor (most recent call first)."""
    import re
    tail = run.get("stderr_tail") or ""
    frames = re.findall(r'File "([^"]+)", line (\d+) in (\S+)', tail)
    for f, line, fn in frames:
        if _library_frame(f):
            continue
        return " at %s:%s in %s" % (f, line, fn)
    return ""


def _library_frame(path: str) -> bool:
    """A frame in torch, torchdoctor, the standard library or the launcher: not the model's."""
    low = path.replace("\\", "/")
    if low.startswith("<") or "/torch/" in low or "/torchdoctor/" in low:
        return True
    return "/lib/python" in low and "site-packages" not in low and "dist-packages" not in low


def _short(text, n=200):
    text = (text or "").strip().splitlines()[0] if text else ""
    return text if len(text) <= n else text[:n - 3] + "..."


def _tail_text(run) -> str:
    tail = (run.get("stderr_tail") or "").strip()
    if not tail:
        return ""
    lines = tail.splitlines()
    fatal = [i for i, ln in enumerate(lines) if ln.startswith("Fatal Python error")]
    if fatal:  # faulthandler's report: the error and the model's frames, not the worker's
        import re
        keep = [lines[fatal[-1]].strip()]
        for ln in lines[fatal[-1] + 1:]:
            m = re.search(r'File "([^"]+)", line \d+ in ', ln)
            if m and not _library_frame(m.group(1)):
                keep.append(ln.strip())
        return " " + " | ".join(keep[:6])
    return " Last lines of its stderr: " + " | ".join(lines[-5:])


def _explained(f: Finding, text, run) -> Finding:
    """Add what the known-error matcher says about an error text, if anything."""
    if not text:
        return f
    try:
        from ..explain.matcher import match_text
        matches = match_text(str(text))
    except Exception:  # noqa: BLE001 - advice only
        return f
    if not matches:
        return f
    m = matches[0]
    entry = getattr(m, "entry", None)
    title = getattr(entry, "title", None) or getattr(m, "title", None)
    eid = getattr(entry, "id", None) or getattr(m, "id", None)
    if title:
        f.detail = (f.detail + " " if f.detail else "") + "Known error: %s (see `torchdoctor explain %s`)." % (title, eid)
        cat = getattr(entry, "category", None)
        if cat and f.category == "config":
            f.category = cat
    return f
