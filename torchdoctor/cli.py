"""The command line: thin wrappers that parse options, call the library and render.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or
nothing recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import io
import json
import os
import sys
from typing import List, Optional

import click

from . import __version__

EXIT_INPUT = 2


class InputError(click.ClickException):
    """Bad input or usage: a one-line message and exit status 2."""

    exit_code = EXIT_INPUT

    def show(self, file=None):
        click.echo("torchdoctor: error: %s" % self.format_message(), err=True)


def _split_ids(values) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _echo(text: str) -> None:
    click.echo(text, nl=False)


def _style(color: Optional[bool]):
    from .render.style import Style
    return Style.for_stream(sys.stdout, color=color)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchdoctor")
def cli():
    """Diagnose PyTorch environments and explain PyTorch errors."""


FAIL_ON = click.Choice(["error", "warning", "info", "never"])


def exit_code_for(report, fail_on: str) -> int:
    from .findings import severity_rank
    if fail_on == "never":
        return 0
    return 1 if report.worst() >= severity_rank(fail_on) else 0


def positive(ctx, param, value):
    if value is not None and value <= 0:
        raise click.BadParameter("must be a positive number of seconds")
    return value


@cli.command()
@click.option("--python", "python", metavar="PATH", help="Interpreter to diagnose (default: this one).")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=positive,
              help="Seconds the torch probe may take before it counts as hung.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (schema_version 1).")
@click.option("--fail-on", type=FAIL_ON, default="error", show_default=True,
              help="Exit 1 when a finding reaches this severity.")
@click.option("--only", multiple=True, metavar="IDS", help="Run only these checks (comma-separated, repeatable).")
@click.option("--skip", multiple=True, metavar="IDS", help="Skip these checks (comma-separated, repeatable).")
@click.option("--list-checks", is_flag=True, help="List the checks and exit.")
@click.option("--from", "from_report", metavar="REPORT.json", help="Re-diagnose a saved report (JSON or Markdown) instead of this machine.")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on a TTY, unless NO_COLOR).")
def check(python, timeout, as_json, fail_on, only, skip, list_checks, from_report, color):
    """Probe torch, its backends, the GPU and driver; print findings with fixes."""
    from .checks import all_checks, select
    if list_checks:
        for c in all_checks():
            _echo("%-28s %-8s %-24s %s\n" % (c.id, c.severity, c.category, c.doc))
        return
    only_ids, skip_ids = _split_ids(only), _split_ids(skip)
    try:
        select(only_ids, skip_ids)
    except KeyError as e:
        raise InputError("unknown check id %s (see --list-checks)" % e)
    if from_report:
        from .reportio import load_report_facts
        try:
            facts = load_report_facts(from_report)
        except ValueError as e:
            raise InputError(str(e))
    else:
        if python and not os.path.exists(python) and os.sep not in python:
            import shutil
            python = shutil.which(python) or python
        from .probe import gather
        facts = gather(python=python, timeout=timeout)
    from .report import diagnose
    report = diagnose(facts, only=only_ids or None, skip=skip_ids or None)
    if as_json:
        _echo(json.dumps(report.to_dict(), indent=2, default=str) + "\n")
    else:
        from .render.text import render_check
        footer = None
        if from_report:
            footer = "re-diagnosed from %s (collected %s)" % (from_report, facts.value("collected_at", "at an unknown time"))
        _echo(render_check(report, _style(color), footer=footer))
    sys.exit(exit_code_for(report, fail_on))


# ------------------------------------------------------------------ explain --
def _read_input(text_args, file, stdin_stream):
    """-> ('text', str) for small inputs, ('stream', binary file) for large ones."""
    if file is not None:
        from .reportio import open_input
        try:
            fh = open_input(file, "log file")
        except ValueError as e:
            raise InputError(str(e))
        return _peek(fh, file)
    if text_args and list(text_args) != ["-"]:
        return "text", " ".join(text_args)
    return _peek(stdin_stream, "standard input")


def _peek(fh, name):
    from .explain.matcher import SMALL_INPUT
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


@cli.command()
@click.argument("text", nargs=-1)
@click.option("--file", "-f", "file", metavar="LOG", help="Read the error text or log from a file (any size).")
@click.option("--json", "as_json", is_flag=True, help="Print matches as JSON (schema_version 1).")
@click.option("--all", "show_all", is_flag=True, help="Explain every match in full, not just the best.")
@click.option("--list", "list_entries", is_flag=True, help="List the known errors and exit.")
@click.option("--probe", "deep", is_flag=True, help="Run the full check probe for deeper tailoring (slower).")
@click.option("--python", "python", metavar="PATH", help="With --probe: the interpreter to probe.")
@click.option("--no-env", is_flag=True, help="Do not look at this machine at all: generic fixes only.")
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
def explain(text, file, as_json, show_all, list_entries, deep, python, no_env, color):
    """Explain a PyTorch error: TEXT, --file LOG, or '-' for standard input.

    TEXT may also be a known-error id, to show that entry.
    """
    from .kb.errors import get_entry, load_entries
    from .render import text as T
    if list_entries:
        entries = load_entries()
        if as_json:
            _echo(json.dumps({"schema_version": 1, "entries": [
                {"id": e.id, "category": e.category, "title": e.title} for e in entries]}, indent=2) + "\n")
        else:
            _echo(T.render_entry_list(entries))
        return
    if text and file:
        raise InputError("give the error text or --file, not both")
    if not text and file is None and sys.stdin.isatty():
        raise InputError("nothing to explain: pass the error text, --file LOG, or pipe it into `torchdoctor explain -`")
    if len(text) == 1 and get_entry(text[0].strip()) is not None:
        e = get_entry(text[0].strip())
        _echo(json.dumps({"schema_version": 1, "entry": e.raw}, indent=2) + "\n" if as_json else T.render_entry(e, _style(color)))
        return
    kind, payload = _read_input(text, file, sys.stdin.buffer)
    from .explain import explain_matches
    from .explain.matcher import match_text
    interrupted = False
    if kind == "text":
        if not payload.strip():
            raise InputError("the input is empty: nothing to explain")
        matches = match_text(payload)
    else:
        from .explain.progress import scan_log  # progress on a TTY; Ctrl-C keeps what was found
        matches, interrupted = scan_log(payload, file)
    facts = None
    if not no_env and matches:
        if deep:
            from .probe import gather
            facts = gather(python=python)
        else:
            from .explain.envfacts import light_facts
            facts = light_facts()
    exps = explain_matches(matches, facts)
    if as_json:
        _echo(json.dumps({"schema_version": 1, "matches": [e.to_dict() for e in exps]}, indent=2) + "\n")
    else:
        _echo(T.render_explain(exps, _style(color), show_all=show_all))
    sys.exit(130 if interrupted else 0 if exps else 1)


# Bug-report verbs (report, triage, diff) live in cli_report.py.
from .cli_report import COMMANDS as _REPORT_COMMANDS  # noqa: E402

for _cmd in _REPORT_COMMANDS:
    cli.add_command(_cmd)


def _sane_std_streams() -> None:
    """A closed standard stream (`0<&-`) is None in Python; an output encoding
    such as latin-1 or cp1252 cannot carry every character of a report. Neither
    may turn into a traceback."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, "r")
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w"))
            continue
        try:
            stream.reconfigure(errors="replace")
        except (AttributeError, ValueError, OSError):
            pass


def main(argv=None):
    _sane_std_streams()
    try:
        cli.main(args=argv, prog_name="torchdoctor", standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("torchdoctor: interrupted", err=True)
        sys.exit(130)
    except BrokenPipeError:
        # `torchdoctor check | head`: the reader left; that is not an error.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        sys.exit(0)


if __name__ == "__main__":
    main()
