"""The command line: a click group of thin verbs over torchdoctor.diagnose and the
renderers. One module per verb family; what they share is in cli/common.py.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback).
"""

import importlib
import sys

import click

from .. import __version__
from . import streams
from .common import EXIT_INPUT, InputError  # noqa: F401 - the names other modules and tests use

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
    "mcp": ("mcp", "mcp_cmd"),
}


class _Group(click.Group):
    # Verbs load lazily (VERBS). click turns EPIPE into exit 1 ("findings"); main() decides
    # instead. make_context prints --help and --version, invoke runs the verb.
    def list_commands(self, ctx):
        return sorted(set(VERBS) | set(self.commands))

    def get_command(self, ctx, name):
        if name not in self.commands and name in VERBS:
            module, attr = VERBS[name]
            self.add_command(getattr(importlib.import_module("." + module, __name__), attr), name)
        return self.commands.get(name)

    def make_context(self, *args, **kwargs):
        try:
            return super().make_context(*args, **kwargs)
        except streams.OutputGone as e:
            raise _StdoutFailed(e)

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except streams.OutputGone as e:
            raise _StdoutFailed(e)


class _StdoutFailed(Exception):
    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="torchdoctor")
def cli():
    """Diagnose PyTorch environments and explain PyTorch errors."""


def main(argv=None):
    """The console script. A standard stream that fails is never a traceback (see
    cli/streams.py): a failed write is one line and exit 2, a reader that left exit 0."""
    streams.install()
    code = 0
    try:
        cli.main(args=argv, prog_name="torchdoctor", standalone_mode=True)
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:
        streams.say("torchdoctor: interrupted")
        code = 130
    except _StdoutFailed as e:
        code = streams.output_failed(e.error)
    except streams.OUTPUT_ERRORS as e:
        code = streams.output_failed(e)
    sys.exit(streams.finish(code))


if __name__ == "__main__":
    main()
