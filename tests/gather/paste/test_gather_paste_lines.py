"""triage/lines.py's fast path reads a big paste exactly as reading every line does
(a fast path must never change what is read): the collect_env fields, notes, line span and facts of `parse()` are the same with
the fast path forced on (BIG = 0) as with it off, on the real collect_env fixtures buried in
noise, and on hypothesis-generated pastes mixing their lines with ANSI codes, CR/CRLF and
every other line break str.splitlines() knows, quotes, bullets, backticks, odd blanks and
capability warnings wrapped over two lines."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from torchdoctor.userfiles import decode
from torchdoctor.verbs.triage import TriageError, triage_bytes, triage_text
from torchdoctor.gather.paste import collect_env as CE
from torchdoctor.gather.paste import lines as L
from torchdoctor.gather.paste.fields import ANSI, clean

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(os.path.dirname(os.path.dirname(HERE)), "fixtures", "collect_env")
PASTES = sorted(os.listdir(FIXTURES))
FIXTURE_LINES = sorted({ln for f in PASTES for ln in open(os.path.join(FIXTURES, f), encoding="utf-8").read().splitlines()})
FUZZ = settings(max_examples=int(os.environ.get("TORCHDOCTOR_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
WARNINGS = [
    "UserWarning: NVIDIA GeForce RTX 4090 with CUDA capability sm_89 is not compatible with the current PyTorch "
    "installation.",
    "The current PyTorch install supports CUDA capabilities sm_50 sm_60 sm_70 sm_75 compute_37.",
    "Found GPU0 Tesla K80 which is of cuda capability 3.7.",
]


def parsed(text, fast, piece=None):
    old = L.BIG, L.PIECE
    L.BIG = 0 if fast else float("inf")
    L.PIECE = piece or old[1]
    try:
        p = CE.parse(text)
    finally:
        L.BIG, L.PIECE = old
    return p.facts, p.found, p.notes, p.lines, p.provenance


def parsed_bytes(data, piece=None):
    old = L.PIECE
    L.PIECE = piece or old
    try:
        p = CE.parse(L.BytesPaste(data))
    finally:
        L.PIECE = old
    return p.facts, p.found, p.notes, p.lines, p.provenance


def assert_same(text, pieces=(None, 1, 7, 64)):
    """The fast path, reading the text whole and in pieces of 1, 7 and 64 characters
    (so piece boundaries fall on every kind of line), and from its UTF-8 bytes a piece
    at a time, equals reading every line."""
    want = parsed(text, False)
    for piece in pieces:
        assert parsed(text, True, piece) == want, piece
    data = text.encode("utf-8", "replace")
    want = parsed(decode(data), False)
    for piece in pieces:
        assert parsed_bytes(data, piece) == want, piece


@pytest.mark.parametrize("name", PASTES)
@pytest.mark.parametrize("shape", ["alone", "in noise", "crlf", "ansi", "quoted", "twice"])
def test_fixture_pastes(name, shape):
    text = open(os.path.join(FIXTURES, name), encoding="utf-8").read()
    noise = "".join("step %d loss 0.%d\n" % (i, i) for i in range(300))
    text = {"alone": text, "in noise": noise + text + noise + "OS: windows 10\n" + noise,
            "crlf": text.replace("\n", "\r\n"), "ansi": text.replace(": ", ":\x1b[0m \x1b[1m"),
            "quoted": "".join("> " + ln + "\n" for ln in text.splitlines()), "twice": text + noise + text}[shape]
    assert_same(text)
    if shape == "in noise":
        assert parsed(text, True)[1], "the block is found in the noise"


ODD = ["\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029", "\t", "\xa0", "\u3000",
       "\x1b[31m", "\x1b[0m", "> ", "- ", "* ", "`", "```", ":", " ", ""]
line = st.one_of(st.sampled_from(FIXTURE_LINES), st.sampled_from(WARNINGS), st.text(max_size=30),
                 st.sampled_from(["", "noise: here", "CPU:", "Versions of relevant libraries:", "[pip3] torch==2.1.0"]))


@st.composite
def pastes(draw):
    out = []
    for ln in draw(st.lists(line, max_size=60)):
        for _ in range(draw(st.integers(0, 2))):
            pos = draw(st.integers(0, len(ln)))
            ln = ln[:pos] + draw(st.sampled_from(ODD)) + ln[pos:]
        if draw(st.integers(0, 9)) == 0 and " " in ln:  # a wrapped line
            cut = ln.index(" ")
            ln = ln[:cut] + draw(st.sampled_from(["\n", "\r\n"])) + ln[cut + 1:]
        out.append(ln)
    return draw(st.sampled_from(["\n", "\r\n", "\r"])).join(out) + draw(st.sampled_from(["", "\n"]))


@FUZZ
@given(pastes())
def test_generated_pastes(text):
    assert_same(text)


def test_capability_lines_keep_order_and_pairs():
    text = "a\n" + WARNINGS[0].replace(" with", "\nwith", 1) + "\nb\n\n" + WARNINGS[1] + "\n"
    old = L.BIG, L.PIECE
    try:
        L.BIG = float("inf")
        slow = L.capability_lines(text, clean, ANSI)
        useful = [ln for ln in slow if "capabilit" in ln]
        for piece in (1, 5, 40, 1 << 20):
            L.BIG, L.PIECE = 0, piece
            fast = L.capability_lines(text, clean, ANSI)
            assert [ln for ln in fast if "capabilit" in ln] == useful, piece
    finally:
        L.BIG, L.PIECE = old


def test_a_big_paste_takes_the_fast_path(monkeypatch):
    calls = []
    real = L._line_starts
    monkeypatch.setattr(L, "_line_starts", lambda *a: calls.append(1) or real(*a))
    CE.parse("step: 1\n" * (L.BIG // 8 + 10))
    assert calls, "a paste over BIG characters must not be read line by line"


# ------------------------------------------------------------- triage_bytes --
NOISE = "".join("[INFO] step %d loss 0.%d \u2588\u2588 \U0001f525\n" % (i, i) for i in range(60000))  # > 1 MiB


def _result(r):
    return (r.kind, r.facts.to_dict(), r.fields, r.notes, r.lines, r.provenance,
            [(e.id, e.match.line, e.match.count) for e in r.explanations])


@pytest.mark.parametrize("name", PASTES[:4])
def test_a_big_paste_triages_as_its_text_does(name):
    paste = open(os.path.join(FIXTURES, name), encoding="utf-8").read()
    data = (NOISE + paste + "RuntimeError: CUDA error: out of memory\n" + NOISE).encode("utf-8")
    assert L.BytesPaste is not None and len(data) > (1 << 20)
    big = triage_bytes(data, "p")
    whole = triage_text(decode(data), "p", _raw=data)
    assert _result(big) == _result(whole)


@pytest.mark.parametrize("data, path", [
    (NOISE.encode(), "pieces"),                                   # a log: read a piece at a time
    (("[" + "1, " * 600000 + "1]").encode(), "whole"),            # JSON: json.loads must see it all
    (("{" + NOISE).encode(), "pieces"),                           # starts like JSON, fails at once
    (b'{"schema_version": 1, "facts": {}}' + b" " * (2 << 20), "whole"),  # a report
    (b"\xff\xfe" + NOISE.encode("utf-16-le"), "whole"),           # UTF-16 (PowerShell)
    (("\u00a0" * 600000).encode(), "whole"),                      # blank, but not in bytes
])
def test_which_big_pastes_are_read_in_pieces(data, path):
    from torchdoctor.verbs.triage import _big_paste
    assert (_big_paste(data, "p") is not None) == (path == "pieces")


def test_big_blank_and_json_pastes_say_what_the_whole_text_says():
    with pytest.raises(TriageError, match="is empty"):
        triage_bytes(("\u00a0" * 600000).encode(), "p")
    with pytest.raises(TriageError, match="is JSON but not a torchdoctor report"):
        triage_bytes(("[" + "1, " * 600000 + "1]").encode(), "p")
