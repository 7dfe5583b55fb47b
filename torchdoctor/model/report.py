"""A finished diagnosis: facts plus findings, the unit every renderer takes."""

from .records import field, record
from typing import Any, Dict, List

from .facts import SCHEMA_VERSION, Facts
from .findings import Finding, severity_rank


@record
class Report:
    facts: Facts
    findings: List[Finding] = field(default_factory=list)
    # checks not run because facts they need are unknown (saved reports, pastes)
    skipped: List[Dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> Dict[str, Any]:
        return {"schema_version": SCHEMA_VERSION, "facts": self.facts.to_dict(),
                "findings": [f.to_dict() for f in self.findings]}

    def worst(self) -> int:
        return max((severity_rank(f.severity) for f in self.findings), default=-1)

    def counts(self) -> Dict[str, int]:
        out = {"error": 0, "warning": 0, "info": 0}
        for f in self.findings:
            out[f.severity] = out.get(f.severity, 0) + 1
        return out

