"""Findings: what a check concluded, in one structured shape for every renderer."""

from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional

ERROR = "error"
WARNING = "warning"
INFO = "info"
SEVERITIES = (ERROR, WARNING, INFO)
_RANK = {INFO: 0, WARNING: 1, ERROR: 2}


def severity_rank(sev: str) -> int:
    return _RANK.get(sev, 0)


@dataclass
class Fix:
    summary: str = ""
    commands: List[str] = field(default_factory=list)

    @classmethod
    def from_dict(cls, d: Optional[Dict[str, Any]]) -> "Fix":
        d = d or {}
        return cls(summary=str(d.get("summary", "")), commands=[str(c) for c in d.get("commands") or []])


@dataclass
class Finding:
    id: str
    category: str
    severity: str
    title: str
    detail: str = ""
    fix: Fix = field(default_factory=Fix)
    links: List[str] = field(default_factory=list)
    check: str = ""  # id of the check that produced it

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "Finding":
        return cls(
            id=str(d["id"]), category=str(d.get("category", "")), severity=str(d.get("severity", INFO)),
            title=str(d.get("title", "")), detail=str(d.get("detail", "")), fix=Fix.from_dict(d.get("fix")),
            links=[str(x) for x in d.get("links") or []], check=str(d.get("check", "")),
        )


def sort_findings(findings: List[Finding]) -> List[Finding]:
    return sorted(findings, key=lambda f: (-severity_rank(f.severity), f.category, f.id))
