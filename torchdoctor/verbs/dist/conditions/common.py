"""What several families of dist conditions read: a step's per-rank results, a rank's fate
in words, whether the job is on NCCL, errors shortened and matched against the known-error
catalogue, the step and documentation names they share, and the Finding every condition
returns.
"""

import re
from typing import Any, Dict, List, Optional

from ....model.findings import Finding, Fix
from .. import jobfacts as J

OBJECT_STEP = "all_gather_object"
DIST_DOCS = "https://docs.pytorch.org/docs/stable/distributed.html"


def cuda_job(job: Dict[str, Any]) -> bool:
    """NCCL is (or would be) the backend: the planned one, else every rank with a GPU."""
    if job.get("backend"):
        return job["backend"] == "nccl"
    sums = [J.summary(job, r) for r in J.with_summary(job)]
    return bool(sums) and all((s.get("cuda") or {}).get("available") for s in sums)


def explained(texts: List[str]) -> str:
    """Known errors in `texts`, by the explain matcher: ' Known error: <title> [id].'"""
    joined = "\n".join(t for t in texts if t)
    if not joined.strip():
        return ""
    try:
        from ....match.matcher import best_match
        m = best_match(joined[-20000:])
    except Exception:  # noqa: BLE001 - explaining is a bonus; never let it break a finding
        return ""
    if m is None:
        return ""
    return " Known error: %s [%s]; `torchdoctor explain %s` says why and how to fix it." % (
        m.entry.title, m.id, m.id)


def short_error(text: str, limit: int = 240) -> str:
    """An error as a reader needs it: no C++ source locations, no boilerplate after the cause."""
    text = re.sub(r"\[[^\]\s]*\.(?:cc|cpp|h|hpp|cu):\d+\]\s*", "", text or "")
    text = re.sub(r"\s*(?:This is typically caused by|Exception raised from)\b.*", "", text, flags=re.S)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def per_rank_of(stepd: Optional[Dict[str, Any]]) -> Dict[int, Dict[str, Any]]:
    if not stepd:
        return {}
    return {int(k): v for k, v in (stepd.get("per_rank") or {}).items() if isinstance(v, dict)}


def fate_text(job: Dict[str, Any], r: int) -> str:
    fate = J.rank_record(job, r).get("fate") or {}
    bits = []
    if fate.get("exitcode") is not None:
        code = fate["exitcode"]
        bits.append("exit code %s" % code if code >= 0 else "killed by signal %d" % -code)
    if fate.get("reason"):
        bits.append(fate["reason"])
    return ", ".join(bits)


def finding(cid: str, severity: str, category: str, title: str, detail: str = "", fix: str = "",
            commands: Optional[List[str]] = None, links: Optional[List[str]] = None) -> Finding:
    """A condition's finding, its id, severity and category said where the words are."""
    return Finding(id=cid, category=category, severity=severity, title=title, detail=detail,
                   fix=Fix(summary=fix, commands=list(commands or [])), links=list(links or []), check=cid)
