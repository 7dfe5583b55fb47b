"""A fast path for kb.errors.literal_anchor.

literal_anchor parses every pattern with the regex parser (sre), which costs
about 60 us a pattern in pure Python: with a few hundred patterns that was the
largest single cost of `torchdoctor explain` after click. This tokenizer
handles the constructs the knowledge base actually uses and returns exactly
what the sre-based walk returns for them; on anything else (alternation at the
top or inside a non-capturing group, flags, back-references, odd escapes, a
'{' that is not a quantifier...) it returns None and the caller parses
properly. tests/test_robustness_input.py checks the two agree on every
knowledge-base pattern and on generated ones.

It mirrors Python 3.11+'s parser, which unpacks non-capturing groups into the
enclosing sequence and turns a one-character class such as [.] into a literal.
"""

import re
import sys
from typing import List, Optional, Tuple

_TOKEN = re.compile(r"""
    (?P<plain>[^.^$*+?{\[\\|()]+)
  | (?P<esc>\\.)
  | (?P<cls>\[\^?\]?(?:\\.|[^\]\\])*\])
  | (?P<open>\((?:\?(?:P<[A-Za-z_]\w*>|:|=|!|<=|<!))?)
  | (?P<close>\))
  | (?P<quant>(?:[*+?]|\{\d{0,4}(?:,\d{0,4})?\})[?+]?)
  | (?P<other>[.^$|])
""", re.X | re.S)

_CLASS_ESC = set("dDsSwW")
_CTRL_ESC = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v", "a": "\a"}
_AT_ESC = set("bBAZ")
ENABLED = sys.version_info >= (3, 11)

# Items: ("lits", text) | ("cap", [items] or None) | ("ncg", [items]) |
# ("rep", (min, item)) | ("other", None) | ("at", None) | ("assert", None)
Item = Tuple[str, object]


class _Unsure(Exception):
    pass


def _quant(text: str) -> int:
    """The minimum of a quantifier token; _Unsure for ones this path skips."""
    if text.endswith("+") and len(text) > 1:
        raise _Unsure  # possessive
    core = text[:-1] if len(text) > 1 and text[-1] == "?" else text
    if core == "*" or core == "?":
        return 0
    if core == "+":
        return 1
    inner = core[1:-1]
    if not inner or inner == ",":
        raise _Unsure
    lo, _, hi = inner.partition(",")
    if "," in inner and hi and lo and int(hi) < int(lo):
        raise _Unsure
    return int(lo) if lo else 0


def _class_item(body: str) -> Item:
    """[...] -> a literal when it holds exactly one plain character."""
    negate = body.startswith("^")
    if negate:
        body = body[1:]
    chars = set()
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\":
            if i + 1 >= len(body):
                raise _Unsure
            e = body[i + 1]
            if e in _CTRL_ESC:
                e = _CTRL_ESC[e]
            elif e.isalnum() or not e.isascii():
                if e in _CLASS_ESC:
                    return ("other", None)
                raise _Unsure
            c = e
            i += 2
        else:
            i += 1
        if i < len(body) - 1 and body[i] == "-":
            return ("other", None)  # a range
        chars.add(c)
    if len(chars) == 1 and not negate:
        return ("lits", chars.pop())
    if not chars:
        raise _Unsure
    return ("other", None)


