"""The findings of a tune run: the interpreter or torch that would not start, the model
raising, hanging or crashing (where, and what stderr said), the budget running out, and
per workload failed settings, global flags the model changes, drift and irreproducible
defaults; each error text matched against the known-error catalogue.
"""

from typing import Any, Dict, List, Optional

from ...model import rules
from ...model.findings import ERROR, INFO, WARNING, Finding, Fix
from ...model.records import record
from ...model.rules import rule, rules_of
from .numbers import busy_by_load, drift_value, fmt_drift
from .recommend import busy_text, by_id

RANDOMNESS_DOCS = "https://docs.pytorch.org/docs/stable/notes/randomness.html"


@record
class TuneRun:
    """What the tune rules read: the result document, the worker's records, the fatal record
    (if the run ended on one) and the last stage the worker entered."""
    result: Dict[str, Any]
    records: List[Dict[str, Any]]
    fatal: Optional[Dict[str, Any]]
    last_stage: Optional[Dict[str, Any]]

    @property
    def run(self) -> Dict[str, Any]:
        return self.result["run"]

    @property
    def started(self) -> bool:
        """The interpreter started and was new enough: the other rules have something to read."""
        return not (self.run.get("start_error") or self.run.get("python_too_old"))

    def measured(self):
        """(settings timed, settings with a drift or reproducibility check)."""
        every = [s for w in self.result["workloads"] for s in w.get("settings") or []]
        timed = sum(1 for s in every if s.get("time"))
        checked = sum(1 for s in every if s.get("drift") is not None or s.get("reproducible") is not None)
        return timed, checked

    def kept(self) -> str:
        timed, checked = self.measured()
        return ("; what was measured before it is kept (%d drift check(s), %d timing(s))" % (checked, timed)
                if timed or checked else "; nothing was measured before it")

    def stage(self) -> str:
        return self.run.get("last_stage") or "start-up"


@rule("tune", "tune-python-failed", severity=ERROR, category="torch-import-crash")
def python_failed(t: TuneRun):
    """The interpreter given to tune did not start, or is older than Python 3.8."""
    run = t.run
    if run.get("start_error"):
        return Finding("tune-python-failed", "torch-import-crash", ERROR,
                       "Could not start %s" % (run.get("python") or "the interpreter"),
                       detail=run["start_error"],
                       fix=Fix("Give --python the path of a Python interpreter that has torch installed."))
    if run.get("python_too_old"):
        return Finding("tune-python-failed", "python-unsupported", ERROR,
                       "%s is Python %s; tune needs Python 3.8+" % (run.get("python"), run["python_too_old"]))
    return None


@rule("tune", "tune-import-failed", severity=ERROR, category="torch-import-crash")
def import_failed(t: TuneRun):
    """`import torch` failed in the child: nothing could be measured."""
    fatal, run = t.fatal, t.run
    if not t.started or fatal is None or fatal.get("kind") != "import":
        return None
    return _explained(Finding("tune-import-failed", "torch-import-crash", ERROR,
                              "import torch failed: %s" % fatal.get("error"),
                              detail="Nothing could be measured; `torchdoctor check` diagnoses the install.",
                              fix=Fix("Run torchdoctor check for the cause and the fix.",
                                      ["torchdoctor check" + (" --python %s" % run["python"] if run.get("python") else "")])),
                      fatal.get("error"), run)


@rule("tune", "tune-model-raised", severity=ERROR, category="config")
def model_raised(t: TuneRun):
    """The model (or its input spec, or the device asked for) raised."""
    fatal = t.fatal
    if not t.started or fatal is None or fatal.get("kind") not in ("model_error", "spec", "device"):
        return None
    where = (" at %s" % fatal["where"]) if fatal.get("where") else ""
    return _explained(Finding("tune-model-raised", "config", ERROR,
                              "The model raised %s" % _short(fatal.get("error")),
                              detail="During %s%s%s." % (fatal.get("stage") or t.stage(), where, t.kept()),
                              fix=Fix("Fix the error in the model (run it once by hand with the same "
                                      "inputs), then tune again.")),
                      fatal.get("error"), t.run)


