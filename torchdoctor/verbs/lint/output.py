"""Renderers: text (``path:line:col: TDnnn message``), JSON (schema_version 1), SARIF 2.1.0
and GitHub Actions workflow commands."""

import json
import os
from typing import Any, Dict

from ... import __version__
from ...render import safe
from . import history as H
from . import rules as R

SCHEMA_VERSION = 1
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note"}
_GH_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}


def name_of(f) -> str:
    """The rule's name, or rule-crashed for a rule that crashed."""
    return f.finding.id if f.crashed else R.BY_CODE[f.code].name


def location(f) -> str:
    if f.cell is not None:
        return "%s:cell %d:%d:%d" % (f.path, f.cell, f.line, f.col)
    return "%s:%d:%d" % (f.path, f.line, f.col)


def _in_files(findings, scanned: int) -> str:
    """' in 1 of 2 files': the files the findings are in, of those read."""
    plural = "" if scanned == 1 else "s"
    with_findings = len({f.path for f in findings}) if findings else scanned
    if with_findings == scanned:
        return " in %d file%s" % (scanned, plural)
    return " in %d of %d file%s" % (with_findings, scanned, plural)


def _text_line(f, style) -> str:
    sev = f.severity
    code = style.paint(f.code, "error" if sev == "error" else "warning" if sev == "warning" else "info")
    fixable = " [*]" if f.edit else ""
    return "%s: %s%s %s" % (style.paint(safe.line(location(f)), "title"), code, fixable, safe.line(f.message))


def text(findings, summary: Dict[str, Any], style) -> str:
    out = [_text_line(f, style) for f in findings]
    hidden = summary.get("suppressed")
    if hidden is not None:   # --show-suppressed
        out.append("Suppressed: %d finding%s hidden by guards or noqa%s" % (
            len(hidden), "" if len(hidden) == 1 else "s", ":" if hidden else "."))
        for f in hidden:
            out.append("  %s\n      hidden by %s" % (_text_line(f, style), safe.line(f.suppressed or "")))
    n = len(findings)
    fixable = sum(1 for f in findings if f.edit)
    tail = "Found %d finding%s" % (n, "" if n == 1 else "s") if n else "No findings"
    tail += _in_files(findings, summary["files"])
    if fixable:
        tail += " (%d fixable with --fix)" % fixable
    out.append(tail + "; target: %s." % safe.line(summary["target"]))
    if summary.get("fixed"):
        out.append("%s %d finding%s in %d file%s." % ("Would fix" if summary.get("dry_run") else "Fixed", summary["fixed"], "" if summary["fixed"] == 1 else "s",
                                                       summary["fixed_files"], "" if summary["fixed_files"] == 1 else "s"))
    return "\n".join(out) + "\n"


def finding_dict(f) -> Dict[str, Any]:
    r = R.BY_CODE[f.code]
    return {"path": f.path, "line": f.line, "column": f.col, "end_line": f.end_line, "end_column": f.end_col,
            "cell": f.cell, "code": f.code, "name": name_of(f), "severity": f.severity, "message": f.message,
            "fixable": bool(f.edit), "replacement": f.replacement, "links": list(r.links)}


def as_json(findings, summary: Dict[str, Any]) -> str:
    doc = {"schema_version": SCHEMA_VERSION, "tool": "torchdoctor lint", "version": __version__,
           "target": summary["target_dict"], "files_scanned": summary["files"],
           "findings": [finding_dict(f) for f in findings], "notes": list(summary.get("notes") or []),
           "fixed": summary.get("fixed", 0)}
    if summary.get("suppressed") is not None:   # --show-suppressed
        doc["suppressed"] = [dict(finding_dict(f), suppressed_by=f.suppressed) for f in summary["suppressed"]]
    return json.dumps(doc, indent=2) + "\n"


def _uri(path: str) -> str:
    """Relative to the working directory (SARIF's %SRCROOT% in a checkout), else a file: URI."""
    from urllib.parse import quote
    absolute = os.path.abspath(path)
    rel = os.path.relpath(absolute)
    if rel == ".." or rel.startswith(".." + os.sep):
        return "file://" + quote(absolute.replace(os.sep, "/"))
    return quote(rel.replace(os.sep, "/"))


