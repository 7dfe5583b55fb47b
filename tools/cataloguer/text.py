"""Message patterns as text: tidying, the literal part, and what counts as a message at all."""

import re

PLACEHOLDER_RE = re.compile(r"(?<!\{)\{\}(?!\})|\{\{|\}\}")
_WORD = re.compile(r"[A-Za-z][a-z]{1,}")


def tidy(pattern: str) -> str:
    """Each line stripped, blank lines gone, runs of spaces one space: how the message reads
    once printed and pasted (indentation of a triple-quoted string is the source's, not the
    message's)."""
    lines = (re.sub(r"[ \t]{2,}", " ", ln.strip()) for ln in pattern.splitlines())
    return "\n".join(ln for ln in lines if ln)


def literal(pattern: str) -> str:
    """The pattern's fixed text, placeholders dropped and doubled braces single."""
    return PLACEHOLDER_RE.sub(lambda m: "" if m.group() == "{}" else m.group()[0], pattern)


def placeholders(pattern: str) -> int:
    return sum(1 for m in PLACEHOLDER_RE.finditer(pattern) if m.group() == "{}")


def is_message(pattern: str) -> bool:
    """Whether a pattern says something by itself: two words or more and ten letters of fixed
    text (``"{}"``, ``"{}: {}"`` or ``"bad {}"`` are whatever run time fills in)."""
    fixed = literal(pattern)
    return len(_WORD.findall(fixed)) >= 2 and sum(c.isalpha() for c in fixed) >= 10


def render(pattern: str, fill: str) -> str:
    """The pattern with every placeholder filled with `fill`."""
    return PLACEHOLDER_RE.sub(lambda m: fill if m.group() == "{}" else m.group()[0], pattern)
