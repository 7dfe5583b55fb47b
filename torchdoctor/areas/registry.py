"""What area modules are written with: the rule decorator, `finding`, Remedy and Tailored,
and the registry of tailoring hooks (checks are listed and run in areas/checks.py).

A check is a ``@rule("check", ...)`` function in an area module, facts -> findings (the one
rule shape, model/rules.py)::

    @rule("check", "cpu-only-build", category="cpu-only-build", severity=ERROR,
          verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
    def cpu_only_build(facts):
        if ...:
            return finding("CPU-only torch on a machine with an NVIDIA GPU", detail=..., fix=..., commands=[...])

listed once in areas/checks.py. It returns None, one finding or a list; ``finding()`` leaves
id, category and severity empty unless given, and the runner fills them from the rule.

A tailoring hook is a function in the area module named like the known-error file whose
entries name it in "tailor", (match, facts) -> Tailored: any field left None keeps the
entry's text; None when the facts say nothing useful. A hook that raises falls back to the
entry's generic fix (the caller records the error).
"""

import importlib
from typing import Callable, Dict, Iterable, List, Optional, Tuple

from ..advice.commands import runnable_verify
from ..match.matcher import best_match
from ..model import derived as F
from ..model.facts import Facts
from ..model.findings import ERROR, INFO, NOTHING_TO_VERIFY, WARNING, Finding, Fix, Verify
from ..model.records import field, record
from ..model.rules import rule

__all__ = ["rule", "hook", "finding", "match_groups", "entry_id_of", "entry_commands", "Tailored", "Remedy", "ERROR", "WARNING", "INFO"]

PACKAGE = __name__.rsplit(".", 1)[0]  # torchdoctor.areas


def match_groups(match) -> Dict[str, str]:
    """The named groups of the pattern a hook's match hit; {} for a match without them (a
    check's caller, a test's stand-in)."""
    g = getattr(match, "groups", None)
    return g if isinstance(g, dict) else {}


def entry_id_of(match) -> str:
    """The id of the entry a hook's match is of ("" for a stand-in without one)."""
    return getattr(match, "id", "") or getattr(getattr(match, "entry", None), "id", "")


def entry_commands(match) -> List[str]:
    """The generic fix commands of the entry a hook's match is of ([] for a stand-in), for a
    hook that keeps some of them beside its own."""
    return list((getattr(getattr(match, "entry", None), "fix", None) or {}).get("commands", []))


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


HOOKS: Dict[str, Callable] = {}


def area_of(module: str) -> str:
    """'cuda' for torchdoctor.areas.cuda and torchdoctor.areas.cuda.driver."""
    return module[len(PACKAGE) + 1:].split(".", 1)[0] if module.startswith(PACKAGE + ".") else module


def verify_for(condition: str, facts: Optional[Facts]) -> Optional[Verify]:
    """The verification of a condition, as this machine runs it: that of the check named like
    it, which lives beside the condition's hook (one name per condition, one area for both),
    so explain finds it without loading every area."""
    fn = HOOKS.get(condition)
    module = importlib.import_module(fn.__module__) if fn is not None else None
    for value in vars(module).values() if module is not None else ():
        r = getattr(value, "rule", None)
        if r is not None and getattr(r, "id", None) == condition and r.family == "check":
            return runnable_verify(r.verify, facts) if r.verify else None
    return None


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
    m = best_match(text)
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
