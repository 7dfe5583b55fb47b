"""The standard streams of the torchdoctor process, made to fail in one clear way.

Every verb writes its result to standard output, and that can fail: a full disk
(`report > /dev/full`: ENOSPC), a device error (EIO), a closed descriptor (`1>&-`), a
reader that left (`| head -1`: EPIPE), an encoding that cannot carry a character
(`PYTHONIOENCODING=ascii`, a cp1252 pipe on Windows). None of these may end in a
traceback, and none may look like "findings" (exit 1):

* a write that fails is one line on stderr and exit 2;
* a reader that left is a silent exit 0 (nothing is lost that anyone reads);
* an unencodable character is written as a visible escape (``\\u2713``), and one
  note on stderr says so; the output is still complete, so the exit code is the verb's.

`install()` sets this up before click runs (`main` in cli/__init__.py); `finish()`
flushes what is buffered once, at the end, under the same rules.
"""

import codecs
import errno
import io
import os
import sys
from typing import Optional

from ..verbs.common import say  # noqa: F401 - the one line on stderr, for the whole CLI


class OutputFailed(OSError):
    """Standard output could not be written (not a reader that left)."""


class OutputGone(BrokenPipeError):
    """The reader of standard output left (EPIPE)."""


OUTPUT_ERRORS = (OutputFailed, OutputGone)


class StdoutFailed(Exception):
    """A failed stdout write carried past click, which would turn EPIPE into exit 1."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


ESCAPE_ERRORS = "torchdoctor-escape"
_replaced = []  # the encodings that had to escape characters (one note on stderr at the end)


def _escape_unencodable(err: UnicodeError):
    if isinstance(err, UnicodeEncodeError) and not _replaced:
        _replaced.append(getattr(sys.stdout, "encoding", None) or err.encoding or "?")
    return codecs.backslashreplace_errors(err)


codecs.register_error(ESCAPE_ERRORS, _escape_unencodable)


class _GuardedFile(io.FileIO):
    """File descriptor 1, whose write failures say that they are standard output's."""

    def write(self, b):
        try:
            return super().write(b)
        except BrokenPipeError as e:
            raise OutputGone(e.errno, e.strerror) from None
        except OSError as e:
            raise OutputFailed(e.errno, e.strerror) from None


class _ClosedStdout(io.TextIOBase):
    """Standard output that was closed before torchdoctor started (`1>&-`): writing
    to it is the error, not starting (`report -o FILE` needs no stdout)."""

    encoding = "utf-8"
    errors = ESCAPE_ERRORS

    def writable(self):
        return True

    def write(self, s):
        if not s:
            return 0
        raise OutputFailed(errno.EBADF, "it is closed")

    def isatty(self):
        return False


def _guard_stdout() -> None:
    out = sys.stdout
    buf = getattr(out, "buffer", None)
    unbuffered = type(buf) is io.FileIO  # python -u, PYTHONUNBUFFERED
    raw = buf if unbuffered else getattr(buf, "raw", None)
    # Only the process's own stdout on a file descriptor: under pytest's capture, an
    # embedding host or a Windows console object, leave it as it is.
    if out is not sys.__stdout__ or type(raw) is not io.FileIO or raw.fileno() != 1:
        try:
            out.reconfigure(errors=ESCAPE_ERRORS)
        except (AttributeError, ValueError, OSError):
            pass
        return
    try:
        out.flush()
        fd = _GuardedFile(1, "w", closefd=False)
        guarded = io.TextIOWrapper(fd if unbuffered else io.BufferedWriter(fd), encoding=out.encoding,
                                   errors=ESCAPE_ERRORS, line_buffering=out.line_buffering,
                                   write_through=unbuffered)
    except (OSError, ValueError, LookupError):
        return
    sys.stdout = sys.__stdout__ = guarded


def install() -> None:
    """Closed standard streams become usable objects, stdout's failures identifiable,
    and an output encoding that lacks a character escapes it instead of raising."""
    if sys.stdin is None:
        sys.stdin = open(os.devnull, "r")
    if sys.stdout is None:
        _reserve_fd(1)
        sys.stdout = _ClosedStdout()
    else:
        _guard_stdout()
    if sys.stderr is None:
        _reserve_fd(2)
        sys.stderr = open(os.devnull, "w")
    else:
        try:
            sys.stderr.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError, OSError):
            pass


def _reserve_fd(fd: int) -> None:
    """Keep a closed standard descriptor taken (by /dev/null), so that no file opened
    later lands on it and receives what a child process prints. Close-on-exec: a child
    finds it closed, as it would have without us (`torchdoctor run -- cmd >&-`)."""
    try:
        os.fstat(fd)
        return
    except OSError:
        pass
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd, inheritable=False)
            os.close(null)
    except OSError:
        pass


def _drop_stdout() -> None:
    """Nothing still buffered may be flushed again when the interpreter exits."""
    try:
        sys.stdout = open(os.devnull, "w")
    except OSError:
        sys.stdout = None


def output_failed(e: OSError) -> int:
    """The exit code for a failed stdout write (and the one line that says why)."""
    _drop_stdout()
    if isinstance(e, BrokenPipeError) or e.errno == errno.EPIPE:
        return 0  # the reader left: `torchdoctor check | head -1`
    say("torchdoctor: error: cannot write to standard output: %s" % (e.strerror or e))
    return 2


def finish(code: Optional[int]) -> int:
    """Flush standard output once, under the rules above; the process's exit code."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except OUTPUT_ERRORS as e:
        return output_failed(e)
    except (OSError, ValueError) as e:  # stdout that is not ours to guard (see _guard_stdout)
        if isinstance(e, OSError):
            return output_failed(e)
    if _replaced:
        say("torchdoctor: note: standard output's encoding (%s) cannot carry some characters; they are "
            "written as \\u escapes (set PYTHONIOENCODING=utf-8 to keep them)" % ", ".join(_replaced))
        del _replaced[:]
    return code
