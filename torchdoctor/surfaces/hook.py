"""The exception hook: on an uncaught exception, the normal traceback (whatever hook was
there prints it: Python's, IPython's, rich's, a framework's), then, when the traceback
holds a known PyTorch error, the diagnosis tailored to this very process (surfaces/live).

Inert until install(); installing costs a few attribute assignments (the knowledge base,
click and the renderers load only when an exception actually arrives). Both
`sys.excepthook` and `threading.excepthook` are chained, never replaced outright.
"""

import sys
import threading

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


def exception_text(exc: BaseException) -> str:
    """What the matcher reads: the chain of exceptions (causes first) as Python prints it,
    frames as file/line/function only. Source lines are left out: a test's or a script's
    own code (`pytest.raises(match="CUDA out of memory")`) is not an error message."""
    import traceback
    chain, seen, e = [], set(), exc
    while e is not None and id(e) not in seen and len(chain) < 20:
        seen.add(id(e))
        chain.append(e)
        e = e.__cause__ if e.__cause__ is not None else (None if e.__suppress_context__ else e.__context__)
    out = []
    for e in reversed(chain):
        frames = list(traceback.walk_tb(e.__traceback__))[-50:]
        if frames:
            out.append("Traceback (most recent call last):")
            out.extend('  File "%s", line %d, in %s' % (f.f_code.co_filename, n, f.f_code.co_name) for f, n in frames)
        out.extend(ln.rstrip("\n") for ln in traceback.format_exception_only(type(e), e))
    return "\n".join(out) + "\n"


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
        from ..gather.live import live_facts
        from ..diagnose import explain_matches
        from ..match.matcher import match_text
        from ..render import brief
        from ..render.style import Style
        from ..render.text import render_explain
        matches = match_text(exception_text(exc))
        if not matches:
            return False
        facts = live_facts()
        exps = explain_matches(matches[:3], facts)
        st = Style.for_stream(out)
        head = "torchdoctor" + (" (thread %s)" % thread if thread else "")
        lines = ["", brief.rule(head, st), render_explain(exps, st, lines=False).rstrip("\n")]
        live = brief.live_line(facts)
        if live:
            lines.append(st.paint(live, "dim"))
        out.write("\n".join(lines) + "\n")
        out.flush()
        return True
    except Exception as e:  # noqa: BLE001 - never a second traceback from the doctor
        try:
            out.write("torchdoctor: the diagnosis failed (%s: %s)\n" % (type(e).__name__, e))
        except Exception:  # noqa: BLE001
            pass
        return False
    finally:
        _state["busy"] = False
