"""`torchdoctor mcp`: a Model Context Protocol server over stdio, for coding agents.

Built on the official `mcp` SDK (the `torchdoctor[mcp]` extra; v2's MCPServer, or v1's
FastMCP). Five tools, each returning the JSON contract of the matching CLI verb as
structured content plus a short text summary:

  check(python?, timeout?, compile?) -> check --json [--compile] (facts + findings)
  explain(text, python?)        -> explain --json      (matches, tailored fixes)
  report(format?, python?)      -> report              Markdown text or the JSON report
  triage(text)                  -> triage --json
  list_checks(known_errors?)    -> the checks (and the known errors)

What leaves is redacted, every tool's result at one point (`_call`, by torchdoctor.redact):
secrets, user and host names, addresses (`torchdoctor mcp --no-redact` turns it off, and a
report then says NOT REDACTED). Nothing here installs, uninstalls or runs a fix: the fix
commands are returned for the agent, or the person, to run. check, report and explain start
the doctor's own probe of the interpreter named (as `torchdoctor check --python` does), which
runs that interpreter and imports torch in it: `python` must be a Python interpreter
(interpreter.not_a_python), and the probe runs isolated (probe.ISOLATE), from an empty folder,
importing nothing from the server's folder. Their annotations say so: not read-only (an
interpreter that imports torch may write its caches), not destructive, closed world.
"""

import json
import os
from typing import Any, Callable, Dict, List, Optional

NAME = "torchdoctor"
INSTRUCTIONS = ("torchdoctor diagnoses PyTorch environments: what is wrong with torch, CUDA, the driver, "
                "cuDNN, companions and settings, and the exact fix command for this machine. Use `explain` "
                "on an error message or traceback, `check` for the environment, `triage` for a pasted "
                "report or collect_env output, `fix_plan` for what `torchdoctor fix` would run (resolved "
                "against the target's pip configuration). No tool installs anything or runs a fix: they return "
                "fix commands. check, fix_plan, report and explain run the Python interpreter they diagnose "
                "(a probe that imports torch, isolated from the server's folder); `python` must be a Python interpreter. "
                "Results are redacted: secrets, user and host names and addresses are replaced by "
                "placeholders such as <secret> and <user>.")


def _python(python: Optional[str]) -> str:
    """The interpreter a tool probes: the one named, when it is a Python interpreter (it is run),
    else the one the user works in."""
    from ..verbs.common import chosen_python, named_python
    if python:  # an agent's choice, unseen by a person: a script is refused too
        return named_python(python, what="`python`", scripts=False)
    return chosen_python(None)


def _here() -> str:
    """The server's folder, which the probe diagnoses (a torch.py there shadows torch) but
    never imports from."""
    try:
        return os.getcwd()
    except OSError:  # deleted under the server: nothing there to shadow torch
        return os.path.abspath(os.sep)


def _count_line(report) -> str:
    c = report.counts()
    return "%d error(s), %d warning(s), %d note(s)" % (c["error"], c["warning"], c["info"])


def check(python: Optional[str] = None, timeout: float = 60.0, compile: bool = False):
    from ..render.brief import env_line
    from ..verbs.check import check as check_verb
    if not 0 < timeout <= 600:
        raise ValueError("timeout must be between 0 and 600 seconds")
    rep = check_verb(_python(python), timeout, isolated_from=_here(), compile=bool(compile))
    lines = ["%s: %s" % (rep.facts.value("probe.python"), env_line(rep.facts)), "Findings: " + _count_line(rep)]
    lines += ["- %s %s [%s]%s" % (f.severity.upper(), f.title, f.id, ("; fix: " + f.fix.summary) if f.fix.summary else "")
              for f in rep.findings]
    return rep.to_dict(), "\n".join(lines)


