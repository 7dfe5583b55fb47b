"""Which lines of a text, and which neighbour pairs, can match at all: the prefilter's
answer turned into line numbers, so match_text reads only those on a long paste and the
log scan only those of each chunk."""

import re
from typing import TYPE_CHECKING, List, Tuple

if TYPE_CHECKING:  # the index is the matcher's; this module only asks it for its prefilter
    from .matcher import Index


# Python 3.11+ underlines the failing part of a traceback's source line with ^ and ~; the
# line under the marks is the source line's real neighbour (the next frame, or the error).
CARETS = re.compile(r"[ \t]*[\^~][ \t^~]*$")


def partner(lines: List[str], i: int) -> int:
    """The line joined to line i: the next one, or the one after a line of carets."""
    j = i + 1
    if j + 1 < len(lines) and CARETS.match(lines[j]) and "^" in lines[j]:
        return j + 1
    return j


def text_candidates(lines: List[str], index: "Index") -> Tuple[List[int], List[int]]:
    """The lines, and the neighbour pairs, that contain an anchor: only those
    can match, so match_text skips the rest without changing its result.

    A joined pair contains an anchor when one of its lines does or when one
    spans the join; the latter is found by running the prefilter over a short
    window around every join.
    """
    blob = "\n".join(lines).encode("utf-8", "surrogatepass")
    pre = index.prefilter(blob)
    singles = line_numbers(blob, pre.line_starts(blob))
    cand = set(singles)
    w = max(1, index.longest_anchor - 1)
    windows: List[str] = []
    owners: List[int] = []
    for i in range(len(lines) - 1):
        a, b = lines[i].rstrip(), lines[partner(lines, i)].strip()
        if a and b:
            windows.append(a[-w:] + " " + b[:w])
            windows.append(a[-w:] + b[:w])
            owners.extend((i, i))
    wblob = "\n".join(windows).encode("utf-8", "surrogatepass")
    spans = {owners[k] for k in line_numbers(wblob, pre.line_starts(wblob))}
    pairs = sorted(i for i in range(len(lines) - 1) if i in cand or partner(lines, i) in cand or i in spans)
    return singles, pairs


def line_numbers(buf: bytes, starts: List[int]) -> List[int]:
    out, pos, n = [], 0, 0
    for s in starts:
        n += buf.count(b"\n", pos, s)
        pos = s
        out.append(n)
    return out
