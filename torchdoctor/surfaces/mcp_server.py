"""`torchdoctor mcp`: a Model Context Protocol server over stdio, for coding agents.

Built on the official `mcp` SDK (the `torchdoctor[mcp]` extra; v2's MCPServer, or v1's
FastMCP). Five read-only tools, each returning the JSON contract of the matching CLI
verb as structured content plus a short text summary:

  check(python?, timeout?)      -> check --json        (facts + findings)
  explain(text, python?)        -> explain --json      (matches, tailored fixes)
  report(format?, python?)      -> report (redacted)   Markdown text or the JSON report
  triage(text)                  -> triage --json
  list_checks(known_errors?)    -> the checks (and the known errors)

Nothing here installs, uninstalls or runs a fix: the fix commands are returned for the
agent, or the person, to run. The only processes started are the doctor's own probes of
the interpreter named (as `torchdoctor check --python` does).
"""

import json
import os
from typing import Any, Dict, List, Optional

NAME = "torchdoctor"
INSTRUCTIONS = ("torchdoctor diagnoses PyTorch environments: what is wrong with torch, CUDA, the driver, "
                "cuDNN, companions and settings, and the exact fix command for this machine. Use `explain` "
                "on an error message or traceback, `check` for the environment, `triage` for a pasted "
                "report or collect_env output. The tools are read-only: they return fix commands, "
                "they never run them.")


def _python(python: Optional[str]) -> str:
    from ..gather.interpreter import resolve
    if python:
        path = resolve(python).python
        if not os.path.isfile(path):
            raise ValueError("no interpreter at %s" % python)
        return path
    return resolve(None).python


def _count_line(report) -> str:
    c = report.counts()
    return "%d error(s), %d warning(s), %d note(s)" % (c["error"], c["warning"], c["info"])


def check(python: Optional[str] = None, timeout: float = 60.0):
    from ..diagnose import examine
    from ..render.brief import env_line
    if not 0 < timeout <= 600:
        raise ValueError("timeout must be between 0 and 600 seconds")
    rep = examine(python=_python(python), timeout=timeout)
    lines = ["%s: %s" % (rep.facts.value("probe.python"), env_line(rep.facts)), "Findings: " + _count_line(rep)]
    lines += ["- %s %s [%s]%s" % (f.severity.upper(), f.title, f.id, ("; fix: " + f.fix.summary) if f.fix.summary else "")
              for f in rep.findings]
    return rep.to_dict(), "\n".join(lines)


def explain(text: str, python: Optional[str] = None):
    from ..diagnose import explain_matches
    from ..gather.light import light_facts
    from ..match.matcher import match_text
    if not text or not text.strip():
        raise ValueError("the text is empty: pass an error message, a traceback or a log excerpt")
    matches = match_text(text)
    facts = light_facts(_python(python)) if matches else None
    exps = explain_matches(matches, facts)
    data = {"schema_version": 1, "matches": [x.to_dict() for x in exps]}
    if not exps:
        return data, "No known PyTorch error recognised in the text."
    lines = ["%d known error(s); best: %s [%s]" % (len(exps), exps[0].title, exps[0].id),
             "Fix: " + exps[0].fix.summary]
    lines += ["  $ " + c for c in exps[0].fix.commands]
    lines += ["Also: %s [%s]" % (x.title, x.id) for x in exps[1:]]
    return data, "\n".join(lines)


def report(format: str = "markdown", python: Optional[str] = None):
    from ..diagnose import examine
    if format not in ("markdown", "json"):
        raise ValueError("format must be 'markdown' or 'json'")
    rep = examine(python=_python(python), extras=True, redact=True)
    summary = "torchdoctor report (redacted): " + _count_line(rep)
    if format == "json":
        return rep.to_dict(), summary
    from ..render.markdown import render_markdown
    return {"format": "markdown", "report": render_markdown(rep)}, summary


def triage(text: str):
    from ..verbs.triage import TriageError, triage_text
    if not text or not text.strip():
        raise ValueError("the text is empty: pass a torchdoctor report or collect_env output")
    try:
        result = triage_text(text, "the pasted text")
    except TriageError as e:
        raise ValueError(str(e))
    data = result.to_dict()
    known, unknown = result.known_and_unknown()
    lines = ["Triage (%s): %s" % (data["triage"]["format_description"], _count_line(result.report)),
             "Known: %s" % (", ".join(known) or "nothing"), "Unknown: %s" % (", ".join(unknown) or "nothing")]
    lines += ["- %s %s [%s]" % (f.severity.upper(), f.title, f.id) for f in result.report.findings]
    lines += ["- known error: %s [%s]" % (x.title, x.id) for x in result.explanations]
    return data, "\n".join(lines)


