"""`torchdoctor lint`: the click command (a thin adapter over runner and output)."""

import io
import os
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
@click.option("--torch", "torch_spec", metavar="VERSION|RANGE",
              help="Target torch: a version (2.4, 2.13.0+cpu) or a range ('>=2.1,<2.6': every release in it must work). "
                   "Default: the project's torch pins, else the torch installed in --python.")
@click.option("--python", "python", metavar="PATH", help="Interpreter whose installed torch is the target when nothing else says.")
@click.option("--format", "fmt", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True)
@click.option("--select", multiple=True, metavar="CODES", help="Only these rules (codes or prefixes, comma-separated; ALL for every rule).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rules (codes or prefixes, comma-separated).")
@click.option("--exclude", multiple=True, metavar="PATTERN", help="Skip paths matching this gitignore-style pattern (repeatable).")
@click.option("--fix", is_flag=True, help="Apply the exactly equivalent rewrites in place (needs torchdoctor[lint]).")
@click.option("--diff", "show_diff", is_flag=True, help="Print the rewrites --fix would apply as a unified diff; write nothing.")
@click.option("-j", "--jobs", type=click.IntRange(1, 64), default=None, help="Worker processes (default: the CPUs, at most 8).")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE (replaced atomically; a link or non-regular file needs --force).")
@click.option("--force", is_flag=True, help="Replace a symbolic link there (not its target), or write into a pipe or device.")
@click.option("--list-rules", "list_rules", is_flag=True, help="Print the rule table and exit.")
@click.option("--color/--no-color", default=None, help="Force colour on or off (default: on a TTY, unless NO_COLOR).")
def lint(paths, torch_spec, python, fmt, select, ignore, exclude, fix, show_diff, jobs, output, force, list_rules,
         color):
    """Scan code, notebooks and environment files for torch API drift and settings pitfalls.

    PATHS default to the current directory. Exit 0: no findings; 1: findings; 2: usage or
    input error.
    """
    from .common import InputError
    from ..verbs.lint import config as C
    from ..verbs.lint import output as O
    from ..verbs.lint import target as T
    from ..verbs.lint.lintfile import Settings
    from ..verbs.lint.runner import project_target, run
    from ..verbs.lint.walk import Ignore, discover, exclude_matcher

    if output:  # before any work: a link or a device there is refused now, not after the scan
        from ..userfiles import check_output
        try:
            check_output(output, force=force, what="--output")
        except ValueError as e:
            raise InputError(str(e))
    if list_rules:  # text: aligned columns; json: the rules as data; sarif/github: README's Markdown table
        if fmt == "json":
            import json
            from ..verbs.lint import rules as R
            click.echo(json.dumps({"schema_version": 1, "rules": R.rules()}, indent=2))
        else:
            click.echo(O.rules_table(markdown=(fmt != "text")), nl=False)
        sys.exit(0)
    paths = list(paths) or ["."]
    for p in paths:
        if not os.path.exists(p):
            raise InputError("%s: no such file or directory" % p)
    if fix and show_diff:
        raise InputError("--fix and --diff exclude each other (--diff shows what --fix would write)")
    if fix or show_diff:
        from ..verbs.lint.fix import FixUnavailable, require_libcst
        try:
            require_libcst()
        except FixUnavailable as e:
            raise InputError(str(e))
    try:
        cfg = C.load(C.find_pyproject(paths[0]))
        selected = C.selection(_split(select), _split(ignore), cfg)
    except C.ConfigError as e:
        raise InputError(str(e))
    notes = list(cfg.notes)
    spec = torch_spec or cfg.torch
    if spec:
        try:
            target = T.from_option(spec)
        except ValueError as e:
            raise InputError("--torch: %s" % e)
        if not torch_spec:
            target.origin = "%s [tool.torchdoctor.lint] torch" % os.path.relpath(cfg.path)
    else:
        target, tnotes = project_target(paths)
        notes.extend(tnotes)
        if target is None:
            if python and not os.path.exists(python):
                raise InputError("--python %s: no such file" % python)
            target = T.from_installed(python) or T.newest()
    ex = exclude_matcher(_split(exclude), os.getcwd())
    if cfg.exclude:  # patterns of the pyproject.toml are relative to its directory
        ex = Ignore(ex.layers + exclude_matcher(cfg.exclude, os.path.dirname(os.path.abspath(cfg.path))).layers)
    files = list(discover(paths, ex, notes))
    settings = Settings(targets=list(target.versions), cuda=target.cuda, select=selected, want_fixes=True)
    outcome = run(files, settings, jobs)
    notes.extend(outcome.notes)
    findings = outcome.findings
    fixed = fixed_files = 0
    if fix or show_diff:
        from ..verbs.lint.fix import fix_findings
        from ..verbs.lint.inplace import tree_roots
        from ..verbs.lint.lintfile import lint_path
        done = fix_findings(findings, outcome.digests, tree_roots(paths), write=fix)
        notes.extend(done.notes)
        fixed, fixed_files = done.rewrites, len(done.paths)
        if show_diff:
            click.echo("".join(done.diffs), nl=False)
        if fix and done.paths:
            # what is left, at its new place
            again = set(done.paths)
            findings = [f for f in findings if f.path not in again]
            for path in sorted(again):
                findings.extend(lint_path((path, "python"), settings).findings)
            findings.sort(key=lambda f: f.sort_key())
    summary = {"files": outcome.files, "target": target.describe(), "target_dict": target.to_dict(),
               "notes": notes, "fixed": fixed, "fixed_files": fixed_files, "dry_run": show_diff}
    stream = io.StringIO() if output else None
    try:
        _render(fmt, findings, summary, stream, color)
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
    for n in notes:
        from ..render.safe import line  # notes quote the project's own files
        click.echo("torchdoctor: note: %s" % line(n), err=True)
    sys.exit(1 if findings else 0)


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
