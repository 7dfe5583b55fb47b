"""Printable strings of a binary, read as a stream (a 500 MB library never sits in memory whole).

Like `strings(1)`: runs of printable ASCII (tab and newline included) of a minimum length. The
run that a chunk ends in is carried into the next chunk, so a string across a chunk border
comes out whole.
"""

import re
from typing import BinaryIO, Iterator

CHUNK = 8 * 1024 * 1024
MIN_LEN = 12
# A longer run is no message (embedded source, tables); it is cut at this length.
MAX_RUN = 64 * 1024


_NONPRINT = re.compile(rb"[^\x20-\x7e\t\n]")


def strings(stream: BinaryIO, min_len: int = MIN_LEN, chunk: int = CHUNK) -> Iterator[str]:
    run = re.compile(rb"[\x20-\x7e\t\n]{%d,}" % min_len)
    tail = b""
    while True:
        data = stream.read(chunk)
        buf = tail + data
        # The printable run the buffer ends in may go on in the next chunk: keep it back
        # (whatever its length so far), unless this was the last chunk.
        cut = _run_start_at_end(buf) if data else len(buf)
        for m in run.finditer(buf, 0, cut):
            yield m.group()[:MAX_RUN].decode("ascii")
        tail = buf[cut:]
        if not data:
            return


def _run_start_at_end(buf: bytes) -> int:
    """Where the printable run at the end of `buf` starts (len(buf) when it ends in another
    byte); a run longer than MAX_RUN is cut there."""
    start = max(0, len(buf) - MAX_RUN)
    last = None
    for last in _NONPRINT.finditer(buf, start):
        pass
    return last.end() if last is not None else start


_PRINTF = re.compile(r"%%|%[-#0 +']{0,4}(?:\*|\d{1,3})?(?:\.(?:\*|\d{1,3}))?(?:hh|h|ll|l|L|q|j|z|Z|t)?[diouxXeEfFgGaAcspn]"
                     r"|%(?:PRI|SCN)\w{1,6}")
_FMT_FIELD = re.compile(r"\{[0-9]{0,2}(?::[^{}]{0,12})?\}")
# Not messages: source code and type names compiled into the library, build paths.
_NOT_PROSE = re.compile(r"#include|#define|#pragma|__global__|__device__|template ?<|\bextern \"C\"|;\s*\n|\{\s*\n|"
                        r"\n\s*\}|^_Z|\[with \w+ =|fully_qualified_type_name|INTERNAL ASSERT FAILED at|"
                        r"^\s*(?:def|class|import|return|if|for) |\breturn [^.]{0,40};|\bauto \w+ =|"
                        r"^[\w./-]{1,200}$|^\W|/__w/|&&|\" \"|gcc-annobin|"
                        # calls spelled out in macros: torch_call_dispatcher( "aten::view", ...)
                        r"^[A-Za-z_][\w:]*\( ?\"|^[a-z_]+\([a-z_]+, |"
                        # operator schemas: name(Type arg, ...) -> Type
                        r"^[A-Za-z_][\w.:]*\((?:[A-Za-z_][\w:<>\[\]?!()*&]* [A-Za-z_]\w*[,)=]|\.\.\.|\*)|\) -> \(?[A-Z]")
_WORD = re.compile(r"[A-Za-z]{2,}")


def printf_pattern(s: str) -> str:
    """A C format string (printf's %s, fmt's {}) as a pattern; other braces doubled."""
    out, pos = [], 0
    for m in re.finditer(_PRINTF.pattern + "|" + _FMT_FIELD.pattern + r"|[{}]", s):
        out.append(s[pos:m.start()])
        tok = m.group()
        out.append("%" if tok == "%%" else tok * 2 if tok in ("{", "}") else "{}")
        pos = m.end()
    out.append(s[pos:])
    return "".join(out)


def is_prose(s: str) -> bool:
    """Whether a string of a binary reads as a sentence a user is shown (three words or more,
    mostly letters and spaces), not a symbol, a path, a table or a piece of source code."""
    if _NOT_PROSE.search(s) or s.count("::") > 2 or s.count(";") > 2:
        return False
    words = _WORD.findall(s)
    if len(words) < 3 or s.count(" ") < 2:
        return False
    return sum(c.isalpha() or c == " " for c in s) >= 0.7 * len(s)


# C++ builds a message from pieces (TORCH_CHECK(cond, "Unrecognized key '", key, "' in ...
# allocator config.")); the compiler keeps each literal apart, often in sections of different
# alignment, so the pieces of one message are not neighbours in the file. A piece that starts
# by closing the quote around a value is kept as the end of a message.
_TAIL = re.compile(r"^(['\"`])(?=[ ,.:;)])")


def fragment_pattern(s: str) -> str:
    """The pattern of a message's closing piece ("{}' in Accelerator allocator config."), or ""
    when `s` is not one: it closes a quote around a value and then reads as prose itself."""
    m = _TAIL.match(s)
    if not m or "\n" in s.strip("\n"):
        return ""
    rest = s[1:].strip(" ,.:;)")
    if not is_prose(rest) or rest.count(m.group(1)) % 2:
        return ""
    return "{}" + message_pattern(s)


def message_pattern(s: str) -> str:
    """A message fragment as a pattern: its format specifiers as placeholders, and a
    placeholder where the code appends a value (a fragment ending in ": " or "=")."""
    p = printf_pattern(s.strip("\n"))
    if re.search(r"(?::|=|\bis|\bof|\bgot|\bfound|\bfor|\bto|\bat|\bin|\bon|\bby|\bfrom|\bwith|,)\s?$", p) and s.endswith((" ", ":", "=", ",")):
        p = p.rstrip() + " {}"
    if s.startswith((" ", ", ", ". ")) and not p.startswith("{}"):
        p = "{} " + p.strip()
    return p
