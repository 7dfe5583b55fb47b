"""`torchdoctor explain`: known errors in text, a file of any size or standard input,
explained for the interpreter the user works in. Reading the input, the listings (`--list`,
an entry by id) and the explanations; the CLI renders the result (cli/explain_common.py,
shared by the click command and its click-free fast path), the MCP server and the Python API
take the same facts (`facts_for`) into the one pipeline, diagnose.explain."""

import io
import sys
from typing import Any, Dict, List, Optional, Tuple

from ..model.records import field, record
from .common import InputError, chosen_python, named_python


def _read_input(text_args, file, stdin_stream):
    """-> ('text', str) for small inputs, ('stream', binary file) for large ones."""
    if file is not None:
        from ..userfiles import open_input
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


def facts_for(python: Optional[str], deep: bool = False, isolated_from: Optional[str] = None):
    """The facts an explanation is tailored to: the full probe of `python` with `deep`
    (--probe), else its cheap facts (gather/light.py). None: this interpreter, read in-process."""
    if deep:
        from ..gather.probe import gather
        return gather(python=python, isolated_from=isolated_from)
    from ..gather.light import light_facts
    return light_facts(python, isolated_from=isolated_from)


def entry_rows(entries) -> List[Dict[str, str]]:
    """The known errors as `explain --list --json` and the MCP server list them."""
    return [{"id": e.id, "category": e.category, "title": e.title} for e in entries]


@record
class Explained:
    """What `explain` found: the known errors listed (--list), one entry asked for by id, or
    the explanations of the input (interrupted: Ctrl-C cut a log scan short)."""
    explanations: List[Any] = field(default_factory=list)
    interrupted: bool = False
    # Nothing explained and the text is another framework's output (match/whose.py): its
    # verdict, which names that framework and the marker that shows it.
    other: Optional[Any] = None
    entries: Optional[Tuple[Any, ...]] = None
    entry: Optional[Any] = None


def explain(text=(), file=None, list_entries=False, deep=False, python: Optional[str] = None,
            no_env=False) -> Explained:
    """The verb. Bad input raises InputError."""
    from ..kb.errors import get_entry, load_entries
    if list_entries:
        return Explained(entries=load_entries())
    if text and file:
        raise InputError("give the error text or --file, not both")
    if not text and file is None and sys.stdin.isatty():
        raise InputError("nothing to explain: pass the error text, --file LOG, or pipe it into `torchdoctor explain -`")
    if len(text) == 1 and get_entry(text[0].strip()) is not None:
        return Explained(entry=get_entry(text[0].strip()))
    if python and not no_env:
        python = named_python(python)  # refused before the input is read, not only when a match needs it
    kind, payload = _read_input(text, file, sys.stdin.buffer)
    from ..diagnose import explain as explain_text
    gather = None if no_env else lambda: facts_for(chosen_python(python), deep)
    if kind == "text":
        if not payload.strip():
            raise InputError("the input is empty: nothing to explain")
        exps = explain_text(payload, gather=gather)[0]
        return Explained(exps, other=None if exps else other_framework(payload))
    from .explain_progress import scan_log  # progress on a TTY; Ctrl-C keeps what was found
    matches, interrupted, other = scan_log(payload, file)
    exps = explain_text(matches=matches, gather=gather)[0]
    if exps or other is None or interrupted:  # a log read in part may name torch further on
        return Explained(exps, interrupted)
    from ..match.whose import Verdict  # a log scan keeps the framework, not its marker
    return Explained(exps, interrupted, other=Verdict(other=other))


def other_framework(text: str):
    """The verdict naming the other framework whose output `text` is, or None."""
    from ..match.whose import judge
    v = judge(text)
    return v if v.foreign else None


def other_framework_row(verdict) -> Dict[str, str]:
    """The verdict as JSON answers carry it ("other_framework")."""
    return {"name": verdict.other, "marker": verdict.marker}


def other_framework_line(verdict) -> str:
    """The verdict as the sentence that follows "No known PyTorch error"."""
    shows = "it shows %r and nothing of PyTorch" % verdict.marker if verdict.marker else "nothing of PyTorch shows in it"
    return ("It is %s's output (%s): that framework's own documentation "
            "and issue tracker know its errors." % (verdict.other, shows))
