"""What every command shares: output and colour, --only/--skip lists, the exit code of a
report; the usage error, exit codes and the interpreter chosen when --python is not given
are the verbs' (verbs/common.py), named here too for the commands.

Nothing here imports click at import time: `explain`'s fast path (cli/explain_fast.py)
runs on these without click. click's option types live in cli/options.py.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import sys
from typing import List, Optional

from ..verbs.common import EXIT_INPUT, EXIT_INTERRUPTED, InputError, chosen_python  # noqa: F401 - the CLI's names
from . import streams


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


def exit_code_for(report, fail_on: str) -> int:
    from ..model.findings import severity_rank
    if fail_on == "never":
        return 0
    return 1 if report.worst() >= severity_rank(fail_on) else 0
