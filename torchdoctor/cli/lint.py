"""`torchdoctor lint`: the click command (options -> verbs.lint.run -> render)."""

import io
import sys

import click

from .streams import OutputFailed


def _split(values):
    out = []
    for v in values or ():
        out.extend(x.strip() for x in v.split(",") if x.strip())
    return out


def _emit(text: str, output) -> None:
    if output:
        output.write(text)
    else:
        click.echo(text, nl=False)


@click.command("lint")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--torch", "torch_spec", metavar="VERSION|RANGE|installed",
              help="Target torch: a version (2.4, 2.13.0+cpu), a range ('>=2.1,<2.6': every release in it must work) "
                   "or 'installed' (the torch installed in --python). Default: the project's torch pins, else the "
                   "torch of --python when given, else the default range: every release from the oldest the API scan read "
                   "to the newest the tables know.")
@click.option("--python", "python", metavar="PATH",
              help="Interpreter whose installed torch --torch installed reads (alone: the target when nothing is pinned).")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True)
@click.option("--select", multiple=True, metavar="CODES", help="Only these rules (codes or prefixes, comma-separated; ALL for every rule).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (codes or prefixes, comma-separated).")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Skip paths matching this gitignore-style pattern (repeatable).")
@click.option("--stdin-filename", "stdin_filename", metavar="PATH",
              help="With `-` (the source on standard input): the path it stands for, in the messages and for the "
                   "project's pins, [tool.torchdoctor.lint] and per-file-ignores.")
@click.option("--fix", is_flag=True, help="Apply the exactly equivalent rewrites in place (needs LibCST); with `-`, "
                                          "print the fixed source (the report goes to stderr).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the rewrites --fix would apply as a unified diff; write nothing.")
@click.option("--show-suppressed", "show_suppressed", is_flag=True,
              help="Also list the findings guards (hasattr, version checks, try/except) and # noqa hid, and what hid each.")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=None, help="Worker processes (default: the CPUs, at most 8).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE (replaced atomically; a link or non-regular file needs --force).")
@click.option("--force", is_flag=True, help="Replace a symbolic link there (not its target), or write into a pipe or device.")
@click.option("--list-rules", "list_rules", is_flag=True, help="Print the rule table and exit.")
@click.option("--explain", "explain_code", metavar="CODE", help="Print one rule's documentation (TD301) and exit.")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on a TTY, unless NO_COLOR).")
def lint(paths, torch_spec, python, fmt, select, ignore, exclude, stdin_filename, fix, show_diff, show_suppressed, jobs,
         output, force,
         list_rules, explain_code, color):
    """Scan code, notebooks and environment files for torch API drift and settings pitfalls.

    PATHS default to the current directory; `-` reads the source from standard input. Exit 0:
    no findings; 1: findings; 2: usage or input error.
    """
    from .common import InputError
    from ..verbs.lint import output as O
    from ..verbs.lint.command import LintError, Options, run

    if output:  # before any work: a link or a device there is refused now, not after the scan
        from ..userfiles import check_output
        try:
            check_output(output, force=force, what="--output")
        except ValueError as e:
            raise InputError(str(e))
    if explain_code:
        from ..verbs.lint import rules as R
        from ..verbs.lint.ruledocs import explain
        code = explain_code.strip().upper()
        if code not in R.BY_CODE:
            raise InputError("--explain %s: no such rule (torchdoctor lint --list-rules lists them)" % explain_code)
        click.echo(explain(code), nl=False)
        sys.exit(0)
    if list_rules:  # text: aligned columns; json: the rules as data; sarif/github: the docs' Markdown table
        if fmt == "json":
            import json
            from ..verbs.lint import rules as R
            click.echo(json.dumps({"schema_version": 1, "rules": {c: R.row(R.BY_CODE[c]) for c in R.all_codes()}},
                                  indent=2))
        else:
            click.echo(O.rules_table(markdown=(fmt != "text")), nl=False)
        sys.exit(0)
    source = None
    if list(paths) == ["-"] or (not paths and stdin_filename):
        source = sys.stdin.buffer.read()
    opts = Options(paths=list(paths), torch=torch_spec, python=python, select=_split(select), ignore=_split(ignore),
                   exclude=_split(exclude), fix=fix, diff=show_diff, jobs=jobs, source=source,
                   stdin_filename=stdin_filename, show_suppressed=show_suppressed)
    try:
        result = run(opts)
    except LintError as e:
        raise InputError(str(e))
    if show_diff:
        click.echo(result.diffs, nl=False)
    stream = io.StringIO() if output else None
    if result.fixed_source is not None:  # `-` with --fix: standard output is the fixed source, as ruff's
        stream = stream or sys.stderr
    try:
        if result.fixed_source is not None:
            _write_bytes(result.fixed_source)
        _render(fmt, result.findings, result.summary, stream, color)
    except (BrokenPipeError, OutputFailed):  # standard output's: cli.main says it, as for every verb
        raise
    except OSError as e:  # /dev/full, a vanished disk: one line, not a traceback
        raise InputError("cannot write the report: %s" % (e.strerror or e))
    if output:
        from ..userfiles import write_output
        try:
            write_output(output, stream.getvalue(), force=force, what="--output")
        except ValueError as e:
            raise InputError(str(e))
    for n in result.notes:
        from ..render.safe import line  # notes quote the project's own files
        click.echo("torchdoctor: note: %s" % line(n), err=True)
    sys.exit(result.exit_code)


def _write_bytes(data: bytes) -> None:
    """The source as read, byte for byte (its encoding and line endings are the editor's)."""
    sys.stdout.flush()
    buf = getattr(sys.stdout, "buffer", None)
    if buf is None:  # a closed stdout stand-in: its write says so
        sys.stdout.write(data.decode("utf-8", "replace"))
        return
    buf.write(data)
    buf.flush()


def _render(fmt, findings, summary, stream, color):
    from ..verbs.lint import output as O
    if fmt == "json":
        _emit(O.as_json(findings, summary), stream)
    elif fmt == "sarif":
        _emit(O.sarif(findings, summary), stream)
    elif fmt == "github":
        _emit(O.github(findings, summary), stream)
    else:
        from ..render.style import Style
        style = Style.for_stream(stream or sys.stdout, color=color if stream is None else False)
        _emit(O.text(findings, summary, style), stream)
