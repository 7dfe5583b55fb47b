"""Checks: pure functions from facts to findings, registered by decorator.

A check is one function in an area module of this package::

    @check("cpu-only-build", category="cpu-only-build", severity=ERROR)
    def cpu_only_build(facts):
        if ...:
            return finding("CPU-only torch on a machine with an NVIDIA GPU", detail=..., fix=..., commands=[...])

It returns None, one finding or a list. ``finding()`` leaves id, category and
severity empty unless given; the runner fills them from the registration. A
check that raises becomes a ``check-crashed`` finding (as Flutter's doctor does
with a crashed validator), never a traceback.
"""

import importlib
import pkgutil
import traceback
from dataclasses import dataclass
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from ..facts import UNKNOWN, Facts
from ..findings import ERROR, INFO, WARNING, Finding, Fix, sort_findings

__all__ = ["check", "finding", "run_checks", "all_checks", "ERROR", "WARNING", "INFO"]


@dataclass
class Check:
    id: str
    category: str
    severity: str
    func: Callable[[Facts], object]
    area: str
    requires: Tuple[str, ...] = ()

    def missing(self, facts: Facts) -> List[str]:
        return [p for p in self.requires if facts.state(p) == UNKNOWN]

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip().split("\n")[0]


_REGISTRY: Dict[str, Check] = {}


def check(id: str, category: str, severity: str = ERROR, requires: Iterable[str] = ()):
    def deco(func):
        if id in _REGISTRY:
            raise ValueError("duplicate check id %r" % id)
        area = func.__module__.rsplit(".", 1)[-1]
        _REGISTRY[id] = Check(id=id, category=category, severity=severity, func=func, area=area,
                              requires=tuple(requires))
        return func
    return deco


def finding(title: str, detail: str = "", fix: str = "", commands: Iterable[str] = (),
            links: Iterable[str] = (), severity: Optional[str] = None, id: Optional[str] = None,
            category: Optional[str] = None) -> Finding:
    return Finding(id=id or "", category=category or "", severity=severity or "", title=title,
                   detail=detail, fix=Fix(summary=fix, commands=list(commands)), links=list(links))


def known_error_finding(text: str, title: str, detail: str) -> Optional[Finding]:
    """A finding for error text the knowledge base recognises (the probe's
    stderr, an import traceback, CUDA init warnings): its category and fix come
    from the matched entry, so checks and `explain` never disagree."""
    from ..explain.matcher import best_match
    m = best_match(text) if text and text.strip() else None
    if m is None:
        return None
    e = m.entry
    return finding("%s: %s" % (title, e.title), detail=detail + "\n\n" + e.cause,
                   fix=e.fix.get("summary", ""), commands=e.fix.get("commands", []),
                   links=e.links, category=e.category)


_loaded = False


def _load_all() -> None:
    global _loaded
    if _loaded:
        return
    for mod in pkgutil.iter_modules(__path__):
        if not mod.name.startswith("_"):
            importlib.import_module(__name__ + "." + mod.name)
    _loaded = True


def all_checks() -> List[Check]:
    _load_all()
    # By id: listings and "not run" lists do not change when a check moves between modules.
    return sorted(_REGISTRY.values(), key=lambda c: c.id)


def _as_list(result) -> List[Finding]:
    if result is None:
        return []
    if isinstance(result, Finding):
        return [result]
    return [r for r in result if isinstance(r, Finding)]


def run_check(chk: Check, facts: Facts) -> List[Finding]:
    try:
        out = _as_list(chk.func(facts))
    except Exception as e:  # noqa: BLE001 - a crashed check is a result, not a crash
        tb = traceback.extract_tb(e.__traceback__)
        where = "%s:%d" % (tb[-1].filename.rsplit("/", 1)[-1], tb[-1].lineno) if tb else "?"
        return [Finding(
            id="check-crashed", category="internal", severity=WARNING, check=chk.id,
            title="Check %s crashed; its diagnosis is missing from this report" % chk.id,
            detail="%s: %s (at %s). This is a torchdoctor bug; the other checks ran normally."
                   % (type(e).__name__, e, where),
            fix=Fix(summary="Report it to the torchdoctor maintainers with `torchdoctor report` attached."),
        )]
    from ..advice import runnable_here  # advice reads derived facts from this package
    for f in out:
        f.fix.commands = runnable_here(f.fix.commands, facts)
        f.id = f.id or chk.id
        f.category = f.category or chk.category
        f.severity = f.severity or chk.severity
        f.check = chk.id
    return out


def select(only: Optional[Iterable[str]] = None, skip: Optional[Iterable[str]] = None) -> List[Check]:
    checks = all_checks()
    known = {c.id for c in checks}
    for name in list(only or []) + list(skip or []):
        if name not in known:
            raise KeyError(name)
    if only:
        wanted = set(only)
        checks = [c for c in checks if c.id in wanted]
    if skip:
        unwanted = set(skip)
        checks = [c for c in checks if c.id not in unwanted]
    return checks


def run_checks(facts: Facts, only=None, skip=None,
               skipped: Optional[List[Dict[str, object]]] = None) -> List[Finding]:
    """Findings of the selected checks; checks whose required facts are unknown
    are appended to `skipped` as {"id", "needs"} instead of being run."""
    findings: List[Finding] = []
    for chk in select(only, skip):
        missing = chk.missing(facts)
        if missing:
            if skipped is not None:
                skipped.append({"id": chk.id, "needs": missing})
            continue
        findings.extend(run_check(chk, facts))
    return sort_findings(findings)
