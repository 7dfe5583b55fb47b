"""Hostile input for explain, triage and the report loader.

Property-based (hypothesis) and generated worst cases: random bytes, invalid
UTF-8, ANSI floods, a single 100 MB line, deeply nested JSON, huge numbers,
inputs built to make regexes backtrack. The contract: a result or a one-line
error (exit 2), never a traceback, and time linear in the input.

No timed assertions (the machines are shared and noisy): linearity is checked
on structure (every regex on these paths has bounded repeats, no nesting), and
the big inputs run in a child process with a wall-clock limit of minutes,
which only a super-linear algorithm can hit. The real scaling (1x, 2x, 4x) is
measured by benchmarks/run.py.
"""

import codecs
import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from regex_shape import repeats
from torchdoctor.match import logscan as LS
from torchdoctor.match import matcher as M
from torchdoctor.match import normalize as N
from torchdoctor.match import prefilter as P
from torchdoctor.kb.errors import _sre_c, load_entries

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
INDEX = M.default_index()
ENTRIES = load_entries()
EXAMPLE_LINES = sorted({ln for e in ENTRIES for ex in e.examples for ln in ex["text"].splitlines() if ln.strip()})
ANCHORS = sorted({p.anchor for e in ENTRIES for p in e.patterns if p.anchor})
FUZZ = settings(max_examples=int(os.environ.get("TORCHDOCTOR_FUZZ_EXAMPLES", "150")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
# A generous wall-clock guard for the big inputs: minutes, not a benchmark.
GUARD_S = 600


def key(matches):
    return [(m.id, m.line, m.count, m.text, round(m.score, 6), sorted(m.groups.items())) for m in matches]


# ------------------------------------------------------------- generators --
ESC_SEQS = [b"\x1b[31m", b"\x1b[0m", b"\x1b[1;32m", b"\x1b[2K", b"\x1b]0;title\x07", b"\x1bM", b"\x1b[?25l", b"\x1b",
            b"\x1b[", b"\x1b]8;;http://x\x1b\\"]
NOISE = [b"\r", b"\xff", b"\xc3", b"\xe2\x82", b"\x00", b"\t", b"\xc3\xa9", b"\xf0\x9f\x94\xa5", b"'", b" ... "]


@st.composite
def mangled_line(draw):
    """A known error line, an anchor, or noise; then ANSI codes, CRs and
    invalid UTF-8 spliced in anywhere, even inside the anchor."""
    base = draw(st.one_of(st.sampled_from(EXAMPLE_LINES), st.sampled_from(ANCHORS),
                          st.text(max_size=80), st.just("")))
    raw = base.encode("utf-8", "surrogatepass")
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(raw)))
        raw = raw[:pos] + draw(st.sampled_from(ESC_SEQS + NOISE)) + raw[pos:]
    if draw(st.booleans()):
        raw = draw(st.sampled_from([b">>> ", b"$ ", b"In [3]: ", b"PS C:\\> "])) + raw
    return raw


@st.composite
def log_bytes(draw):
    lines = draw(st.lists(st.one_of(mangled_line(), st.binary(max_size=60)), max_size=40))
    data = b"\n".join(lines)
    if draw(st.booleans()):
        data += b"\n"
    if draw(st.booleans()):
        data = codecs.BOM_UTF8 + data
    return data