def sarif(findings, summary: Dict[str, Any]) -> str:
    codes = R.all_codes()
    rules = []
    for code in codes:
        r = R.row(R.BY_CODE[code])
        entry = {"id": code, "name": r["name"], "shortDescription": {"text": r["summary"]},
                 "fullDescription": {"text": r.get("explain") or r["summary"]},
                 "defaultConfiguration": {"level": _SARIF_LEVEL[r["severity"]], "enabled": r.get("default", True)},
                 "properties": {"fixable": r.get("fixable"), "since": r.get("since")}}
        if r.get("links"):
            entry["helpUri"] = r["links"][0]
        rules.append(entry)
    results = []
    for f in findings:
        message = f.message
        if f.cell is not None:  # the region is the raw .ipynb's (JSON) line; the cell's own place is said
            region = {"startLine": f.place.raw_line or 1, "startColumn": f.place.raw_col or 1}
            message = "%s (cell %d, line %d)" % (message, f.cell, f.line)
        else:
            region = {"startLine": max(f.line, 1), "startColumn": max(f.col, 1)}
            if f.end_line and f.end_line >= f.line:
                region["endLine"] = f.end_line
                if f.end_col and (f.end_line > f.line or f.end_col > f.col):
                    region["endColumn"] = f.end_col
        res = {"ruleId": f.code, "ruleIndex": codes.index(f.code), "level": _SARIF_LEVEL[f.severity],
               "message": {"text": message},
               "locations": [{"physicalLocation": {"artifactLocation": {"uri": _uri(f.path), "uriBaseId": "%SRCROOT%"},
                                                   "region": region}}]}
        if f.cell is not None:
            res["properties"] = {"cell": f.cell, "cellLine": f.line, "cellColumn": f.col}
        results.append(res)
    doc = {"$schema": SARIF_SCHEMA, "version": "2.1.0",
           "runs": [{"tool": {"driver": {"name": "torchdoctor", "semanticVersion": __version__, "version": __version__,
                                         "rules": rules}},
                     "automationDetails": {"id": "torchdoctor-lint/"},
                     "invocations": [{"executionSuccessful": True,
                                      "toolExecutionNotifications": [{"level": "note", "message": {"text": n}}
                                                                     for n in summary.get("notes") or []]}],
                     "properties": {"target": summary["target_dict"]},
                     "results": results}]}
    return json.dumps(doc, indent=2) + "\n"


def _gh_data(s: str) -> str:
    s = safe.visible(s)  # the Actions log renders ANSI codes; CR and LF are encoded below
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_prop(s: str) -> str:
    return _gh_data(s).replace(":", "%3A").replace(",", "%2C")


def github(findings, summary: Dict[str, Any]) -> str:
    out = []
    for f in findings:
        props = ["file=%s" % _gh_prop(f.path.replace(os.sep, "/"))]
        if f.cell is not None:  # the annotation goes on the raw .ipynb's line; the title names the cell
            props += ["line=%d" % (f.place.raw_line or 1), "col=%d" % (f.place.raw_col or 1)]
        else:
            props += ["line=%d" % f.line, "col=%d" % f.col]
            if f.end_line and f.end_line >= f.line:
                props.append("endLine=%d" % f.end_line)
        title = "%s %s" % (f.code, name_of(f))
        if f.cell is not None:
            title += " (cell %d, line %d)" % (f.cell, f.line)
        props.append("title=%s" % _gh_prop(title))
        out.append("::%s %s::%s" % (_GH_LEVEL[f.severity], ",".join(props), _gh_data(f.message)))
    out.append("::notice title=torchdoctor lint::%s" % _gh_data(
        "%d finding(s)%s; target: %s" % (len(findings), _in_files(findings, summary["files"]), summary["target"])))
    return "\n".join(out) + "\n"


def rules_table(markdown: bool = True) -> str:
    """The rule table (docs/lint-rules.md's, from the rule modules)."""
    rows = []
    for code in R.all_codes():
        r = R.row(R.BY_CODE[code])
        fix = {True: "yes", False: "no", "some": "some"}.get(r.get("fixable"), str(r.get("fixable")))
        since = r.get("since") or "any"
        what = r["summary"] + ("" if r.get("default", True) else " Off by default.")
        rows.append((code, r["name"], r["severity"], since, fix, what))
    if not markdown:
        return "".join("%-6s %-34s %-8s %-10s %-5s %s\n" % row for row in rows)
    out = ["| code | name | severity | since | fixable | what |", "|---|---|---|---|---|---|"]
    out += ["| %s | `%s` | %s | %s | %s | %s |" % row for row in rows]
    return "\n".join(out) + "\n"


def api_table() -> str:
    """Every API the history names outside torch.backends, with its versions (README)."""
    out = ["| API | added | deprecated | removed | replacement | `--fix` |", "|---|---|---|---|---|---|"]
    for path, e in sorted(H.data()["apis"].items()):
        added = ("<= " if e.get("added_or_earlier") else "") + e["added"] if e.get("added") else ""
        dep = ("<= " if e.get("deprecated_or_earlier") else "") + e["deprecated"] if e.get("deprecated") else ""
        if (e.get("torchvision") or {}).get("deprecated"):
            dep += " (torchvision %s)" % e["torchvision"]["deprecated"]
        out.append("| `%s` | %s | %s | %s | %s | %s |" % (
            path, added, dep, e.get("removed") or "",
            ("`%s`" % e["replacement"]) if e.get("replacement") else "", "yes" if e.get("fix") else ""))
    return "\n".join(out) + "\n"
