"""HTML for notebooks (`_repr_html_` of the IPython extension's results): findings and
known errors with severity colours, fixes as copyable code blocks, details collapsed.

Every piece of text that comes from facts, findings, error text or the knowledge base is
escaped (html.escape, quotes included); links become anchors only for http(s) URLs.
Inline styles only: notebook front ends drop <style> and <script> in some setups.
"""

import html
from typing import Any, Dict, List, Optional

from ..model.report import Report

COLOURS = {"error": "#c62828", "warning": "#b26a00", "info": "#1565c0"}
ROW_MARKS = {"ok": "\u2714", "bad": "\u2716", "warn": "!", "na": "\u2013", "info": "", "unknown": "?"}
BOX = "border-left:4px solid %s;padding:4px 10px;margin:6px 0;"
PRE = "background:rgba(127,127,127,0.12);padding:6px 8px;margin:4px 0;white-space:pre-wrap;"


def e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _para(text: str) -> str:
    return "".join("<p style=\"margin:4px 0\">%s</p>" % e(p).replace("\n", "<br>")
                   for p in str(text).strip().split("\n\n") if p.strip())


def _links(links: List[str]) -> str:
    out = []
    for x in links:
        x = str(x)
        if x.startswith(("https://", "http://")):
            url = x.split()[0]
            out.append("<a href=\"%s\" target=\"_blank\" rel=\"noopener noreferrer\">%s</a>" % (e(url), e(x)))
        else:
            out.append(e(x))
    return ("<div style=\"margin:4px 0\">See: %s</div>" % " &middot; ".join(out)) if out else ""


def _commands(commands: List[str]) -> str:
    if not commands:
        return ""
    return "<pre style=\"%s\"><code>%s</code></pre>" % (PRE, e("\n".join(commands)))


def _fix(summary: str, commands: List[str]) -> str:
    head = "<div style=\"margin:4px 0\"><b>Fix:</b> %s</div>" % e(summary) if summary else ""
    return head + _commands(commands)


def _verify(verify) -> str:
    """verify: a Verify, its dict, or None."""
    if not verify:
        return ""
    cmd = verify["command"] if isinstance(verify, dict) else verify.command
    expect = verify["expect"] if isinstance(verify, dict) else verify.expect
    return ("<div style=\"margin:4px 0\"><b>Verify:</b> <span style=\"opacity:0.8\">(expect: %s)</span></div>%s"
            % (e(expect), _commands([cmd])))


def _evidence(evidence: List[str], confidence: str) -> str:
    if not evidence:
        return ""
    note = "" if confidence == "high" else " (confidence: %s)" % e(confidence)
    return ("<details><summary>Evidence%s</summary><ul>%s</ul></details>"
            % (note, "".join("<li>%s</li>" % e(x) for x in evidence)))


def render_finding(f) -> str:
    colour = COLOURS.get(f.severity, COLOURS["info"])
    title = ("Possibly: " if f.confidence != "high" else "") + f.title
    return ("<div class=\"torchdoctor-finding\" data-severity=\"%s\" style=\"%s\">"
            "<div><b style=\"color:%s\">%s</b> <b>%s</b></div>"
            "<div style=\"opacity:0.7\"><code>%s</code> &middot; %s</div>%s%s%s%s%s</div>") % (
        e(f.severity), BOX % colour, colour, e(f.severity.upper()), e(title), e(f.id), e(f.category),
        _para(f.detail) if f.detail else "", _fix(f.fix.summary, f.fix.commands), _verify(f.verify),
        _evidence(f.evidence, f.confidence), _links(f.links))


def render_check_html(report: Report) -> str:
    from . import rows as R
    from .markdown import summary_rows
    out = ["<div class=\"torchdoctor\">", "<b>torchdoctor check</b>",
           "<table>%s</table>" % "".join("<tr><th style=\"text-align:left;padding-right:12px\">%s</th><td>%s</td></tr>"
                                         % (e(k), e(v)) for k, v in summary_rows(report))]
    if report.findings:
        out += [render_finding(f) for f in report.findings]
    else:
        out.append("<div style=\"%s\">\u2714 No problems found.</div>" % (BOX % "#2e7d32"))
    for title, rows in R.build(report.facts, report.findings):
        body = "".join("<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % (e(ROW_MARKS.get(r.mark, "")), e(r.label), e(r.value))
                       for r in rows)
        out.append("<details><summary>%s</summary><table>%s</table></details>" % (e(title), body))
    out.append("</div>")
    return "\n".join(out)


def render_match_html(d: Dict[str, Any], lines: bool = True) -> str:
    """One known error from an explanation's to_dict() (`lines=False`: no line numbers,
    the text was a traceback the doctor formatted itself)."""
    fix = d.get("fix") or {}
    where = "line %s" % d.get("line") + (", %s times" % d["count"] if (d.get("count") or 1) > 1 else "")
    where = " &middot; matched " + e(where) if lines else ""
    notes = d.get("facts_used") or []
    why = ("<details><summary>Why we think so</summary><ul>%s</ul></details>"
           % "".join("<li>%s</li>" % e(n) for n in notes)) if notes else ""
    title = ("Possibly: " if d.get("confidence", "high") != "high" else "") + d.get("title", "")
    colour = COLOURS.get(d.get("severity") or "error", COLOURS["error"])
    return ("<div class=\"torchdoctor-match\" style=\"%s\"><div><b>%s</b></div>"
            "<div style=\"opacity:0.7\"><code>%s</code> &middot; %s%s</div>"
            "<pre style=\"%s\"><code>%s</code></pre>"
            "<details><summary>Cause</summary>%s</details>%s%s%s%s</div>") % (
        BOX % colour, e(title), e(d.get("id", "")), e(d.get("category", "")), where,
        PRE, e(d.get("matched_text", "")), _para(d.get("cause", "")), _fix(fix.get("summary", ""), fix.get("commands", [])),
        _verify(d.get("verify")), why, _links(d.get("links") or []))


def render_explain_html(matches: List[Dict[str, Any]], live: Optional[str] = None, lines: bool = True) -> str:
    if not matches:
        return "<div class=\"torchdoctor\">No known PyTorch error recognised.</div>"
    out = ["<div class=\"torchdoctor\">", "<b>torchdoctor</b>"] + [render_match_html(d, lines) for d in matches]
    if live:
        out.append("<div style=\"opacity:0.7;font-size:90%%\">%s</div>" % e(live))
    out.append("</div>")
    return "\n".join(out)
