"""Findings: what a check concluded (or an explanation of a known error found), in one
structured shape for every renderer: what is wrong, why, the facts observed, how sure, what
to run, and how to see that it worked."""

from .records import asdict, field, record
from typing import Any, Dict, List, Optional

ERROR = "error"
WARNING = "warning"
INFO = "info"
_RANK = {INFO: 0, WARNING: 1, ERROR: 2}

# How sure a finding is. HIGH: read off this machine, or text that names the condition.
# POSSIBLE: a weak match of a generic known error; said as "possibly", never as the cause.
HIGH = "high"
POSSIBLE = "possible"


def severity_rank(sev: str) -> int:
    return _RANK.get(sev, 0)


@record
class Fix:
    summary: str = ""
    commands: List[str] = field(default_factory=list)
    # Whether the install commands were dry-run by the target's own pip with the user's own
    # configuration (advice/resolve.py): "yes", "replaced" (the intended build does not resolve
    # here; the commands are what does), "no", "unverified"; "" when not tried. resolution: in
    # one line, what the dry run found.
    resolved: str = ""
    resolution: str = ""

    @classmethod
    def from_dict(cls, d: Optional[Dict[str, Any]]) -> "Fix":
        d = d or {}
        return cls(summary=str(d.get("summary", "")), commands=[str(c) for c in d.get("commands") or []],
                   resolved=str(d.get("resolved") or ""), resolution=str(d.get("resolution") or ""))


@record
class Verify:
    """A command that shows the fix worked, and what it prints then."""
    command: str
    expect: str = ""

    @classmethod
    def from_dict(cls, d: Any) -> Optional["Verify"]:
        if not isinstance(d, dict) or not d.get("command"):
            return None
        return cls(command=str(d["command"]), expect=str(d.get("expect", "")))


# What a check or a tailoring hook gives as its verification when its fix says nothing needs
# fixing on this machine now (no GPU here: the CPU build is the right one): the condition's
# usual verification would expect what cannot happen here. Compared by identity; never rendered.
NOTHING_TO_VERIFY = Verify("", "")


@record
class Finding:
    id: str
    category: str
    severity: str
    title: str
    detail: str = ""
    fix: Fix = field(default_factory=Fix)
    links: List[str] = field(default_factory=list)
    check: str = ""  # id of the check that produced it
    evidence: List[str] = field(default_factory=list)  # the observed facts it rests on
    confidence: str = HIGH
    verify: Optional[Verify] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Finding":
        return cls(
            id=str(d["id"]), category=str(d.get("category", "")), severity=str(d.get("severity", INFO)),
            title=str(d.get("title", "")), detail=str(d.get("detail", "")), fix=Fix.from_dict(d.get("fix")),
            links=[str(x) for x in d.get("links") or []], check=str(d.get("check", "")),
            evidence=[str(x) for x in d.get("evidence") or []], confidence=str(d.get("confidence") or HIGH),
            verify=Verify.from_dict(d.get("verify")),
        )


def sort_findings(findings: List[Finding]) -> List[Finding]:
    return sorted(findings, key=lambda f: (-severity_rank(f.severity), f.category, f.id))
