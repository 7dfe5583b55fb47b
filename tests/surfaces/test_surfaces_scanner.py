"""matcher.Scanner (the incremental log scan of `torchdoctor run`) gives exactly what
scan_stream gives, however the bytes are cut into pieces."""

import io
import os
import random
import sys

from torchdoctor.explain.matcher import Scanner, scan_stream
from torchdoctor.kb.errors import load_entries

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _shape(matches):
    return [(m.id, m.line, m.count, round(m.score, 3), m.text) for m in matches]


def _feed(data: bytes, pieces, chunk_size):
    sc = Scanner(chunk_size=chunk_size)
    pos = 0
    for n in pieces:
        sc.feed(data[pos:pos + n])
        pos += n
    sc.feed(data[pos:])
    return sc.results()


def _random_pieces(rng, total, most):
    out, left = [], total
    while left > 0:
        n = rng.randint(1, most)
        out.append(n)
        left -= n
    return out


def test_kb_examples_same_as_scan_stream():
    rng = random.Random(7)
    texts = [ex["text"].encode("utf-8") for e in load_entries() for ex in e.examples]
    # every example at once, as one log cut into random pieces ...
    data = b"\n".join(texts) + b"\n"
    want = _shape(scan_stream(io.BytesIO(data), chunk_size=8192))
    assert len(want) > 100
    assert _shape(_feed(data, _random_pieces(rng, len(data), 700), chunk_size=8192)) == want
    # ... and a sample one by one (a prefilter is fitted per scan: ~20 ms each)
    for data in rng.sample(texts, 40):
        want = _shape(scan_stream(io.BytesIO(data), chunk_size=4096))
        assert _shape(_feed(data, _random_pieces(rng, len(data), 37), chunk_size=64)) == want, data[:200]


def test_generated_log_same_as_scan_stream(tmp_path):
    sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
    try:
        import loggen
    finally:
        sys.path.pop(0)
    path = str(tmp_path / "train.log")
    loggen.generate(path, 3.0, seed=99, rounds=1, pool_size=800)
    data = open(path, "rb").read()
    want = scan_stream(io.BytesIO(data))
    assert want, "the planted errors are found"
    rng = random.Random(3)
    got = _feed(data, _random_pieces(rng, len(data), 9000), chunk_size=256 * 1024)
    assert _shape(got) == _shape(want)


def test_results_midway_do_not_consume_the_unfinished_line():
    line = b"RuntimeError: Torch not compiled with CUDA enabled\n"
    sc = Scanner(chunk_size=16)
    sc.feed(b"step 1\nRuntimeError: Torch not comp")
    assert sc.results() == []  # half a message is no match
    sc.feed(line[len(b"RuntimeError: Torch not comp"):])
    got = sc.results()
    assert [m.id for m in got] == [m.id for m in scan_stream(io.BytesIO(b"step 1\n" + line))]
    assert got and got[0].line == 2


def test_bom_split_over_feeds_and_memory_stays_bounded():
    sc = Scanner(chunk_size=1024)
    sc.feed(b"\xef")
    sc.feed(b"\xbb")
    sc.feed(b"\xbfRuntimeError: Torch not compiled with CUDA enabled\n")
    assert [m.id for m in sc.results()][:1] == [m.id for m in scan_stream(io.BytesIO(
        b"RuntimeError: Torch not compiled with CUDA enabled\n"))][:1]
    for _ in range(2000):
        sc.feed(b"x" * 100 + b"\n")
        assert len(sc.buf) < 1024 + 101
    # a line that never ends is cut, as scan_stream cuts it
    for _ in range(100):
        sc.feed(b"y" * 10000)
        assert len(sc.buf) <= 4 * 64 * 1024 + 10000
