"""The second pass of match_text, for pastes whose whitespace is not what the message had:
spaces lost (copied from a GUI dialog), lines wrapped at odd places, and underscores that a
Markdown renderer took for emphasis (`CUBLAS STATUS_INVALID VALUE`, `*ZNK3c10...init*is_...`),
and colons lost when a message is retyped (`libcudart.so.9.0 cannot open shared object file`).

It runs when the exact passes found no certain diagnosis, or the paste was cut into lines of
one width. Each pattern is matched without its whitespace, underscores, asterisks and colons
(`despace_pattern`: its space, `\\s`, `[ \\t]`, `_`, `\\*`, `:` atoms and their quantifiers dropped)
against lines with all of those removed, alone and with the lines that follow joined to them (a
message wrapped over up to WINDOW lines). Every step is linear in the text: the patterns keep
their bounded repeats, and a pattern runs only where its despaced anchor is.
"""

from __future__ import annotations  # no typing generics built at import: explain's cold start

import re
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

WINDOW = 4  # lines joined: a message wrapped at ~40 columns spans three or four
PENALTY = 5.0  # a despaced hit scores below an exact one of the same pattern

WS_ESCAPES = frozenset(("\\s", "\\t", "\\n", "\\r", "\\f", "\\v", "\\ "))
# Markdown's emphasis marks: a pasted identifier loses its underscores to them, or they turn
# into asterisks or spaces; and colons, which a retyped message loses. Dropped from the text and
# the patterns alike, like whitespace.
MARKS = frozenset(("_", "\\_", "*", "\\*", ":", "\\:"))
_NO_MARKS = str.maketrans("", "", "_*:")
QUANT = r"[*+?]|\{\d*(?:,\d*)?\}"


def despace_text(s: str) -> str:
    return "".join(s.split()).translate(_NO_MARKS)


def _gone(item: str) -> bool:
    """Whether a pattern atom (a character, an escape or a class member) is one the text
    loses: whitespace, an emphasis mark or a colon."""
    return item == " " or item in WS_ESCAPES or item in MARKS


def _class_end(src: str, i: int) -> int:
    """Index just after the character class that starts at src[i] == '['."""
    j = i + 1
    if j < len(src) and src[j] == "^":
        j += 1
    if j < len(src) and src[j] == "]":  # a ']' first is literal
        j += 1
    while j < len(src):
        if src[j] == "\\":
            j += 2
            continue
        if src[j] == "]":
            return j + 1
        j += 1
    raise ValueError("unterminated class")


def _despace_class(cls: str) -> Optional[str]:
    """The class without its whitespace members; None when nothing else is in it. A negated
    class, or one with a range that ends at a space, is kept as it is."""
    body = cls[1:-1]
    if body.startswith("^"):
        return cls
    items: List[str] = []
    k = 0
    while k < len(body):
        item = body[k:k + 2] if body[k] == "\\" else body[k]
        k += len(item)
        items.append(item)
    ws = [_gone(it) for it in items]
    if any(it == "-" and 0 < x < len(items) - 1 and (ws[x - 1] or ws[x + 1]) for x, it in enumerate(items)):
        return cls
    kept = [it for it, gone in zip(items, ws) if not gone]
    return "[" + "".join(kept) + "]" if kept else None


def _group_head_end(src: str, i: int) -> int:
    """Where the syntax that opens the group at src[i:] ("(?:", "(?<!", "(?P<name>", "(?i:")
    ends: it is copied as it is."""
    if src.startswith(("(?P<", "(?P="), i):
        return src.index(">" if src[i + 3] == "<" else ")", i) + 1
    if src.startswith(("(?<=", "(?<!"), i):
        return i + 4
    if src.startswith(("(?:", "(?=", "(?!", "(?#"), i):
        return i + 3
    j = i + 2  # inline flags: (?i) or (?i:
    while j < len(src) and src[j] not in ":)":
        j += 1
    return j + 1


