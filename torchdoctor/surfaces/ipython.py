"""The IPython / Jupyter extension: `%load_ext torchdoctor`.

* `%torchdoctor check [--python PATH]`: the environment (a child probe of the kernel's
  interpreter) with the kernel's live torch settings on top; `%torchdoctor explain [TEXT]`
  (no TEXT: the last exception of this session); `%torchdoctor report [--format
  markdown|json] [-o FILE] [--no-redact]`.
* A known error raised in a cell gets the diagnosis under the normal traceback (IPython's
  custom exception handler; one that was there before still handles its exceptions).
* Results are objects with `_repr_html_` and `_repr_markdown_` (a notebook shows HTML) and
  a text repr (a terminal shows text); in a kernel the fix commands are `%pip` cells.
* A guest in the kernel: the handler and the magic import only from the interpreter's
  library folders (surfaces/guest.py), never from the notebook's folder; the processes
  they start go through the subprocess.Popen of the moment the extension was loaded.
"""

import argparse
import shlex
import sys
from typing import Any, List, Optional

from . import guest

_state = {"shell": None, "prev_types": (), "prev_handler": None}


class CheckView:
    def __init__(self, report):
        self.report = report

    @guest.guarded
    def _repr_html_(self) -> str:
        from ..render.html import render_check_html
        return render_check_html(self.report)

    @guest.guarded
    def _repr_markdown_(self) -> str:
        from ..render.markdown import render_markdown
        return render_markdown(self.report, include_json=False)

    @guest.guarded
    def __repr__(self) -> str:
        from ..render.style import Style
        from ..render.text import render_check
        return render_check(self.report, Style(color=False)).rstrip("\n")


class ExplainView:
    def __init__(self, explanations, live: Optional[str] = None, lines: bool = True):
        self.explanations = list(explanations)
        self.live = live
        self.lines = lines  # False: the text was a traceback the doctor formatted

    def to_dict(self) -> dict:
        return {"schema_version": 1, "matches": [x.to_dict() for x in self.explanations]}

    @guest.guarded
    def _repr_html_(self) -> str:
        from ..render.html import render_explain_html
        return render_explain_html([x.to_dict() for x in self.explanations], self.live, lines=self.lines)

    @guest.guarded
    def _repr_markdown_(self) -> str:
        from ..render.markdown import render_match
        if not self.explanations:
            return "No known PyTorch error recognised."
        out: List[str] = []
        for x in self.explanations:
            out += render_match(x.to_dict(), lines=self.lines)
        if self.live:
            out.append("<sub>%s</sub>" % self.live)
        return "\n".join(out)

    @guest.guarded
    def __repr__(self) -> str:
        from ..render.brief import rule
        from ..render.style import Style
        from ..render.text import render_explain
        st = Style(color=False)
        text = render_explain(self.explanations, st, lines=self.lines).rstrip("\n")
        if self.explanations:
            text = rule("torchdoctor", st) + "\n" + text
        return text + ("\n" + self.live if self.live else "")


class ReportView:
    def __init__(self, text: str, fmt: str):
        self.text, self.fmt = text, fmt

    @guest.guarded
    def _repr_markdown_(self) -> Optional[str]:
        return self.text if self.fmt == "markdown" else None

    @guest.guarded
    def _repr_html_(self) -> Optional[str]:
        if self.fmt == "markdown":
            return None  # the front end renders the Markdown
        from ..render.html import PRE, e
        return "<pre style=\"%s\"><code>%s</code></pre>" % (PRE, e(self.text))

    @guest.guarded
    def __repr__(self) -> str:
        return self.text.rstrip("\n")


# -- the magic ------------------------------------------------------------------------------
class _Args(argparse.ArgumentParser):
    def error(self, message):
        raise ValueError(message)


def _parser() -> argparse.ArgumentParser:
    p = _Args(prog="%torchdoctor", add_help=False)
    sub = p.add_subparsers(dest="verb")
    c = sub.add_parser("check", add_help=False)
    c.add_argument("--python")
    c.add_argument("--timeout", type=float, default=60.0)
    r = sub.add_parser("report", add_help=False)
    r.add_argument("--format", choices=("markdown", "json"), default="markdown")
    r.add_argument("-o", "--output")
    r.add_argument("--python")
    r.add_argument("--no-redact", action="store_true")
    return p