def reference_scan(data: bytes):
    """What scan_stream must return: every line normalised and matched."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):  # read as UTF-16, as PowerShell writes
        data = data.decode("utf-16", "replace").encode("utf-8", "surrogatepass")
    elif data[:3] == codecs.BOM_UTF8:
        data = data[3:]
    col = M.Collector(INDEX)
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for i, raw in enumerate(lines):
        line = N.normalize(raw.decode("utf-8", "replace"))
        col.context.feed(line)
        col.context.feed_chunk(raw.replace(b"\r", b""))
        hits = INDEX.match_line(line)
        if hits:
            col.add(i + 1, line, hits)
    return col.results()


# ---------------------------------------------------------- the prefilter --
@FUZZ
@given(st.lists(st.text(alphabet="abxyz'( ", min_size=1, max_size=7), min_size=1, max_size=12),
       st.text(alphabet="abxyz'( \n", max_size=400), st.text(alphabet="abxyz'( \n", max_size=200))
def test_prefilter_finds_exactly_the_lines_with_an_anchor(anchors, text, sample):
    buf = text.encode()
    pre = P.Prefilter(anchors, sample.encode())
    want, pos = [], 0
    for line in text.split("\n"):
        if any(a in line for a in anchors):
            want.append(pos)
        pos += len(line.encode()) + 1
    assert pre.line_starts(buf) == want
    budgeted = pre.line_starts(buf, budget=True)
    assert budgeted is None or budgeted == want


def test_prefilter_survives_a_flood_of_its_rare_byte():
    # Fitted to a sample without 'K', then fed nothing but 'K': the visit
    # budget trips, the chunk is re-planned, and the result stays exact.
    pre = P.Prefilter(["Killed", "KeyError: 'x'"], b"plain text " * 100)
    assert pre.line_starts(b"K" * 2000000, budget=True) is None
    data = b"epoch 1 loss 0.5\n" * 70000 + b"K" * 3000000 + b"\nDataLoader worker (pid(s) 123) exited unexpectedly\n"
    assert key(LS.scan_stream(io.BytesIO(data), chunk_size=1 << 20)) == key(reference_scan(data))


# ------------------------------------------------------- stream == per line --
@FUZZ
@given(log_bytes(), st.sampled_from([1, 7, 64, 4096, LS.CHUNK]))
@example(b"Torch not \x1b[1mcompiled with CUDA enabled\n", 8)
@example(b"RuntimeError: Torch not compiled with CUDA enabled\r\r\n\xc3\x1b[0m\xa9 Torch not compiled with CUDA enabled", 5)
@example(b"\xfe\xff\n\tWeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct", 1)
def test_scan_stream_equals_matching_every_line(data, chunk):
    assert key(LS.scan_stream(io.BytesIO(data), chunk_size=chunk)) == key(reference_scan(data))


@FUZZ
@given(log_bytes())
def test_utf16_logs_match_like_utf8(data):
    if data[:3] == codecs.BOM_UTF8:
        data = data[3:]
    text = data.decode("utf-8", "replace")
    utf16 = text.encode("utf-16")  # with a BOM, as PowerShell writes it
    got = LS.scan_stream(io.BytesIO(utf16), chunk_size=64)
    assert key(got) == key(reference_scan(text.encode("utf-8", "surrogatepass")))


# ------------------------------------------- match_text: prefilter == direct --
@st.composite
def wrapped_text(draw):
    """Known errors, some wrapped in the middle (a terminal or forum did it)."""
    out = []
    for _ in range(draw(st.integers(1, 30))):
        line = draw(st.one_of(st.sampled_from(EXAMPLE_LINES), st.text(max_size=60)))
        if len(line) > 2 and draw(st.booleans()):
            cut = draw(st.integers(1, len(line) - 1))
            out.extend([line[:cut], draw(st.sampled_from(["", " ", "  "])) + line[cut:]])
        else:
            out.append(line)
    return "\n".join(out)


def reference_match_text(text):
    """match_text as first written: every line, then every joined pair."""
    col = M.Collector(INDEX)
    lines = [N.normalize(ln) for ln in text.splitlines()]
    col.context.feed_text("\n".join(lines))
    for i, line in enumerate(lines):
        hits = INDEX.match_line(line)
        if hits:
            col.add(i + 1, line, hits)
    for i in range(len(lines) - 1):
        a, b = lines[i].rstrip(), lines[i + 1].strip()
        if not a or not b:
            continue
        for joined in (a + " " + b, a + b):
            hits = [h for h in INDEX.match_line(joined) if h[0].id not in col.found]
            if hits:
                col.add(i + 1, joined, hits)
    # The later passes (retyped case, lost spaces, hard wraps) are not what this reference
    # checks: the same function runs them, so a text that reaches them compares like for like.
    M.later_passes(col, lines, INDEX)
    return col.results()


@FUZZ
@given(wrapped_text())
def test_match_text_prefiltered_equals_direct(text):
    direct = M.match_text(text)
    assert key(direct) == key(reference_match_text(text))
    saved = M.DIRECT_LINES
    M.DIRECT_LINES = 0  # force the prefiltered path on small texts
    try:
        filtered = M.match_text(text)
    finally:
        M.DIRECT_LINES = saved
    assert key(filtered) == key(direct)


@FUZZ
@given(st.text(max_size=3000))
def test_match_text_takes_any_text(text):
    for m in M.match_text(text):
        assert m.id and m.line >= 1


# ------------------------------------------------------ linear by structure --
@pytest.mark.parametrize("rx", [N.ANSI, N.ANSI_BYTES, N.PROMPT], ids=["ansi", "ansi-bytes", "prompt"])
def test_matcher_regexes_cannot_backtrack_badly(rx):
    pattern = rx.pattern.decode("latin-1") if isinstance(rx.pattern, bytes) else rx.pattern
    for hi, nested, sub in repeats(pattern):
        assert not nested, "nested repeat in %r" % pattern
        if hi == _sre_c.MAXREPEAT:
            # An unbounded repeat only over one character class, and only
            # after a literal ESC (each attempt ends at the next ESC) or in a
            # pattern anchored at ^ (one attempt per line).
            assert len(sub) == 1 and sub[0][0] in (_sre_c.IN, _sre_c.NOT_LITERAL, _sre_c.LITERAL), pattern
            assert pattern.startswith("^") or "\\x1b" in pattern, pattern


def test_every_kb_pattern_has_a_prefilter_anchor():
    # The stream scanner only looks at lines that contain an anchor.
    assert not INDEX.every_line
    assert all(len(p.anchor) >= 4 for e in ENTRIES for p in e.patterns)


# --------------------------------------------------------- the CLI, fuzzed --
def cli(args, stdin=b""):
    from click.testing import CliRunner

    from torchdoctor.cli import cli as group
    res = CliRunner().invoke(group, args, input=stdin, catch_exceptions=True)
    return res


def assert_clean(res):
    # A SystemExit is how click ends; anything else is a traceback for the user.
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.exit_code in (0, 1, 2), (res.exit_code, res.output[-500:])


@FUZZ
@given(st.binary(max_size=4000))
@example(b"\xff\xfe" + "Torch not compiled with CUDA enabled".encode("utf-16-le"))
@example(b"\x1b" * 3000)
@example(b"\x00" * 100)
def test_explain_stdin_takes_any_bytes(data):
    res = cli(["explain", "--no-env", "-"], stdin=data)
    assert_clean(res)


@FUZZ
@given(st.lists(st.text(min_size=1, max_size=200), min_size=1, max_size=3))
@example(["-h"])
@example(["--list"])
def test_explain_text_arguments_take_any_text(words):
    res = cli(["explain", "--no-env", "--json"] + words)
    assert_clean(res)
    # A word like -h or --list is an option: it prints help or the list, not a JSON result.
    if res.exit_code in (0, 1) and not any(w.startswith("-") for w in words):
        json.loads(res.output)


def _has_command(name):
    from torchdoctor.cli import cli as group
    return name in group.commands


@pytest.mark.skipif(not _has_command("triage"), reason="no triage command yet")
@FUZZ
@given(st.one_of(st.binary(max_size=3000), log_bytes(), st.text(max_size=2000).map(lambda t: t.encode("utf-8", "surrogatepass"))))
@example(b'{"schema_version": 1, "facts": ' + b"[" * 100000)
@example(b'{"schema_version": 1e999999, "facts": {}}')
@example(b'{"schema_version": 1, "facts": {"torch": {"version": 1' + b"0" * 5000 + b'}}}')
@example(b'{"schema_version": 1, "facts": {"python": {"version": "3.11"}, "torch": {"version": "2.4.1"}, '
         b'"driver": {"gpus": [{"capability": [1e308, -1e308]}], "driver_version": 123456789012345678901234567890}}}')
@example(b"PyTorch version: 2.4.1+cu124\nIs CUDA available: " + b"Y" * 5000)
def test_triage_takes_any_bytes(data):
    res = cli(["triage", "-"], stdin=data)
    assert_clean(res)


# ------------------------------------------------------ the report loader --
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=30),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=30)
FACT_KEYS = ["torch", "cuda", "driver", "python", "packages", "backends", "probe", "env", "os", "cpu", "memory",
             "toolkit", "torch_import", "accelerators", "torch_location"]


@st.composite
def report_docs(draw):
    facts = draw(st.dictionaries(st.sampled_from(FACT_KEYS), json_values, max_size=8))
    doc = {"schema_version": draw(st.sampled_from([1, 1, 1, 2, "1", None])), "facts": facts}
    if draw(st.booleans()):
        doc["findings"] = draw(json_values)
    return doc


@FUZZ
@given(report_docs())
def test_check_from_any_report_ends_cleanly(tmp_path_factory, doc):
    path = tmp_path_factory.mktemp("rep") / "report.json"
    path.write_text(json.dumps(doc))
    for extra in ([], ["--json"]):
        res = cli(["check", "--from", str(path)] + extra)
        assert_clean(res)


@FUZZ
@given(st.binary(max_size=2000))
@example(b"[" * 200000)
@example(b'{"schema_version": 1, "facts": {"torch": {"version": 1e400}}}')
@example(b'{"schema_version": 1, "facts": {"torch": {"version": ' + b"9" * 100000 + b"}}}")
@example(codecs.BOM_UTF16_LE + '{"schema_version": 1, "facts": {}}'.encode("utf-16-le"))
def test_report_loader_raises_only_valueerror(tmp_path_factory, data):
    from torchdoctor.gather.saved import load_report_facts
    path = tmp_path_factory.mktemp("rep") / "r.json"
    path.write_bytes(data)
    try:
        load_report_facts(str(path))
    except ValueError:
        pass


# ------------------------------------------------ big inputs, in a child --
BIG = r'''
import io, os, sys, time
sys.path.insert(0, {root!r})
kind, mb = sys.argv[1], int(sys.argv[2])
size = mb * 1024 * 1024
if kind == "one-line":
    unit = b"Torch not compiled with CUDA x " * 3 + b"\x1b[31m" + b"y" * 40
    data = (unit * (size // len(unit) + 1))[:size]
elif kind == "ansi-flood":
    unit = b"\x1b[1;31m\x1b]0;" + b"t" * 20 + b"\x1b[" + b"0" * 30
    data = (unit * (size // len(unit) + 1))[:size]
elif kind == "anchors":
    # every anchor, without the rest of its message: the worst line for
    # patterns with bounded gaps after the anchor
    from torchdoctor.match.matcher import default_index
    unit = (" ".join(default_index().anchors) + " ").encode()
    data = b"\n".join([(unit * 40)[:60000]] * (size // 60000 + 1))[:size]
elif kind == "random":
    data = os.urandom(size)
from torchdoctor.cli import main
sys.stdin = io.TextIOWrapper(io.BytesIO(data))
sys.argv = ["torchdoctor", "explain", "--no-env", "--json", "-"]
main()
'''


@pytest.mark.parametrize("kind,mb", [("one-line", 100), ("ansi-flood", 10), ("anchors", 10), ("random", 20)])
def test_big_hostile_inputs_finish(tmp_path, kind, mb):
    script = tmp_path / "big.py"
    script.write_text(BIG.format(root=ROOT))
    p = subprocess.run([sys.executable, str(script), kind, str(mb)], capture_output=True, timeout=GUARD_S)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert b"Traceback" not in p.stderr
    doc = json.loads(p.stdout)
    if kind == "one-line":
        assert doc["matches"] == [] or doc["matches"][0]["line"] == 1


def test_hundred_mb_single_line_through_the_cli(tmp_path):
    path = tmp_path / "one.log"
    unit = b"step 1 loss 0.1 " * 64
    with open(path, "wb") as fh:
        for _ in range(100 * 1024 * 1024 // len(unit)):
            fh.write(unit)
        fh.write(b"RuntimeError: Torch not compiled with CUDA enabled")
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", "--json", "--file", str(path)],
                       capture_output=True, timeout=GUARD_S, cwd=ROOT)
    assert p.returncode == 0, p.stderr[-2000:]
    assert [m["id"] for m in json.loads(p.stdout)["matches"]] == ["torch-not-compiled-with-cuda"]


BACKTRACK_SHAPES = {
    # each is a shape that makes a lazy or overlapping repeat rescan the rest
    # of the line at every start position
    "lazy-any": lambda n: "Found GPU0 " * (n // 11),
    "no-separator": lambda n: "a" * n,
    "spaces": lambda n: "a" + " " * n + "x",
    "marker": lambda n: "<!--torchdoctor:facts" * (n // 21),
    "prefix-only": lambda n: "x " * (n // 2) + "with CUDA capability sm_",
    "label-ish": lambda n: "Is CUDA available" + " " * n + "(e.g. " * 3,
}

# triage's collect_env parser and the Markdown report marker once backtracked
# super-linearly on these shapes (20 KB of spaces took over a minute); every repeat
# there is bounded now. 100 KB of each must finish far inside the guard.
TRIAGE_GUARD_S = 30
TRIAGE_SIZE = {"marker": 2 * 1024 * 1024}


def _triage_shape(tmp_path, shape, request, args):
    data = BACKTRACK_SHAPES[shape](TRIAGE_SIZE.get(shape, 100 * 1024)).encode()
    path = tmp_path / "paste.md"
    path.write_bytes(data)
    p = subprocess.run([sys.executable, "-m", "torchdoctor"] + args + [str(path)], capture_output=True,
                       timeout=TRIAGE_GUARD_S, cwd=ROOT)
    assert p.returncode in (0, 1, 2), p.stderr[-2000:]
    assert b"Traceback" not in p.stderr


@pytest.mark.skipif(not _has_command("triage"), reason="no triage command yet")
@pytest.mark.parametrize("shape", sorted(BACKTRACK_SHAPES))
def test_triage_backtracking_shapes_finish(tmp_path, shape, request):
    _triage_shape(tmp_path, shape, request, ["triage"])


def test_report_loader_marker_shape_finishes(tmp_path, request):
    _triage_shape(tmp_path, "marker", request, ["check", "--from"])


@pytest.mark.parametrize("shape", sorted(BACKTRACK_SHAPES))
def test_explain_backtracking_shapes_finish(tmp_path, shape):
    data = BACKTRACK_SHAPES[shape](8 * 1024 * 1024).encode()
    path = tmp_path / "paste.txt"
    path.write_bytes(data)
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", "--file", str(path)],
                       capture_output=True, timeout=GUARD_S, cwd=ROOT)
    assert p.returncode in (0, 1), p.stderr[-2000:]
    assert b"Traceback" not in p.stderr


def test_report_loader_refuses_deep_and_huge_json(tmp_path):
    from torchdoctor.gather.saved import load_report_facts
    for name, data in [("deep.json", b"[" * 5000000), ("nested.json", b'{"a":' * 1000000 + b"1" + b"}" * 1000000),
                       ("big.json", b'{"schema_version": 1, "facts": {"x": "' + b"a" * (70 * 2 ** 20) + b'"}}')]:
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(ValueError):
            load_report_facts(str(path))


# ------------------------------------------------ kb anchors: any text, no crash --
@FUZZ
@given(st.text(max_size=200))
def test_literal_anchor_takes_any_text(text):
    from torchdoctor.kb.errors import literal_anchor
    assert isinstance(literal_anchor(text), str)
