"""The command line: a click group of thin verbs over torchdoctor.diagnose and the
renderers. One module per verb family; what they share is in cli/common.py.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import os
import sys

import click

from .. import __version__
from .check import check
from .common import EXIT_INPUT, InputError  # noqa: F401 - the names other modules and tests use
from .dist import dist
from .explain import explain
from .lint import lint
from .mcp import mcp_cmd
from .reports import diff_cmd, report_cmd, triage_cmd
from .run import run_cmd
from .tune import tune


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchdoctor")
def cli():
    """Diagnose PyTorch environments and explain PyTorch errors."""


for _cmd in (check, explain, report_cmd, triage_cmd, diff_cmd, lint, tune, dist, run_cmd, mcp_cmd):
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
