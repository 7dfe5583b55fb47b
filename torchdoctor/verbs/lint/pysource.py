"""A Python file's text as the parser sees it: its encoding, its line breaks, the character
column of a parser offset, and its top-level statements parsed a chunk at a time.

Why chunks: the syntax tree of a whole module takes about 120 bytes per byte of source (3 GB
for a 24 MB generated file), while the scan needs one statement at a time. `chunks` parses
the text in pieces of about CHUNK_CHARS that end where a top-level statement ends, so the
scan holds one piece's tree at a time and the memory does not grow with the file (beyond the
text itself and one top-level statement, however long that is).

Where a piece may end: before a line that starts at column 0 with anything but blank, a
comment, a closing bracket or a keyword that continues a statement (else, elif, except,
finally). Such a line starts a new statement unless it lies inside a string or brackets or
after a backslash, and then the text before it does not parse (an unterminated string or
bracket, a dangling backslash). So a piece that parses ends exactly where a statement of the
whole file's parse ends, and its statements are the file's. A piece that does not parse is
tried again twice as long (a long string costs at most twice its parse); one that does not
parse up to the end of the text falls back to a parse of the whole text: that raises the
error a plain parse gives (or, were a cut ever wrong in a way not foreseen here, gives the
statements the cut missed).
"""

import ast
import io
import re
import tokenize
from bisect import bisect_left
from typing import Dict, Iterator, List, Optional, Tuple

CHUNK_CHARS = 1 << 16
LINE_BREAK = re.compile(r"\r\n|\r|\n")   # the parser's line breaks; str.splitlines has more (\x0c, \x1c, ...)
_CUT = re.compile(r"^(?![\s#)\]}]|(?:else|elif|except|finally)\b)", re.M)
PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


def decode(data: bytes) -> Tuple[str, bool]:
    """(the text Python reads from these bytes: the coding cookie or BOM, else UTF-8; whether
    it decoded without loss). Bytes Python cannot decode give a text with U+FFFD in their place."""
    try:
        enc, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        return data.decode("utf-8", "replace"), False
    try:
        return data.decode(enc), True
    except (LookupError, UnicodeDecodeError):
        try:
            return data.decode(enc, "replace"), False
        except LookupError:
            return data.decode("utf-8", "replace"), False


def parse_error(text: str) -> Optional[Exception]:
    """The error of the text's parse, or None; a chunk at a time, as the scan parses it."""
    try:
        for _ in chunks(text):
            pass
    except PARSE_ERRORS as e:
        return e
    return None


def count_lines(text: str, start: int = 0, end: Optional[int] = None) -> int:
    """Line breaks in text[start:end] (`start` at a line start)."""
    end = len(text) if end is None else end
    n = text.count("\n", start, end)
    if text.find("\r", start, end) >= 0:
        n += text.count("\r", start, end) - text.count("\r\n", start, end)
    return n


def lines_containing(text: str, words: Tuple[str, ...]) -> Iterator[Tuple[int, str]]:
    """(line number, line) of each line holding one of `words`, without splitting the whole
    text into lines."""
    pattern = re.compile("|".join(re.escape(w) for w in words))
    cr = "\r" in text
    line, at, end = 1, 0, 0
    for m in pattern.finditer(text):
        if m.start() < end:
            continue  # a second word on a line already given
        # this line's start: looking back no further than the end of the last line given
        start = max(text.rfind("\n", end, m.start()), text.rfind("\r", end, m.start()) if cr else -1) + 1
        start = max(start, at)
        line += count_lines(text, at, start)
        at = start
        brk = LINE_BREAK.search(text, m.end())
        end = brk.start() if brk else len(text)
        yield line, text[start:end]


class Chunk:
    """Top-level statements parsed from `text`, whose first line is line `line0` + 1 of the file."""

    __slots__ = ("body", "line0", "text", "_starts", "_wide")

    def __init__(self, body: List[ast.stmt], line0: int, text: str):
        self.body, self.line0, self.text = body, line0, text
        self._starts: Optional[List[int]] = None
        self._wide: Dict[int, Optional[Tuple[List[int], List[int]]]] = {}

    def col(self, lineno: int, col_offset: int) -> int:
        """1-based character column of the parser's (file line, UTF-8 byte offset)."""
        i = lineno - self.line0 - 1
        if i not in self._wide:
            self._wide[i] = self._wide_chars(i)
        wide = self._wide[i]
        if wide is None:
            return col_offset + 1
        at, extra = wide   # byte offsets of the non-ASCII characters, bytes beyond one so far
        k = bisect_left(at, col_offset)
        return col_offset - (extra[k - 1] if k else 0) + 1

    def _wide_chars(self, i: int):
        """Once per line: where its multi-byte characters are (None for an ASCII line), so a
        long line with many findings costs its length once, not once per finding."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in LINE_BREAK.finditer(self.text)]
        if not 0 <= i < len(self._starts):
            return None
        end = self._starts[i + 1] if i + 1 < len(self._starts) else len(self.text)
        line = self.text[self._starts[i]:end]
        if line.isascii():
            return None
        at: List[int] = []
        extra: List[int] = []
        more = 0
        for m in re.finditer(r"[^\x00-\x7f]", line):
            at.append(m.start() + more)
            more += len(m.group().encode("utf-8", "surrogatepass")) - 1
            extra.append(more)
        return at, extra


def chunks(text: str, size: int = CHUNK_CHARS) -> Iterator[Chunk]:
    """The file's top-level statements, a piece at a time (see the module doc). Raises the
    whole text's parse error, after the pieces before it."""
    start, line0, n = 0, 0, len(text)
    while start < n:
        want = size
        while True:
            cut = _CUT.search(text, start + want) if start + want < n else None
            end = cut.start() if cut else n
            piece = text[start:end]
            try:
                tree = ast.parse(piece)
                break
            except PARSE_ERRORS:
                if end < n:
                    want *= 2
                    continue
            whole = ast.parse(text)  # raises the error a plain parse gives
            yield Chunk([s for s in whole.body if s.end_lineno > line0], 0, text)
            return
        yield Chunk(tree.body, line0, piece)
        del tree
        line0 += count_lines(text, start, end)
        start = end
