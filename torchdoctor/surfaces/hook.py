"""The exception hook: on an uncaught exception, the normal traceback (whatever hook was
there prints it: Python's, IPython's, rich's, a framework's), then, when the traceback
holds a known PyTorch error, the diagnosis tailored to this very process (surfaces/live).

Inert until install(); installing costs a few attribute assignments (the knowledge base,
click and the renderers load only when an exception actually arrives). Both
`sys.excepthook` and `threading.excepthook` are chained, never replaced outright.

A guest in the program's process: what the diagnosis imports comes from the interpreter's
library folders only (surfaces/guest.py), never from the program's folder or the current
directory, and what it reads of an exception is bounded (MESSAGE_MAX, TEXT_MAX), so a
message of megabytes costs a fraction of a second, not minutes, at exit.
"""

import sys
import threading

from . import guest

# What the matcher reads of one exception's message: its first and last halves of this
# (a known error's line opens a message, or ends a wrapped log such as a build's output).
MESSAGE_MAX = 32 * 1024
# ... and of the whole chain with its frames: the most recent exceptions first.
TEXT_MAX = 128 * 1024
CHAIN_MAX = 20
FRAMES_MAX = 50

_state = {"active": False, "sys_prev": None, "sys_ours": None, "thread_prev": None, "thread_ours": None,
          "file": None, "busy": False}


def installed() -> bool:
    return bool(_state["active"])


def install(file=None) -> None:
    """Chain the hooks (idempotent). `file`: where the diagnosis goes (default: sys.stderr
    at the time of the exception)."""
    _state["file"] = file
    if _state["active"]:
        return
    prev = sys.excepthook

    def excepthook(etype, value, tb):
        try:
            prev(etype, value, tb)
        finally:
            if _state["active"] and _state["sys_ours"] is excepthook:
                diagnose_exception(value)

    tprev = threading.excepthook

    def thread_excepthook(args):
        try:
            tprev(args)
        finally:
            if _state["active"] and _state["thread_ours"] is thread_excepthook and args.exc_value is not None:
                diagnose_exception(args.exc_value, thread=getattr(args.thread, "name", None))

    _state.update(active=True, sys_prev=prev, sys_ours=excepthook, thread_prev=tprev,
                  thread_ours=thread_excepthook)
    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook


def uninstall() -> None:
    """Put back the hooks that were there; if someone chained onto ours since, ours stays
    in their chain but does nothing any more."""
    if not _state["active"]:
        return
    if sys.excepthook is _state["sys_ours"]:
        sys.excepthook = _state["sys_prev"]
    if threading.excepthook is _state["thread_ours"]:
        threading.excepthook = _state["thread_prev"]
    _state.update(active=False, sys_ours=None, thread_ours=None)


def head_and_tail(text: str, limit: int) -> str:
    """`text` when it fits in `limit` characters, else its first and last halves with a
    line saying how much was left out between them."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return "%s\n[torchdoctor: %d characters left out]\n%s" % (text[:half], len(text) - 2 * half, text[-half:])


def exception_text(exc: BaseException) -> str:
    """What the matcher reads: the chain of exceptions (causes first) as Python prints it,
    frames as file/line/function only. Source lines are left out: a test's or a script's
    own code (`pytest.raises(match="CUDA out of memory")`) is not an error message.
    Bounded: each message to MESSAGE_MAX, the whole to TEXT_MAX (older causes go first)."""
    import traceback
    chain, seen, e = [], set(), exc
    while e is not None and id(e) not in seen and len(chain) < CHAIN_MAX:
        seen.add(id(e))
        chain.append(e)
        e = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
    blocks, size = [], 0
    for e in chain:  # the most recent first: it is kept when the chain does not fit
        lines = []
        frames = list(traceback.walk_tb(e.__traceback__))[-FRAMES_MAX:]
        if frames:
            lines.append("Traceback (most recent call last):")
            lines.extend('  File "%s", line %d, in %s' % (f.f_code.co_filename, n, f.f_code.co_name)
                         for f, n in frames)
        message = "".join(traceback.format_exception_only(type(e), e)).rstrip("\n")
        lines.append(head_and_tail(message, MESSAGE_MAX))
        block = head_and_tail("\n".join(lines), TEXT_MAX)
        if blocks and size + len(block) > TEXT_MAX:
            break
        blocks.append(block)
        size += len(block) + 1
    return "\n".join(reversed(blocks)) + "\n"


def diagnose_exception(exc: BaseException, thread=None, file=None) -> bool:
    """Print the diagnosis of `exc` if it is a known error; True when something was printed.
    Never raises: a failure of its own is one line."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)) or _state["busy"]:
        return False
    out = file or _state["file"] or sys.stderr
    if out is None:
        return False
    _state["busy"] = True
    try:
        with guest.Visit() as visit:  # never a second traceback from the doctor
            return _diagnose(exc, thread, out)
        with guest.Visit():
            out.write("torchdoctor: the diagnosis failed (%s)\n" % visit.error)
        return False
    finally:
        _state["busy"] = False


def _diagnose(exc: BaseException, thread, out) -> bool:
    from ..diagnose import explain
    from ..gather.live import live_facts
    from ..render import brief
    from ..render.style import Style
    from ..render.text import render_explain
    exps, facts = explain(exception_text(exc), gather=live_facts, limit=3)
    if not exps:
        return False
    st = Style.for_stream(out)
    head = "torchdoctor" + (" (thread %s)" % thread if thread else "")
    lines = ["", brief.rule(head, st), render_explain(exps, st, lines=False).rstrip("\n")]
    live = brief.live_line(facts)
    if live:
        lines.append(st.paint(live, "dim"))
    out.write("\n".join(lines) + "\n")
    out.flush()
    return True