def list_checks(known_errors: bool = False):
    from ..areas.checks import all_checks
    checks = [{"id": c.id, "severity": c.severity, "category": c.category, "doc": c.doc} for c in all_checks()]
    data: Dict[str, Any] = {"schema_version": 1, "checks": checks}
    summary = "%d checks" % len(checks)
    if known_errors:
        from ..kb.errors import load_entries
        data["known_errors"] = [{"id": e.id, "category": e.category, "title": e.title} for e in load_entries()]
        summary += ", %d known errors" % len(data["known_errors"])
    return data, summary


TOOLS = {
    "check": (check, "Diagnose a Python environment's torch, CUDA, driver, cuDNN and settings (the JSON of "
                     "`torchdoctor check --json`). python: the interpreter to diagnose (default: the one the "
                     "user works in)."),
    "explain": (explain, "Recognise known PyTorch errors in an error message, traceback or log excerpt and "
                         "explain cause and fix, tailored to this machine (`torchdoctor explain --json`)."),
    "report": (report, "A redacted environment report for a bug report (format: markdown or json)."),
    "triage": (triage, "Diagnose a pasted torchdoctor report or `python -m torch.utils.collect_env` output, "
                       "and any error text in it (`torchdoctor triage --json`)."),
    "list_checks": (list_checks, "The checks torchdoctor runs (id, severity, category); known_errors=true "
                                 "adds the known errors it recognises."),
}


def _server_class():
    try:
        from mcp.server.mcpserver import MCPServer  # mcp 2.x
        return MCPServer
    except ImportError:
        from mcp.server.fastmcp import FastMCP  # mcp 1.x
        return FastMCP


def _result(data: Any, summary: str, error: bool = False):
    from mcp.types import CallToolResult
    content: List[Dict[str, Any]] = [{"type": "text", "text": summary}]
    payload: Dict[str, Any] = {"content": content, "isError": error}
    if data is not None:
        content.append({"type": "text", "text": json.dumps(data, indent=1, default=str)})
        payload["structuredContent"] = json.loads(json.dumps(data, default=str))
    return CallToolResult.model_validate(payload)


def build_server():
    """The server with the five tools (each a thin wrapper over the functions above)."""
    from mcp.types import CallToolResult, ToolAnnotations
    from .. import __version__
    cls = _server_class()
    try:
        server = cls(NAME, instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x's FastMCP has no version argument
        server = cls(NAME, instructions=INSTRUCTIONS)
    ro = ToolAnnotations.model_validate({"readOnlyHint": True, "destructiveHint": False, "idempotentHint": True,
                                         "openWorldHint": False})

    def wrap(fn):
        def call(**kw) -> CallToolResult:
            try:
                data, summary = fn(**kw)
            except ValueError as e:
                return _result(None, "torchdoctor: %s" % e, error=True)
            except Exception as e:  # noqa: BLE001 - a tool error, never a dead server
                return _result(None, "torchdoctor: the tool failed (%s: %s)" % (type(e).__name__, e), error=True)
            return _result(data, summary)
        return call

    def t_check(python: Optional[str] = None, timeout: float = 60.0) -> CallToolResult:
        return wrap(check)(python=python, timeout=timeout)

    def t_explain(text: str, python: Optional[str] = None) -> CallToolResult:
        return wrap(explain)(text=text, python=python)

    def t_report(format: str = "markdown", python: Optional[str] = None) -> CallToolResult:
        return wrap(report)(format=format, python=python)

    def t_triage(text: str) -> CallToolResult:
        return wrap(triage)(text=text)

    def t_list_checks(known_errors: bool = False) -> CallToolResult:
        return wrap(list_checks)(known_errors=known_errors)

    for name, fn in (("check", t_check), ("explain", t_explain), ("report", t_report), ("triage", t_triage),
                     ("list_checks", t_list_checks)):
        server.tool(name=name, description=TOOLS[name][1], annotations=ro)(fn)
    return server


def serve() -> None:
    build_server().run("stdio")
