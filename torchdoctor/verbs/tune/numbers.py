"""The numbers of a tune result: timing statistics per setting (median and quartiles), the
speedup over the reference with the range both interquartile ranges allow and its verdict,
the drift against the strict baseline, and how each of them is written.
"""

import math
import statistics
from typing import Any, Dict, List, Optional

MIN_SAMPLES = 3  # fewer timed blocks than this and a quartile is not a spread
FASTER, SLOWER, SAME, TOO_FEW, TOO_BUSY = "faster", "slower", "no_measurable_difference", "not_enough_data", "too_busy"
# The no-difference band. Two timings of the same settings, interleaved with the others (the
# noise control), differ by what this machine's load and this run's own jitter make of them;
# a verdict needs the setting's whole range outside NOISE_FACTOR times that (one pair of
# timings estimates the noise only roughly), and never less than MIN_BAND. When the two
# identical timings are BUSY apart, no difference a setting could make is told from noise.
MIN_BAND = 0.03
NOISE_FACTOR = 2.0
BUSY = 0.15
BUSY_LOAD = 1.0  # without a noise control: more runnable processes than cores, besides this one


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


def apart(ratio: float) -> float:
    """How far apart two timings with this ratio are, whichever is the larger: 1.3 and 1/1.3 are 30%."""
    return max(ratio, 1.0 / ratio) - 1.0


def noise_of(control: Optional[Dict[str, float]], default: Optional[Dict[str, float]],
             load: Optional[float] = None, cores: Optional[int] = None) -> Dict[str, Any]:
    """How noisy this workload's timings are: the ratio of the default's median to the noise
    control's (the default, timed again), the band no verdict may fall inside, and whether
    the machine was too busy for any verdict."""
    out: Dict[str, Any] = {"load": load, "cores": cores}
    if control and default and control["n"] >= MIN_SAMPLES and default["n"] >= MIN_SAMPLES:
        ratio = default["median_s"] / control["median_s"]
        dev = abs(math.log(ratio))
        margin = max(math.log1p(MIN_BAND), NOISE_FACTOR * dev)
        out.update(measured=True, control=ratio, band=math.exp(margin) - 1, margin=margin,
                   busy=dev > math.log1p(BUSY))
    else:
        others = (load - 1.0) if isinstance(load, (int, float)) else None  # this run is one of them
        out.update(measured=False, control=None, band=MIN_BAND, margin=math.log1p(MIN_BAND),
                   busy=bool(others is not None and cores and others > BUSY_LOAD * cores))
    return out


def busy_by_load(noise: Optional[Dict[str, Any]]) -> bool:
    """Whether noisy timings are the machine's doing: other runnable processes (besides this run)
    for at least half the cores, or no noise control, so that the load alone decided. Otherwise two
    timings of the same settings that differ come from the run itself (warm-up, clock changes,
    its own threads, too few blocks), and calling the machine busy would be untrue."""
    noise = noise or {}
    load, cores = noise.get("load"), noise.get("cores")
    return not noise.get("control") or (isinstance(load, (int, float)) and bool(cores) and load - 1.0 >= 0.5 * cores)


def compare(cfg: Optional[Dict[str, float]], ref: Optional[Dict[str, float]],
            noise: Optional[Dict[str, Any]] = None) -> Optional[Dict[str, Any]]:
    """Speedup of `cfg` over `ref` with the range the two interquartile ranges allow.

    A setting is faster only when even its slowest quarter beats the reference's fastest
    quarter by more than the noise band (low > 1 + band), slower in the mirror case, and
    otherwise there is no measurable difference: a speedup smaller than the measured spread,
    or than what two timings of the same thing differ by, is never claimed. On a machine too
    busy for a verdict, none is given."""
    if not cfg or not ref:
        return None
    value = ref["median_s"] / cfg["median_s"]
    low = ref["q1_s"] / cfg["q3_s"]
    high = ref["q3_s"] / cfg["q1_s"]
    margin = (noise or {}).get("margin", math.log1p(MIN_BAND))
    if cfg["n"] < MIN_SAMPLES or ref["n"] < MIN_SAMPLES:
        verdict = TOO_FEW
    elif (noise or {}).get("busy"):
        verdict = TOO_BUSY
    elif math.log(low) > margin:
        verdict = FASTER
    elif math.log(high) < -margin:
        verdict = SLOWER
    else:
        verdict = SAME
    return {"value": value, "low": low, "high": high, "verdict": verdict}


def drift_of(check: Optional[Dict[str, Any]], tolerance: float) -> Optional[Dict[str, Any]]:
    """A setting's drift from the strict baseline: per set (outputs, gradients) the normwise
    relative error the worker measured (worker/compare.py says why normwise), and the worse
    of the two, which --tolerance bounds."""
    if not check or "drift_output" not in check:
        return None
    out, grad = check.get("drift_output"), check.get("drift_grad")
    if out is None and grad is None:
        return {"output": None, "grad": None, "rel": None, "within_tolerance": None,
                "note": "outputs differ in shape from the baseline"}
    parts = [num(d.get("rel")) for d in (out, grad) if d]
    worst = max(parts) if parts else 0.0
    if math.isnan(worst):
        worst = float("inf")
    return {"output": _drift_part(out), "grad": _drift_part(grad), "rel": _finite(worst),
            "within_tolerance": worst <= tolerance}


def drift_value(d: Optional[Dict[str, Any]]):
    """The drift of a result's drift entry (`max_rel` in results saved before the normwise metric)."""
    if not d:
        return None
    return d.get("rel", d.get("max_rel"))


def _drift_part(d):
    if not d:
        return None
    return {"rel": _finite(num(d.get("rel"))), "max_abs": _finite(num(d.get("max_abs")))}


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

