"""The click group: the verbs, loaded lazily, and the errors click must show our way."""

import importlib

import click

from .. import __version__
from . import streams
from .common import EXIT_INPUT, EXIT_INTERRUPTED, InputError, say_interrupted

# verb -> (module of cli/, its click command). A verb's module is imported when the verb
# runs (or --help lists them), so `explain` does not pay for lint's, tune's or dist's imports.
VERBS = {
    "check": ("check", "check"),
    "explain": ("explain", "explain"),
    "report": ("reports", "report_cmd"),
    "triage": ("reports", "triage_cmd"),
    "diff": ("reports", "diff_cmd"),
    "lint": ("lint", "lint"),
    "tune": ("tune", "tune"),
    "dist": ("dist", "dist"),
    "run": ("run", "run_cmd"),
    "fix": ("fix", "fix_cmd"),
    "mcp": ("mcp", "mcp_cmd"),
}


class _ClickInputError(click.ClickException):
    """An InputError raised under click: click shows it and exits 2, as for its own errors."""

    exit_code = EXIT_INPUT

    def __init__(self, error: InputError):
        super().__init__(error.message)
        self.error = error

    def show(self, file=None):
        self.error.show()


class _UsageError(click.ClickException):
    """click's usage error in one line, as every other error (click's own is a usage block,
    a blank line and the error: four lines), naming the command's --help, and for an
    unknown verb the nearest ones."""

    exit_code = EXIT_INPUT

    def __init__(self, error: click.UsageError):
        super().__init__(error.format_message())
        self.error = InputError(_one_line(error))

    def show(self, file=None):
        self.error.show()


_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click 8.2+: a UsageError that shows the help


def _one_line(error: click.UsageError) -> str:
    text = " ".join(error.format_message().split())
    path = error.ctx.command_path if error.ctx is not None else "torchdoctor"
    return "%s (see `%s --help`)" % (text.rstrip("."), path)


class _Interrupted(click.ClickException):
    """Ctrl-C in a verb: one line and exit 130 (click's own "Aborted!" exits 1, which
    reads as "findings")."""

    exit_code = EXIT_INTERRUPTED

    def __init__(self):
        super().__init__("interrupted")

    def show(self, file=None):
        say_interrupted()


class _Group(click.Group):
    # Verbs load lazily (VERBS). click turns EPIPE into exit 1 ("findings"); main() decides
    # instead. make_context prints --help and --version, invoke runs the verb.
    def list_commands(self, ctx):
        return sorted(set(VERBS) | set(self.commands))

    def get_command(self, ctx, name):
        if name not in self.commands and name in VERBS:
            module, attr = VERBS[name]
            self.add_command(getattr(importlib.import_module("." + module, __package__), attr), name)
        return self.commands.get(name)

    def resolve_command(self, ctx, args):
        name = args[0] if args else None
        if name is not None and not name.startswith("-") and self.get_command(ctx, name) is None:
            import difflib
            near = difflib.get_close_matches(name, self.list_commands(ctx), n=2, cutoff=0.6)
            hint = "; did you mean %s?" % " or ".join(near) if near else ""
            ctx.fail("no such command %r%s" % (name, hint))
        return super().resolve_command(ctx, args)

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except streams.OutputGone as e:
            raise streams.StdoutFailed(e)
        except _HELP:  # `torchdoctor` alone: the help, as click shows it
            raise
        except click.UsageError as e:
            raise _UsageError(e) from None

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except streams.OutputGone as e:
            raise streams.StdoutFailed(e)
        except _HELP:  # `torchdoctor` alone: the help, as click shows it
            raise
        except click.UsageError as e:
            raise _UsageError(e) from None
        except InputError as e:
            raise _ClickInputError(e) from None
        except KeyboardInterrupt:
            raise _Interrupted() from None


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchdoctor")
def cli():
    """Diagnose PyTorch environments and explain PyTorch errors."""