def despace_pattern(src: str) -> Optional[str]:
    """`src` with its whitespace and emphasis-mark atoms (and their quantifiers) and word
    boundaries removed, or None when that is not a pattern Python accepts (a look-behind whose
    alternatives no longer have one width). Group names stay as they are."""
    out: List[str] = []
    i, n = 0, len(src)
    dropped = False  # the atom just read was whitespace: its quantifier goes with it
    try:
        while i < n:
            c = src[i]
            if dropped:
                q = re.compile(QUANT).match(src, i)
                dropped = False
                if q:
                    i = q.end()
                    if i < n and src[i] in "?+":  # lazy or possessive
                        i += 1
                    continue
            if src.startswith("(?", i):  # a group's syntax (its ':', a name), not text
                j = _group_head_end(src, i)
                out.append(src[i:j])
                i = j
                continue
            if c == "\\":
                tok = src[i:i + 2]
                i += 2
                if _gone(tok):
                    dropped = True
                elif tok not in ("\\b", "\\B"):  # words run together once spaces are gone
                    out.append(tok)
            elif c == "[":
                j = _class_end(src, i)
                cls = _despace_class(src[i:j])
                i = j
                if cls is None:
                    dropped = True
                else:
                    out.append(cls)
            elif c != "*" and _gone(c):  # outside a class, '*' is a quantifier
                i += 1
                dropped = True
            else:
                out.append(c)
                i += 1
        result = "".join(out)
        re.compile(result)
        return result
    except (ValueError, re.error):
        return None


@lru_cache(maxsize=1)
def anchors_by_file():
    """Each KB file's anchors as this pass sees them (despaced, four characters or more), or
    None without an entry index; computed once per process."""
    from ..kb.errors import entry_index
    ei = entry_index()
    if ei is None:
        return None
    return {f: tuple(d for d in (despace_text(a) for a in lits) if len(d) >= 4) for f, lits in ei["anchors"].items()}


@lru_cache(maxsize=4096)
def _compiled(src: str):
    d = despace_pattern(src)
    return re.compile(d) if d is not None else None


class DespacedIndex:
    """The patterns of an Index with whitespace removed from their anchors, grouped by a
    trigger each anchor contains (the Index's generic triggers, despaced, or the anchor)."""

    def __init__(self, index, triggers: Tuple[str, ...]):
        self.index = index
        trig = tuple(despace_text(t) for t in triggers)
        self.by_trigger: Dict[str, list] = {}
        for entry, pat in index.pairs:
            a = despace_text(pat.anchor)
            # A generic wording (any module's `No module named`) read without its underscores
            # would take `_lzma` for `lzma`: it is read as written or not at all.
            if len(a) < 4 or entry.exact or pat.generic:
                continue
            t = next((g for g in trig if g in a), a)
            self.by_trigger.setdefault(t, []).append((entry, pat, a))

    def triggers_in(self, text: str) -> set:
        return {t for t in self.by_trigger if t in text}

    def hits(self, text: str, triggers, keep_best, skip=()) -> Dict[str, tuple]:
        """The best hit per entry in `text`, trying the patterns of `triggers` (the triggers
        `text` may hold)."""
        best: Dict[str, tuple] = {}
        for trig in triggers:
            for entry, pat, a in self.by_trigger[trig]:
                if entry.id in skip or a not in text:
                    continue
                rx = _compiled(pat.source)
                m = rx.search(text) if rx is not None else None
                if m:
                    keep_best(best, entry, pat, m, penalty=PENALTY, anchor=a)
        return best


def despaced_pass(lines: List[str], dindex: DespacedIndex, keep_best, add, found) -> None:
    """Try each line, and each run of up to WINDOW lines joined, without whitespace; `add`
    (line number, text, hits) records what matches, best hit per entry, for the entries not
    in `found` yet (a run holds its first line's hits again).

    Linear in the text: the triggers of each line, and of a short stretch around each join
    (a trigger split by the wrap), are looked for once; a run tries only the patterns of the
    triggers its lines and joins hold."""
    flat = [despace_text(ln) for ln in lines]
    in_line = [dindex.triggers_in(f) if f else set() for f in flat]
    w = max((len(t) for t in dindex.by_trigger), default=1) - 1
    blob = "".join(flat)
    starts, pos = [], 0
    for f in flat:
        starts.append(pos)
        pos += len(f)
    # at_join[k]: the triggers that span the join before line k (k >= 1)
    at_join = [set()] + [dindex.triggers_in(blob[max(0, starts[k] - w):starts[k] + w]) - in_line[k] - in_line[k - 1]
                         if flat[k] and flat[k - 1] else set() for k in range(1, len(flat))]
    for i in range(len(flat)):
        if not flat[i]:
            continue
        joined, trigs = flat[i], set(in_line[i])
        for k in range(i, min(len(flat), i + WINDOW)):
            if k > i:
                if not flat[k]:
                    break
                joined += flat[k]
                trigs |= in_line[k] | at_join[k]
            if not trigs:
                continue
            best = dindex.hits(joined, trigs, keep_best, found)
            if best:
                add(i + 1, lines[i].strip() if k == i else " ".join(ln.strip() for ln in lines[i:k + 1]),
                    sorted(best.values(), key=lambda h: h[0].id))
