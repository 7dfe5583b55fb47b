"""`torchdoctor check`: the facts of an interpreter (a probe) or of a saved report, diagnosed.
The CLI, the MCP server's `check` and the Python API's `torchdoctor.check()` call `check`;
`--list-checks` and the MCP server's `list_checks` list `check_rows()`."""

from typing import Dict, List, Optional, Sequence

from .common import InputError


def check_rows() -> List[Dict[str, str]]:
    """Every check: id, severity, category and its one-line doc, by id."""
    from ..areas.checks import all_checks
    return [{"id": c.id, "severity": c.severity, "category": c.category, "doc": c.doc} for c in all_checks()]


def selected(only: Sequence[str] = (), skip: Sequence[str] = ()) -> None:
    """InputError for an id that names no check (before anything is probed)."""
    from ..areas.checks import select
    try:
        select(only, skip)
    except KeyError as e:
        raise InputError("unknown check id %s (see --list-checks)" % e)


def check(python: Optional[str] = None, timeout: float = 60.0, only=None, skip=None,
          from_report: Optional[str] = None, in_process: bool = False, isolated_from: Optional[str] = None,
          compile: bool = False, resolve: bool = False):
    """The Report of `python` (default: this interpreter; in_process: read by this process,
    isolated_from: probed isolated from that folder), or of the saved report `from_report`
    (JSON or Markdown, '-' for standard input: InputError when it cannot be read as one).
    compile: also run the torch.compile preflight (not with from_report: a saved report
    cannot be compiled in). resolve: dry-run every install fix through the target's pip (never
    for a saved report: its fixes are for another machine)."""
    from .. import diagnose
    if from_report is not None and compile:
        raise InputError("--compile runs torch.compile in an interpreter; it cannot be combined with --from")
    if from_report is not None:  # `--from ""` is an error, not "this machine"
        from ..gather.saved import load_report_facts
        try:
            facts = load_report_facts(from_report)
        except ValueError as e:
            raise InputError(str(e))
        return diagnose.diagnose(facts, only=only, skip=skip)
    report = diagnose.examine(python=python, timeout=timeout, in_process=in_process, only=only, skip=skip,
                              isolated_from=isolated_from, compile=compile)
    from ..advice.resolve import mark_not_tried, resolve_findings
    if resolve:
        resolve_findings(report.findings, report.facts)
    else:
        mark_not_tried(report.findings, report.facts)
    return report


def footer(report, from_report: str) -> str:
    """The last line of a re-diagnosed report: where its facts came from, and when."""
    from ..userfiles import display_name
    return "re-diagnosed from %s (collected %s)" % (display_name(from_report),
                                                    report.facts.value("collected_at", "at an unknown time"))