USAGE = "%torchdoctor check [--python PATH] | explain [TEXT] | report [--format markdown|json] [-o FILE] [--no-redact]"


def magic(line: str) -> Any:
    with guest.ImportGuard():
        return _magic(line)


def _magic(line: str) -> Any:
    from IPython.core.error import UsageError
    parts = line.split(None, 1)
    verb, rest = (parts + ["", ""])[:2]
    if verb == "explain":  # the rest is an error message, quotes and apostrophes included: not shell words
        text = rest.strip()
        if not text:
            exc = getattr(sys, "last_value", None)
            if exc is None:
                raise UsageError("no exception in this session yet: %torchdoctor explain TEXT")
            from .hook import exception_text
            return explain(exception_text(exc), lines=False)
        return explain(text)
    try:
        args = _parser().parse_args(shlex.split(line))
    except ValueError as e:
        raise UsageError("%s\nusage: %s" % (e, USAGE))
    if args.verb == "check":
        return check(args.python, args.timeout)
    if args.verb == "report":
        try:
            return report(args.format, args.output, args.python, not args.no_redact)
        except ValueError as e:  # -o that cannot be written: one line, as for a usage error
            raise UsageError(str(e))
    raise UsageError("usage: " + USAGE)


def check(python: Optional[str] = None, timeout: float = 60.0) -> CheckView:
    from ..diagnose import diagnose
    from ..gather.probe import gather
    from ..gather.live import overlay
    facts = gather(python=python or sys.executable, timeout=timeout)
    if not python or python == sys.executable:
        facts = overlay(facts)
    return CheckView(diagnose(facts))


def explain(text: str, lines: bool = True) -> ExplainView:
    from ..diagnose import explain as explain_text
    from ..gather.live import live_facts
    from ..render.brief import live_line
    exps, facts = explain_text(text, gather=live_facts)
    return ExplainView(exps, live_line(facts) if facts is not None else None, lines)


def report(fmt: str = "markdown", output: Optional[str] = None, python: Optional[str] = None,
           redact: bool = True) -> ReportView:
    from . import attachment
    from ..gather.live import overlay
    live = not python or python == sys.executable
    rep = attachment.build("live", None, python=python, redact=redact,
                           prepare=overlay if live else None)
    text = attachment.render(rep, fmt)
    if output:
        from ..userfiles import write_output
        write_output(output, text, what="-o", forcible=False)
        print("torchdoctor: wrote %s (%s, %s)" % (output, fmt, "redacted" if redact else "NOT redacted"))
    return ReportView(text, fmt)


# -- the exception handler -----------------------------------------------------------------
def show_diagnosis(exc: BaseException) -> bool:
    """Display the diagnosis of a cell's exception when it is a known error."""
    with guest.Visit() as visit:  # never break the cell's own error display
        from .hook import exception_text
        view = explain(exception_text(exc), lines=False)
        if not view.explanations:
            return False
        from IPython.display import display
        display(view)
        return True
    print("torchdoctor: the diagnosis failed (%s)" % visit.error, file=sys.stderr)
    return False


def _handler(shell, etype, value, tb, tb_offset=None):
    prev, types = _state["prev_handler"], _state["prev_types"]
    if prev is not None and types and issubclass(etype, types):
        prev(etype, value, tb, tb_offset=tb_offset)
    else:
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    show_diagnosis(value)
    return None


def load(ip) -> None:
    if _state["shell"] is ip:
        return
    from ..children import timed
    timed.pin()  # before a cell can patch them
    ip.register_magic_function(magic, magic_kind="line", magic_name="torchdoctor")
    types = tuple(getattr(ip, "custom_exceptions", ()) or ())
    _state.update(shell=ip, prev_types=types, prev_handler=getattr(ip, "CustomTB", None) if types else None)
    ip.set_custom_exc((Exception,) + tuple(t for t in types if not issubclass(t, Exception)), _handler)


def unload(ip) -> None:
    if _state["shell"] is not ip:
        return
    types, prev = _state["prev_types"], _state["prev_handler"]
    if types and prev is not None:
        ip.custom_exceptions, ip.CustomTB = types, prev
    else:
        ip.set_custom_exc((), None)
    _state.update(shell=None, prev_types=(), prev_handler=None)
