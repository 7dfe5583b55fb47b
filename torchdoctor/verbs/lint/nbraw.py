"""Where a notebook cell's source lies in the raw .ipynb text: the line and column of the JSON
file that a place (cell, line in the cell, column) is written at.

Why: SARIF viewers (GitHub code scanning) and GitHub's annotations open the .ipynb file
itself, whose lines are JSON; "cell 3, line 2" means nothing to them. A cell's source is a
JSON string or a list of strings (nbformat writes one per line); a place inside it is at the
string that holds that character, at the raw index of that character in the string token
(escapes counted as written).

The walk goes over the document's structure only as far as the cells' sources; every other
value (outputs with images, metadata) is skipped by the C JSON decoder, so a large notebook
costs about what json.loads costs.
"""

import json
import re
from bisect import bisect_right
from typing import Callable, Dict, List, Optional, Tuple

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()

Pieces = List[Tuple[int, str]]   # (offset of the string token's opening quote, its decoded text)


def _ws(s: str, i: int) -> int:
    return _WS.match(s, i).end()


def _skip(s: str, i: int) -> int:
    return _DECODER.raw_decode(s, i)[1]


def _walk(s: str, i: int, close: str, on_item: Callable[[Optional[str], int], int]) -> int:
    """The object ("}") or array ("]") opening at s[i]: on_item(key or None, start of the value)
    returns the value's end; returns the end of the container."""
    i = _ws(s, i + 1)
    if s[i] == close:
        return i + 1
    while True:
        key = None
        if close == "}":
            key, i = _DECODER.raw_decode(s, i)
            i = _ws(s, i)
            if s[i] != ":":
                raise ValueError("expected ':' at %d" % i)
            i = _ws(s, i + 1)
        i = _ws(s, on_item(key, i))
        if s[i] == ",":
            i = _ws(s, i + 1)
        elif s[i] == close:
            return i + 1
        else:
            raise ValueError("expected ',' or %r at %d" % (close, i))


def cell_sources(raw: str) -> Dict[int, Pieces]:
    """Cell number (1-based, every cell counted, as lint numbers them) -> the pieces of its source."""
    out: Dict[int, Pieces] = {}

    def piece(into: Pieces, i: int) -> int:
        if s[i] != '"':
            return _skip(s, i)
        text, end = _DECODER.raw_decode(s, i)
        into.append((i, text))
        return end

    def cell(_key, i: int) -> int:
        n = len(out) + 1
        out[n] = []
        if s[i] != "{":
            return _skip(s, i)

        def member(key, j):
            if key != "source":
                return _skip(s, j)
            out[n] = []  # a repeated key: the last one is the one json.loads keeps
            if s[j] == "[":
                return _walk(s, j, "]", lambda _k, k: piece(out[n], k))
            return piece(out[n], j)
        return _walk(s, i, "}", member)

    def top(key, i: int) -> int:
        if key == "cells" and s[i] == "[":
            out.clear()
            return _walk(s, i, "]", cell)
        return _skip(s, i)

    s = raw
    i = _ws(s, 0)
    if s[i:i + 1] != "{":
        return {}
    _walk(s, i, "}", top)
    return out


def _raw_index(raw: str, quote: int, chars: int) -> int:
    """The raw index of the decoded character `chars` of the string token opening at `quote`."""
    i = quote + 1
    for _ in range(chars):
        if raw[i] != "\\":
            i += 1
        elif raw[i + 1] != "u":
            i += 2
        elif 0xD800 <= int(raw[i + 2:i + 6], 16) < 0xDC00 and raw[i + 6:i + 8] == "\\u":
            i += 12   # a surrogate pair: one character of Python's text
        else:
            i += 6
    return i


class RawNotebook:
    """The raw text of a notebook, to place findings in it."""

    def __init__(self, raw: str):
        self.raw = raw
        try:
            self.cells = cell_sources(raw)
        except (ValueError, IndexError):  # not the JSON json.loads read: no raw places
            self.cells = {}
        self._starts: Optional[List[int]] = None

    def place(self, cell: int, line: int, col: int) -> Optional[Tuple[int, int]]:
        """(line, column) in the raw file of (line, col) of that cell, all 1-based; None when
        the cell has no such line."""
        pieces = self.cells.get(cell)
        if not pieces:
            return None
        source = "".join(text for _, text in pieces)
        lines = source.splitlines(keepends=True)   # as lint splits a cell
        if not 0 < line <= len(lines):
            return None
        at = sum(len(x) for x in lines[:line - 1]) + min(max(col, 1) - 1, len(lines[line - 1]))
        start, i = 0, pieces[-1][0]
        for quote, text in pieces:
            if at < start + len(text) or quote == pieces[-1][0]:
                i = _raw_index(self.raw, quote, min(at - start, len(text)))
                break
            start += len(text)
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.raw)]
        n = bisect_right(self._starts, i)
        return n, i - self._starts[n - 1] + 1
