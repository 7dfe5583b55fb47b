"""What every verb shares: the usage error, exit codes, --fail-on, output and colour,
and which interpreter a verb diagnoses when --python is not given.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import sys
from typing import List, Optional

import click

EXIT_INPUT = 2


class InputError(click.ClickException):
    """Bad input or usage: a one-line message and exit status 2."""

    exit_code = EXIT_INPUT

    def show(self, file=None):
        from ..render.safe import line  # the message may quote a file name or a value from it
        click.echo("torchdoctor: error: %s" % line(self.format_message()), err=True)


def split_ids(values) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def echo(text: str) -> None:
    # The verb's Style already chose colour (TTY, NO_COLOR, --color/--no-color) and
    # render.safe neutralised every control in the data, so click must not strip
    # codes on its own (that made --color a no-op on pipes, `| less -R`).
    click.echo(text, nl=False, color=True)


def style(color: Optional[bool]):
    from ..render.style import Style
    return Style.for_stream(sys.stdout, color=color)


FAIL_ON = click.Choice(["error", "warning", "info", "never"])


def chosen_python(python: Optional[str]) -> str:
    """--python, or the interpreter the user works in (said on stderr when it is not ours)."""
    from ..interpreter import resolve
    choice = resolve(python)
    if choice.note():
        from ..render.safe import line  # it names paths from $VIRTUAL_ENV / $CONDA_PREFIX / PATH
        click.echo("torchdoctor: %s" % line(choice.note()), err=True)
    return choice.python


def exit_code_for(report, fail_on: str) -> int:
    from ..findings import severity_rank
    if fail_on == "never":
        return 0
    return 1 if report.worst() >= severity_rank(fail_on) else 0


def positive(ctx, param, value):
    if value is not None and value <= 0:
        raise click.BadParameter("must be a positive number of seconds")
    return value
