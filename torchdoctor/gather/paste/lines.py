"""The lines of a paste that the collect_env reader has to look at, found in linear time.

A paste can be a whole training log: a million lines around a 40-line collect_env block,
or no block at all. Cleaning and matching every line in Python cost 14 s and 400 MB for
8 MB. Only two kinds of line can matter, and both can be found by one C-level
regex pass over the text, so the Python loop runs over those lines alone:

* a line that can open a collect_env field: "Label: value" with one of the known labels
  after the prefixes `fields.clean` removes (quotes, bullets, backticks, whitespace); lines
  after an open field are read one by one until it closes, as before (`iter_lines`);
* a line that can hold one of torch's capability warnings, which all contain the word
  "capabilit" (`capability_lines`: those lines and their neighbours, for wrapped ones).

The result is the same as reading every line (tests/triage/test_triage_lines.py checks
that on generated pastes). Below `BIG` characters every line is read directly: for a
normal paste that is as fast, and it is the reference.
"""

import codecs
import re
from typing import Callable, Iterator, List, Tuple, Union

BIG = 256 * 1024

# What text.splitlines() splits on, so line numbers agree with it exactly.
_SEPS = re.compile(r"\r\n|[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
_SEP_CHARS = "\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"


def normalised(text: str, ansi: "re.Pattern") -> str:
    """`text` with every line break as "\\n" (its "\\n"-separated lines are then
    text.splitlines()), and after that the ANSI sequences `fields.clean` removes taken out (none
    holds a line break; removed first, one between a CR and an LF would join them)."""
    if any(c in text for c in _SEP_CHARS):  # each `in` is a fast scan; one class search is not
        text = _SEPS.sub("\n", text)
    return strip_ansi(text, ansi)


def strip_ansi(text: str, ansi: "re.Pattern") -> str:
    """`text` without ANSI sequences, also those that removing others forms
    ("\\x1b\\x1b[31m[0m"): so stripping a stripped text again changes nothing."""
    while "\x1b" in text:
        text, n = ansi.subn("", text)
        if not n:
            break
    return text


# Every whitespace character but the line break, as one class: `[^\S\n]` says the same,
# but a plain class is what the regex engine checks fastest (str.isspace() is what both
# `\s` and str.strip() use; every such character is below U+3001).
_WS = "".join(chr(c) for c in range(0x3001) if chr(c).isspace() and chr(c) != "\n")
_BLANK = "[%s]" % re.escape(_WS)


def label_line_pattern(labels) -> "re.Pattern":
    """A line that can start a field: after a prefix of whitespace, quote marks, bullets
    and backticks, one of `labels` (words separated by any blanks, any case), then blanks,
    perhaps a parenthesis, and a colon on the same line. A superset of what
    `fields._LABEL` accepts for a known label; every repeat is over one class, and
    the labels are grouped by first letter so a line that starts otherwise fails at once.

    It is searched as "\n" + pattern (the first line apart): the engine then only tries
    at line breaks."""
    groups = {}
    for lab in labels:
        groups.setdefault(lab[0].lower(), set()).add(lab.lower())
    alts = []
    for first, labs in sorted(groups.items()):
        rests = sorted(((_BLANK + "+").join(re.escape(w) for w in lab[1:].split(" ")) for lab in labs),
                       key=len, reverse=True)
        alts.append("%s(?:%s)" % (re.escape(first), "|".join(rests)))
    body = "[%s>`*+\\-]*(?:%s)%s*(?:\\([^\\n]*)?:" % (re.escape(_WS), "|".join(alts), _BLANK)
    return re.compile(body, re.I)


def _line_starts(norm: str, starts: "re.Pattern"):
    """The offsets of the lines `starts` matches, in order (lazily). Every such line has a
    colon: when few lines do, they are visited from colon to colon; otherwise the pattern
    is searched as "\\n" + pattern, so the engine only tries at line breaks."""
    colons = norm.count(":")
    if colons * 8 < norm.count("\n") + 1:
        pos = norm.find(":")
        while pos >= 0:
            s = norm.rfind("\n", 0, pos) + 1
            if starts.match(norm, s):
                yield s
            e = norm.find("\n", pos)
            if e < 0:
                return
            pos = norm.find(":", e)
        return
    if starts.match(norm):
        yield 0
    for m in _after_break(starts).finditer(norm):
        yield m.start() + 1


_BREAK_CACHE = {}


def _after_break(starts: "re.Pattern") -> "re.Pattern":
    if starts not in _BREAK_CACHE:
        _BREAK_CACHE[starts] = re.compile(r"\n" + starts.pattern, starts.flags)
    return _BREAK_CACHE[starts]


PIECE = 1 << 20  # characters normalised at a time: a big paste is never copied whole


def _pieces(text: str, ansi: "re.Pattern"):
    """(lines before it, normalised piece) of `text`, cut after a "\\n" (a CR LF, and
    every ANSI sequence, stays within a piece)."""
    i, n, base, size = 0, len(text), 0, PIECE
    while i < n:
        j = text.find("\n", min(i + size, n) - 1)
        j = n if j < 0 else j + 1
        piece = normalised(text[i:j], ansi)
        yield base, piece
        base += piece.count("\n")
        i = j


class BytesPaste:
    """A big UTF-8 paste kept as its bytes and decoded a piece at a time, never whole:
    cut after a b"\\n" (which no multi-byte character contains), each piece decodes as
    that part of the whole would ("replace" errors stay within a line)."""

    def __init__(self, data: bytes):
        self.data = data

    def __len__(self) -> int:
        return len(self.data)

    def _decoded(self):
        data, n, size = self.data, len(self.data), PIECE
        i = 3 if data.startswith(codecs.BOM_UTF8) else 0
        while i < n:
            j = data.find(b"\n", min(i + size, n) - 1)
            j = n if j < 0 else j + 1
            yield data[i:j].decode("utf-8", "replace")
            i = j

    def pieces(self, ansi: "re.Pattern"):
        base = 0
        for raw in self._decoded():
            piece = normalised(raw, ansi)
            yield base, piece
            base += piece.count("\n")

    def isspace(self) -> bool:
        return all(p.isspace() for p in self._decoded())


Paste = Union[str, BytesPaste]


def _pieces_of(text: "Paste", ansi: "re.Pattern"):
    return text.pieces(ansi) if isinstance(text, BytesPaste) else _pieces(text, ansi)


def _small(text: "Paste") -> bool:
    return isinstance(text, str) and len(text) <= BIG


def iter_lines(text: "Paste", idle: Callable[[], bool], starts: "re.Pattern",
               ansi: "re.Pattern") -> Iterator[Tuple[int, str]]:
    """(number, line) as enumerate(text.splitlines(), 1) gives them, but while `idle()`
    (no field open) only the lines `starts` matches: no other line can open one."""
    if _small(text):
        yield from enumerate(text.splitlines(), 1)
        return
    for base, piece in _pieces_of(text, ansi):
        n = len(piece)
        found = _line_starts(piece, starts)
        nxt = next(found, None)
        pos, no = 0, base + 1
        while pos < n:
            if idle():
                while nxt is not None and nxt < pos:
                    nxt = next(found, None)
                if nxt is None:
                    break
                no += piece.count("\n", pos, nxt)
                pos = nxt
            e = piece.find("\n", pos)
            if e < 0:
                e = n
            yield no, piece[pos:e]
            pos, no = e + 1, no + 1


def capability_lines(text: "Paste", clean: Callable[[str], str], ansi: "re.Pattern",
                     word: str = "capabilit") -> List[str]:
    """What `gpu_fields.facts_from_warnings` scans: every cleaned line, then every pair of
    non-empty neighbours joined by a space, in that order; for a big text only the lines
    that contain `word` and the pairs that touch one (a pair joined with a space cannot
    form a word the two lines do not hold)."""
    if _small(text):
        lines = [clean(x) for x in text.splitlines()]
        return lines + [a + " " + c for a, c in zip(lines, lines[1:]) if a and c]
    needed = {}  # line index -> cleaned line, for the lines with `word` and their neighbours
    hits: List[int] = []
    prev_last = None  # the last line of the previous piece
    want_first = None  # a line index whose text is the next piece's first line
    for base, piece in _pieces_of(text, ansi):
        n = len(piece)
        if want_first is not None:
            e = piece.find("\n")
            needed[want_first] = clean(piece[:e if e >= 0 else n])
            want_first = None
        pos, counted, index = piece.find(word), 0, 0
        while pos >= 0:
            start = piece.rfind("\n", 0, pos) + 1
            index += piece.count("\n", counted, start)
            counted = start
            end = piece.find("\n", pos)
            gi = base + index
            hits.append(gi)
            needed[gi] = clean(piece[start:end if end >= 0 else n])
            if start > 0:
                ps = piece.rfind("\n", 0, start - 1) + 1
                needed.setdefault(gi - 1, clean(piece[ps:start - 1]))
            elif prev_last is not None:
                needed.setdefault(gi - 1, clean(prev_last))
            if end >= 0 and end + 1 < n:
                ne = piece.find("\n", end + 1)
                needed.setdefault(gi + 1, clean(piece[end + 1:ne if ne >= 0 else n]))
            elif end >= 0:
                want_first = gi + 1  # the next piece, if there is one, starts with it
            if end < 0:
                break
            pos = piece.find(word, end)
        if piece.endswith("\n"):
            prev_last = piece[piece.rfind("\n", 0, n - 1) + 1:n - 1]
    singles = [needed[i] for i in hits]
    pairs = sorted({p for i in hits for p in (i - 1, i) if p in needed and p + 1 in needed})
    return singles + [needed[p] + " " + needed[p + 1] for p in pairs if needed[p] and needed[p + 1]]
