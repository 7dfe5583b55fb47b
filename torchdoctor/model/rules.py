"""The one shape of a rule, and the one runner.

A rule turns a subject into findings: the facts of an interpreter (a ``check``), the job a
distributed run assembled (a ``dist`` condition), a tune result (a ``tune`` finding), a
source file's syntax tree or an environment file (a ``lint`` rule). Each family differs only
in its subject; the shape is the same::

    @rule("check", "cpu-only-build", severity=ERROR, category="cpu-only-build",
          requires=("torch.cuda.built",))
    def cpu_only_build(facts):
        "CPU-only torch on a machine with an NVIDIA GPU."
        ...
        return finding(...)          # None, one Finding or a list

``@rule`` attaches a ``Rule`` to the function (``fn.rule``) and registers nothing: each
family lists its rules in one explicit tuple, in run order, so what runs is read in one
place and a meta-test holds the tuple to the rules its modules define. ``run`` calls them:
a rule whose required facts are unknown is skipped (and said so), one that raises becomes a
``rule-crashed`` finding (as Flutter's doctor does with a crashed validator), never a
traceback, in every family alike; the id, category and severity a rule leaves empty come
from its registration. The rule's docstring is its documentation: the first line is the
summary the listings show, the rest the page the docs are generated from; a rule alone in its
module (a lint rule) may leave its function bare and document itself in the module's docstring.
"""

from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .findings import WARNING, Finding, Fix, Verify, sort_findings
from .records import field, record

FAMILIES = ("check", "dist", "tune", "lint")
CRASHED = "rule-crashed"


@record
class Rule:
    family: str
    id: str  # stable: a check or condition id in kebab case, a lint code ("TD301")
    severity: str
    category: str
    func: Callable[..., Any]
    name: str = ""  # lint: the kebab-case name beside the code
    requires: Tuple[str, ...] = ()  # facts (dotted paths) the rule cannot decide without
    verify: Optional[Verify] = None  # what shows its fix worked (checks)
    links: Tuple[str, ...] = ()
    options: Dict[str, Any] = field(default_factory=dict)  # what only one family reads

    @property
    def doc(self) -> str:
        """The summary: the docstring's first line."""
        return self.docs.split("\n", 1)[0]

    @property
    def docs(self) -> str:
        import inspect  # only when documentation is asked for
        import sys
        text = self.func.__doc__ or getattr(sys.modules.get(self.func.__module__), "__doc__", None)
        return inspect.cleandoc(text or "")


def rule(family: str, id: str, severity: str, category: str, requires: Iterable[str] = (),
         verify: Optional[Tuple[str, str]] = None, name: str = "", links: Iterable[str] = (),
         **options: Any):
    """Give a function its Rule. verify: (command, what it prints once the fix worked)."""
    if family not in FAMILIES:
        raise ValueError("unknown rule family %r" % family)

    def deco(func):
        func.rule = Rule(family=family, id=id, severity=severity, category=category, func=func, name=name,
                         requires=tuple(requires), verify=Verify(*verify) if verify else None,
                         links=tuple(links), options=dict(options))
        return func
    return deco


def rules_of(funcs: Sequence[Callable[..., Any]]) -> Tuple[Rule, ...]:
    """The Rules of a family's registry tuple; a function listed twice, or an id given twice,
    is a programming error caught at import."""
    out, seen = [], set()
    for fn in funcs:
        r = getattr(fn, "rule", None)
        if not isinstance(r, Rule):
            raise TypeError("%s.%s is listed as a rule but has no @rule" % (fn.__module__, fn.__name__))
        if r.id in seen:
            raise ValueError("rule id %r is registered twice" % r.id)
        seen.add(r.id)
        out.append(r)
    return tuple(out)


def as_findings(result: Any) -> List[Finding]:
    if result is None:
        return []
    if isinstance(result, Finding):
        return [result]
    return [r for r in result if isinstance(r, Finding)]


def crashed(r: Rule, e: BaseException) -> Finding:
    """What a rule that raised leaves in the report: one kind of result in every family."""
    import traceback  # only for a crashed rule
    tb = traceback.extract_tb(e.__traceback__)
    where = "%s:%d" % (tb[-1].filename.replace("\\", "/").rsplit("/", 1)[-1], tb[-1].lineno) if tb else "?"
    return Finding(
        id=CRASHED, category="internal", severity=WARNING, check=r.id,
        title="torchdoctor's %s rule %s crashed; its diagnosis is missing from this report" % (r.family, r.id),
        detail="%s: %s (at %s). This is a torchdoctor bug; the other rules ran normally."
               % (type(e).__name__, e, where),
        fix=Fix(summary="Report it to the torchdoctor maintainers with `torchdoctor report` attached."),
    )


def stamp(f: Finding, r: Rule) -> Finding:
    """Fill what the rule's registration says and the finding left empty."""
    f.id = f.id or r.id
    f.category = f.category or r.category
    f.severity = f.severity or r.severity
    f.check = r.id
    return f


def call(r: Rule, subject: Any) -> List[Finding]:
    """One rule on one subject: its findings stamped with the rule, or the crash."""
    try:
        out = as_findings(r.func(subject))
    except Exception as e:  # noqa: BLE001 - a crashed rule is a result, not a crash
        return [crashed(r, e)]
    return [stamp(f, r) for f in out]


@record
class Outcome:
    findings: List[Finding] = field(default_factory=list)
    skipped: List[Dict[str, Any]] = field(default_factory=list)  # {"id", "needs"}: required facts unknown


def run(rules: Iterable[Rule], subject: Any,
        missing: Optional[Callable[[Rule, Any], List[str]]] = None,
        each: Optional[Callable[[Rule, Any], List[Finding]]] = None) -> Outcome:
    """Every rule on `subject`, findings sorted by severity. missing(rule, subject): the
    required facts it lacks (skipped then); each(rule, subject): how one rule is called
    (default `call`; a family wraps it to record the facts a check read)."""
    out = Outcome()
    for r in rules:
        lacking = missing(r, subject) if missing and r.requires else []
        if lacking:
            out.skipped.append({"id": r.id, "needs": lacking})
            continue
        out.findings.extend((each or call)(r, subject))
    out.findings = sort_findings(out.findings)
    return out
