"""Plain-text renderers for the terminal."""

import textwrap
from typing import TYPE_CHECKING, List, Optional

from ..model.findings import Finding
from ..model.report import Report
from . import safe
from .style import Style

if TYPE_CHECKING:
    from ..diagnose import Explanation

SEV_MARK = {"error": "bad", "warning": "warn", "info": "info"}


def _indent(text: str, pad: str) -> str:
    return "\n".join(pad + ln if ln.strip() else ln for ln in text.splitlines())


def render_finding(f: Finding, st: Style) -> List[str]:
    f = safe.clean(f)
    out = ["%s %s %s" % (st.mark(SEV_MARK.get(f.severity, "info")), st.paint(f.severity.upper(), f.severity),
                         st.paint(f.title, "title")),
           st.paint("  [%s]" % (f.id if f.id == f.category else "%s, %s" % (f.id, f.category)), "dim")]
    if f.detail:
        out.append(_indent(f.detail, "  "))
    if f.fix.summary or f.fix.commands:
        out.append("  Fix: " + f.fix.summary if f.fix.summary else "  Fix:")
        for c in f.fix.commands:
            out.append("    " + st.command(c))
    if f.fix.resolution:
        out.append(st.paint("  " + f.fix.resolution[:1].upper() + f.fix.resolution[1:], "dim"))
    out.extend(_verify_lines(f.verify, st))
    if f.evidence:
        out.append(st.paint(_evidence_line(f.evidence, f.confidence), "dim"))
    for link in f.links:
        out.append("  See: " + link)
    return out


def _verify_lines(verify, st: Style) -> List[str]:
    if not verify:
        return []
    return ["  Verify: " + st.command(verify.command) + ("  (expect: %s)" % verify.expect if verify.expect else "")]


EVIDENCE_WIDTH = 300


def _evidence_line(evidence: List[str], confidence: str) -> str:
    text = "; ".join(evidence)
    if len(text) > EVIDENCE_WIDTH:
        text = text[:EVIDENCE_WIDTH - 3] + "..."
    return "  Evidence: " + text + ("" if confidence == "high" else " (confidence: %s)" % confidence)


def render_check(report: Report, st: Style, footer: Optional[str] = None) -> str:
    """`footer` replaces the default "probed PYTHON in N s" line (e.g. for --from)."""
    report, footer = safe.view(report), None if footer is None else safe.visible(footer)
    out: List[str] = []
    from . import rows as R  # the check layout: explain does not need it at start-up
    for title, rows in R.build(report.facts, report.findings):
        out.append(st.paint(title, "title"))
        width = min(max((len(r.label) for r in rows), default=10), 28)
        for r in rows:
            out.append("  %s %s  %s" % (st.mark(r.mark), safe.line(r.label).ljust(width), safe.line(r.value)))
        out.append("")
    shown = report.findings
    if shown:
        c = report.counts()
        out.append(st.paint("Findings: %d error(s), %d warning(s), %d note(s)" % (c["error"], c["warning"], c["info"]), "title"))
        out.append("")
        for f in shown:
            out.extend(render_finding(f, st))
            out.append("")
    else:
        out.append(st.paint("%s No problems found." % st.marks["ok"], "ok"))
    if report.skipped and report.facts.value("source") != "probe":  # a live probe has every fact it can
        out.append(st.paint("Not run, for lack of facts: %s" % ", ".join(
            "%s (needs %s)" % (s["id"], ", ".join(s["needs"])) for s in report.skipped), "dim"))
    p = report.facts.section("probe")
    if footer is None and p.get("total_s") is not None:
        footer = "probed %s in %.*f s" % (p.get("python"), 1 if p["total_s"] >= 1 else 2, p["total_s"])
    if footer:
        out.append(st.paint(footer, "dim"))
    return "\n".join(out).rstrip() + "\n"


def render_explanation(e: "Explanation", st: Style, full: bool = True, lines: bool = True) -> List[str]:
    """`lines=False`: the input was no file of the user's (a traceback the doctor formatted
    itself), so its line numbers mean nothing to them."""
    m = e.match
    possibly = "Possibly: " if e.confidence != "high" else ""
    out = [st.paint("%s%s  [%s, %s]" % (possibly, m.entry.title, m.entry.id, m.entry.category), "title")]
    where = ("line %d" % m.line + (", %d times" % m.count if m.count > 1 else "")) if lines else ""
    out.append(st.paint("  matched%s: %s" % (" " + where if where else "", safe.line(m.text[:300])), "dim"))
    if not full:
        return out
    out.append("")
    out.append("  Cause:")
    out.extend(textwrap.fill(p, 96, initial_indent="    ", subsequent_indent="    ")
               for p in safe.visible(e.cause).split("\n\n"))
    out.append("  Fix: " + safe.visible(e.fix.summary))
    for c in e.fix.commands:
        out.append("    " + st.command(safe.line(c)))
    out.extend(_verify_lines(safe.clean(e.verify), st))
    if e.notes:
        out.append("  Why we think so: the line above, and on this machine:")
        out.extend("    - " + safe.visible(n) for n in e.notes)
    if e.hook_error:
        out.append(st.paint("  (tailoring skipped: %s)" % safe.visible(e.hook_error), "dim"))
    for link in m.entry.links:
        out.append("  See: " + link)
    return out


def render_explain(exps: List["Explanation"], st: Style, show_all: bool = False, lines: bool = True) -> str:
    if not exps:
        return "No known PyTorch error recognised in the input.\n"
    out = render_explanation(exps[0], st, lines=lines)
    rest = exps[1:]
    if rest:
        out.append("")
        if show_all:
            for e in rest:
                out.append("")
                out.extend(render_explanation(e, st, lines=lines))
        else:
            out.append("Also found (use --all for details):")
            for e in rest:
                where = " line %d%s" % (e.match.line, " (%d times)" % e.match.count if e.match.count > 1 else "")
                out.append("  - %s [%s]%s" % (e.match.entry.title, e.match.entry.id, where if lines else ""))
    return "\n".join(out).rstrip() + "\n"


def render_entry(entry, st: Style) -> str:
    out = [st.paint("%s  [%s, %s]" % (entry.title, entry.id, entry.category), "title"), ""]
    out.append("  Cause:")
    out.extend(textwrap.fill(p, 96, initial_indent="    ", subsequent_indent="    ") for p in entry.cause.split("\n\n"))
    out.append("  Fix: " + entry.fix.get("summary", ""))
    for c in entry.fix.get("commands", []):
        out.append("    $ " + c)
    out.append("  Patterns:")
    out.extend("    " + p.source for p in entry.patterns)
    for link in entry.links:
        out.append("  See: " + link)
    out.append("  Sources:")
    out.extend("    " + s for s in entry.sources)
    return "\n".join(out) + "\n"


def render_entry_list(entries, st: Optional[Style] = None) -> str:
    width = max((len(e.id) for e in entries), default=10)
    lines = ["%s  %-22s %s" % (e.id.ljust(width), e.category, e.title) for e in sorted(entries, key=lambda e: (e.category, e.id))]
    return "\n".join(lines) + "\n%d known errors\n" % len(entries)
