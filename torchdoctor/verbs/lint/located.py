"""What lint reports: the model's Finding at its place in a file.

A lint rule returns `Located` results: a `Finding` (torchdoctor.model.findings; its id,
check and severity stamped from the rule's registration, the message as its title) with the
`Place` it points at, and what only lint has: the exact rewrite `--fix` may apply (`edit`,
see fix.py), the bare replacement the JSON output names, a text whose mention anywhere in
the scan drops the finding (`needs_absent`: "no CUBLAS_WORKSPACE_CONFIG in sight"), and, for
`--show-suppressed`, what hid it (`suppressed`).

Why a record beside the Finding rather than a location inside it: only lint's findings have
a place in a file, and the rewrite and the cross-file condition are lint's alone; the Finding
every family renders stays as it is, and with it the JSON of check, explain and report.
"""

from typing import Any, Callable, Iterable, List, Optional

from ...model.findings import Finding
from ...model.records import record
from ...model.rules import CRASHED, Rule, crashed, stamp


@record
class Place:
    """A place in a file: 1-based line and character column (the end may be unknown); in a
    notebook, the code cell (1-based) and the line within it, and where that is in the raw
    .ipynb file (raw_line, raw_col: what SARIF and GitHub's annotations point at)."""
    path: str
    line: int
    col: int
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    cell: Optional[int] = None
    raw_line: Optional[int] = None
    raw_col: Optional[int] = None


@record
class Located:
    finding: Finding
    place: Place
    edit: Optional[dict] = None          # the exact rewrite --fix may apply (fix.py)
    replacement: Optional[str] = None    # the API that replaces the one reported
    needs_absent: Optional[str] = None   # dropped if any file of the scan mentions this text
    suppressed: Optional[str] = None     # what hid it (a guard, a noqa comment); None: reported

    @property
    def code(self) -> str:
        """The rule's code (also for a crashed rule, whose finding id is rule-crashed)."""
        return self.finding.check or self.finding.id

    @property
    def crashed(self) -> bool:
        return self.finding.id == CRASHED

    @property
    def message(self) -> str:
        return self.finding.title

    @property
    def severity(self) -> str:
        return self.finding.severity

    @property
    def path(self) -> str:
        return self.place.path

    @property
    def line(self) -> int:
        return self.place.line

    @property
    def col(self) -> int:
        return self.place.col

    @property
    def end_line(self) -> Optional[int]:
        return self.place.end_line

    @property
    def end_col(self) -> Optional[int]:
        return self.place.end_col

    @property
    def cell(self) -> Optional[int]:
        return self.place.cell

    def sort_key(self):
        p = self.place
        return (p.path, p.cell or 0, p.line, p.col, self.code)


def hit(pos: Any, message: str, edit: Optional[dict] = None, replacement: Optional[str] = None,
        needs_absent: Optional[str] = None) -> Located:
    """What a rule returns: `message` at `pos` (anything with line, col, end_line, end_col);
    the rule's registration fills the finding's id and severity, the scan the path."""
    place = Place("", pos.line, pos.col, getattr(pos, "end_line", None), getattr(pos, "end_col", None))
    return Located(Finding("", "", "", message), place, edit, replacement, needs_absent)


def call(r: Rule, subject: Any, where: Optional[Callable[[], Place]] = None) -> List[Located]:
    """One lint rule on one subject: its results stamped with the rule, or the crash as one
    rule-crashed finding (at where(), else the file's first line), never a traceback."""
    try:
        out = r.func(subject)
    except Exception as e:  # noqa: BLE001 - a crashed rule is a result, not a crash
        return [Located(crashed(r, e), where() if where else Place("", 1, 1))]
    if out is None:
        return []
    results: Iterable[Located] = [out] if isinstance(out, Located) else out
    done = []
    for loc in results:
        stamp(loc.finding, r)
        done.append(loc)
    return done
