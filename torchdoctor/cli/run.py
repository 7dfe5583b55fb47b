"""`torchdoctor run -- CMD [ARGS...]`: run a command unchanged and, when it fails with a
known error (or dies by a signal), say why after its output, on stderr.

Exit status: always the program's (128 + N when a signal N ended it; when that signal is
SIGINT, SIGTERM, SIGHUP or SIGPIPE, the doctor ends by the same signal after its
diagnosis, as a shell would see the program end); 127 / 126 when it cannot be started,
like a shell; 2 for a usage error before anything ran.
"""

import json
import os
import sys

import click

from .common import InputError


def _check_target(path: str, what: str) -> None:
    """Before the program runs: a file `path` may become (userfiles.write_output's rules; `run`
    has no --force, so a link, pipe or device is refused) that is not the program's stdout."""
    if os.path.isdir(path):
        raise InputError("%s %s is a directory; give a file name" % (what, path))
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError("%s %s: the folder %s does not exist" % (what, path, parent))
    if _same_as_stdout(path):
        raise InputError("%s %s is the program's standard output; give another file" % (what, path))
    from ..userfiles import check_output
    try:
        check_output(path, what=what, forcible=False)
    except ValueError as e:
        raise InputError(str(e))


def _same_as_stdout(path: str) -> bool:
    try:
        a, b = os.stat(path), os.fstat(1)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _json_target(value):
    """--json FD|PATH -> ('fd', n) or ('path', p), checked before the program runs."""
    if value is None:
        return None
    if value.isdigit():
        fd = int(value)
        if fd == 1:
            raise InputError("--json 1 is the program's standard output; give another descriptor or a path")
        try:
            os.fstat(fd)
        except OSError:
            raise InputError("--json %d: file descriptor %d is not open (e.g. run with 3>diagnosis.json)" % (fd, fd))
        try:
            os.set_inheritable(fd, False)  # the doctor's own: the program does not get it
        except OSError:
            pass
        return ("fd", fd)
    _check_target(value, "--json")
    return ("path", value)


def _write_json(target, text: str) -> None:
    kind, where = target
    if kind == "fd":
        data = text.encode("utf-8")
        while data:
            n = os.write(where, data)
            data = data[n:]
    else:
        from ..userfiles import write_output
        write_output(where, text, what="--json", forcible=False)


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
    if report_path:
        _check_target(report_path, "--report")
    target = _json_target(json_to)
    from ..verbs.run.runner import Runner, StartError
    from ..verbs.run.signals import oom_kill_count
    oom_before = oom_kill_count()
    runner = Runner(argv)
    try:
        runner.start()
    except StartError as e:
        click.echo("torchdoctor: error: %s" % e.message, err=True)
        sys.exit(e.status)
    result = runner.wait()
    status = result.exit_status
    try:
        _after(result, status, oom_before, python, target, report_path, no_redact, show_all, color)
    except BaseException as e:  # noqa: BLE001 - even Ctrl-C or an exit here: the program's status stands
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else "%s: %s" % (type(e).__name__, e)
        _say("torchdoctor: the diagnosis failed (%s); the program's output and exit status %d are "
             "unaffected" % (what, status))
    if result.returncode < 0:
        from ..verbs.run.terminal import die_by
        die_by(-result.returncode)
    sys.exit(status)


def _say(line: str) -> None:
    try:
        click.echo(line, err=True)
    except (OSError, ValueError):
        pass


def _after(result, status, oom_before, python, target, report_path, no_redact, show_all, color):
    # A program our reader left (`cmd | head`) ended as it would have without us: no failure.
    failed = result.returncode != 0 and not result.broken_pipe
    if not (failed or target or report_path):
        return  # success prints nothing extra
    from ..verbs.run.postmortem import examine_run, report_section
    from ..verbs.run.signals import oom_kill_count
    pm = examine_run(result, python, oom_before=oom_before, oom_after=oom_kill_count() if failed else None)
    if failed:
        _render(pm, status, show_all, color)
    if target:
        try:
            _write_json(target, json.dumps(pm.to_dict(), indent=2, default=str) + "\n")
        except OSError as e:
            _say("torchdoctor: could not write --json %s: %s" % (target[1], e.strerror or e))
        except ValueError as e:  # write_output's one line
            _say("torchdoctor: could not write --json: %s" % e)
    if report_path:
        from ..userfiles import write_output
        from ..surfaces import attachment
        rep = attachment.build("run", report_section(pm), python=pm.python, redact=not no_redact)
        fmt = attachment.fmt_for(report_path)
        try:
            write_output(report_path, attachment.render(rep, fmt, "run"), what="--report", forcible=False)
        except ValueError as e:
            _say("torchdoctor: could not write --report: %s" % e)
        else:
            _say("torchdoctor: wrote %s (%s, %s)" % (report_path, fmt, "NOT redacted" if no_redact else "redacted"))


def _render(pm, status, show_all, color) -> None:
    import shlex

    from ..render import brief
    from ..render.style import Style
    from ..render.text import render_explain
    st = Style.for_stream(sys.stderr, color=color)
    r = pm.result
    how = "was killed by %s (exit status %d)" % (r.signal_name, status) if r.returncode < 0 \
        else "exited with status %d" % status
    head = "torchdoctor: %s %s" % (_short(shlex.join(r.argv)), how)
    if pm.explanations:
        body = render_explain(pm.explanations, st, show_all=show_all).replace("(use --all for details)",
                                                                             "(torchdoctor run --all for details)")
        lines = ["", brief.rule(head, st), body.rstrip("\n"),
                 st.paint("(fixes for %s: %s)" % (pm.python, pm.python_from), "dim")]
    elif pm.signal:
        lines = ["", brief.rule(head, st)] + brief.render_signal(pm.signal, st)
    elif pm.error or r.scan_error:
        lines = ["torchdoctor: the diagnosis failed (%s); the program's output and exit status %d are "
                 "unaffected" % (pm.error or r.scan_error, status)]
    else:
        lines = [st.paint("torchdoctor: no known PyTorch error in the output (%s)" % how.replace("was ", ""), "dim")]
    click.echo("\n".join(lines), err=True)


def _short(cmd: str, width: int = 60) -> str:
    return cmd if len(cmd) <= width else cmd[: width - 3] + "..."
