"""The two prefilter engines give the same answers.

The native engine (ahocorasick-rs, the `[fast]` extra, which the `test` extra
installs) and the pure-Python one must find the same lines, so a log scan or a
long paste has the same matches whichever is installed. Checked on the
knowledge base's own examples, the evaluation sets of real reports, the
robustness corpora (generated mangled logs, hostile inputs) and random
anchors. Also: which engine is used, and that `explain` on a short text never
imports the native one.
"""

import io
import json
import os
import subprocess
import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st

from test_robustness_input import FUZZ, key, log_bytes, reference_scan, wrapped_text
from torchdoctor.match import logscan as LS
from torchdoctor.match import matcher as M
from torchdoctor.match import normalize as N
from torchdoctor.match import prefilter as P
from torchdoctor.match import whose as W
from torchdoctor.kb.errors import load_entries

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EVAL = os.path.join(ROOT, "tests", "eval")
ENTRIES = load_entries()
HAVE_NATIVE = P.native_available()
needs_native = pytest.mark.skipif(not HAVE_NATIVE, reason="the native scan engine (ahocorasick-rs, the [fast] "
                                                          "extra) is not installed")
PURE = M.Index(ENTRIES, engine="pure")
NATIVE = M.Index(ENTRIES, engine="native") if HAVE_NATIVE else None


def examples():
    return [(e.id, ex["text"]) for e in ENTRIES for ex in e.examples]


def eval_texts():
    out = []
    for name in sorted(os.listdir(EVAL)):
        if name.endswith(".jsonl"):
            with open(os.path.join(EVAL, name), encoding="utf-8") as fh:
                out.extend((name, json.loads(ln)["text"]) for ln in fh if ln.strip())
    return out


def both_scans(data: bytes, chunk: int = LS.CHUNK):
    pure = LS.scan_stream(io.BytesIO(data), PURE, chunk_size=chunk)
    native = LS.scan_stream(io.BytesIO(data), NATIVE, chunk_size=chunk)
    return key(pure), key(native)


def prefiltered(text, index):
    saved = M.DIRECT_LINES
    M.DIRECT_LINES = 0  # the prefiltered path, whatever the length
    try:
        return key(M.match_text(text, index))
    finally:
        M.DIRECT_LINES = saved


def starts(index, buf):
    return index.prefilter(buf).line_starts(buf)


# ----------------------------------------------------------- corpora --
@needs_native
def test_engines_find_the_same_lines_in_the_kb_examples_and_eval_sets():
    texts = [t for _, t in examples()] + [t for _, t in eval_texts()]
    blob = "\n".join(texts).encode("utf-8", "surrogatepass")
    got = starts(NATIVE, blob)
    assert got == starts(PURE, blob)
    assert len(got) > len(examples())  # most examples hold an anchor on several lines


def each_text_same_lines(texts):
    """Per text, the lines both engines find (one prefilter of each for all: which
    lines a prefilter finds does not depend on what it was fitted to)."""
    blob = "\n".join(texts).encode("utf-8", "surrogatepass")
    pure, native = PURE.prefilter(blob), NATIVE.prefilter(blob)
    for text in texts:
        for variant in (text, "\n".join(N.normalize(ln) for ln in text.splitlines())):
            data = variant.encode("utf-8", "surrogatepass")
            assert pure.line_starts(data) == native.line_starts(data), text[:300]


@needs_native
def test_kb_examples_through_both_engines():
    texts = [t for _, t in examples()]
    each_text_same_lines(texts)
    log = ("\n".join(texts) + "\n").encode("utf-8", "surrogatepass")
    for chunk in (64, 4096, LS.CHUNK):
        pure, native = both_scans(log, chunk)
        assert pure == native
    assert len(pure) > len(ENTRIES) // 2
    joined = "\n".join(texts)  # one paste of them all: match_text prefilters it (and its wrapped pairs)
    assert key(M.match_text(joined, PURE)) == key(M.match_text(joined, NATIVE))


@needs_native
def test_eval_sets_through_both_engines():
    texts = [t for _, t in eval_texts()]
    each_text_same_lines(texts)
    log = "\n".join(texts).encode("utf-8", "surrogatepass")
    for chunk in (64, LS.CHUNK):
        pure, native = both_scans(log, chunk)
        assert pure == native and pure  # the eval sets are full of known errors
    for text in texts[::25]:  # a sample of single pastes, prefiltered
        assert prefiltered(text, PURE) == prefiltered(text, NATIVE), text[:300]


@needs_native
@FUZZ
@given(log_bytes(), st.sampled_from([1, 7, 4096, LS.CHUNK]))
def test_mangled_logs_through_both_engines(data, chunk):
    pure, native = both_scans(data, chunk)
    assert pure == native == key(reference_scan(data))


