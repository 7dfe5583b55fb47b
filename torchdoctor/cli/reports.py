"""The bug-report commands: ``report`` (for the reporter), ``triage`` and ``diff`` (for the
maintainer), over verbs/report.py, verbs/triage.py and verbs/diff.py. Exit codes as
everywhere: 0 fine, 1 findings at --fail-on (triage) or differences (diff), 2 usage or
input error (one line, never a traceback).
"""

import json
import sys

import click

from .common import chosen_python, echo, exit_code_for, style
from .options import FAIL_ON, positive


@click.command("report")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json", "text"]), default="markdown", show_default=True,
              help="Markdown for a GitHub issue, JSON to attach (check --from / triage read it), or plain text.")
@click.option("--output", "-o", "output", metavar="FILE",
              help="Write the report to FILE (- for standard output). FILE is replaced atomically; a symbolic "
                   "link or a non-regular file there is refused unless --force.")
@click.option("--force", is_flag=True, help="With --output: replace a symbolic link (not its target), or write into a pipe or device.")
@click.option("--python", "python", metavar="PATH", help="Interpreter to diagnose (default: this one; when it has no torch, the active virtualenv or conda env, else the first python3 on PATH).")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=positive,
              help="Seconds the torch probe may take before it counts as hung.")
@click.option("--no-redact", is_flag=True,
              help="Keep user names, host names, addresses and secrets (the report then says so).")
@click.option("--copy", "copy", is_flag=True, help="Put the report on the clipboard, where there is one.")
def report_cmd(fmt, output, force, python, timeout, no_redact, copy):
    """Write a bug-report attachment: summary, findings with fixes, every fact.

    Redacted by default: user names, home directories, host name, IP addresses,
    GPU UUIDs and secrets (tokens, keys, passwords, credentials in URLs) are
    replaced before anything is rendered.
    """
    from ..verbs import report as verb
    if output == "-":
        output = None  # standard output, as everywhere else
    verb.check_target(output, force)
    rep = verb.report(chosen_python(python), timeout, redact=not no_redact)
    text = verb.render_report(rep, fmt)
    said, to_stdout = verb.deliver(text, fmt, output, force, copy, redacted=not no_redact)
    for line in said:
        click.echo(line, err=True)
    if to_stdout:
        echo(text)


# ------------------------------------------------------------------- triage --
@click.command("triage")
@click.argument("file", required=False, metavar="[FILE|-]")
@click.option("--json", "as_json", is_flag=True, help="Print facts, findings and matches as JSON (check --json's shape).")
@click.option("--fail-on", type=FAIL_ON, default="error", show_default=True,
              help="Exit 1 when a finding reaches this severity.")
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
def triage_cmd(file, as_json, fail_on, color):
    """Diagnose what a user pasted: a torchdoctor report (JSON or Markdown) or
    the output of `python -m torch.utils.collect_env` (any torch version), with
    any error text around it. Reads FILE, or standard input."""
    from ..verbs.triage import render_triage_text, triage_file
    result = triage_file(file)
    if as_json:
        echo(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    else:
        echo(render_triage_text(result, style(color)))
    sys.exit(exit_code_for(result.report, fail_on))


# --------------------------------------------------------------------- diff --
@click.command("diff")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
@click.option("--all", "show_all", is_flag=True, help="Compare every fact, not just the ones that matter.")
def diff_cmd(a, b, as_json, show_all):
    """What differs between two reports (torch, CUDA, driver, packages, env
    vars, findings): "works on my machine". A and B may be JSON or Markdown
    reports or collect_env pastes. Exit 0 when they match, 1 when they differ."""
    from ..verbs.diff import diff_files, render_diff_text
    d = diff_files(a, b, show_all=show_all)
    if as_json:
        echo(json.dumps(d.to_dict(), indent=2, default=str) + "\n")
    else:
        echo(render_diff_text(d))
    sys.exit(1 if d.changes else 0)

