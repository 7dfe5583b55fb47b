"""The findings of a tune run: the interpreter or torch that would not start, the model
raising, hanging or crashing (where, and what stderr said), the budget running out, and
per workload failed settings, global flags the model changes, drift and irreproducible
defaults; each error text matched against the known-error catalogue.
"""

from typing import List

from ..findings import ERROR, INFO, WARNING, Finding, Fix
from .numbers import fmt_drift
from .recommend import by_id


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
        d = by_id(w).get("default") or {}
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
    if not (timed or checked) and not result["options"].get("list_only") and not any(f.severity == ERROR for f in out):
        out.append(_nothing_measured(result))
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


def _nothing_measured(result) -> Finding:
    """A run that ended without one drift check or timing, and without an error saying
    why: an error all the same (exit 1), never a table of nothing and exit 0."""
    why = ["%s: %s" % (w["name"], w.get("reason") or w.get("status")) for w in result["workloads"]]
    budget = any("budget" in (w.get("reason") or "") for w in result["workloads"]) or not why
    return Finding("tune-nothing-measured", "config", ERROR, "Nothing was measured",
                   detail="No setting got a drift check or a timing (%s)." % ("; ".join(why) or "no workload ran"),
                   fix=Fix("Raise --budget." if budget else "Fix what stopped the workloads, then tune again."))


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
