"""A log scan for people: progress on a terminal, and Ctrl-C keeps what was found.

``scan_log(stream, path)`` is what ``explain --file LOG`` and ``explain -`` run on
inputs too big to read at once. On a terminal (standard error is a TTY) it
shows bytes read, rate and, for a file, the percentage and ETA, once the input
is big (PROGRESS_MIN_BYTES) or slow (PROGRESS_AFTER_S); the line is erased
before anything else is printed. Ctrl-C stops the scan: the matches of the
lines read so far come back, with ``interrupted`` set, and a note on stderr
says where it stopped.
"""
import os
import stat
import sys
import time
from typing import IO, List, Optional, Tuple

from ..match.logscan import CHUNK, LogScan
from ..match.matcher import Match

PROGRESS_MIN_BYTES = 256 * 1024 * 1024  # a file at least this big shows progress at once
PROGRESS_AFTER_S = 2.0  # any input still being read after this long shows it too
PROGRESS_EVERY_S = 0.2  # redraw at most this often


def input_size(path: Optional[str]) -> Optional[int]:
    """The size of the log file, or of a regular file on standard input (None:
    a pipe, a terminal, a FIFO, anything whose end is not known)."""
    try:
        st = os.stat(path) if path is not None else os.fstat(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return ("%d %s" if unit == "B" else "%.1f %s") % (n, unit)
        n /= 1024.0
    return "%.1f GB" % n  # pragma: no cover (the loop returns)


def human_duration(s: float) -> str:
    s = int(s + 0.5)
    h, rest = divmod(s, 3600)
    m, sec = divmod(rest, 60)
    return "%d:%02d:%02d" % (h, m, sec) if h else "%d:%02d" % (m, sec)


class _Counted:
    """A readable stream that counts the bytes read from it."""

    def __init__(self, fh):
        self.fh = fh
        self.bytes = 0

    def read(self, n: int = -1) -> bytes:
        data = self.fh.read(n)
        if data:
            self.bytes += len(data)
        return data


class Meter:
    """The progress line: `update(done)` as bytes are read, `clear()` when done."""

    def __init__(self, name: str, total: Optional[int], stream=None, clock=time.monotonic):
        self.name = name
        self.total = total
        self.stream = stream if stream is not None else sys.stderr
        self.clock = clock
        self.start = clock()
        self.last = None  # time of the last redraw
        self.width = 0  # length of what is on screen
        try:
            self.enabled = bool(self.stream.isatty())
        except (AttributeError, ValueError, OSError):
            self.enabled = False

    def line(self, done: int, now: float) -> str:
        elapsed = max(now - self.start, 1e-6)
        rate = done / elapsed
        parts = ["scanning %s: %s" % (self.name, human_bytes(done))]
        if self.total:
            parts[0] += " of %s (%d%%)" % (human_bytes(self.total), min(100, done * 100 // self.total))
        parts.append("%s/s" % human_bytes(rate))
        if self.total and rate > 0 and done < self.total:
            parts.append("ETA %s" % human_duration((self.total - done) / rate))
        return ", ".join(parts)

    def update(self, done: int) -> None:
        if not self.enabled:
            return
        now = self.clock()
        if self.last is None:
            big = self.total is not None and self.total >= PROGRESS_MIN_BYTES
            if not big and now - self.start < PROGRESS_AFTER_S:
                return
        elif now - self.last < PROGRESS_EVERY_S:
            return
        self.last = now
        text = self.line(done, now)
        # the width is noted before the line is written: Ctrl-C can land while it is being
        # written, and clear() must then still erase what reached the screen
        shown, self.width = self.width, len(text)
        self._write("\r" + text + " " * max(0, shown - len(text)))

    def clear(self) -> None:
        if self.width:
            self._write("\r" + " " * self.width + "\r")
            self.width = 0

    def _write(self, s: str) -> None:
        try:
            self.stream.write(s)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken terminal: stop drawing
            self.enabled = False


def scan_log(stream: IO[bytes], path: Optional[str] = None, chunk_size: int = CHUNK,
             stderr=None) -> Tuple[List[Match], bool, Optional[str]]:
    """Scan a log (a binary stream; `path` is its file, None for standard
    input) -> (matches best first, interrupted by Ctrl-C, the other framework whose
    output the log is when it shows nothing of torch)."""
    err = stderr if stderr is not None else sys.stderr
    counted = _Counted(stream)
    meter = Meter(os.path.basename(path) if path else "standard input", input_size(path), err)
    scan = LogScan()
    try:
        found = scan.run(counted, chunk_size, tick=lambda: meter.update(counted.bytes))
        return found, False, scan.other
    except KeyboardInterrupt:
        meter.clear()
        where = human_bytes(counted.bytes)
        if meter.total:
            where += " of %s" % human_bytes(meter.total)
        try:
            err.write("torchdoctor: interrupted after %s (%s lines); what was found so far:\n"
                      % (where, format(scan.lines, ",")))
            err.flush()
        except (OSError, ValueError):
            pass
        return scan.results(), True, scan.other
    finally:
        meter.clear()