@FUZZ
@given(log_bytes(), st.integers(0, 4000))
def test_few_coloured_lines_in_a_big_chunk_equal_matching_every_line(data, at):
    # Enough plain lines around a few mangled ones that each chunk strips its
    # coloured lines one by one (ESC_SPARSE) instead of the whole chunk.
    plain = b"epoch 1 step 20 loss 0.25 lr 1e-4\r\n" * 4000
    log = plain[:at * 35] + data + b"\n" + plain[at * 35:]
    coloured = LS._coloured_lines(log)
    assert coloured is False or isinstance(coloured, list)
    want = key(reference_scan(log))
    for index in (PURE, NATIVE) if HAVE_NATIVE else (PURE,):
        assert key(LS.scan_stream(io.BytesIO(log), index)) == want


def test_the_coloured_line_paths_are_both_taken():
    few = b"plain line\n" * 1000 + b"Torch not \x1b[1mcompiled with CUDA enabled\n"
    assert LS._coloured_lines(few) == [(11000, len(few) - 1)]
    many = b"\x1b[32mok\x1b[0m\n" * 1000
    assert LS._coloured_lines(many) is False
    for data in (few, few.replace(b"\n", b"\r\n"), many + few):
        assert key(LS.scan_stream(io.BytesIO(data), PURE)) == key(reference_scan(data))
        assert [m[0] for m in key(LS.scan_stream(io.BytesIO(data), PURE))] == ["torch-not-compiled-with-cuda"]


def test_a_retyped_lower_case_line_reads_the_same_whichever_path_finds_the_lines():
    # The case-folded pass belongs to short texts, not to the direct path: forcing the
    # prefiltered path once turned it off (a fuzzed paste found the difference).
    text = ('  File "/home/u/envs/t/lib/python3.8/site-packages/torch/utils/data/_utils/pin_memory.py", line 28, '
            'in _pin_memory_loop\nGetting segmentation fault, I have enough memory. ')
    direct = key(M.match_text(text))
    assert [m[0] for m in direct] == ["torch-process-segfault"]
    assert prefiltered(text, PURE) == direct


@needs_native
@FUZZ
@given(wrapped_text())
def test_wrapped_pastes_through_both_engines(text):
    assert prefiltered(text, PURE) == prefiltered(text, NATIVE) == key(M.match_text(text))


@needs_native
@FUZZ
@given(st.lists(st.text(alphabet="abxyz'(\n ", min_size=1, max_size=7), min_size=1, max_size=12),
       st.text(alphabet="abxyz'( \n", max_size=400))
def test_native_prefilter_finds_exactly_the_lines_with_an_anchor(anchors, text):
    buf = text.encode()
    want, pos = [], 0
    for line in text.split("\n"):
        if any(a in line for a in anchors if "\n" not in a):
            want.append(pos)
        pos += len(line.encode()) + 1
    assert P.NativePrefilter(anchors).line_starts(buf) == want
    assert P.Prefilter(anchors, buf).line_starts(buf) == want


@needs_native
@FUZZ
@given(st.lists(st.binary(min_size=1, max_size=5), min_size=1, max_size=4),
       st.lists(st.binary(min_size=1, max_size=5), max_size=3),
       st.lists(st.binary(min_size=1, max_size=5), max_size=6), st.binary(max_size=300))
def test_native_markers_say_what_searching_each_marker_says(own, namesakes, foreign, chunk):
    # Overlapping markers too: a foreign marker containing an own one must not hide it.
    names = [(m, "namesake%d" % i) for i, m in enumerate(namesakes)]
    others = [(m, "other%d" % i) for i, m in enumerate(foreign)]
    is_own = any(m in chunk for m in own)
    want = (is_own, W.first(chunk, names)[0], None if is_own else W.first(chunk, others)[0])
    assert P.NativeMarkers(own, names, others).search(chunk) == want


@needs_native
def test_the_framework_verdict_is_the_same_with_both_engines():
    for text in (b"2024 tensorflow/core/platform/cpu_feature_guard.cc:182] ... CUDA error: out of memory\n",
                 b"import torch\ntensorflow/core/x.cc] CUDA error: out of memory\n",
                 b"RuntimeError: CUDA error: out of memory\n"):
        got = []
        for index in (PURE, NATIVE):
            ctx = M.Context(index)
            ctx.feed_chunk(text)
            got.append((ctx.own, ctx.other))
        assert got[0] == got[1], (text, got)


