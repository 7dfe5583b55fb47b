"""Where a private key's block ends, given the end of its BEGIN line (the `block` rule of
kb/data/secrets.json): at its END line when the text has one after it; in a text cut short (a
log tail, a truncated env value), after the lines that look like a key's body, so that whatever
the text says after the key survives instead of being hidden with it.

A key's body: base64 lines of one width and a shorter last one, optionally PEM headers
(``Proc-Type: 4,ENCRYPTED``, ``DEK-Info: ...``) and the blank line after them; lines end in a
line break, a Windows one, or the ``\\n`` of JSON-escaped text. A key flattened onto its BEGIN
line (an env value) is base64 words after the marker.
"""

import re
from typing import Dict, Optional

END_RE = re.compile(r"-----END[ A-Z0-9_\-]{0,100}PRIVATE KEY(?: BLOCK)?-----")
LINE_BREAK_RE = re.compile(r"\r?\n|\\r\\n|\\n")
BODY_LINE_RE = re.compile(r"[A-Za-z0-9+/=]{1,4096}")
HEADER_LINE_RE = re.compile(r"(?:Proc-Type|DEK-Info|Comment|Version|Hash|Charset): [^\r\n\\]{1,400}")
# A body line cut by the quote that closes a string ("...\nMIIEab", "next": ...).
QUOTED_TAIL_RE = re.compile(r"[ \t]{0,64}([A-Za-z0-9+/=]{1,4096})(?=[\"'])")
# A word of a key flattened onto one line: long, or the padded last one.
FLAT_WORD_RE = re.compile(r"[A-Za-z0-9+/]{8,4096}={0,2}|[A-Za-z0-9+/]{1,8}={1,2}")


def block_end(s: str, pos: int, seen: Optional[Dict[str, int]] = None) -> int:
    """Where the block whose BEGIN line ends at `pos` ends. `seen`: kept by the caller across the
    blocks of one text, so a text with many BEGIN lines and no END is searched for one only once."""
    seen = {} if seen is None else seen
    if pos >= seen.get("no_end_from", len(s) + 1):
        return _cut_short_end(s, pos)
    m = END_RE.search(s, pos)
    if m is not None:
        return m.end()
    seen["no_end_from"] = pos
    return _cut_short_end(s, pos)


def _cut_short_end(s: str, pos: int) -> int:
    end, brk = _begin_line_end(s, pos)
    if brk is None:
        return end  # the BEGIN line goes on with something that is not a key, or the text ends
    width, headers = None, False
    while brk is not None:
        start = brk.end()
        brk = LINE_BREAK_RE.search(s, start)
        line_end = brk.start() if brk else len(s)
        line = s[start:line_end].strip(" \t")
        if BODY_LINE_RE.fullmatch(line):
            end = line_end
            if width is not None and len(line) < width:
                break  # the short last line of the body
            width = len(line)
        elif width is None and HEADER_LINE_RE.fullmatch(line):
            end, headers = line_end, True
        elif not line and headers and width is None:
            continue  # the blank line between PEM headers and the body
        else:
            quoted = QUOTED_TAIL_RE.match(s, start, line_end)
            if quoted:
                end = quoted.end(1)
            break
    return end


def _begin_line_end(s: str, pos: int):
    """(where the key ends on its BEGIN line, the line break after it when the whole rest of
    the line is key): the words of a key flattened onto the line, read one at a time, so a
    text of BEGIN markers and no line break costs one pass."""
    end = i = pos
    n = len(s)
    while True:
        while i < n and s[i] in " \t":
            i += 1
        brk = LINE_BREAK_RE.match(s, i)
        if brk is not None:
            return end, brk
        if i >= n:
            return end, None
        m = FLAT_WORD_RE.match(s, i)
        if m is None or (m.end() < n and s[m.end()] not in " \t" and not LINE_BREAK_RE.match(s, m.end())):
            quoted = QUOTED_TAIL_RE.match(s, i)
            return (quoted.end(1) if quoted else end), None
        end = i = m.end()
