#!/usr/bin/env python3
"""Which multi-literal engine should the log scan's prefilter use? One run, side by side.

    python3 benchmarks/engines.py LOG [--runs 3]

Times the first pass of `explain --file` alone -- finding the lines of LOG
that hold at least one of the scanner's literals -- with every engine that
imports here, in 1 MiB chunks as the scan reads them, and `grep -c -F -f`
with the same literals for scale. Every engine must find the same lines as
the pure-Python Prefilter (the count is checked). Engines: torchdoctor's pure
Prefilter and NativePrefilter (ahocorasick-rs DFA), and for comparison
ahocorasick-rs's default automaton, pyahocorasick, google-re2 (one
alternation) and hyperscan (literal database), whichever are installed:

    pip install ahocorasick-rs pyahocorasick google-re2 hyperscan

Not part of the test suite. The numbers that chose the engine are in
docs/benchmarks.md.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from torchdoctor.match import prefilter as P  # noqa: E402
from torchdoctor.match.matcher import Index  # noqa: E402
from torchdoctor.kb.errors import load_entries  # noqa: E402

CHUNK = 1 << 20


def chunks(path):
    """The log in ~1 MiB pieces cut at newlines (as the scan hands them over)."""
    with open(path, "rb") as fh:
        carry = b""
        while True:
            data = fh.read(CHUNK)
            if not data:
                if carry:
                    yield carry + b"\n"
                return
            buf = carry + data
            cut = buf.rfind(b"\n")
            if cut < 0:
                carry = buf
                continue
            yield buf[:cut + 1]
            carry = buf[cut + 1:]


def first_starts(ends_or_starts, buf):
    """Count distinct lines among sorted match offsets."""
    n, line_end = 0, -1
    for s in ends_or_starts:
        if s < line_end:
            continue
        n += 1
        e = buf.find(b"\n", s)
        line_end = e if e >= 0 else len(buf)
    return n


def make_engines(anchors):
    kept = P.literals(anchors)  # the same literals the engines of the scan are given
    out = {}
    out["pure (stdlib Prefilter)"] = lambda: _pure(anchors)
    if P.native_available():
        out["ahocorasick-rs DFA (torchdoctor[fast])"] = lambda: P.NativePrefilter(anchors).line_starts
        import ahocorasick_rs as ar
        ac = ar.BytesAhoCorasick(kept)
        out["ahocorasick-rs default automaton"] = lambda: (
            lambda buf: [0] * first_starts([s for _, s, _ in ac.find_matches_as_indexes(buf)], buf))
    try:
        import ahocorasick

        def _pyaho():
            a = ahocorasick.Automaton()
            for i, k in enumerate(kept):
                a.add_word(k.decode("latin-1"), (i, len(k)))
            a.make_automaton()
            return lambda buf: [0] * first_starts(
                [end - n + 1 for end, (_, n) in a.iter(buf.decode("latin-1"))], buf)
        out["pyahocorasick (str automaton)"] = _pyaho
    except ImportError:
        pass
    try:
        import re2

        def _re2():
            rx = re2.compile(b"|".join(re.escape(k) for k in kept))

            def run(buf):
                n, pos = 0, 0
                while True:
                    m = rx.search(buf, pos)
                    if not m:
                        return [0] * n
                    n += 1
                    e = buf.find(b"\n", m.end())
                    pos = e + 1 if e >= 0 else len(buf)
            return run
        out["google-re2 (one alternation)"] = _re2
    except ImportError:
        pass
    try:
        import hyperscan

        def _hs():
            db = hyperscan.Database()
            db.compile(expressions=[re.escape(k) for k in kept], ids=list(range(len(kept))),
                       elements=len(kept), flags=[0] * len(kept))

            def run(buf):
                starts = []
                db.scan(buf, match_event_handler=lambda i, f, t, fl, ctx: starts.append(t - 1))
                return [0] * first_starts(sorted(starts), buf)
            return run
        out["hyperscan (literal database)"] = _hs
    except ImportError:
        pass
    return out


def _pure(anchors):
    state = {}

    def run(buf):
        pre = state.get("pre")
        if pre is None:
            pre = state["pre"] = P.Prefilter(anchors, P.sample(buf))
        got = pre.line_starts(buf, budget=True)
        if got is None:
            got = P.Prefilter(anchors, P.sample(buf)).line_starts(buf)
        return got
    return run


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("log")
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args(argv)
    anchors = Index(load_entries()).anchors
    engines = make_engines(anchors)
    size = os.path.getsize(args.log)
    times = {name: [] for name in engines}
    counts = {}
    grep = shutil.which("grep")
    tmp = tempfile.mkdtemp(prefix="tdengines-")
    lit = os.path.join(tmp, "anchors.txt")
    with open(lit, "w", encoding="utf-8") as fh:
        fh.write("\n".join(anchors) + "\n")
    if grep:
        times["grep -c -F -f (a process)"] = []
    try:
        for _ in range(args.runs):  # interleaved rounds: drift hits all alike
            for name, make in engines.items():
                t0 = time.perf_counter()
                find = make()
                n = sum(len(find(c)) for c in chunks(args.log))
                times[name].append(time.perf_counter() - t0)
                counts[name] = n
            if grep:
                t0 = time.perf_counter()
                out = subprocess.run([grep, "-c", "-F", "-f", lit, args.log], capture_output=True,
                                     env=dict(os.environ, LC_ALL="C"))
                times["grep -c -F -f (a process)"].append(time.perf_counter() - t0)
                counts["grep -c -F -f (a process)"] = int(out.stdout or 0)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    want = counts["pure (stdlib Prefilter)"]
    print("%s: %.0f MB, %d literals; lines holding one: %d\n" % (os.path.basename(args.log), size / 1048576.0,
                                                                len(anchors), want))
    print("| engine | median s | MB/s | lines | same lines |")
    print("|---|---|---|---|---|")
    for name, ts in times.items():
        med = statistics.median(ts)
        print("| %s | %.3f | %.0f | %d | %s |" % (name, med, size / 1048576.0 / med, counts[name],
                                                  "yes" if counts[name] == want else "NO"))
    return 0 if all(c == want for c in counts.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
