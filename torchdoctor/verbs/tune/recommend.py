"""Speed and reproducibility advice for one workload of a tune result, in words and as code:
the settings measurably faster within the drift tolerance (best of each group), those
rejected, slower or not measurably different, and what made seeded runs bitwise equal.
"""

import math
from typing import Any, Dict, List

from .numbers import FASTER, SAME, SLOWER, TOO_BUSY, apart, busy_by_load, drift_value, fmt_drift, num


def by_id(w):
    return {s["id"]: s for s in w.get("settings") or []}


def recommend(w: Dict[str, Any], tolerance: float) -> Dict[str, Any]:
    """Speed and reproducibility advice for one workload, in words and as code. Each
    setting was measured alone against its reference; their combination was not."""
    settings = [s for s in w.get("settings") or [] if s.get("role") not in ("default", "control")]
    default = by_id(w).get("default") or {}
    speed: List[Dict[str, Any]] = []
    notes: List[str] = []
    best_in_group: Dict[str, Dict[str, Any]] = {}
    rejected, slower, same, few, busy = [], [], [], [], []
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
        elif sp["verdict"] == TOO_BUSY:
            busy.append(s)
        else:
            few.append(s)
    speed.extend(_speed_item(s, tolerance) for s in best_in_group.values())
    speed.sort(key=lambda x: -x["speedup"])
    for s in rejected:
        d = s["drift"]
        notes.append("%s is %s faster but drifts %s from the strict baseline, more than the tolerance %s "
                     "(accept it with --tolerance %s)" % (s["label"], _x(s["speedup"]), fmt_drift(drift_value(d)),
                                                         fmt_drift(tolerance), _ceil_tol(drift_value(d))))
    for s in slower:
        if s.get("varying_shapes") and s.get("family") == "cudnn.benchmark":
            notes.append("with input shapes that change, keep cudnn.benchmark off: on is %.2fx the speed of off "
                         "(%.2f-%.2f), because it benchmarks again for every new shape"
                         % (s["speedup"]["value"], s["speedup"]["low"], s["speedup"]["high"]))
        else:
            notes.append("%s is slower: %.2fx (%.2f-%.2f)" % (s["label"], s["speedup"]["value"], s["speedup"]["low"],
                                                               s["speedup"]["high"]))
    if same:
        notes.append("no measurable difference (within the measured spread and the noise band): %s"
                     % ", ".join(s["label"] for s in same))
    if few:
        notes.append("too few timed blocks to judge: %s (raise --budget)" % ", ".join(s["label"] for s in few))
    if busy:
        notes.insert(0, "no speed advice: %s, so no setting is called faster or slower; %s"
                        % (busy_text(w.get("noise") or {}), "measure again on a quieter machine"
                           if busy_by_load(w.get("noise")) else "measure again with a larger --budget"))
    elif not speed and rejected:
        notes.insert(0, "keep the defaults at this tolerance: the settings that were faster drift more than it "
                        "(below)")
    elif not speed and (same or slower):
        notes.insert(0, "keep the defaults: no setting was measurably faster than the default here")
    elif not speed and few:
        notes.insert(0, "no speed advice: no setting was timed often enough for a verdict (raise --budget)")
    code_speed = "\n".join(["import torch"] + [x["code"] for x in speed if x["code"]]) if speed else ""
    repro, code_repro = _repro(w, settings, default, tolerance)
    return {"speed": speed, "speed_notes": notes, "reproducibility": repro, "code_speed": code_speed,
            "code_reproducibility": code_repro,
            "caveat": "each setting was measured alone against the default; their combination was not measured"
            if len(speed) > 1 else None}


def busy_text(noise: Dict[str, Any]) -> str:
    """Why no verdict was possible, in words: what two timings of the same settings differed by,
    and the load; the machine is called busy only when the load says so."""
    bits = []
    if noise.get("control"):
        bits.append("two interleaved timings of the default settings differed by %.0f%%"
                    % (100 * apart(noise["control"])))
    if isinstance(noise.get("load"), (int, float)):
        bits.append("load %.1f on %s core%s" % (noise["load"], noise.get("cores") or "?",
                                                "" if noise.get("cores") == 1 else "s"))
    head = "the machine was too busy for a verdict" if busy_by_load(noise) \
        else "the timings were too noisy for a verdict"
    return "%s (%s)" % (head, "; ".join(bits)) if bits else head


def speed_cost(sp) -> str:
    """What a setting costs in speed, said only as far as the measurement tells it apart
    from the default: a ratio inside the noise is no cost and no gain."""
    if not sp:
        return ""
    if sp["verdict"] in (FASTER, SLOWER):
        return " at %.2fx the default's speed" % sp["value"]
    if sp["verdict"] == SAME:
        return " at no measurable cost in speed"
    return ""


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
        drift_txt = "drift %s within tolerance %s" % (fmt_drift(drift_value(d)), fmt_drift(tolerance))
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
            cost = speed_cost(sp)
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
                     and num(drift_value(s["drift"])) > 0]
    if threads_drift and default.get("drift") is not None:
        s = threads_drift[0]
        items.append({"setting": "threads", "text": "results depend on the thread count (%s drifts %s): fix it with "
                      "torch.set_num_threads() to reproduce results on another machine"
                      % (s["label"], fmt_drift(drift_value(s["drift"])))})
    dd = default.get("drift")
    if dd and dd.get("within_tolerance") is False:
        fixes = [s for s in settings if (s.get("drift") or {}).get("within_tolerance") and
                 s.get("status") in ("measured", "partial")]
        fixes.sort(key=lambda s: -((s.get("speedup") or {}).get("value") or 0))
        text = "the default settings drift %s from the strict float32 baseline (tolerance %s)" % (
            fmt_drift(drift_value(dd)), fmt_drift(tolerance))
        if fixes:
            sp = fixes[0].get("speedup")
            text += "; %s is within it%s" % (fixes[0]["label"], speed_cost(sp))
            if fixes[0].get("code"):
                code.append(fixes[0]["code"])
        items.append({"setting": fixes[0]["id"] if fixes else "default", "text": text})
    if not items:
        items.append({"setting": None, "text": "not measured: the default settings' runs were not checked within "
                                              "the budget"})
    if len(code) == 2 and d_rep is not True:
        code = []
    return items, "\n".join(code)
