"""`torchdoctor run -- CMD [ARGS...]`: run a command unchanged and, when it fails with a
known error (or dies by a signal), say why after its output, on stderr. The verb is
verbs/run/verb.py; here are its options.

Exit status: always the program's (128 + N when a signal N ended it; when that signal is
SIGINT, SIGTERM, SIGHUP or SIGPIPE, the doctor ends by the same signal after its
diagnosis, as a shell would see the program end); 127 / 126 when it cannot be started,
like a shell; 2 for a usage error before anything ran.
"""

import sys

import click

from .common import InputError


@click.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--report", "report_path", metavar="FILE",
              help="Write a redacted bug-report attachment of the run (Markdown, or JSON for *.json): "
                   "environment, diagnosis, the tail of the output.")
@click.option("--json", "json_to", metavar="FD|PATH",
              help="Write the diagnosis as JSON to a file descriptor (e.g. 3, with 3>out.json) or a path; "
                   "never to the program's stdout.")
@click.option("--python", "python", metavar="PATH",
              help="Tailor the fix to this interpreter (default: the one CMD runs, from its name or shebang).")
@click.option("--all", "show_all", is_flag=True, help="Explain every known error found, not just the best.")
@click.option("--no-redact", is_flag=True, help="Keep names, addresses and secrets in --report (it then says so).")
@click.option("--color/--no-color", default=None, help="Force colour on or off for the diagnosis.")
@click.argument("cmd", nargs=-1, type=click.UNPROCESSED, metavar="-- CMD [ARGS]...")
def run_cmd(report_path, json_to, python, show_all, no_redact, color, cmd):
    """Run CMD as if the doctor were not there (output, stdin, signals, exit status all
    the program's) and explain a failure after its output."""
    argv = list(cmd)
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise InputError("no command given: torchdoctor run -- CMD [ARGS...]")
    if argv[0].startswith("-"):
        raise InputError("no such option: %s (torchdoctor run [OPTIONS] -- CMD [ARGS...]; --fail-on does not "
                         "apply: the exit status is always the program's)" % argv[0])
    from ..verbs.run import verb
    sys.exit(verb.run(argv, _say, report_path=report_path, json_to=json_to, python=python, show_all=show_all,
                      no_redact=no_redact, color=color))


def _say(text: str) -> None:
    # click.echo, as every verb's stderr: it drops colour codes where stderr is no terminal
    try:
        click.echo(text, err=True)
    except (OSError, ValueError):
        pass
