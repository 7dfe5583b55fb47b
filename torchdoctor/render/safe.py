"""Terminal safety: what a report from someone else may put on the maintainer's screen.

`torchdoctor check --from`, `triage` and `diff` render files that strangers attach to
issues, and `explain` echoes lines of their logs. Every string in such data may hold
control characters that a terminal obeys: OSC 0 (window title), OSC 52 (the
clipboard), CSI 2J and ESC c (clear and reset the screen), ESC ( 0 (line-drawing
charset), ESC 7 / ESC 8 (save and restore the cursor, to overwrite what was printed),
the 8-bit C1 forms of all of them (U+009B CSI, U+009D OSC ... U+009C ST), backspace,
carriage return and DEL (to hide text), bidirectional overrides and isolates
(U+202A-U+202E, U+2066-U+2069: "Trojan Source", CVE-2021-42574), and other invisible
formatting characters (zero-width spaces and joiners, U+FEFF, the tag characters).

This module is the one place that neutralises them. Every text and Markdown renderer
passes the data it did not write itself through `visible()` (or takes a `view()` of
the report, whose every string went through it); torchdoctor's own templates and its
colour codes (render/style.py) are added afterwards. JSON output needs none of this:
``json.dumps`` escapes every such character (ensure_ascii), so it stays exact.

What is neutralised, by Unicode general category (so it holds for every code point
of the category, not a hand-kept list): Cc (C0, DEL, C1), Cf (format: bidi controls,
zero-width characters, soft hyphen, BOM, tags), Cs (lone surrogates, which JSON can
carry and no encoder can write), Zl and Zp (U+2028, U+2029). Each becomes a visible
Python-style escape (``\\x1b``, ``\\u202e``, ``\\U000e0041``), so a maintainer sees
that the report tried something. Newline and tab are kept where the layout needs
them (`visible`), and escaped too in one-line contexts (`line`). A backslash in the
data is left as it is (Windows paths), so ``\\x1b`` in the output may also be those
four characters in the data: either way nothing reaches the terminal raw.
"""

import re
import unicodedata
from typing import Any

from ..model import records

# Everything that is not printable ASCII is a candidate; the category decides.
_CANDIDATE = re.compile(r"[^\t\n\x20-\x7e]")
_CANDIDATE_LINE = re.compile(r"[^\x20-\x7e]")
HIDDEN_CATEGORIES = frozenset(("Cc", "Cf", "Cs", "Zl", "Zp"))


def is_hidden(ch: str) -> bool:
    """Whether a terminal or a reader could be driven or fooled by `ch` (see above)."""
    return unicodedata.category(ch) in HIDDEN_CATEGORIES


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}


def escape_char(ch: str) -> str:
    if ch in _NAMED:
        return _NAMED[ch]
    n = ord(ch)
    if n < 0x100:
        return "\\x%02x" % n
    if n < 0x10000:
        return "\\u%04x" % n
    return "\\U%08x" % n


def _sub(m: "re.Match") -> str:
    ch = m.group()
    return escape_char(ch) if is_hidden(ch) else ch


def visible(text: Any) -> str:
    """`text` (any value, as str()) with every hidden character as a visible escape;
    newlines and tabs stay."""
    s = text if isinstance(text, str) else str(text)
    if s.isascii() and s.isprintable():
        return s
    return _CANDIDATE.sub(_sub, s)


def line(text: Any) -> str:
    """As `visible`, for one line: newlines and tabs are escaped too."""
    s = text if isinstance(text, str) else str(text)
    if s.isascii() and s.isprintable():
        return s
    return _CANDIDATE_LINE.sub(_sub, s)


MAX_DEPTH = 64  # real facts nest a few levels; a crafted report nests 900 (the parser's limit)
TOO_DEEP = "<nested more than %d levels: not shown>" % MAX_DEPTH


def clean(obj: Any, _depth: int = 0) -> Any:
    """A copy of `obj` with `visible()` applied to every string in it: dict keys and
    values, list and tuple items, the fields of records, and the facts tree of a
    `Facts`. Other objects (numbers, None, compiled patterns) are returned as they are.
    What nests deeper than MAX_DEPTH is replaced by TOO_DEEP (no recursion limit hit)."""
    if isinstance(obj, str):
        return visible(obj)
    if _depth > MAX_DEPTH and isinstance(obj, (dict, list, tuple)):
        return TOO_DEEP
    d = _depth + 1
    if isinstance(obj, dict):
        return {clean(k, d): clean(v, d) for k, v in obj.items()}
    if isinstance(obj, list):
        return [clean(x, d) for x in obj]
    if isinstance(obj, tuple):
        items = [clean(x, d) for x in obj]
        return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
    if records.is_record(obj) and not isinstance(obj, type):
        changes = {f.name: clean(getattr(obj, f.name), d) for f in records.fields(obj) if f.init}
        return records.replace(obj, **changes)
    from ..model.facts import Facts
    if isinstance(obj, Facts):
        return Facts(clean(obj.to_dict(), d))
    return obj


def view(report):
    """The report a text or Markdown renderer draws: every string in its facts and
    findings made visible (the report itself is not changed; JSON renders the original)."""
    return clean(report)