@rule("tune", "tune-internal", severity=ERROR, category="internal")
def internal(t: TuneRun):
    """The measuring child failed in torchdoctor's own code."""
    fatal = t.fatal
    if not t.started or fatal is None or fatal.get("kind") in ("import", "model_error", "spec", "device"):
        return None
    return Finding("tune-internal", "internal", ERROR, "torchdoctor tune failed: %s" % fatal.get("error"),
                   detail="In %s%s%s. This is a bug in torchdoctor." % (
                       fatal.get("stage") or t.stage(), (" at %s" % fatal["where"]) if fatal.get("where") else "",
                       t.kept()))


def _ended(t: TuneRun, *endings: str) -> bool:
    return t.started and t.fatal is None and t.run.get("ending") in endings


def _importing(t: TuneRun) -> bool:
    return t.last_stage is not None and t.last_stage.get("what") == "import torch"


@rule("tune", "tune-budget-too-small", severity=ERROR, category="torch-import-crash")
def budget_too_small(t: TuneRun):
    """`import torch` itself did not finish within the budget."""
    if not _ended(t, "hung", "budget") or not _importing(t):
        return None
    return Finding("tune-budget-too-small", "torch-import-crash", ERROR,
                   "import torch did not finish within the budget (%.0f s)" % t.run["budget_s"],
                   detail="The child was killed at the deadline during %s, after %.1f s of it."
                   % (t.last_stage.get("what"), t.run.get("stage_running_s") or 0.0),
                   fix=Fix("Raise --budget, or run torchdoctor check if import torch hangs."))


@rule("tune", "tune-model-hung", severity=ERROR, category="config")
def model_hung(t: TuneRun):
    """The model did not return within the budget."""
    if not _ended(t, "hung") or _importing(t):
        return None
    return Finding("tune-model-hung", "config", ERROR,
                   "The model did not return within the budget (%.0f s)" % t.run["budget_s"],
                   detail="The child was still in %s after %.1f s and was killed at the deadline%s."
                   % (t.stage(), t.run.get("stage_running_s") or 0.0, t.kept()),
                   fix=Fix("Raise --budget if one step of the model is that slow; otherwise find what "
                           "hangs (a dataloader, a collective, a lock) by running the model by hand."))


@rule("tune", "tune-budget-ran-out", severity=WARNING, category="config")
def budget_ran_out(t: TuneRun):
    """The budget ran out during a step that took longer than the steps before it."""
    if not _ended(t, "budget") or _importing(t):
        return None
    return Finding("tune-budget-ran-out", "config", WARNING,
                   "The budget (%.0f s) ran out during %s" % (t.run["budget_s"], t.stage()),
                   detail="One step took longer than the steps before it; the child was killed at "
                          "the deadline after %.1f s in it%s." % (t.run.get("stage_running_s") or 0.0, t.kept()),
                   fix=Fix("Raise --budget."))


@rule("tune", "tune-crashed", severity=ERROR, category="config")
def crashed(t: TuneRun):
    """The process running the model died (a signal or an exit status)."""
    if not _ended(t, "crashed"):
        return None
    run = t.run
    cut = _cut_setting(t.result, t.records, t.last_stage)
    sig = run.get("signal")
    what = "killed by %s" % sig if sig else "exited with status %s" % run.get("returncode")
    return _explained(Finding("tune-crashed", "config", ERROR,
                              "The process running the model was %s" % what,
                              detail="It crashed during %s%s%s.%s" % (
                                  t.stage(), _where_crashed(run), t.kept(), _tail_text(run)),
                              fix=Fix("Run the model by hand with %s to reproduce the crash; a native "
                                      "crash in torch is worth a bug report with `torchdoctor report`."
                                      % (("%s (%s)" % (cut["label"], cut["code"].replace("\n", "; ")))
                                         if cut and cut.get("code") else "the default settings"))),
                      run.get("stderr_tail"), run)


def _workloads(t: TuneRun) -> List[Dict[str, Any]]:
    return t.result["workloads"] if t.started else []


