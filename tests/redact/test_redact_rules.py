"""kb/data/secrets.json (token shapes, facts from gitleaks and kingfisher) and the
structural patterns of torchdoctor.redact: well-formed, sourced, and linear by
shape (the repeat walker the knowledge base uses), because redaction runs on
every env value of every report."""

import json
import re

import pytest

from regex_shape import repeats
from torchdoctor.kb.errors import _sre_c, _sre_parse
from torchdoctor.redact import Redactor, keyblocks, pairs, tokens
from torchdoctor.redact.pairs import LONG_SECRET_WORDS, SECRET_HINTS, SHORT_SECRET_WORDS
from torchdoctor.redact.tokens import SECRETS_FILE

with open(SECRETS_FILE, encoding="utf-8") as _fh:
    DATA = json.load(_fh)
RULES = DATA["rules"]
ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
SINGLE = (_sre_c.IN, _sre_c.LITERAL, _sre_c.NOT_LITERAL, _sre_c.ANY)
# The one shape without a literal prefix (Azure AD client secrets: 3 chars, a digit, "Q~"):
# its leading repeat is bounded, so each start costs a constant.
NO_PREFIX = {"azure-ad-client-secret"}


def test_sources_name_their_licence():
    for name, src in DATA["sources"].items():
        assert src["url"].startswith("https://github.com/") and ("/blob/" in src["url"] or "/tree/" in src["url"]), name
        assert src["licence"] in ("MIT", "Apache-2.0"), name


@pytest.mark.parametrize("rule", RULES, ids=[r["id"] for r in RULES])
def test_rule_is_well_formed_and_sourced(rule):
    assert ID.match(rule["id"])
    assert set(rule) <= {"id", "regex", "real", "source", "keep", "needs_digit", "glued", "block"}
    assert rule.get("glued", True) is True and rule.get("block", True) is True
    assert rule["real"].strip()
    assert rule["source"], rule["id"]
    for src in rule["source"]:
        if src.startswith("https://"):
            continue
        project, _, rule_id = src.partition(":")
        assert project in DATA["sources"] and rule_id, src
    for part in ("regex", "keep"):
        if part in rule:
            assert re.compile(rule[part]).groups == 0, "%s: use (?:...), the loader names the groups" % rule["id"]


def test_rule_ids_are_unique():
    ids = [r["id"] for r in RULES]
    assert len(ids) == len(set(ids))


def _linear(pattern):
    for hi, nested, body in repeats(pattern):
        assert not nested, "nested repeat in %r" % pattern
        if hi == _sre_c.MAXREPEAT:
            assert len(body) == 1 and body[0][0] in SINGLE, "unbounded repeat of more than one class in %r" % pattern


@pytest.mark.parametrize("rule", RULES, ids=[r["id"] for r in RULES])
def test_rule_is_linear_and_anchored(rule):
    for part in ("keep", "regex"):
        if part in rule:
            _linear(rule[part])
    first = rule.get("keep") or rule["regex"]
    op = list(_sre_parse.parse(first))[0][0]
    if rule["id"] not in NO_PREFIX:  # a fixed first character: most positions fail at once
        assert op == _sre_c.LITERAL, "%s: no literal prefix, so it is tried at every position" % rule["id"]


STRUCTURE = ["URL_CRED_RE", "URL_RAW_CRED_RE", "PORT_FIRST_RE", "PAIR_RE", "EQ_PAIR_RE", "OPTION_RE", "PATH_PAIR_RE",
             "SPACE_PAIR_RE", "BEARER_RE", "DASH_P_RE", "DASH_P_CONTEXT",
             "NOT_DASH_P", "GDB_ENTRY_RE", "WORD_SPLIT_RE", "NOT_SECRET_VALUE_RE", "TOKEN_RE"]


@pytest.mark.parametrize("name", STRUCTURE)
def test_structural_patterns_are_linear(name):
    _linear(getattr(tokens if name == "TOKEN_RE" else pairs, name).pattern)


@pytest.mark.parametrize("name", ["END_RE", "LINE_BREAK_RE", "BODY_LINE_RE", "HEADER_LINE_RE", "QUOTED_TAIL_RE",
                                  "FLAT_WORD_RE"])
def test_key_block_patterns_are_linear(name):
    _linear(getattr(keyblocks, name).pattern)


@pytest.mark.parametrize("text", [
    "ghp_" * 20000, "sk-" + "a" * 100000, "a=" * 40000, "a=b;" * 20000, '"k": "' * 10000, "-p" * 40000 + " mysql",
    "-----BEGIN PRIVATE KEY-----" * 3000, "https://" + "a:" * 40000 + "@", "https://a" + "@" * 50000,
    "x" * 200000, "token " * 20000, "/tok=" * 20000, "AKIA" * 30000, "eyJ" * 30000 + "." * 1000,
    "hooks.slack.com/services/" * 5000, "password: " * 20000, "key=" + "<secret>" * 10000,
    "-----BEGIN PRIVATE KEY-----\n" * 3000, "-----BEGIN PRIVATE KEY-----\n" + "QUJD\n" * 30000,
    "x" + "hf_" * 30000, "https://a:" + "b " * 40000 + "@", "https://a:" + "@" * 50000 + "x",
    "u:" + "password=" * 20000, "a:b=" * 30000 + "token", ["--password"] * 30000,
])
def test_hostile_strings_finish(text):
    """No time limit (timings are for benchmarks): a pattern that backtracked badly would hang here."""
    r = Redactor()
    out = r.value(text) if isinstance(text, list) else r.text(text)
    assert isinstance(out, type(text))


def test_every_secret_word_passes_the_cheap_hint_test():
    for word in list(LONG_SECRET_WORDS) + sorted(SHORT_SECRET_WORDS):
        assert any(h in word for h in SECRET_HINTS), word
