"""The registry of checks and tailoring hooks, and the runner of checks.

A check is a function in an area module, facts -> findings::

    @check("cpu-only-build", category="cpu-only-build", severity=ERROR,
       verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
    def cpu_only_build(facts):
        if ...:
            return finding("CPU-only torch on a machine with an NVIDIA GPU", detail=..., fix=..., commands=[...])

It returns None, one finding or a list. ``finding()`` leaves id, category and severity
empty unless given; the runner fills them from the registration. A check that raises
becomes a ``check-crashed`` finding (as Flutter's doctor does with a crashed validator),
never a traceback.

A tailoring hook is a function in the area module named like the known-error file whose
entries name it in "tailor", (match, facts) -> Tailored: any field left None keeps the
entry's text; None when the facts say nothing useful. A hook that raises falls back to the
entry's generic fix (the caller records the error).
"""

import importlib
from ..model.records import field, record
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from ..advice.commands import runnable_here, runnable_verify
from ..match.matcher import best_match
from ..model.facts import UNKNOWN, Facts
from ..model import derived as F
from ..model.findings import ERROR, INFO, NOTHING_TO_VERIFY, WARNING, Finding, Fix, Verify, sort_findings

__all__ = ["check", "hook", "finding", "Tailored", "Remedy", "run_checks", "all_checks", "ERROR", "WARNING", "INFO"]

PACKAGE = __name__.rsplit(".", 1)[0]  # torchdoctor.areas


@record
class Check:
    id: str
    category: str
    severity: str
    func: Callable[[Facts], object]
    area: str
    requires: Tuple[str, ...] = ()
    verify: Optional[Verify] = None  # what shows the fix worked (a bare `python -c`: run by the target)

    def missing(self, facts: Facts) -> List[str]:
        return [p for p in self.requires if facts.state(p) == UNKNOWN]

    @property
    def doc(self) -> str:
        return (self.func.__doc__ or "").strip().split("\n")[0]


@record
class Tailored:
    summary: Optional[str] = None
    commands: Optional[List[str]] = None
    cause: Optional[str] = None  # appended to the entry's cause
    notes: List[str] = field(default_factory=list)  # the facts used, for "why we think so"
    verify: Optional[Verify] = None  # None: the condition's own (see remedy_verify)


@record
class Remedy:
    """What to do about one condition on this machine: the shared answer that a condition's
    check and its tailoring hook both render, so the two cannot drift."""
    summary: str
    commands: List[str] = field(default_factory=list)
    # How to see this fix worked when it is not the condition's usual verification:
    # (command, what it prints). settled: nothing needs fixing on this machine now, so
    # nothing to verify.
    verify: Optional[Tuple[str, str]] = None
    settled: bool = False


def remedy_verify(remedy: Optional[Remedy], facts: Optional[Facts]) -> Optional[Verify]:
    """The verification a check's finding or a hook's Tailored carries for `remedy`: None
    means the condition's usual one, NOTHING_TO_VERIFY none at all."""
    if remedy is None:
        return None
    if remedy.settled:
        return NOTHING_TO_VERIFY
    if remedy.verify is not None:
        return runnable_verify(Verify(*remedy.verify), facts) or NOTHING_TO_VERIFY
    return None


CHECKS: Dict[str, Check] = {}
HOOKS: Dict[str, Callable] = {}


def area_of(module: str) -> str:
    """'cuda' for torchdoctor.areas.cuda and torchdoctor.areas.cuda.driver."""
    return module[len(PACKAGE) + 1:].split(".", 1)[0] if module.startswith(PACKAGE + ".") else module


def check(id: str, category: str, severity: str = ERROR, requires: Iterable[str] = (),
          verify: Optional[Tuple[str, str]] = None):
    """Register a check. verify: (command, what it prints once the fix worked); a bare
    `python`/`pip` in it runs as the target interpreter."""
    def deco(func):
        if id in CHECKS:
            raise ValueError("duplicate check id %r" % id)
        CHECKS[id] = Check(id=id, category=category, severity=severity, func=func, area=area_of(func.__module__),
                           requires=tuple(requires), verify=Verify(*verify) if verify else None)
        return func
    return deco


def verify_for(condition: str, facts: Optional[Facts]) -> Optional[Verify]:
    """The verification of a condition (named by its check id), as this machine runs it."""
    chk = CHECKS.get(condition)
    if chk is None or chk.verify is None:
        return None
    return runnable_verify(chk.verify, facts)


def hook(name: str):
    def deco(fn):
        if name in HOOKS and HOOKS[name] is not fn:
            raise ValueError("tailoring hook %r is defined twice (%s and %s)" % (name, HOOKS[name].__module__, fn.__module__))
        HOOKS[name] = fn
        return fn
    return deco


