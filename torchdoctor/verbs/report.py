"""`torchdoctor report`: a bug-report attachment of an interpreter (summary, findings with
fixes, every fact), redacted by default, rendered to Markdown, JSON or text, and where it
goes: a file, the clipboard, standard output. The CLI and the MCP server's `report` call
`report` and `render_report`."""

import os
import sys
from typing import List, Optional, Tuple

from .common import InputError


def report(python: Optional[str] = None, timeout: float = 60.0, redact: Optional[bool] = True,
           isolated_from: Optional[str] = None):
    """The report of `python`: its facts with the ones only a report carries, diagnosed.
    redact: True redacts it, False marks it NOT redacted, None leaves it for the caller to
    redact (the MCP server redacts every result at one point)."""
    from ..diagnose import examine
    return examine(python, timeout, extras=True, redact=redact, isolated_from=isolated_from)


def check_target(output: Optional[str], force: bool) -> None:
    """Before the probe: a name that cannot be written must not cost a minute."""
    if output is None:
        return
    from ..userfiles import check_output
    try:
        check_output(output, force=force)
    except ValueError as e:
        raise InputError(str(e))


def deliver(text: str, fmt: str, output: Optional[str], force: bool, copy: bool, redacted: bool) -> Tuple[List[str], bool]:
    """Write `text` to `output` and/or the clipboard: -> (the lines to say on stderr, whether
    standard output should get the text too: when neither took it)."""
    said = []
    if output:
        from ..userfiles import write_output
        try:
            write_output(output, text, force=force)
        except ValueError as e:
            raise InputError(str(e))
        said.append("torchdoctor: wrote %s (%s, %d characters, %s)" % (
            output, fmt, len(text), "redacted" if redacted else "NOT redacted"))
    if copy:
        ok, msg = copy_to_clipboard(text)
        said.append("torchdoctor: %s" % msg)
        if ok:
            return said, False
    return said, not output


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
