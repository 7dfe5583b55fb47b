"""The command line: a click group of thin verbs over torchdoctor.diagnose and the
renderers (cli/group.py). One module per verb family; what they share is in
cli/common.py.

`main` does not import click for a plain `explain`: that verb's cold start is most of
its time, and click is a third of it. cli/explain_fast.py parses the options it is
sure of with the same option table as the click command, and hands everything else
(--help, a bad option, Windows, an ASCII stdout) to click.

Exit codes (all verbs): 0 healthy / recognised, 1 findings at --fail-on or nothing
recognised, 2 usage or input error (one line on stderr, no traceback), 130 interrupted.
"""

import sys

from . import streams
from .common import EXIT_INPUT, EXIT_INTERRUPTED, InputError, say_interrupted  # noqa: F401 - EXIT_INPUT: part of the module's names, as before


def __getattr__(name):
    # `from torchdoctor.cli import cli` / VERBS: the click group, imported when asked for
    if name in ("cli", "VERBS"):
        from . import group
        return getattr(group, name)
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


def _run(argv) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if args[:1] == ["dist"]:  # a rank: a launcher's SIGTERM during start-up must not end it silently
        from ..verbs.dist import early
        early.catch()
    if args[:1] == ["explain"]:
        from . import explain_fast
        code = explain_fast.run(args[1:])
        if code is not None:
            return code
    from .group import cli
    # argv as given: with None, click reads sys.argv itself (and expands wildcards on Windows)
    cli.main(args=argv, prog_name="torchdoctor", standalone_mode=True)
    return 0


def main(argv=None):
    """The console script. A standard stream that fails is never a traceback (see
    cli/streams.py): a failed write is one line and exit 2, a reader that left exit 0."""
    streams.install()
    try:
        code = _run(argv)
    except SystemExit as e:
        code = e.code
    except InputError as e:  # raised on the fast path (under click it is click's to show)
        e.show()
        code = e.exit_code
    except KeyboardInterrupt:
        say_interrupted()
        code = EXIT_INTERRUPTED
    except streams.StdoutFailed as e:
        code = streams.output_failed(e.error)
    except streams.OUTPUT_ERRORS as e:
        code = streams.output_failed(e)
    sys.exit(streams.finish(code))


if __name__ == "__main__":
    main()
