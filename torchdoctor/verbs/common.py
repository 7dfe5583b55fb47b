"""What every verb shares, whoever calls it (the CLI, the MCP server, the Python API): the
usage error a verb raises for bad input, the exit codes, the one line on stderr, and which
interpreter a verb diagnoses when none is named.

Cheap to import and free of click: `explain`'s fast path runs on it.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback), 130 interrupted.
"""

import sys
from typing import Optional

EXIT_INPUT = 2
EXIT_INTERRUPTED = 130


class InputError(ValueError):
    """Bad input or usage: a one-line message and exit status 2.

    A ValueError, as a bad argument is in Python: the MCP server answers it as a tool error,
    the API lets it through. Not a click exception, so that code without click can raise and
    show it; the click group turns it into one where a verb runs (cli/group.py)."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def show(self) -> None:
        from ..render.safe import line  # the message may quote a file name or a value from it
        say("torchdoctor: error: %s" % line(self.message))


def say(text: str) -> None:
    """One line on stderr, if stderr can take it (a broken stderr leaves only the exit code)."""
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def chosen_python(python: Optional[str]) -> str:
    """--python, or the interpreter the user works in (said on stderr when it is not ours)."""
    from ..gather.interpreter import resolve
    choice = resolve(python)
    if choice.note():
        from ..render.safe import line  # it names paths from $VIRTUAL_ENV / $CONDA_PREFIX / PATH
        say("torchdoctor: %s" % line(choice.note()))
    return choice.python
