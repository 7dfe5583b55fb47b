"""Diagnosis, the one path every surface takes: facts -> findings (the checks of every
area), error text -> explanations (the matcher, then the tailoring hook of the matched
entry's area), and gather + diagnose for a live interpreter (`examine`).

The CLI verbs and the Python API are thin over these functions; nothing else runs checks
or tailors a match.
"""

from .model.records import field, record
from typing import TYPE_CHECKING, Any, Dict, List, Optional

from .match.matcher import Match, match_text
from .model.facts import Facts
from .model.findings import ERROR, HIGH, NOTHING_TO_VERIFY, Finding, Fix, Verify

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
        from .gather.extras import add_extras
        add_extras(facts, python, timeout=min(timeout, 20.0))
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
    match: Match
    cause: str
    fix: Fix
    notes: List[str] = field(default_factory=list)
    tailored: bool = False
    hook_error: Optional[str] = None
    verify: Optional[Verify] = None

    # The Finding-shaped core (README's API example reads these like a Finding's fields),
    # plus what only a match has: the line, the count, the text, the score.
    @property
    def id(self) -> str:
        return self.match.entry.id

    @property
    def severity(self) -> str:
        return str(self.match.entry.raw.get("severity") or ERROR)

    @property
    def detail(self) -> str:
        return self.cause

    @property
    def confidence(self) -> str:
        return getattr(self.match, "confidence", HIGH)

    @property
    def evidence(self) -> List[str]:
        m = self.match
        return ["line %d%s: %s" % (m.line, " (%d times)" % m.count if m.count > 1 else "", m.text[:300])] + list(self.notes)

    @property
    def finding(self) -> Finding:
        e = self.match.entry
        return Finding(id=e.id, category=e.category, severity=self.severity, title=e.title, detail=self.cause,
                       fix=Fix(self.fix.summary, list(self.fix.commands)), links=list(e.links),
                       evidence=self.evidence, confidence=self.confidence, verify=self.verify)

    @property
    def category(self) -> str:
        return self.match.entry.category

    @property
    def title(self) -> str:
        return self.match.entry.title

    @property
    def links(self) -> List[str]:
        return list(self.match.entry.links)

    def to_dict(self) -> dict:
        e = self.match.entry
        return {
            "id": e.id, "category": e.category, "title": e.title, "cause": self.cause,
            "fix": {"summary": self.fix.summary, "commands": list(self.fix.commands)},
            "links": list(e.links), "line": self.match.line, "count": self.match.count,
            "score": round(self.match.score, 2), "matched_text": self.match.text,
            "facts_used": list(self.notes), "tailored": self.tailored,
            "severity": self.severity, "evidence": self.evidence, "confidence": self.confidence,
            "verify": {"command": self.verify.command, "expect": self.verify.expect} if self.verify else None,
            "notes": [{"kind": "tailoring-crashed", "hook": e.tailor, "error": self.hook_error}]
            if self.hook_error else [],
        }


def explain_match(m: Match, facts: Optional[Facts]) -> Explanation:
    x = _tailor(m, facts)
    from .advice.commands import runnable_here
    if facts is not None:
        x.fix.commands = runnable_here(x.fix.commands, facts)
    if x.verify is NOTHING_TO_VERIFY:  # the hook's fix says nothing needs fixing here
        x.verify = None
    elif x.verify is None:
        x.verify = _verify(m, facts)
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


def _tailor(m: Match, facts: Optional[Facts]) -> Explanation:
    e = m.entry
    base = Explanation(m, e.cause, Fix.from_dict(e.fix))
    if not e.tailor or facts is None:
        return base
    from .areas.registry import hook_for
    hook = hook_for(e)
    if hook is None:
        base.hook_error = "unknown tailoring hook %r" % e.tailor
        return base
    try:
        t = hook(m, facts)
    except Exception as exc:  # noqa: BLE001 - fall back to the generic fix
        base.hook_error = "%s: %s" % (type(exc).__name__, exc)
        return base
    if t is None:
        return base
    if t.cause:
        base.cause = e.cause + "\n\n" + t.cause
    if t.summary is not None:
        base.fix.summary = t.summary
    if t.commands is not None:
        base.fix.commands = list(t.commands)
    base.notes = list(t.notes)
    base.verify = t.verify
    base.tailored = True
    return base


def explain_matches(matches: List[Match], facts: Optional[Facts]) -> List[Explanation]:
    return [explain_match(m, facts) for m in matches]


def explain_text(text: str, facts: Optional[Facts] = None, use_env: bool = True) -> List[Explanation]:
    """Known errors in `text`, best first, each with cause and a fix tailored to `facts`
    (default: the cheap facts of this interpreter; use_env=False for generic fixes)."""
    matches = match_text(text)
    if facts is None and use_env and matches:
        from .gather.light import light_facts
        facts = light_facts()
    return explain_matches(matches, facts if use_env else None)
