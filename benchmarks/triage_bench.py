#!/usr/bin/env python3
"""`torchdoctor triage` on many-line pastes, side by side with `explain --file`: a paste can be
a whole training log, and triage must stay as fast as explain's scan of it.

    python benchmarks/triage_bench.py [--mb 8 16] [--runs 5] [--baseline-root DIR]

Generates, in a temporary directory, pastes of the given sizes in several shapes:

* short     - 8-byte lines ("l000001"): a million lines in 8 MB, the most lines per byte;
* colons    - short "key: value" lines, so every line could be a collect_env label;
* log       - a realistic training log (benchmarks/loggen.py), ANSI colour codes included;
* embedded  - that log with a real collect_env paste and a CUDA error in its middle;

then runs, each in its own process, interleaved round by round (drift on a shared
machine hits all alike), `torchdoctor triage FILE`, `torchdoctor explain --no-env --file
FILE` (the scan alone: the reference of the ratios) and `explain --file FILE` (tailored to
this machine through its light probe, as triage tailors to the paste's facts) on the same
file, and, with --baseline-root, the triage of another checkout
(`git worktree add /tmp/td-main main`) for before/after. Prints the median wall time,
the peak RSS (wait4 / GNU time, as benchmarks/run.py measures it) and the ratios.

Targets: triage at most 2x explain --file on the same input (reading a paste must not cost
much more than scanning it), under 100 MB peak RSS at 16 MB. Not part of the test suite: shared machines are too noisy for timed tests.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

import loggen  # noqa: E402
from run import run_once  # noqa: E402

PASTE = os.path.join(ROOT, "tests", "fixtures", "collect_env", "torch2.0_h100_arch_warning.txt")
ERROR = "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"


def make(shape, mb, d):
    path = os.path.join(d, "%s-%dmb.txt" % (shape, mb))
    size = mb * 1024 * 1024
    if shape == "short":
        n = size // 8
        with open(path, "w") as fh:
            fh.write("".join("l%06d\n" % (i % 1000000) for i in range(n)))
    elif shape == "colons":
        rng = random.Random(1)
        keys = ["epoch", "loss", "lr", "step", "grad_norm", "time", "mem", "throughput"]
        out, got = [], 0
        while got < size:
            ln = "%s: %.4f\n" % (rng.choice(keys), rng.random())
            out.append(ln)
            got += len(ln)
        with open(path, "w") as fh:
            fh.write("".join(out))
    else:
        loggen.generate(path, mb)
        if shape == "embedded":
            data = open(path, "rb").read()
            mid = data.index(b"\n", len(data) // 2) + 1
            paste = open(PASTE, "rb").read()
            with open(path, "wb") as fh:
                fh.write(data[:mid] + paste + ERROR.encode() + data[mid:])
    with open(path, "rb+") as fh:  # at most `mb` MiB: triage reads up to 16 MiB
        data = fh.read(size)
        fh.seek(0)
        fh.write(data[:data.rfind(b"\n") + 1])
        fh.truncate()
    return path


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, nargs="+", default=[8, 16])
    ap.add_argument("--shapes", nargs="+", default=["short", "colons", "log", "embedded"])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--baseline-root", help="another checkout of torchdoctor whose triage to time as well")
    args = ap.parse_args()
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("PYTHONUNBUFFERED", None)
    cmds = [("triage", env, ["triage"]), ("explain --file", env, ["explain", "--no-env", "--file"]),
            ("explain, tailored", env, ["explain", "--file"])]
    if args.baseline_root:
        cmds.append(("triage (baseline)", dict(env, PYTHONPATH=os.path.abspath(args.baseline_root)), ["triage"]))
    with tempfile.TemporaryDirectory(prefix="td-triage-bench-") as d:
        print("%-9s %5s  %-18s %9s %9s %9s" % ("shape", "MB", "command", "median s", "peak MB", "vs scan"))
        for mb in args.mb:
            for shape in args.shapes:
                path = make(shape, mb, d)
                res = {name: ([], []) for name, _, _ in cmds}
                for r in range(args.runs + 1):  # round 0 warms the page cache and is dropped
                    for name, e, verb in cmds:
                        out = os.path.join(d, "out.txt")
                        # cwd: the temporary directory (python -m puts the cwd first on sys.path)
                        wall, _cpu, rss, _rc = run_once([sys.executable, "-m", "torchdoctor"] + verb + [path], e, d,
                                                        out, out + ".err")
                        if r:
                            res[name][0].append(wall)
                            res[name][1].append(rss)
                base = statistics.median(res["explain --file"][0])
                for name, _, _ in cmds:
                    med = statistics.median(res[name][0])
                    print("%-9s %5d  %-18s %9.2f %9.1f %8.2fx" % (shape, mb, name, med, max(res[name][1]) / 1024.0,
                                                                   med / base))


if __name__ == "__main__":
    main()
