"""`torchdoctor explain` without click: its options (one table, for the click command
and the fast path alike), reading its input, and the verb itself as text and exit code."""

import io
import json
import sys
from typing import Optional, Tuple

from ..cli.common import EXIT_INTERRUPTED, InputError, chosen_python, style

# (flags, parameter, kind, metavar, help), in --help order. kind: "value" takes one
# argument, "flag" is True when given, "switch" is "--x/--no-x" (True, False, None).
OPTIONS = (
    (("--file", "-f"), "file", "value", "LOG", "Read the error text or log from a file (any size)."),
    (("--json",), "as_json", "flag", None, "Print matches as JSON (schema_version 1)."),
    (("--all",), "show_all", "flag", None, "Explain every match in full, not just the best."),
    (("--list",), "list_entries", "flag", None, "List the known errors and exit."),
    (("--probe",), "deep", "flag", None, "Run the full check probe for deeper tailoring (slower)."),
    (("--python",), "python", "value", "PATH",
     "The interpreter whose environment the fix is for (default: as for check)."),
    (("--no-env",), "no_env", "flag", None, "Do not look at this machine at all: generic fixes only."),
    (("--color", "--no-color"), "color", "switch", None, "Force colour on or off."),
)
TEXT = "text"  # the positional words (nargs=-1)
HELP = """Explain a PyTorch error: TEXT, --file LOG, or '-' for standard input.

    TEXT may also be a known-error id, to show that entry.
    """


def defaults() -> dict:
    out = {param: (False if kind == "flag" else None) for _, param, kind, _, _ in OPTIONS}
    out[TEXT] = ()
    return out


def _read_input(text_args, file, stdin_stream):
    """-> ('text', str) for small inputs, ('stream', binary file) for large ones."""
    if file is not None:
        from ..reportio import open_input
        try:
            fh = open_input(file, "log file")
        except ValueError as e:
            raise InputError(str(e))
        return _peek(fh, file)
    if text_args and list(text_args) != ["-"]:
        return "text", " ".join(text_args)
    return _peek(stdin_stream, "standard input")


def _peek(fh, name):
    from ..match.matcher import SMALL_INPUT
    try:
        head = fh.read(SMALL_INPUT + 1)
    except OSError as e:
        raise InputError("cannot read %s: %s" % (name, e))
    if len(head) <= SMALL_INPUT:
        return "text", _decode(head)
    return "stream", _Chain(head, fh)


def _decode(data: bytes) -> str:
    import codecs
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        return data.decode("utf-16", "replace")
    if data[:3] == codecs.BOM_UTF8:
        data = data[3:]
    return data.decode("utf-8", "replace")


class _Chain(io.RawIOBase):
    """The peeked head followed by the rest of the stream."""

    def __init__(self, head: bytes, rest):
        self.head, self.rest = head, rest

    def read(self, n=-1):
        if self.head:
            if n is None or n < 0 or n >= len(self.head):
                out, self.head = self.head, b""
                if n is not None and n > len(out):
                    out += self.rest.read(n - len(out)) or b""
                return out
            out, self.head = self.head[:n], self.head[n:]
            return out
        return self.rest.read(n)

    def readable(self):
        return True


def _facts(python: Optional[str], deep: bool):
    """The facts an explanation is tailored to: a full probe with --probe, else the cheap ones."""
    python = chosen_python(python)
    if deep:
        from ..gather.probe import gather
        return gather(python=python)
    from ..gather.light import light_facts
    return light_facts(python)


def explain(text=(), file=None, as_json=False, show_all=False, list_entries=False, deep=False,
            python: Optional[str] = None, no_env=False, color=None) -> Tuple[str, int]:
    """The verb: -> (what to print on stdout, exit code). Bad input raises InputError."""
    from ..kb.errors import get_entry, load_entries
    if list_entries:
        entries = load_entries()
        from ..render import text as T
        if as_json:
            return json.dumps({"schema_version": 1, "entries": [
                {"id": e.id, "category": e.category, "title": e.title} for e in entries]}, indent=2) + "\n", 0
        return T.render_entry_list(entries), 0
    if text and file:
        raise InputError("give the error text or --file, not both")
    if not text and file is None and sys.stdin.isatty():
        raise InputError("nothing to explain: pass the error text, --file LOG, or pipe it into `torchdoctor explain -`")
    if len(text) == 1 and get_entry(text[0].strip()) is not None:
        e = get_entry(text[0].strip())
        from ..render import text as T
        if as_json:
            return json.dumps({"schema_version": 1, "entry": e.raw}, indent=2) + "\n", 0
        return T.render_entry(e, style(color)), 0
    kind, payload = _read_input(text, file, sys.stdin.buffer)
    from .. import diagnose
    from ..match.matcher import match_text
    interrupted = False
    if kind == "text":
        if not payload.strip():
            raise InputError("the input is empty: nothing to explain")
        matches = match_text(payload)
    else:
        from .explain_progress import scan_log  # progress on a TTY; Ctrl-C keeps what was found
        matches, interrupted = scan_log(payload, file)
    exps, _ = diagnose.explain(matches=matches, gather=None if no_env else lambda: _facts(python, deep))
    other = _other_framework(payload) if kind == "text" and not exps else None
    if as_json:
        doc = {"schema_version": 1, "matches": [e.to_dict() for e in exps]}
        if other is not None:
            doc["other_framework"] = {"name": other.other, "marker": other.marker}
        out = json.dumps(doc, indent=2) + "\n"
    else:
        from ..render import text as T
        out = T.render_explain(exps, style(color), show_all=show_all)
        if other is not None:
            out += ("It is %s's output (it shows %r and nothing of PyTorch): that framework's own "
                    "documentation and issue tracker know its errors.\n" % (other.other, other.marker))
    return out, EXIT_INTERRUPTED if interrupted else 0 if exps else 1


def _other_framework(text: str):
    """The verdict naming the other framework whose output `text` is, or None."""
    from ..match.whose import judge
    v = judge(text)
    return v if v.foreign else None