def explain(text: str, python: Optional[str] = None):
    from ..diagnose import explain as explain_text
    from ..verbs.explain import facts_for, other_framework, other_framework_line, other_framework_row
    if not text or not text.strip():
        raise ValueError("the text is empty: pass an error message, a traceback or a log excerpt")
    exps, _ = explain_text(text, gather=lambda: facts_for(_python(python), isolated_from=_here()))
    data = {"schema_version": 1, "matches": [x.to_dict() for x in exps]}
    if not exps:
        other = other_framework(text)
        if other is None:
            return data, "No known PyTorch error recognised in the text."
        data["other_framework"] = other_framework_row(other)
        return data, "No known PyTorch error recognised in the text. " + other_framework_line(other)
    lines = ["%d known error(s); best: %s [%s]" % (len(exps), exps[0].title, exps[0].id),
             "Fix: " + exps[0].fix.summary]
    lines += ["  $ " + c for c in exps[0].fix.commands]
    lines += ["Also: %s [%s]" % (x.title, x.id) for x in exps[1:]]
    return data, "\n".join(lines)


def report(format: str = "markdown", python: Optional[str] = None, redact: bool = True):
    """The report is redacted where every result is (`_call`), and rendered after that: a second
    pass over rendered Markdown would read its facts block as pairs ("secret": 3)."""
    from ..verbs import report as report_verb
    if format not in ("markdown", "json"):
        raise ValueError("format must be 'markdown' or 'json'")
    rep = report_verb.report(_python(python), redact=None if redact else False, isolated_from=_here())
    summary = "torchdoctor report (%s): %s" % ("redacted" if redact else "NOT redacted", _count_line(rep))
    if format == "json":
        return rep.to_dict(), summary

    def markdown(data: Dict[str, Any]) -> Dict[str, Any]:
        from ..model.facts import Facts
        from ..model.findings import Finding
        from ..model.report import Report
        done = Report(Facts.from_dict(data["facts"]), [Finding.from_dict(f) for f in data["findings"]])
        return {"format": "markdown", "report": report_verb.render_report(done, "markdown")}
    return rep.to_dict(), summary, markdown


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


def fix_plan(python: Optional[str] = None, ids: Optional[List[str]] = None, timeout: float = 60.0):
    """The dry-run form of `torchdoctor fix`: what it would run, resolved against the target's pip
    configuration. Nothing is applied: that is for the user, in a terminal, after agreeing."""
    from ..verbs.fix.plan import plan_dict
    from ..verbs.fix.verb import plan_for
    if not 0 < timeout <= 600:
        raise ValueError("timeout must be between 0 and 600 seconds")
    _, items = plan_for(_python(python), [str(i) for i in ids or []], timeout, isolated_from=_here())
    data = dict(plan_dict(items), schema_version=1, applied=False)
    from ..verbs.fix.plan import describe
    lines = describe(items) or ["nothing to fix"]
    return data, "\n".join(lines + ["(a plan only: run `torchdoctor fix` in a terminal to apply it)"])


def list_checks(known_errors: bool = False):
    from ..verbs.check import check_rows
    checks = check_rows()
    data: Dict[str, Any] = {"schema_version": 1, "checks": checks}
    summary = "%d checks" % len(checks)
    if known_errors:
        from ..kb.errors import load_entries
        from ..verbs.explain import entry_rows
        data["known_errors"] = entry_rows(load_entries())
        summary += ", %d known errors" % len(data["known_errors"])
    return data, summary


RUNS_PYTHON = ("python: a Python interpreter (a virtual environment's bin/python...), which is run: the probe "
               "imports torch in it, isolated from the server's folder; anything else is refused, not run.")
# name: (function, description, whether it runs an interpreter)
TOOLS = {
    "check": (check, "Diagnose a Python environment's torch, CUDA, driver, cuDNN and settings (the JSON of "
                     "`torchdoctor check --json`, redacted). Default interpreter: the one the user works in. "
                     + RUNS_PYTHON, True),
    "explain": (explain, "Recognise known PyTorch errors in an error message, traceback or log excerpt and "
                         "explain cause and fix, tailored to this machine (`torchdoctor explain --json`, "
                         "redacted). " + RUNS_PYTHON, True),
    "report": (report, "A redacted environment report for a bug report (format: markdown or json). "
                       + RUNS_PYTHON, True),
    "triage": (triage, "Diagnose a pasted torchdoctor report or `python -m torch.utils.collect_env` output, "
                       "and any error text in it (`torchdoctor triage --json`, redacted).", False),
    "fix_plan": (fix_plan, "What `torchdoctor fix` would do (the dry-run form: nothing is applied): the "
                           "findings' fixes resolved by the target's own pip against its configuration, the "
                           "exact commands, what is left to the user's shell. " + RUNS_PYTHON, True),
    "list_checks": (list_checks, "The checks torchdoctor runs (id, severity, category); known_errors=true "
                                 "adds the known errors it recognises.", False),
}


