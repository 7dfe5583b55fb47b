"""`torchdoctor run` from its options to its exit status: where the diagnosis may go (checked
before the program starts), the run (runner.py), and what happens after the program ends:
the post-mortem (postmortem.py), the diagnosis on stderr when it failed, the JSON of it to a
descriptor or a file, the bug-report attachment. The CLI (cli/run.py) parses the options and
calls `run`; every line for the user goes through its `say`.

Exit status: always the program's (128 + N when a signal N ended it; when that signal is
SIGINT, SIGTERM, SIGHUP or SIGPIPE, the doctor ends by the same signal after its diagnosis,
as a shell would see the program end); 127 / 126 when it cannot be started, like a shell.
"""

import json
import os
import sys
from typing import Callable, List, Optional, Tuple

from ..common import InputError

Target = Tuple[str, object]  # ("fd", n) or ("path", p)


# -- before the program runs ------------------------------------------------------------------
def check_target(path: str, what: str) -> None:
    """A file `path` may become (userfiles.write_output's rules; `run` has no --force, so a
    link, pipe or device is refused) that is not the program's stdout."""
    if os.path.isdir(path):
        raise InputError("%s %s is a directory; give a file name" % (what, path))
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise InputError("%s %s: the folder %s does not exist" % (what, path, parent))
    if _same_as_stdout(path):
        raise InputError("%s %s is the program's standard output; give another file" % (what, path))
    from ...userfiles import check_output
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


def json_target(value: Optional[str]) -> Optional[Target]:
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
    check_target(value, "--json")
    return ("path", value)


# -- the run ------------------------------------------------------------------------------------
def run(argv: List[str], say: Callable[[str], None], report_path: Optional[str] = None,
        json_to: Optional[str] = None, python: Optional[str] = None, show_all: bool = False,
        no_redact: bool = False, color: Optional[bool] = None) -> int:
    """Run `argv` and diagnose its end: -> the exit status (the program's). Where the
    diagnosis goes is checked first (InputError before anything ran)."""
    if report_path:
        check_target(report_path, "--report")
    target = json_target(json_to)
    from .runner import Runner, StartError
    from .signals import oom_kill_count
    oom_before = oom_kill_count()
    runner = Runner(argv)
    try:
        runner.start()
    except StartError as e:
        say("torchdoctor: error: %s" % e.message)
        return e.status
    result = runner.wait()
    status = result.exit_status
    try:
        after(result, status, oom_before, say, python, target, report_path, no_redact, show_all, color)
    except BaseException as e:  # noqa: BLE001 - even Ctrl-C or an exit here: the program's status stands
        what = "interrupted" if isinstance(e, KeyboardInterrupt) else "%s: %s" % (type(e).__name__, e)
        say("torchdoctor: the diagnosis failed (%s); the program's output and exit status %d are "
            "unaffected" % (what, status))
    if result.returncode < 0:
        from .terminal import die_by
        die_by(-result.returncode)
    return status


# -- after it ended -----------------------------------------------------------------------------
def after(result, status: int, oom_before: Optional[int], say: Callable[[str], None], python: Optional[str],
          target: Optional[Target], report_path: Optional[str], no_redact: bool, show_all: bool,
          color: Optional[bool]) -> None:
    """The post-mortem of a run that ended: said when it failed, written where asked."""
    # A program our reader left (`cmd | head`) ended as it would have without us: no failure.
    failed = result.returncode != 0 and not result.broken_pipe
    if not (failed or target or report_path):
        return  # success prints nothing extra
    from .postmortem import examine_run, report_section
    from .signals import oom_kill_count
    pm = examine_run(result, python, oom_before=oom_before, oom_after=oom_kill_count() if failed else None)
    if failed:
        say(diagnosis_text(pm, status, show_all, color))
    if target:
        try:
            write_json(target, json.dumps(pm.to_dict(), indent=2, default=str) + "\n")
        except OSError as e:
            say("torchdoctor: could not write --json %s: %s" % (target[1], e.strerror or e))
        except ValueError as e:  # write_output's one line
            say("torchdoctor: could not write --json: %s" % e)
    if report_path:
        from ...surfaces import attachment
        from ...userfiles import write_output
        rep = attachment.build("run", report_section(pm), python=pm.python, redact=not no_redact)
        fmt = attachment.fmt_for(report_path)
        try:
            write_output(report_path, attachment.render(rep, fmt, "run"), what="--report", forcible=False)
        except ValueError as e:
            say("torchdoctor: could not write --report: %s" % e)
        else:
            say("torchdoctor: wrote %s (%s, %s)" % (report_path, fmt, "NOT redacted" if no_redact else "redacted"))


def write_json(target: Target, text: str) -> None:
    kind, where = target
    if kind == "fd":
        data = text.encode("utf-8")
        while data:
            n = os.write(where, data)  # type: ignore[arg-type]
            data = data[n:]
    else:
        from ...userfiles import write_output
        write_output(str(where), text, what="--json", forcible=False)


def diagnosis_text(pm, status: int, show_all: bool, color: Optional[bool]) -> str:
    """What stderr gets after a failed program's own output."""
    import shlex

    from ...render import brief
    from ...render.style import Style
    from ...render.text import render_explain
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
    return "\n".join(lines)


def _short(cmd: str, width: int = 60) -> str:
    return cmd if len(cmd) <= width else cmd[: width - 3] + "..."
