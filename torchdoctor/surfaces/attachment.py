"""The bug-report attachment a surface writes (`run --report`, `pytest --torchdoctor-report`,
`%torchdoctor report`): the environment report of `torchdoctor report`, with the surface's
own section (the run, the failed tests) inside the facts, so one redaction pass covers
both and `triage` / `check --from` read the file back like any report. Written by
userfiles.write_output, like every file a user names."""

from typing import Any, Callable, Dict, List, Optional

from ..model.facts import Facts
from ..model.report import Report


def fmt_for(path: str) -> str:
    return "json" if path.lower().endswith(".json") else "markdown"


def build(section: str, data: Optional[Dict[str, Any]], python: Optional[str] = None, timeout: float = 60.0,
          redact: bool = True, prepare: Optional[Callable[[Facts], Facts]] = None) -> Report:
    """Probe `python` (default: this interpreter) and diagnose it, add `data` as
    facts[section] (when not None), let `prepare` give the facts to keep (it sees them with
    the section), then redact (or mark the report NOT redacted). The findings are those of
    the probed facts: what is added is context for the reader."""
    from ..diagnose import examine
    from ..redact import local_names, mark_unredacted, redact_report
    report = examine(python=python, timeout=timeout, extras=True)
    facts = report.facts
    if data is not None:
        facts = facts.with_values({section: data})
    if prepare is not None:
        facts = prepare(facts)
    report = Report(facts, report.findings, report.skipped)
    if not redact:
        return mark_unredacted(report)
    users, hosts = local_names()
    return redact_report(report, extra_users=users, extra_hosts=hosts)


def _run_lines(run: Dict[str, Any]) -> List[str]:
    from ..render.markdown import cell, fence, render_match, render_signal
    status = run.get("exit_status")
    rows = [("command", " ".join(str(a) for a in run.get("command", []))),
            ("interpreter", run.get("python") or "unknown"),
            ("exit status", "%s%s" % (status, " (%s)" % run["signal"] if run.get("signal") else "")),
            ("duration", "%.1f s" % run["duration_s"] if isinstance(run.get("duration_s"), (int, float)) else "?")]
    out = ["### The run", "", "| | |", "|---|---|"] + ["| **%s** | %s |" % (k, cell(v)) for k, v in rows] + [""]
    matches = run.get("matches") or []
    if matches:
        out += ["### Known errors in its output", ""]
        for d in matches:
            out += render_match(d)
    if run.get("signal_explanation"):
        out += render_signal(run["signal_explanation"], heading="###")
    if run.get("diagnosis_error"):
        out += ["> The diagnosis step failed: %s" % cell(run["diagnosis_error"]), ""]
    tail = run.get("output_tail") or ""
    if tail:
        n = tail.count("\n") + (0 if tail.endswith("\n") else 1)
        out += ["<details>", "<summary>Output: the last %d line(s) of %s byte(s)</summary>" % (
            n, run.get("output_bytes", "?")), "", fence(tail, "text"), "", "</details>", ""]
    return out


def _tests_lines(sess: Dict[str, Any]) -> List[str]:
    from ..render.markdown import cell, esc, render_match
    counts = sess.get("counts") or {}
    out = ["### The test session", "",
           "`%s` \u00b7 %s" % (cell(" ".join(sess.get("args") or [])) or "pytest",
                               esc(", ".join("%d %s" % (n, k) for k, n in sorted(counts.items())) or "no tests")), ""]
    diagnosed = sess.get("diagnosed") or []
    if not diagnosed:
        out += ["No failed test matched a known environment error.", ""]
    for t in diagnosed:
        out += ["### `%s` (%s)" % (t.get("nodeid", "?").replace("`", "'"), esc(t.get("when", "call"))), ""]
        for d in t.get("matches", []):
            out += render_match(d, lines=False)
    return out


SECTIONS = {"run": _run_lines, "pytest": _tests_lines}


def render(report: Report, fmt: str, section: Optional[str] = None) -> str:
    if fmt == "json":
        from ..render.json_out import render_json
        return render_json(report)
    from ..render.markdown import render_markdown
    extra = None
    if section and isinstance(report.facts.value(section), dict):
        extra = SECTIONS[section](report.facts.value(section))
    return render_markdown(report, extra=extra)