def hostile(kind, mb):
    size = int(mb * 1024 * 1024)
    if kind == "one-line":
        unit = b"step 1 loss 0.1 Torch not compiled with CUDA x \x1b[31m" + b"y" * 30
        return (unit * (size // len(unit) + 1))[:size]
    if kind == "ansi-flood":
        unit = b"\x1b[1;31m\x1b]0;" + b"t" * 20 + b"\x07\x1b[" + b"0" * 30 + b"m"
        line = (unit * 100)[:4095] + b"\n"
        return (line * (size // len(line) + 1))[:size]
    if kind == "anchor-dense":
        unit = (" ".join(PURE.anchors) + " ").encode("utf-8")
        line = (unit * 10)[:59999] + b"\n"
        return (line * (size // len(line) + 1))[:size]
    return os.urandom(size)


@needs_native
@pytest.mark.parametrize("kind,mb", [("one-line", 12), ("ansi-flood", 4), ("anchor-dense", 1.2), ("random", 4)])
def test_hostile_inputs_through_both_engines(kind, mb):
    pure, native = both_scans(hostile(kind, mb))
    assert pure == native
    if kind == "anchor-dense":
        assert pure  # every pattern's anchor is there: some entries match


def test_native_prefilter_without_anchors_finds_nothing():
    if HAVE_NATIVE:
        assert P.NativePrefilter([]).line_starts(b"anything\n") == []
    assert P.Prefilter([], b"").line_starts(b"anything\n") == []


# ---------------------------------------------------------- selection --
def test_engine_choice(monkeypatch):
    monkeypatch.delenv(P.ENGINE_VAR, raising=False)
    assert P.engine() == ("native" if HAVE_NATIVE else "pure")
    monkeypatch.setenv(P.ENGINE_VAR, "pure")
    assert P.engine() == "pure"
    assert M.Index(ENTRIES).engine == "pure"
    assert P.engine("pure") == "pure"
    with pytest.raises(ValueError):
        P.engine("fastest")


def test_without_the_native_package_the_pure_engine_is_used(monkeypatch):
    monkeypatch.delenv(P.ENGINE_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "ahocorasick_rs", None)  # import fails, as where it is not installed
    assert not P.native_available()
    assert P.engine() == "pure"
    with pytest.raises(ImportError, match=r"torchdoctor\[fast\]"):
        P.engine("native")
    index = M.Index(ENTRIES)
    data = b"x\n" * 10 + b"RuntimeError: Torch not compiled with CUDA enabled\n"
    assert [m.id for m in LS.scan_stream(io.BytesIO(data), index)] == ["torch-not-compiled-with-cuda"]
    assert index.engine == "pure"


def test_a_native_package_too_old_or_broken_falls_back_to_pure(monkeypatch):
    import types
    monkeypatch.delenv(P.ENGINE_VAR, raising=False)
    data = b"x\n" * 10 + b"RuntimeError: Torch not compiled with CUDA enabled\n"
    old = types.ModuleType("ahocorasick_rs")  # before 0.20: no byte patterns
    old.AhoCorasick = object
    monkeypatch.setitem(sys.modules, "ahocorasick_rs", old)
    assert not P.native_available() and P.engine() == "pure"

    class Broken:
        def __init__(self, *a, **k):
            raise RuntimeError("illegal instruction in a foreign build")
    broken = types.ModuleType("ahocorasick_rs")
    broken.BytesAhoCorasick, broken.Implementation = Broken, types.SimpleNamespace(DFA=None)
    monkeypatch.setitem(sys.modules, "ahocorasick_rs", broken)
    assert P.engine() == "native"
    index = M.Index(ENTRIES)
    assert [m.id for m in LS.scan_stream(io.BytesIO(data), index)] == ["torch-not-compiled-with-cuda"]
    assert index.engine == "pure"
    with pytest.raises(RuntimeError):  # asked for by name: no silent fallback
        LS.scan_stream(io.BytesIO(data), M.Index(ENTRIES, engine="native"))


@needs_native
def test_native_engine_is_the_default_where_installed(monkeypatch):
    monkeypatch.delenv(P.ENGINE_VAR, raising=False)
    index = M.Index(ENTRIES)
    data = b"x\n" * 10 + b"RuntimeError: Torch not compiled with CUDA enabled\n"
    assert [m.id for m in LS.scan_stream(io.BytesIO(data), index)] == ["torch-not-compiled-with-cuda"]
    assert index.engine == "native" and isinstance(index.prefilter(data), P.NativePrefilter)


IMPORTED = r'''
import sys
from torchdoctor.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
sys.stderr.write("\nNATIVE_IMPORTED=%s\n" % ("ahocorasick_rs" in sys.modules))
'''


def _imported(tmp_path, args, env_extra):
    env = {k: v for k, v in os.environ.items() if k != P.ENGINE_VAR}
    env.update(env_extra)
    p = subprocess.run([sys.executable, "-c", IMPORTED] + args, capture_output=True, env=env, cwd=ROOT, timeout=300)
    return p.stdout, p.stderr.decode("utf-8", "replace")


def test_explain_of_a_short_text_never_imports_the_native_engine(tmp_path):
    out, err = _imported(tmp_path, ["explain", "--no-env", "RuntimeError: Torch not compiled with CUDA enabled"], {})
    assert b"Torch not compiled" in out
    assert "NATIVE_IMPORTED=False" in err


@needs_native
def test_a_log_scan_uses_the_native_engine_unless_told_not_to(tmp_path):
    log = tmp_path / "train.log"
    log.write_bytes(b"step 1 loss 0.5\n" * 200000 + b"RuntimeError: Torch not compiled with CUDA enabled\n")
    args = ["explain", "--no-env", "--json", "--file", str(log)]
    out, err = _imported(tmp_path, args, {})
    assert "NATIVE_IMPORTED=True" in err
    native = json.loads(out)["matches"]
    out, err = _imported(tmp_path, args, {P.ENGINE_VAR: "pure"})
    assert "NATIVE_IMPORTED=False" in err
    assert json.loads(out)["matches"] == native
    assert [m["id"] for m in native] == ["torch-not-compiled-with-cuda"]


@needs_native
def test_the_anchor_literals_are_the_same_with_and_without_the_native_package():
    anchors = list(PURE.anchors) + ["rror", "Error", "not ", "cannot", "an", "ann", "nn"]
    native = P.literals(anchors, native=True)
    assert P.literals(anchors) == native
    assert b"Error" not in native and b"ann" not in native and b"rror" in native  # the shorter one covers it


@needs_native
@given(st.lists(st.text(alphabet="abc\u00e9", min_size=1, max_size=5), max_size=25))
def test_random_anchor_literals_are_the_same_with_and_without_the_native_package(anchors):
    assert P.literals(anchors, native=True) == P.literals(anchors)


@needs_native
def test_a_log_scans_trigger_automaton_finds_what_the_substring_searches_find():
    # After TRIGGER_AUTOMATON_AFTER lines the native index looks for its triggers with one
    # automaton pass per line; each line's hits must be those of the searches, trigger by trigger.
    auto = M.Index(ENTRIES, engine="native")
    auto._triggers = P.NativeTriggers(list(auto.by_trigger))
    lines = [N.normalize(ln) for _, t in examples() + eval_texts() for ln in t.split("\n")]
    lines = [ln for ln in lines if ln.strip()]
    assert len(lines) > 5000
    def hits(index, line):
        return [(e.id, round(score, 6), sorted(groups.items()), anchor) for e, score, groups, anchor in index.match_line(line)]
    differ = [ln for ln in lines if hits(auto, ln) != hits(PURE, ln)]
    assert differ == []


def test_a_log_scan_switches_to_the_automaton_only_after_enough_lines():
    index = M.Index(ENTRIES, engine="native" if HAVE_NATIVE else "pure")
    for _ in range(M.TRIGGER_AUTOMATON_AFTER):
        index.match_line("RuntimeError: CUDA out of memory.")
    assert index._triggers is None  # a paste never builds it
    index.match_line("RuntimeError: CUDA out of memory.")
    assert isinstance(index._triggers, P.NativeTriggers if HAVE_NATIVE else P.PureTriggers)


def test_the_standard_librarys_trigger_lookup_finds_what_the_substring_searches_find():
    # Without the native package a log scan files the triggers under their first three
    # characters; every line's hits must still be those of one search per trigger, on short
    # lines (the lookup) and long ones (the searches again).
    looked_up = M.Index(ENTRIES, engine="pure")
    looked_up._triggers = P.PureTriggers(list(looked_up.by_trigger))
    lines = [N.normalize(ln) for _, t in examples() + eval_texts() for ln in t.split("\n")]
    lines = [ln for ln in lines if ln.strip()]
    lines += [" ".join(lines[i:i + 12]) for i in range(0, 600, 12)]  # past PureTriggers.LONG
    assert any(len(ln) > P.PureTriggers.LONG for ln in lines)
    def hits(index, line):
        return [(e.id, round(score, 6), sorted(groups.items()), anchor) for e, score, groups, anchor in index.match_line(line)]
    fresh = M.Index(ENTRIES, engine="pure")
    fresh._triggers = False  # never switches: one search per trigger on every line
    differ = [ln for ln in lines if hits(looked_up, ln) != hits(fresh, ln)]
    assert differ == []
