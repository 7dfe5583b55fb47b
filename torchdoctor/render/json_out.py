"""JSON output: the shape of ``check --json`` (schema_version, facts, findings),
plus whatever a verb adds at the top level (triage: ``matches`` and ``triage``)."""

import json
from typing import Any, Dict, Optional

from ..model.report import Report


def report_dict(report: Report, extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    out = report.to_dict()
    if extra:
        out.update(extra)
    return out


def render_json(report: Report, extra: Optional[Dict[str, Any]] = None) -> str:
    return json.dumps(report_dict(report, extra), indent=2, default=str) + "\n"
