"""What the tune command does, as functions: run, load a saved result, write reports."""

import json
import os
from typing import Any, Dict, Optional

from .analysis import KIND, SCHEMA_VERSION, assemble
from .runner import TuneOptions, run_child


def run(opts: TuneOptions, progress=None) -> Dict[str, Any]:
    """Measure in a child of opts.python (default: this interpreter) and return the
    result document. Never raises for what the model or torch does."""
    on_record = progress.record if progress is not None else None
    on_tick = progress.tick if progress is not None else None
    records, res, wall = run_child(opts, on_record=on_record, on_tick=on_tick)
    if opts.python is None:
        import sys
        opts.python = sys.executable
    return assemble(records, opts, res, wall)


class UsageError(ValueError):
    """Bad input to tune (an unreadable --from, a --report that cannot be written): the CLI
    turns it into its one-line usage error."""


def usage_error(result: Dict[str, Any]) -> Optional[str]:
    """The one-line message when the run ended on bad input (a --model that names
    nothing, a --device this torch has not got), else None."""
    fatal = (result.get("run") or {}).get("fatal")
    if fatal and fatal.get("kind") in ("spec", "device"):
        return fatal.get("error")
    return None


def exit_code(result: Dict[str, Any]) -> int:
    return 1 if any(f.get("severity") == "error" for f in result.get("findings") or []) else 0


def to_json(result: Dict[str, Any]) -> str:
    return json.dumps(result, indent=2, allow_nan=False) + "\n"


def echo(text: str) -> None:
    """Print to stdout; a full disk or a closed file there is one error line (a reader
    that left, BrokenPipeError, is torchdoctor.cli.main's business: exit 0)."""
    import sys

    import click
    try:
        click.echo(text, nl=False)
        sys.stdout.flush()
    except BrokenPipeError:
        raise
    except OSError as e:
        try:
            sys.stdout = open(os.devnull, "w")  # the interpreter's last flush must not fail again
        except OSError:
            pass
        raise UsageError("cannot write to standard output: %s" % (e.strerror or e))


def load_result(path: str) -> Dict[str, Any]:
    from ...userfiles import read_report_bytes
    try:
        raw = read_report_bytes(path, kind="tune result")  # bounded: /dev/zero, a FIFO, a pipe
    except ValueError as e:
        raise UsageError(str(e))
    try:
        data = json.loads(raw.decode("utf-8", "replace"))
    except (RecursionError, ValueError) as e:
        raise UsageError("%s is not a tune --json result: %s" % (path, e))
    if not isinstance(data, dict) or data.get("kind") != KIND:
        raise UsageError("%s is not a tune --json result (no \"kind\": %r)" % (path, KIND))
    if data.get("schema_version") != SCHEMA_VERSION:
        raise UsageError("%s has tune schema_version %r; this torchdoctor reads %d" % (
            path, data.get("schema_version"), SCHEMA_VERSION))
    return data


def redacted(result: Dict[str, Any]) -> Dict[str, Any]:
    """User names, home directories, host names and secrets out of every string, as
    `torchdoctor report` does (the local user and host are known to the redactor)."""
    from ...redact import Redactor, local_names
    r = Redactor()
    users, hosts = local_names()
    for u in users:
        r.learn_user(u)
    for h in hosts:
        r.learn_host(h)
    stack = [result]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            r.learn_from_text(node)
        elif isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    out = r.value(result)
    out["redaction"] = {"enabled": True, "counts": dict(sorted(r.counts.items()))}
    return out


def write_report(result: Dict[str, Any], path: str, redact: bool = True, force: bool = False) -> None:
    data = redacted(result) if redact else result
    if path.lower().endswith((".html", ".htm")):
        from .html import render_html
        text = render_html(data)
    else:
        from .render import render_markdown
        text = render_markdown(data)
    from ...userfiles import write_output
    try:
        write_output(path, text, force=force, what="--report")
    except ValueError as e:
        raise UsageError(str(e))
    import click
    click.echo("torchdoctor: wrote %s (%d characters, %s)" % (path, len(text), "redacted" if redact else
                                                             "NOT redacted"), err=True)