@rule("tune", "tune-workload-failed", severity=WARNING, category="config")
def workload_failed(t: TuneRun):
    """A workload could not be measured at all."""
    return [Finding("tune-workload-failed", "config", WARNING, "Workload %s failed" % w["name"],
                    detail=w.get("reason") or "") for w in _workloads(t) if w.get("status") == "error"]


@rule("tune", "tune-model-changes-flags", severity=WARNING, category="config")
def model_changes_flags(t: TuneRun):
    """The model sets global torch settings itself, so measuring them shows no difference."""
    out = []
    for w in _workloads(t):
        if w.get("model_changes_flags"):
            keys = w["model_changes_flags"].get("keys") or []
            out.append(Finding("tune-model-changes-flags", "config", WARNING,
                               "%s changes global torch settings itself: %s" % (w["name"], ", ".join(keys)),
                               detail="Its first run left %s changed; tune restored them before measuring, but the "
                                      "model's own assignment wins in every run, so measurements of those settings "
                                      "show no difference." % ", ".join(keys)))
    return out


@rule("tune", "tune-flag-not-restored", severity=WARNING, category="internal")
def flag_not_restored(t: TuneRun):
    """A setting stayed changed after its measurement: what came after may carry it."""
    return [Finding("tune-flag-not-restored", "internal", WARNING,
                    "%s left %s changed after %s" % (w["name"], ", ".join(leak["keys"]), leak["setting"]),
                    detail="The measurements after it may carry that change.")
            for w in _workloads(t) for leak in w.get("leaks") or []]


@rule("tune", "tune-setting-failed", severity=WARNING, category="config")
def setting_failed(t: TuneRun):
    """One setting raised with this model."""
    out = []
    for w in _workloads(t):
        for s in w.get("settings") or []:
            if s.get("status") == "error" and s.get("error"):
                out.append(_explained(Finding("tune-setting-failed", "config", WARNING,
                                              "%s fails with %s" % (s["label"], w["name"]),
                                              detail="%s%s" % (s["error"].get("error"), (" at %s" % s["error"]["where"])
                                                               if s["error"].get("where") else ""),
                                              fix=Fix("Do not use %s with this model, or fix what it trips over."
                                                      % s["label"])),
                                      s["error"].get("error"), t.run))
    return out


@rule("tune", "tune-default-drift", severity=WARNING, category="config")
def default_drift(t: TuneRun):
    """The default settings drift from the strict float32 baseline by more than the tolerance."""
    out = []
    for w in _workloads(t):
        dd = (by_id(w).get("default") or {}).get("drift")
        if dd and dd.get("within_tolerance") is False:
            out.append(Finding("tune-default-drift", "config", WARNING,
                               "%s: the default settings drift %s from the strict float32 baseline" % (
                                   w["name"], fmt_drift(drift_value(dd))),
                               detail="More than the tolerance %s; see the reproducibility advice for a setting "
                                      "that is within it." % fmt_drift(t.result["options"]["tolerance"])))
    return out


@rule("tune", "tune-not-reproducible", severity=INFO, category="config", links=(RANDOMNESS_DOCS,))
def not_reproducible(t: TuneRun):
    """Two seeded runs with the default settings were not bitwise equal."""
    return [Finding("tune-not-reproducible", "config", INFO,
                    "%s: two seeded runs with the default settings were not bitwise equal" % w["name"],
                    detail="See the reproducibility advice for what made them equal.", links=[RANDOMNESS_DOCS])
            for w in _workloads(t) if (by_id(w).get("default") or {}).get("reproducible") is False]


@rule("tune", "tune-machine-busy", severity=WARNING, category="config")
def machine_busy(t: TuneRun):
    """No verdict was possible: two interleaved timings of the same settings differed by more
    than any difference a setting was to be judged by (from the load, or from the run itself)."""
    return [_noisy(w) for w in _workloads(t) if (w.get("noise") or {}).get("busy")]


