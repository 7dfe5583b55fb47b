"""Diagnosis, the one path every surface takes: facts -> findings (`diagnose`: the checks
of every area), gather + diagnose for an interpreter (`examine`), and error text -> known
errors explained for this machine (`explain`: the matcher, then the tailoring hook of the
matched entry's area).

The CLI verbs, the Python API, the exception hook, the pytest plugin, the IPython extension,
the MCP server, `run`'s post-mortem, `triage` and `dist` call these functions; nothing else
runs checks or tailors a match (tests/test_architecture.py holds every surface to it).
"""

from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from .advice.commands import finish
from .match.matcher import Match, match_text
from .model.facts import Facts
from .model.findings import ERROR, Finding, Fix, Verify
from .model.records import field, record

if TYPE_CHECKING:  # explain needs no Report: imported where one is made
    from .model.report import Report


# -- facts -> findings ---------------------------------------------------------------
def diagnose(facts: Facts, only=None, skip=None) -> "Report":
    from .areas.checks import run_checks
    from .model.report import Report
    skipped: List[Dict[str, Any]] = []
    findings = run_checks(facts, only=only, skip=skip, skipped=skipped)
    return Report(facts, findings, skipped)


def examine(python: Optional[str] = None, timeout: float = 60.0, in_process: bool = False,
            only=None, skip=None, extras: bool = False, redact: Optional[bool] = None,
            isolated_from: Optional[str] = None) -> "Report":
    """Gather the facts of `python` (default: this interpreter) and diagnose them.

    extras: add what only a bug report carries (build tools, system libraries); redact:
    None leaves the report as it is, True redacts it (user and host names of this machine
    too), False marks it as not redacted; isolated_from: probe isolated (probe.ISOLATE)."""
    import sys

    from .gather.probe import gather
    python = python or sys.executable
    facts = gather(python=python, timeout=timeout, in_process=in_process, isolated_from=isolated_from)
    if extras:
        from .gather.extras import with_extras
        facts = with_extras(facts)
    report = diagnose(facts, only=only, skip=skip)
    if redact is None:
        return report
    from .redact import local_names, mark_unredacted, redact_report
    if redact:
        users, hosts = local_names()
        return redact_report(report, extra_users=users, extra_hosts=hosts)
    return mark_unredacted(report)


# -- error text -> explanations ---------------------------------------------------------
@record
class Explanation:
    """A known error found in text: the finding it amounts to on this machine (the entry's
    cause and fix, tailored to the facts), the match that found it, and how it was tailored."""
    match: Match
    finding: Finding
    notes: List[str] = field(default_factory=list)  # the facts the tailoring used
    tailored: bool = False
    hook_error: Optional[str] = None

    # What renderers and the API read, from the finding (README's API example reads these).
    @property
    def id(self) -> str:
        return self.finding.id

    @property
    def title(self) -> str:
        return self.finding.title

    @property
    def category(self) -> str:
        return self.finding.category

    @property
    def severity(self) -> str:
        return self.finding.severity

    @property
    def cause(self) -> str:
        return self.finding.detail

    detail = cause

    @property
    def fix(self) -> Fix:
        return self.finding.fix

    @property
    def links(self) -> List[str]:
        return self.finding.links

    @property
    def evidence(self) -> List[str]:
        return self.finding.evidence

    @property
    def confidence(self) -> str:
        return self.finding.confidence

    @property
    def verify(self) -> Optional[Verify]:
        return self.finding.verify

    def to_dict(self) -> dict:
        f, m = self.finding, self.match
        return {
            "id": f.id, "category": f.category, "title": f.title, "cause": f.detail,
            "fix": {"summary": f.fix.summary, "commands": list(f.fix.commands)},
            "links": list(f.links), "line": m.line, "count": m.count,
            "score": round(m.score, 2), "matched_text": m.text,
            "facts_used": list(self.notes), "tailored": self.tailored,
            "severity": f.severity, "evidence": list(f.evidence), "confidence": f.confidence,
            "verify": {"command": f.verify.command, "expect": f.verify.expect} if f.verify else None,
            "notes": [{"kind": "tailoring-crashed", "hook": m.entry.tailor, "error": self.hook_error}]
            if self.hook_error else [],
        }


def explain(text: Optional[str] = None, matches: Optional[List[Match]] = None, facts: Optional[Facts] = None,
            gather: Optional[Callable[[], Facts]] = None,
            limit: Optional[int] = None) -> Tuple[List["Explanation"], Optional[Facts]]:
    """The known errors in `text` (or `matches` a log scan already found), best first, each
    explained for this machine, and the facts they were tailored to.

    facts: the facts to tailor to; gather: how to get them when the text holds a known error
    (called only then: the cheap facts of an interpreter, a running program's own, a full
    probe); neither: generic fixes. limit: explain only the best `limit` matches."""
    if matches is None:
        matches = match_text(text) if text and text.strip() else []
    if limit is not None:
        matches = matches[:limit]
    if facts is None and gather is not None and matches:
        facts = gather()
    return [explain_match(m, facts) for m in matches], facts


def explain_match(m: Match, facts: Optional[Facts]) -> Explanation:
    x = _tailor(m, facts)
    finish(x.finding, facts, lambda: _verify(m, facts))
    return x


def _verify(m: Match, facts: Optional[Facts]) -> Optional[Verify]:
    """How to see the fix worked: the entry's own, else that of the condition its hook is
    named after (a hook and its check share the condition's name)."""
    own = Verify.from_dict(m.entry.raw.get("verify"))
    if own is not None:
        from .advice.commands import runnable_verify
        return runnable_verify(own, facts)
    if m.entry.tailor and facts is not None:
        from .areas.registry import verify_for
        return verify_for(m.entry.tailor, facts)
    return None


def _evidence(m: Match, notes: List[str]) -> List[str]:
    return ["line %d%s: %s" % (m.line, " (%d times)" % m.count if m.count > 1 else "", m.text[:300])] + list(notes)


def _tailor(m: Match, facts: Optional[Facts]) -> Explanation:
    e = m.entry
    f = Finding(id=e.id, category=e.category, severity=str(e.raw.get("severity") or ERROR), title=e.title,
                detail=e.cause, fix=Fix.from_dict(e.fix), links=list(e.links),
                confidence=m.confidence)
    x = Explanation(m, f)
    x.finding.evidence = _evidence(m, [])
    if not e.tailor or facts is None:
        return x
    from .areas.registry import hook_for
    hook = hook_for(e)
    if hook is None:
        x.hook_error = "unknown tailoring hook %r" % e.tailor
        return x
    try:
        t = hook(m, facts)
    except Exception as exc:  # noqa: BLE001 - fall back to the generic fix
        x.hook_error = "%s: %s" % (type(exc).__name__, exc)
        return x
    if t is None:
        return x
    if t.cause:
        f.detail = e.cause + "\n\n" + t.cause
    if t.summary is not None:
        f.fix.summary = t.summary
    if t.commands is not None:
        f.fix.commands = list(t.commands)
    x.notes = list(t.notes)
    f.evidence = _evidence(m, x.notes)
    f.verify = t.verify
    x.tailored = True
    return x
