"""Secrets by shape: the token formats of kb/data/secrets.json (prefix, character set and length of
each kind of token), as one regex, and which rule a match of it is."""

import json
import os
import re
from typing import Any, Dict, List

# kb/data/secrets.json: facts from gitleaks and kingfisher.
SECRETS_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "kb", "data",
                            "secrets.json")


def load_secret_rules() -> List[Dict[str, Any]]:
    """The token-shape rules of kb/data/secrets.json, in file order."""
    with open(SECRETS_FILE, encoding="utf-8") as fh:
        return json.load(fh)["rules"]


def _token_re(rules):
    """One alternation of every rule, in plain groups: each alternative starts with its literal, so
    the regex engine drops it on one comparison (named groups around them cost 20x). The rules that
    may stand glued to a word come last, outside the "no letter or digit before" test."""
    def alt(rule):
        return "(?:%s)%s" % (rule["keep"], rule["regex"]) if rule.get("keep") else rule["regex"]
    alone = "|".join(alt(r) for r in rules if not r.get("glued"))
    glued = "|".join(alt(r) for r in rules if r.get("glued"))
    return re.compile(r"(?<![A-Za-z0-9])(?:%s)|(?:%s)" % (alone, glued))


TOKEN_RULES = load_secret_rules()
TOKEN_RE = _token_re(TOKEN_RULES)
# The rules in the order TOKEN_RE tries them (the alternation's first match is the one it takes).
_ORDER = [r for r in TOKEN_RULES if not r.get("glued")] + [r for r in TOKEN_RULES if r.get("glued")]
_ALONE: List[Any] = []  # each rule by itself, (?:keep)(secret): compiled at the first match


def token_rule(m):
    """(rule, where its secret part starts) for a match of TOKEN_RE: the first rule that matches
    there, which is the alternative the alternation took (after a letter or digit, only a glued one)."""
    if not _ALONE:
        _ALONE.extend(re.compile("(?:%s)(%s)" % (rule.get("keep", ""), rule["regex"])) for rule in _ORDER)
    start = m.start()
    glued_only = start > 0 and m.string[start - 1].isascii() and m.string[start - 1].isalnum()
    for rule, rx in zip(_ORDER, _ALONE):
        if glued_only and not rule.get("glued"):
            continue
        one = rx.match(m.string, start)
        if one and one.end() == m.end():
            return rule, one.start(1)
    raise AssertionError("TOKEN_RE matched %r, which no rule does" % m.group(0))