def _noisy(w: Dict[str, Any]) -> Finding:
    title = "%s: %s" % (w["name"], busy_text(w["noise"]))
    if busy_by_load(w["noise"]):
        return Finding("tune-machine-busy", "config", WARNING, title,
                       detail="No setting is called faster or slower: other processes took the CPU (or the GPU) "
                              "unevenly while the settings were timed, so their timings differ by noise as much as "
                              "by the settings. The drift and reproducibility checks do not depend on it.",
                       fix=Fix("Run tune again when the machine is quieter (stop other jobs, or use a node of "
                               "your own); a larger --budget gives more interleaved rounds."))
    n = ((by_id(w).get("default") or {}).get("time") or {}).get("n")
    return Finding("tune-machine-busy", "config", WARNING, title,
                   detail="No setting is called faster or slower. The load was low, so other processes did not "
                          "cause it: with %s timed blocks of the default settings, a block slowed by warm-up, a "
                          "clock change or the program's own threads weighs as much as a setting's effect. The "
                          "drift and reproducibility checks do not depend on it." % (n or "few"),
                   fix=Fix("Run tune again with a larger --budget: more interleaved rounds, so that one slow "
                           "block weighs less."))


@rule("tune", "tune-budget-short", severity=INFO, category="config")
def budget_short(t: TuneRun):
    """The budget was not enough for every workload and setting."""
    result, run = t.result, t.run
    if not t.started or run.get("ending") not in (None, "budget") or result["options"].get("list_only"):
        return None
    unmeasured = [(w["name"], s["label"]) for w in result["workloads"] for s in w.get("settings") or []
                  if s.get("status") in ("not_measured", "partial")]
    skipped_wl = [w["name"] for w in result["workloads"] if w.get("status") == "not_measured"]
    if not (unmeasured or skipped_wl):
        return None
    parts = []
    if skipped_wl:
        parts.append("workloads not started: %s" % ", ".join(skipped_wl))
    if unmeasured:
        parts.append("%d setting(s) not fully measured" % len(unmeasured))
    return Finding("tune-budget-short", "config", INFO,
                   "The budget (%.0f s) was not enough for everything" % run["budget_s"],
                   detail="; ".join(parts) + ".", fix=Fix("Raise --budget, or pick workloads with --workload."))


@rule("tune", "tune-nothing-measured", severity=ERROR, category="config")
def nothing_measured(t: TuneRun):
    """The run ended without one drift check or timing, and without an error saying why: an
    error all the same (exit 1), never a table of nothing and exit 0."""
    result, ending = t.result, t.run.get("ending")
    if not t.started or t.fatal is not None or result["options"].get("list_only") or any(t.measured()):
        return None
    if ending in ("hung", "crashed") or (ending == "budget" and _importing(t)):
        return None  # those rules say why, as an error of their own
    why = ["%s: %s" % (w["name"], w.get("reason") or w.get("status")) for w in result["workloads"]]
    budget = any("budget" in (w.get("reason") or "") for w in result["workloads"]) or not why
    return Finding("tune-nothing-measured", "config", ERROR, "Nothing was measured",
                   detail="No setting got a drift check or a timing (%s)." % ("; ".join(why) or "no workload ran"),
                   fix=Fix("Raise --budget." if budget else "Fix what stopped the workloads, then tune again."))


TUNE_RULES = rules_of((
    python_failed, import_failed, model_raised, internal, budget_too_small, model_hung, budget_ran_out, crashed,
    workload_failed, model_changes_flags, flag_not_restored, setting_failed, default_drift, not_reproducible,
    machine_busy, budget_short, nothing_measured,
))


def findings(result, records, fatal, last_stage) -> List[Finding]:
    return rules.run(TUNE_RULES, TuneRun(result, records, fatal, last_stage)).findings


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
        from ...match.matcher import best_match
        m = best_match(str(text))
    except Exception:  # noqa: BLE001 - advice only
        return f
    if m is None:
        return f
    entry = getattr(m, "entry", None)
    title = getattr(entry, "title", None) or getattr(m, "title", None)
    eid = getattr(entry, "id", None) or getattr(m, "id", None)
    if title:
        f.detail = (f.detail + " " if f.detail else "") + "Known error: %s (see `torchdoctor explain %s`)." % (title, eid)
        cat = getattr(entry, "category", None)
        if cat and f.category == "config":
            f.category = cat
    return f
