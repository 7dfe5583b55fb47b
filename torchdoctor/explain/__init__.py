"""explain: known errors in text -> cause and the fix for this machine."""

from dataclasses import dataclass, field
from typing import List, Optional

from ..facts import Facts
from ..findings import Fix
from .matcher import Match, best_match, match_text, scan_stream  # noqa: F401


@dataclass
class Explanation:
    match: Match
    cause: str
    fix: Fix
    notes: List[str] = field(default_factory=list)
    tailored: bool = False
    hook_error: Optional[str] = None

    # README's API example reads these like a Finding's fields.
    @property
    def id(self) -> str:
        return self.match.entry.id

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
        }


def explain_match(m: Match, facts: Optional[Facts]) -> Explanation:
    x = _explain_match(m, facts)
    if facts is not None:
        from ..advice import runnable_here
        x.fix.commands = runnable_here(x.fix.commands, facts)
    return x


def _explain_match(m: Match, facts: Optional[Facts]) -> Explanation:
    e = m.entry
    base = Explanation(m, e.cause, Fix.from_dict(e.fix))
    if not e.tailor or facts is None:
        return base
    from .tailor import hooks
    hook = hooks().get(e.tailor)
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
    base.tailored = True
    return base


def explain_matches(matches: List[Match], facts: Optional[Facts]) -> List[Explanation]:
    return [explain_match(m, facts) for m in matches]
