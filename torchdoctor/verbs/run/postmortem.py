"""After `torchdoctor run`: the known errors its output held, tailored to the interpreter
the command ran, or why it died by a signal; as one JSON-ready dict (the `--json`
contract) plus the explanations for the text renderer."""

import re
import sys
from ...model.records import field, record
from typing import Any, Dict, List, Optional

from .runner import Result

MAX_EXPLAINED = 5
TAIL_LINES = 200
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


@record
class Postmortem:
    result: Result
    python: Optional[str] = None
    python_from: str = ""
    explanations: list = field(default_factory=list)
    signal: Optional[Dict[str, Any]] = None
    error: Optional[str] = None  # the diagnosis step itself failed

    def to_dict(self) -> Dict[str, Any]:
        r = self.result
        return {"schema_version": 1, "command": list(r.argv), "exit_status": r.exit_status,
                "returncode": r.returncode, "signal": r.signal_name, "duration_s": round(r.duration_s, 3),
                "output_bytes": r.output_bytes, "channels": dict(r.channels), "python": self.python,
                "python_from": self.python_from, "matches": [x.to_dict() for x in self.explanations],
                "signal_explanation": self.signal, "diagnosis_error": self.error or r.scan_error}


def tail_text(data: bytes, lines: int = TAIL_LINES) -> str:
    """The kept tail as a reader saw it: ANSI sequences out, each `\\r`-redrawn line as
    its last state, the last `lines` lines."""
    text = _ANSI.sub("", data.decode("utf-8", "replace"))
    out = []
    for ln in text.split("\n"):
        ln = ln.rstrip("\r")
        if "\r" in ln:
            ln = ln.rsplit("\r", 1)[1]
        out.append(ln)
    if out and out[-1] == "":
        out.pop()
    return "\n".join(out[-lines:]) + ("\n" if out else "")


def choose_python(argv: List[str], python: Optional[str]):
    if python:
        return python, "--python"
    from .command import interpreter_of
    found, how = interpreter_of(argv)
    if found:
        return found, how
    from ..common import chosen
    choice = chosen(None)
    return choice.python, "%s; so %s" % (how, choice.why or "the doctor's own interpreter")


def examine_run(result: Result, python: Optional[str] = None, oom_before: Optional[int] = None,
                oom_after: Optional[int] = None) -> Postmortem:
    """Never raises: a failure of its own is recorded in .error."""
    pm = Postmortem(result)
    try:
        pm.python, pm.python_from = choose_python(result.argv, python)
        if result.matches:
            from ...diagnose import explain
            from ...gather.light import light_facts
            pm.explanations, _ = explain(matches=result.matches, limit=MAX_EXPLAINED, gather=lambda: light_facts(
                None if pm.python == sys.executable else pm.python))
        elif result.returncode != 0:
            from .signals import explain_death
            pm.signal = explain_death(result.returncode, tail_text(result.tail), result.argv,
                                      forwarded=result.forwarded, oom_before=oom_before, oom_after=oom_after)
    except Exception as e:  # noqa: BLE001 - the program's result must survive our bugs
        pm.error = "%s: %s" % (type(e).__name__, e)
    return pm


def report_section(pm: Postmortem) -> Dict[str, Any]:
    """facts['run'] of the attachment (redacted with the rest of the report)."""
    d = pm.to_dict()
    d.pop("schema_version", None)
    d["output_tail"] = tail_text(pm.result.tail)
    return d
