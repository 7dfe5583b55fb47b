"""click option types and callbacks that several verbs share."""

import click

FAIL_ON = click.Choice(["error", "warning", "info", "never"])


def positive(ctx, param, value):
    if value is not None and value <= 0:
        raise click.BadParameter("must be a positive number of seconds")
    return value