def annotations(runs_python: bool) -> Dict[str, bool]:
    """What MCP's tool annotations say of a tool, truthfully. readOnlyHint: it does not modify its
    environment, which a tool that runs an interpreter cannot promise (importing torch writes
    caches, site-packages code runs). destructiveHint: no tool deletes or overwrites anything.
    idempotentHint: calling again with the same arguments has no further effect. openWorldHint:
    every tool works on this machine alone (torchdoctor opens no network connection; fix_plan's dry
    run of the target's pip asks the package indexes pip is configured with, and says so)."""
    return {"readOnlyHint": not runs_python, "destructiveHint": False, "idempotentHint": True,
            "openWorldHint": False}


def _call(fn: Callable, redacting: bool, **kw):
    """Every tool's one way out: (data, summary) from `fn`, redacted when the server redacts
    (torchdoctor.redact.redact_output), then finished (`fn` may return a third element that
    renders the redacted data), as a CallToolResult; a bad argument or a failure is a tool error."""
    try:
        res = fn(**kw)
        data, summary = res[0], res[1]
        if redacting:
            from ..redact import redact_output
            data, (summary,) = redact_output(data, [summary])
        if len(res) > 2:
            data = res[2](data)
    except ValueError as e:
        return _result(None, "torchdoctor: %s" % e, error=True)
    except Exception as e:  # noqa: BLE001 - a tool error, never a dead server
        return _result(None, "torchdoctor: the tool failed (%s: %s)" % (type(e).__name__, e), error=True)
    return _result(data, summary)


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


def build_server(redact: bool = True):
    """The server with its tools (each a thin wrapper over the functions above).
    `redact`: False for `torchdoctor mcp --no-redact`."""
    from mcp.types import CallToolResult, ToolAnnotations
    from .. import __version__
    cls = _server_class()
    try:
        server = cls(NAME, instructions=INSTRUCTIONS, version=__version__)
    except TypeError:  # mcp 1.x's FastMCP has no version argument
        server = cls(NAME, instructions=INSTRUCTIONS)

    def t_check(python: Optional[str] = None, timeout: float = 60.0, compile: bool = False) -> CallToolResult:
        return _call(check, redact, python=python, timeout=timeout, compile=compile)

    def t_explain(text: str, python: Optional[str] = None) -> CallToolResult:
        return _call(explain, redact, text=text, python=python)

    def t_report(format: str = "markdown", python: Optional[str] = None) -> CallToolResult:
        return _call(report, redact, format=format, python=python, redact=redact)

    def t_triage(text: str) -> CallToolResult:
        return _call(triage, redact, text=text)

    def t_list_checks(known_errors: bool = False) -> CallToolResult:
        return _call(list_checks, redact, known_errors=known_errors)

    def t_fix_plan(python: Optional[str] = None, ids: Optional[List[str]] = None,
                   timeout: float = 60.0) -> CallToolResult:
        return _call(fix_plan, redact, python=python, ids=ids, timeout=timeout)

    for name, fn in (("check", t_check), ("explain", t_explain), ("report", t_report), ("triage", t_triage),
                     ("list_checks", t_list_checks), ("fix_plan", t_fix_plan)):
        hints = annotations(TOOLS[name][2])
        if name == "fix_plan":
            hints["openWorldHint"] = True  # the target's pip asks the package indexes it is configured with
        ann = ToolAnnotations.model_validate(hints)
        server.tool(name=name, description=TOOLS[name][1], annotations=ann)(fn)
    return server


def serve(redact: bool = True) -> None:
    build_server(redact).run("stdio")
