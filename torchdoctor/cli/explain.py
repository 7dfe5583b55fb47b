"""`torchdoctor explain` as a click command: known errors in text, a file of any size or
standard input, with the fix tailored to the interpreter the user works in. The verb is
verbs/explain.py; its option table and rendering are in cli/explain_common.py, shared with
the click-free fast path."""

import sys

import click

from . import explain_common
from .common import echo


def _command(fn):
    for flags, param, kind, metavar, help_text in reversed(explain_common.OPTIONS):
        if kind == "switch":
            fn = click.option("%s/%s" % flags, param, default=None, help=help_text)(fn)
        elif kind == "flag":
            fn = click.option(*flags, param, is_flag=True, help=help_text)(fn)
        else:
            fn = click.option(*flags, param, metavar=metavar, help=help_text)(fn)
    fn = click.argument(explain_common.TEXT, nargs=-1)(fn)
    return click.command("explain", help=explain_common.HELP)(fn)


@_command
def explain(**params):
    out, code = explain_common.run(**params)
    echo(out)
    sys.exit(code)
