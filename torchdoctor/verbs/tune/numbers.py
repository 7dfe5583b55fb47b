"""The numbers of a tune result: timing statistics per setting (median and quartiles), the
speedup over the reference with the range both interquartile ranges allow and its verdict,
the drift against the strict baseline, and how each of them is written.
"""

import math
import statistics
from typing import Any, Dict, List, Optional

MIN_SAMPLES = 3  # fewer timed blocks than this and a quartile is not a spread
FASTER, SLOWER, SAME, TOO_FEW = "faster", "slower", "no_measurable_difference", "not_enough_data"


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

