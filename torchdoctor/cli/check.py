"""`torchdoctor check`: probe an interpreter (or re-diagnose a saved report) and print the
findings with their fixes."""

import json
import sys

import click

from .common import chosen_python, echo, exit_code_for, split_ids, style
from .options import FAIL_ON, PYTHON_DEFAULT, positive


@click.command("check")
@click.option("--python", "python", metavar="PATH", help="Interpreter to diagnose (%s)." % PYTHON_DEFAULT)
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=positive,
              help="Seconds the torch probe may take before it counts as hung.")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report (schema_version 1).")
@click.option("--fail-on", type=FAIL_ON, default="error", show_default=True,
              help="Exit 1 when a finding reaches this severity.")
@click.option("--only", multiple=True, metavar="IDS", help="Run only these checks (comma-separated, repeatable).")
@click.option("--skip", multiple=True, metavar="IDS", help="Skip these checks (comma-separated, repeatable).")
@click.option("--list-checks", is_flag=True, help="List the checks and exit.")
@click.option("--from", "from_report", metavar="REPORT.json", help="Re-diagnose a saved report (JSON or Markdown; - for standard input) instead of this machine.")
@click.option("--compile", "compile_", is_flag=True,
              help="Also compile and run a small function with torch.compile on each device, in a child with its own caches: the toolchain's failures with their fixes, and the compile timings.")
@click.option("--resolve", is_flag=True, help="Dry-run every install fix through the target's pip and its configuration (contacts your package indexes) and print what it would really install.")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on a TTY, unless NO_COLOR).")
def check(python, timeout, as_json, fail_on, only, skip, list_checks, from_report, compile_, resolve, color):
    """Probe torch, its backends, the GPU and driver; print findings with fixes."""
    from ..verbs import check as verb
    if list_checks:
        rows = verb.check_rows()
        wid, wcat = max(len(r["id"]) for r in rows), max(len(r["category"]) for r in rows)
        for r in rows:
            echo("%-*s %-8s %-*s %s\n" % (wid, r["id"], r["severity"], wcat, r["category"], r["doc"]))
        return
    only_ids, skip_ids = split_ids(only), split_ids(skip)
    verb.selected(only_ids, skip_ids)
    if from_report is None:
        python = chosen_python(python)
    report = verb.check(python, timeout, only=only_ids or None, skip=skip_ids or None, from_report=from_report,
                        compile=compile_, resolve=resolve)
    if as_json:
        echo(json.dumps(report.to_dict(), indent=2, default=str) + "\n")
    else:
        from ..render.text import render_check
        footer = verb.footer(report, from_report) if from_report is not None else None
        echo(render_check(report, style(color), footer=footer))
    sys.exit(exit_code_for(report, fail_on))
