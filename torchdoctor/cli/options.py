"""click option types and callbacks that several verbs share."""

import math

import click

from .common import InputError

FAIL_ON = click.Choice(["error", "warning", "info", "never"])
# Which interpreter a verb uses without --python: verbs/common.chosen_python, for every verb.
PYTHON_DEFAULT = "default: this one; when it has no torch, the active virtualenv or conda env, else the first python3 on PATH"


def positive(ctx, param, value):
    """A time limit or a count: a finite number above 0 (nan and inf are neither: a limit of
    inf never ends, and both would reach JSON output that cannot hold them)."""
    if value is not None and not (value > 0 and math.isfinite(value)):
        seconds = " of seconds" if isinstance(param.type, click.types.FloatParamType) else ""
        raise InputError("%s must be a positive number%s (got %s)" % (param.opts[0], seconds, value))
    return value
