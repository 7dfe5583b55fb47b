"""The bug-report verbs: ``report`` (for the reporter), ``triage`` and ``diff`` (for the
maintainer). Exit codes as everywhere: 0 fine, 1 findings at --fail-on (triage) or
differences (diff), 2 usage or input error (one line, never a traceback).
"""

import json
import os
import sys
from typing import List, Optional, Tuple

import click

from .common import InputError, chosen_python, echo, exit_code_for, style
from .options import FAIL_ON, positive


def _clipboard_commands() -> List[Tuple[List[str], str]]:
    """(argv, encoding) of the clipboard tools that can work in this session."""
    import shutil
    cands: List[Tuple[List[str], str]] = []
    if sys.platform == "darwin":
        cands.append((["pbcopy"], "utf-8"))
    elif sys.platform == "win32":
        cands.append((["clip"], "utf-16"))
    else:
        if os.environ.get("WAYLAND_DISPLAY"):
            cands.append((["wl-copy"], "utf-8"))
        if os.environ.get("DISPLAY"):
            cands.append((["xclip", "-selection", "clipboard"], "utf-8"))
            cands.append((["xsel", "--clipboard", "--input"], "utf-8"))
        if os.environ.get("WSL_DISTRO_NAME") or os.environ.get("WSL_INTEROP"):
            cands.append((["clip.exe"], "utf-16"))
    return [(argv, enc) for argv, enc in cands if shutil.which(argv[0])]


def copy_to_clipboard(text: str) -> Tuple[bool, str]:
    import subprocess  # only --copy needs it; every other verb starts without it
    cands = _clipboard_commands()
    if not cands:
        return False, ("no clipboard here (no pbcopy, clip, wl-copy with WAYLAND_DISPLAY, or xclip/xsel with "
                       "DISPLAY); use --output FILE and attach the file instead")
    errors = []
    for argv, enc in cands:
        try:
            r = subprocess.run(argv, input=text.encode(enc), stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, timeout=10)
        except (OSError, subprocess.SubprocessError) as e:
            errors.append("%s: %s" % (argv[0], e))
            continue
        if r.returncode == 0:
            return True, "copied the report to the clipboard (%s, %d characters)" % (argv[0], len(text))
        errors.append("%s exited %d: %s" % (argv[0], r.returncode, r.stderr.decode("utf-8", "replace").strip()[:200]))
    return False, "could not copy to the clipboard (%s); use --output FILE instead" % "; ".join(errors)


def render_report(report, fmt: str) -> str:
    if fmt == "markdown":
        from ..render.markdown import render_markdown
        return render_markdown(report)
    if fmt == "json":
        from ..render.json_out import render_json
        return render_json(report)
    from ..redact import redaction_summary
    from ..render import collect_env_view as CE
    from ..render.style import Style
    from ..render.text import render_check
    return "%s\n\n%s\ncollect_env fields\n\n%s" % (redaction_summary(report.facts),
                                                   render_check(report, Style(color=False)),
                                                   CE.render_text(report.facts))


@click.command("report")
@click.option("--format", "fmt", type=click.Choice(["markdown", "json", "text"]), default="markdown", show_default=True,
              help="Markdown for a GitHub issue, JSON to attach (check --from / triage read it), or plain text.")
@click.option("--output", "-o", "output", metavar="FILE",
              help="Write the report to FILE (- for standard output). FILE is replaced atomically; a symbolic "
                   "link or a non-regular file there is refused unless --force.")
@click.option("--force", is_flag=True, help="With --output: replace a symbolic link (not its target), or write into a pipe or device.")
@click.option("--python", "python", metavar="PATH", help="Interpreter to diagnose (default: this one; when it has no torch, the active virtualenv or conda env, else the first python3 on PATH).")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=positive,
              help="Seconds the torch probe may take before it counts as hung.")
@click.option("--no-redact", is_flag=True,
              help="Keep user names, host names, addresses and secrets (the report then says so).")
