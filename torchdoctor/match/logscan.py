"""The log scan: a binary stream of any size in constant memory. Only lines that
contain an anchor (prefilter.py: one pass of an Aho-Corasick automaton with the native
engine, a few with the standard library) are decoded, normalised and matched, so the
cost is about one pass over the data plus real work on the rare error lines. `LogScan`
is the same scan fed block by block, for callers that show progress or stop early
(explain --file on a TTY, torchdoctor run).
"""

import codecs
from typing import IO, Callable, Iterator, List, Optional, Tuple

from .candidates import line_numbers
from .matcher import Collector, Index, Match, default_index
from .normalize import ANSI_BYTES, MAX_LINE, normalize, normalize_rest

CHUNK = 1024 * 1024  # 1 MiB: as fast as larger reads, and a small, flat peak RSS


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def _blocks(fh: IO[bytes], chunk_size: int) -> Iterator[bytes]:
    """The stream as UTF-8 blocks (BOM removed; UTF-16 re-encoded)."""
    data = fh.read(chunk_size) or b""
    while 0 < len(data) < 3:  # a pipe may hand over a BOM one byte at a time
        more = fh.read(chunk_size)
        if not more:
            break
        data += more
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        # PowerShell's `>` writes UTF-16: decode it and scan the text as UTF-8.
        dec = codecs.getincrementaldecoder("utf-16")("replace")
        while data:
            yield dec.decode(data).encode("utf-8", "surrogatepass")
            data = fh.read(chunk_size)
        yield dec.decode(b"", final=True).encode("utf-8", "surrogatepass")
        return
    if data[:3] == codecs.BOM_UTF8:
        data = data[3:]
    while True:
        if data:
            yield data
        data = fh.read(chunk_size)
        if not data:
            return


def scan_stream(fh: IO[bytes], index: Optional[Index] = None, chunk_size: int = CHUNK) -> List[Match]:
    """Matches in a binary stream of any size, in constant memory."""
    return LogScan(index).run(fh, chunk_size)


class LogScan:
    """scan_stream in steps: `feed` the log's bytes as they come, ask `results`
    at any time (what the complete lines so far hold), `close` at the end.
    `run` reads a whole stream (BOM and UTF-16 handled as in scan_stream)."""

    def __init__(self, index: Optional[Index] = None):
        self.index = index or default_index()
        self.collector = Collector(self.index)
        self.lines = 0  # complete lines scanned so far
        self._carry = b""
        self._pre = None

    def run(self, fh: IO[bytes], chunk_size: int = CHUNK, tick: Optional[Callable[[], None]] = None) -> List[Match]:
        """Scan all of `fh`; `tick()` is called after each block."""
        for data in _blocks(fh, chunk_size):
            self.feed(data)
            if tick is not None:
                tick()
        return self.close()

    def feed(self, data: bytes) -> None:
        """The next bytes of the log (UTF-8; any split, even inside a line)."""
        if not data:
            return
        buf = self._carry + data if self._carry else data
        cut = buf.rfind(b"\n")
        if cut < 0:
            if len(buf) < 4 * MAX_LINE:
                self._carry = buf
                return
            cut = len(buf) - 1  # one enormous line: match what we have
        chunk, self._carry = buf[: cut + 1], buf[cut + 1:]
        self.lines, self._pre = _scan_chunk(chunk, self.lines, self._pre, self.index, self.collector)

    def close(self) -> List[Match]:
        """The end of the log: its last line, then the results."""
        if self._carry:
            carry, self._carry = self._carry, b""
            _scan_chunk(carry + b"\n", self.lines, self._pre, self.index, self.collector)
        return self.results()

    def results(self) -> List[Match]:
        """The matches found so far, best first."""
        return self.collector.results()

    @property
    def other(self) -> Optional[str]:
        """The other framework whose output the lines so far are (whose.py), while they
        show nothing of torch."""
        return self.collector.context.other


# A chunk with at most one ESC per this many bytes has its few coloured lines
# stripped one by one; above it, the whole chunk at once.
ESC_SPARSE = 4096


def _scan_chunk(chunk: bytes, line_base: int, pre, index: Index, col: Collector) -> Tuple[int, object]:
    # What the prefilter sees must contain every anchor that the normalised
    # lines contain: strip what normalize() strips (ANSI codes, then CRs), over
    # the whole chunk or, when few lines are coloured, over those lines (see
    # _coloured_lines); neither removes a newline, so line k stays line k.
    text = chunk
    coloured = _coloured_lines(chunk) if b"\x1b" in chunk else None
    if coloured is False:
        text = ANSI_BYTES.sub(b"", text)
    if b"\r" in text:
        text = text.replace(b"\r", b"")
    col.context.feed_chunk(text)
    if pre is None:
        pre = index.prefilter(text)
    starts = pre.line_starts(text, budget=True)
    if starts is None:  # this chunk is unlike the sample the plan was fitted to
        pre = index.prefilter(text)
        starts = pre.line_starts(text)
    # (line number in the chunk, offset in text) of every candidate line
    cands: List[Tuple[int, int]] = []
    last_pos, last_line = 0, 0
    for s in starts:
        last_line += text.count(b"\n", last_pos, s)
        last_pos = s
        cands.append((last_line, s))
    n_lines = last_line + text.count(b"\n", last_pos)
    if coloured:
        # A coloured line holds an anchor once stripped, not always before.
        side = b"\n".join(ANSI_BYTES.sub(b"", chunk[a:b]).replace(b"\r", b"") for a, b in coloured)
        hits = [coloured[i][0] for i in line_numbers(side, pre.line_starts(side))]
        if hits:
            have = {k for k, _ in cands}
            extra = [k for k in line_numbers(chunk, hits) if k not in have]
            if extra:
                cands = sorted(cands + [(k, -1) for k in extra])
    orig: Optional[List[bytes]] = None
    for k, s in cands:
        line = None
        if s >= 0:
            e = text.find(b"\n", s)
            raw = text[s:e if e >= 0 else len(text)]
            if text is chunk:
                line = normalize(_decode(raw))
            elif raw.isascii() and b"\x1b" not in raw:
                # ANSI (or none) and CRs stripped: the rest of normalize() still applies.
                line = normalize_rest(raw.decode("ascii"))
        if line is None:  # the line as it came: decode before stripping, as normalize() does
            if orig is None:
                orig = chunk.split(b"\n")
            line = normalize(_decode(orig[k]))
        col.context.feed(line)
        hits = index.match_line(line)
        if hits:
            col.add(line_base + k + 1, line, hits)
    return line_base + n_lines, pre


def _coloured_lines(chunk: bytes):
    """(start, end) of each line of `chunk` that holds an ESC, or False when
    there are so many that stripping the whole chunk is cheaper."""
    out: List[Tuple[int, int]] = []
    limit = len(chunk) // ESC_SPARSE + 1
    find, rfind = chunk.find, chunk.rfind
    pos = find(b"\x1b")
    while pos >= 0:
        if len(out) >= limit:
            return False
        end = find(b"\n", pos)
        if end < 0:
            end = len(chunk)
        out.append((rfind(b"\n", 0, pos) + 1, end))
        pos = find(b"\x1b", end)
    return out
