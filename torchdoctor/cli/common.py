"""What every verb shares: the usage error, exit codes, output and colour, and which
interpreter a verb diagnoses when --python is not given.

Nothing here imports click at import time: `explain`'s fast path (cli/explain_fast.py)
runs on these without click. click's option types live in cli/options.py.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import sys
from typing import List, Optional

from . import streams

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


class InputError(Exception):
    """Bad input or usage: a one-line message and exit status 2.

    Not a click exception, so that code without click can raise and show it; the click
    group turns it into one where a verb runs (cli/group.py)."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def show(self, file=None) -> None:
        from ..render.safe import line  # the message may quote a file name or a value from it
        streams.say("torchdoctor: error: %s" % line(self.message))


def say_interrupted() -> None:
    streams.say("torchdoctor: interrupted")


def split_ids(values) -> List[str]:
    out: List[str] = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def echo(text: str) -> None:
    # The verb's Style already chose colour (TTY, NO_COLOR, --color/--no-color) and
    # render.safe neutralised every control in the data, so click must not strip
    # codes on its own (that made --color a no-op on pipes, `| less -R`).
    import click
    click.echo(text, nl=False, color=True)


def style(color: Optional[bool]):
    from ..render.style import Style
    return Style.for_stream(sys.stdout, color=color)


def chosen_python(python: Optional[str]) -> str:
    """--python, or the interpreter the user works in (said on stderr when it is not ours)."""
    from ..gather.interpreter import resolve
    choice = resolve(python)
    if choice.note():
        from ..render.safe import line  # it names paths from $VIRTUAL_ENV / $CONDA_PREFIX / PATH
        streams.say("torchdoctor: %s" % line(choice.note()))
    return choice.python


def exit_code_for(report, fail_on: str) -> int:
    from ..model.findings import severity_rank
    if fail_on == "never":
        return 0
    return 1 if report.worst() >= severity_rank(fail_on) else 0