def _parse(tokens: List[Tuple[str, str]], pos: int, depth: int) -> Tuple[List[List[Item]], int]:
    """The alternatives of one sequence, up to ')' (depth > 0) or the end."""
    alts: List[List[Item]] = [[]]
    items = alts[0]
    while pos < len(tokens):
        kind, text = tokens[pos]
        pos += 1
        if kind == "plain":
            items.append(("lits", text))
        elif kind == "esc":
            e = text[1]
            if e in _CLASS_ESC:
                items.append(("other", None))
            elif e in _AT_ESC:
                items.append(("at", None))
            elif e in _CTRL_ESC:
                items.append(("lits", _CTRL_ESC[e]))
            elif e.isalnum() or not e.isascii():
                raise _Unsure
            else:
                items.append(("lits", e))
        elif kind == "cls":
            items.append(_class_item(text[1:-1]))
        elif kind == "other":
            if text == "|":
                items = []
                alts.append(items)
            else:
                items.append(("at", None) if text in "^$" else ("other", None))
        elif kind == "close":
            if depth == 0:
                raise _Unsure
            return alts, pos
        elif kind == "open":
            sub, pos = _parse(tokens, pos, depth + 1)
            if text == "(?":
                raise _Unsure
            if text == "(" or text.startswith("(?P<"):
                items.append(("cap", _flatten(sub[0]) if len(sub) == 1 else None))
            elif text == "(?:":
                if len(sub) == 1:
                    if not sub[0]:
                        raise _Unsure
                    items.append(("ncg", _flatten(sub[0])))
                else:
                    items.append(("ncg", _factor(sub)))
            else:  # look-ahead / look-behind
                items.append(("assert", None))
        elif kind == "quant":
            if not items or items[-1][0] in ("at", "assert", "rep"):
                raise _Unsure  # nothing to repeat, or a repeat of a repeat
            lo = _quant(text)
            prev = items.pop()
            if prev[0] == "lits" and len(prev[1]) > 1:  # the quantifier takes the last character
                items.append(("lits", prev[1][:-1]))
                prev = ("lits", prev[1][-1])
            elif prev[0] == "ncg":
                sub = prev[1]
                one = len(sub) == 1 and sub[0][0] == "lits" and len(sub[0][1]) == 1
                prev = sub[0] if one else ("other", None)
            items.append(("rep", (lo, prev)))
        else:  # pragma: no cover
            raise _Unsure
    if depth:
        raise _Unsure  # unbalanced
    return alts, pos


def _factor(alts: List[List[Item]]) -> List[Item]:
    """a|b|c as the parser leaves it: the common leading items pulled out,
    then one branch (or character set) item."""
    alts = [_chars(_flatten(a)) for a in alts]
    prefix: List[Item] = []
    while all(alts):
        first = [a[0] for a in alts]
        if all(k == "lits" for k, _ in first):
            if len({v for _, v in first}) != 1:
                break
        elif any(k == "lits" for k, _ in first):
            break  # a literal never equals a set, a group or a repeat
        else:
            raise _Unsure  # two non-literals: equal or not, only the parser knows
        prefix.append(first[0])
        alts = [a[1:] for a in alts]
    return prefix + [("other", None)]


def _flatten(items: List[Item]) -> List[Item]:
    out: List[Item] = []
    for it in items:
        if it[0] == "ncg":
            out.extend(_flatten(it[1]))  # the parser unpacks these
        else:
            out.append(it)
    return out


def _chars(items: List[Item]) -> List[Item]:
    out: List[Item] = []
    for it in items:
        if it[0] == "lits":
            out.extend(("lits", c) for c in it[1])  # type: ignore[union-attr]
        else:
            out.append(it)
    return out


def _all_literal(items: Optional[List[Item]]) -> bool:
    return items is not None and all(k == "lits" for k, _ in items)


def fast_anchor(pattern: str) -> Optional[str]:
    """literal_anchor(pattern) for the common shapes, or None when unsure."""
    if not ENABLED:
        return None
    tokens = []
    pos = 0
    for m in _TOKEN.finditer(pattern):
        if m.start() != pos:
            return None  # a character no token accepts ('{' as a literal, a lone '\\')
        tokens.append((m.lastgroup, m.group()))
        pos = m.end()
    if pos != len(pattern):
        return None
    try:
        alts, _ = _parse(tokens, 0, 0)
        flat = _flatten(alts[0]) if len(alts) == 1 else _factor(alts)
    except (_Unsure, ValueError):
        return None
    best = run = ""
    for kind, val in flat:
        if kind == "lits":
            run += val  # type: ignore[operator]
            continue
        if kind == "cap" and _all_literal(val):  # type: ignore[arg-type]
            run += "".join(v for _, v in val)  # type: ignore[union-attr,misc]
            continue
        if kind == "rep":
            lo, inner = val  # type: ignore[misc]
            if lo >= 1 and inner[0] == "lits":
                run += inner[1]
        if len(run) > len(best):
            best = run
        run = ""
    return run if len(run) > len(best) else best
