"""`torchdoctor explain`: known errors in text, a file of any size or standard input, with
the fix tailored to the interpreter the user works in."""

import io
import json
import sys

import click

from .common import InputError, chosen_python, echo, style

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
    from ..explain.matcher import SMALL_INPUT
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


@click.command("explain")
@click.argument("text", nargs=-1)
@click.option("--file", "-f", "file", metavar="LOG", help="Read the error text or log from a file (any size).")
@click.option("--json", "as_json", is_flag=True, help="Print matches as JSON (schema_version 1).")
@click.option("--all", "show_all", is_flag=True, help="Explain every match in full, not just the best.")
@click.option("--list", "list_entries", is_flag=True, help="List the known errors and exit.")
@click.option("--probe", "deep", is_flag=True, help="Run the full check probe for deeper tailoring (slower).")
@click.option("--python", "python", metavar="PATH", help="The interpreter whose environment the fix is for (default: as for check).")
@click.option("--no-env", is_flag=True, help="Do not look at this machine at all: generic fixes only.")
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
def explain(text, file, as_json, show_all, list_entries, deep, python, no_env, color):
    """Explain a PyTorch error: TEXT, --file LOG, or '-' for standard input.

    TEXT may also be a known-error id, to show that entry.
    """
    from ..kb.errors import get_entry, load_entries
    if list_entries:
        entries = load_entries()
        from ..render import text as T
        if as_json:
            echo(json.dumps({"schema_version": 1, "entries": [
                {"id": e.id, "category": e.category, "title": e.title} for e in entries]}, indent=2) + "\n")
        else:
            echo(T.render_entry_list(entries))
        return
    if text and file:
        raise InputError("give the error text or --file, not both")
    if not text and file is None and sys.stdin.isatty():
        raise InputError("nothing to explain: pass the error text, --file LOG, or pipe it into `torchdoctor explain -`")
    if len(text) == 1 and get_entry(text[0].strip()) is not None:
        e = get_entry(text[0].strip())
        from ..render import text as T
        echo(json.dumps({"schema_version": 1, "entry": e.raw}, indent=2) + "\n" if as_json else T.render_entry(e, style(color)))
        return
    kind, payload = _read_input(text, file, sys.stdin.buffer)
    from ..diagnose import explain_matches
    from ..explain.matcher import match_text
    interrupted = False
    if kind == "text":
        if not payload.strip():
            raise InputError("the input is empty: nothing to explain")
        matches = match_text(payload)
    else:
        from ..explain.progress import scan_log  # progress on a TTY; Ctrl-C keeps what was found
        matches, interrupted = scan_log(payload, file)
    facts = None
    if not no_env and matches:
        python = chosen_python(python)
        if deep:
            from ..probe import gather
            facts = gather(python=python)
        else:
            from ..explain.envfacts import light_facts
            facts = light_facts(python)
    exps = explain_matches(matches, facts)
    if as_json:
        echo(json.dumps({"schema_version": 1, "matches": [e.to_dict() for e in exps]}, indent=2) + "\n")
    else:
        from ..render import text as T
        echo(T.render_explain(exps, style(color), show_all=show_all))
    sys.exit(130 if interrupted else 0 if exps else 1)