@click.option("--copy", "copy", is_flag=True, help="Put the report on the clipboard, where there is one.")
def report_cmd(fmt, output, force, python, timeout, no_redact, copy):
    """Write a bug-report attachment: summary, findings with fixes, every fact.

    Redacted by default: user names, home directories, host name, IP addresses,
    GPU UUIDs and secrets (tokens, keys, passwords, credentials in URLs) are
    replaced before anything is rendered.
    """
    if output == "-":
        output = None  # standard output, as everywhere else
    if output is not None:  # before the probe: a bad name must not cost a minute
        from ..userfiles import check_output
        try:
            check_output(output, force=force)
        except ValueError as e:
            raise InputError(str(e))
    from ..diagnose import examine
    rep = examine(chosen_python(python), timeout, extras=True, redact=not no_redact)
    text = render_report(rep, fmt)
    if output:
        from ..userfiles import write_output
        try:
            write_output(output, text, force=force)
        except ValueError as e:
            raise InputError(str(e))
        click.echo("torchdoctor: wrote %s (%s, %d characters, %s)" % (
            output, fmt, len(text), "NOT redacted" if no_redact else "redacted"), err=True)
    if copy:
        ok, msg = copy_to_clipboard(text)
        click.echo("torchdoctor: %s" % msg, err=True)
        if ok or output:
            return
    if not output:
        echo(text)


# ------------------------------------------------------------------- triage --
def _read_paste(file: Optional[str]) -> Tuple[bytes, str]:
    from ..userfiles import display_name, read_head
    from ..verbs.triage import MAX_BYTES
    if file is None:
        if sys.stdin.isatty():
            raise InputError("nothing to triage: give a FILE, or pipe the paste into `torchdoctor triage -`")
        file = "-"
    try:
        return read_head(file, MAX_BYTES + 1, "paste or report"), display_name(file)
    except ValueError as e:
        raise InputError(str(e))


@click.command("triage")
@click.argument("file", required=False, metavar="[FILE|-]")
@click.option("--json", "as_json", is_flag=True, help="Print facts, findings and matches as JSON (check --json's shape).")
@click.option("--fail-on", type=FAIL_ON, default="error", show_default=True,
              help="Exit 1 when a finding reaches this severity.")
@click.option("--color/--no-color", default=None, help="Force colour on or off.")
def triage_cmd(file, as_json, fail_on, color):
    """Diagnose what a user pasted: a torchdoctor report (JSON or Markdown) or
    the output of `python -m torch.utils.collect_env` (any torch version), with
    any error text around it. Reads FILE, or standard input."""
    from ..verbs.triage import TriageError, render_triage_text, triage_bytes
    data, name = _read_paste(file)
    try:
        result = triage_bytes(data, name)
    except TriageError as e:
        raise InputError(str(e))
    if as_json:
        echo(json.dumps(result.to_dict(), indent=2, default=str) + "\n")
    else:
        echo(render_triage_text(result, style(color)))
    sys.exit(exit_code_for(result.report, fail_on))


# --------------------------------------------------------------------- diff --
@click.command("diff")
@click.argument("a", metavar="A")
@click.argument("b", metavar="B")
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
@click.option("--all", "show_all", is_flag=True, help="Compare every fact, not just the ones that matter.")
def diff_cmd(a, b, as_json, show_all):
    """What differs between two reports (torch, CUDA, driver, packages, env
    vars, findings): "works on my machine". A and B may be JSON or Markdown
    reports or collect_env pastes. Exit 0 when they match, 1 when they differ."""
    from ..verbs.diff import diff_reports, load_any, render_diff_text
    from ..verbs.triage import TriageError
    try:
        ra, rb = load_any(a), load_any(b)
    except TriageError as e:
        raise InputError(str(e))
    d = diff_reports(ra, rb, a, b, show_all=show_all)
    if as_json:
        echo(json.dumps(d.to_dict(), indent=2, default=str) + "\n")
    else:
        echo(render_diff_text(d))
    sys.exit(1 if d.changes else 0)


COMMANDS = (report_cmd, triage_cmd, diff_cmd)