def finding(title: str, detail: str = "", fix: str = "", commands: Iterable[str] = (),
            links: Iterable[str] = (), severity: Optional[str] = None, id: Optional[str] = None,
            category: Optional[str] = None, verify: Optional[Verify] = None) -> Finding:
    """verify: None for the check's own verification (a note gets none), NOTHING_TO_VERIFY
    for none; remedy_verify(remedy, facts) gives the one that fits a remedy."""
    return Finding(id=id or "", category=category or "", severity=severity or "", title=title,
                   detail=detail, fix=Fix(summary=fix, commands=list(commands)), links=list(links),
                   verify=verify)


def known_error_finding(text: str, title: str, detail: str) -> Optional[Finding]:
    """A finding for error text the knowledge base recognises (the probe's
    stderr, an import traceback, CUDA init warnings): its category and fix come
    from the matched entry, so checks and `explain` never disagree."""
    m = best_match(text) if text and text.strip() else None
    if m is None:
        return None
    e = m.entry
    return finding("%s: %s" % (title, e.title), detail=detail + "\n\n" + e.cause,
                   fix=e.fix.get("summary", ""), commands=e.fix.get("commands", []),
                   links=e.links, category=e.category)


def installed_torch_note(facts: Facts) -> List[str]:
    """The "why we think so" line every torch-related tailoring starts with."""
    v = F.torch_version_str(facts)
    if not v:
        return ["torch is not installed in %s" % facts.value("python.executable", "this Python")]
    loc = facts.value("packages.installed.torch.location")
    return ["installed torch: %s%s" % (v, " (%s)" % loc if loc else "")]


# -- loading -------------------------------------------------------------------------
_loaded = False


def load_all() -> None:
    """Import every area module (and the modules of area packages)."""
    global _loaded
    if _loaded:
        return
    import pkgutil  # here, not at the top: explain loads one area, and a module needs none
    pkg = importlib.import_module(PACKAGE)
    for mod in pkgutil.walk_packages(pkg.__path__, PACKAGE + "."):
        if not mod.name.rsplit(".", 1)[-1].startswith("_") and mod.name != __name__:
            importlib.import_module(mod.name)
    _loaded = True


def load_area(name: str) -> None:
    """Import one area: what explain needs for the entries of kb/errors/<name>.json."""
    mod = importlib.import_module("%s.%s" % (PACKAGE, name))
    path = getattr(mod, "__path__", None)
    if path:  # a package: its modules register the hooks
        import pkgutil
        for sub in pkgutil.iter_modules(path, mod.__name__ + "."):
            importlib.import_module(sub.name)


def all_checks() -> List[Check]:
    load_all()
    # By id: listings and "not run" lists do not change when a check moves between modules.
    return sorted(CHECKS.values(), key=lambda c: c.id)


def all_hooks() -> Dict[str, Callable]:
    load_all()
    return HOOKS


def hook_for(entry) -> Optional[Callable]:
    """The hook a known-error entry names, from the area of its file."""
    if not entry.tailor:
        return None
    if entry.tailor not in HOOKS and entry.file.endswith(".json"):
        try:
            load_area(entry.file[:-5])
        except ImportError:
            load_all()
    return HOOKS.get(entry.tailor)


# -- running -------------------------------------------------------------------------
def _as_list(result) -> List[Finding]:
    if result is None:
        return []
    if isinstance(result, Finding):
        return [result]
    return [r for r in result if isinstance(r, Finding)]


def run_check(chk: Check, facts: Facts) -> List[Finding]:
    facts.start_recording()
    try:
        out = _as_list(chk.func(facts))
    except Exception as e:  # noqa: BLE001 - a crashed check is a result, not a crash
        facts.stop_recording()
        import traceback  # only for a crashed check
        tb = traceback.extract_tb(e.__traceback__)
        where = "%s:%d" % (tb[-1].filename.rsplit("/", 1)[-1], tb[-1].lineno) if tb else "?"
        return [Finding(
            id="check-crashed", category="internal", severity=WARNING, check=chk.id,
            title="Check %s crashed; its diagnosis is missing from this report" % chk.id,
            detail="%s: %s (at %s). This is a torchdoctor bug; the other checks ran normally."
                   % (type(e).__name__, e, where),
            fix=Fix(summary="Report it to the torchdoctor maintainers with `torchdoctor report` attached."),
        )]
    evidence = facts.stop_recording()
    for f in out:
        f.fix.commands = runnable_here(f.fix.commands, facts)
        f.evidence = f.evidence or list(evidence)
        if f.verify is NOTHING_TO_VERIFY:
            f.verify = None
        elif f.verify is None and (f.severity or chk.severity) != INFO:  # a note needs no fixing
            f.verify = verify_for(chk.id, facts)
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
