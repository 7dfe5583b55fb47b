"""What the surfaces cost, measured side by side in one run (not part of the tests).

1. `torchdoctor run -- python PROG` against `python PROG` on programs printing 200k lines:
   * flood: 200k training-log lines (12 MB) written as fast as Python can (and the same
     naming torch on its first line);
   * train: `import torch`, then 200k steps of a 16x16 matmul, one log line per step;
   each with Python's default buffering and with PYTHONUNBUFFERED=1 (one write per line,
   as many containers set it).
   Each is run N times in every mode, the modes alternating within each round:
   direct (stdout and stderr to one file, as `> log 2>&1`), direct through a pipe
   (`| cat > log`: the same pipe hop the doctor adds), and through the doctor (same file).
   Reports the median wall time, the ratio to direct, the output throughput, and checks
   that the doctor's file is byte-identical to the direct one.
2. `import torchdoctor.auto`: `python -c pass` against `python -c "import torchdoctor.auto"`
   (median of M alternating runs), plus the import's own time from `-X importtime`.

    python benchmarks/surfaces_bench.py [--python PY] [--rounds 7] [--imports 31]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

FLOOD = r'''
import sys
w = sys.stdout.write
for i in range(200000):
    w("step %d loss %.4f lr 0.001 | 12.3 it/s [00:%02d<00:10]\n" % (i, i * 0.001, i % 60))
'''

# The same, naming torch once at the top, as most torch logs do (a version line, a warning):
# the scanner stops looking for other frameworks' markers once torch is named.
FLOOD_TORCH = "print('torch 2.13.0+cpu', flush=True)\n" + FLOOD

TRAIN = r'''
import sys
import torch
torch.manual_seed(0)
x = torch.randn(16, 16)
w = sys.stdout.write
for i in range(200000):
    y = x @ x
    w("step %d loss %.4f\n" % (i, float(y[0, 0]) * 1e-3))
'''


def run(argv, out_path, pipe=False, env=None):
    """(wall s, CPU s of the whole process tree, exit status)."""
    import resource
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    with open(out_path, "wb") as fh:
        if pipe:
            cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=fh)
            p = subprocess.Popen(argv, stdout=cat.stdin, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
            cat.stdin.close()
            rc = p.wait()
            cat.wait()
        else:
            rc = subprocess.run(argv, stdout=fh, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env).returncode
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), rc


def bench_run(python, rounds, work):
    base_env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    base_env.pop("PYTHONUNBUFFERED", None)
    doctor = [python, "-m", "torchdoctor", "run", "--"]
    rows = []
    for name, body, unbuffered in (("flood", FLOOD, False), ("flood, unbuffered", FLOOD, True),
                                   ("flood naming torch", FLOOD_TORCH, False),
                                   ("train", TRAIN, False), ("train, unbuffered", TRAIN, True)):
        env = dict(base_env, PYTHONUNBUFFERED="1") if unbuffered else base_env
        prog = os.path.join(work, name.split(",")[0].replace(" ", "_") + ".py")
        with open(prog, "w") as fh:
            fh.write(body)
        modes = {"direct": ([python, prog], False), "direct | cat": ([python, prog], True),
                 "torchdoctor run": (doctor + [python, prog], False)}
        times = {m: [] for m in modes}
        cpus = {m: [] for m in modes}
        outs = {}
        for r in range(rounds):
            order = list(modes)
            order = order[r % len(order):] + order[:r % len(order)]
            for m in order:
                argv, pipe = modes[m]
                out = os.path.join(work, "%s-%d.out" % (prog, list(modes).index(m)))
                dt, cpu, rc = run(argv, out, pipe, env)
                if rc != 0:
                    raise SystemExit("%s (%s) exited %d" % (name, m, rc))
                times[m].append(dt)
                cpus[m].append(cpu)
                outs[m] = out
        size = os.path.getsize(outs["direct"])
        same = open(outs["direct"], "rb").read() == open(outs["torchdoctor run"], "rb").read()
        base, base_cpu = statistics.median(times["direct"]), statistics.median(cpus["direct"])
        for m, ts in times.items():
            med, cpu = statistics.median(ts), statistics.median(cpus[m])
            rows.append((name, m, med, min(ts), med / base, size / med / 1e6, cpu, cpu - base_cpu,
                         same if m == "torchdoctor run" else None))
    return rows


def bench_import(python, n):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    cmds = {"python -c pass": [python, "-c", "pass"],
            "python -c 'import torchdoctor.auto'": [python, "-c", "import torchdoctor.auto"]}
    times = {k: [] for k in cmds}
    for i in range(n):
        for k in (list(cmds) if i % 2 == 0 else list(cmds)[::-1]):
            t0 = time.perf_counter()
            subprocess.run(cmds[k], env=env, check=True)
            times[k].append(time.perf_counter() - t0)
    r = subprocess.run([python, "-X", "importtime", "-c", "import torchdoctor.auto"], env=env, capture_output=True, text=True)
    own = None
    for line in r.stderr.splitlines():
        parts = [p.strip() for p in line.split("|")]
        if len(parts) == 3 and parts[2] == "torchdoctor.auto":
            own = int(parts[1]) / 1000.0
    check = subprocess.run([python, "-c", "import sys, torchdoctor.auto; print(sorted(m for m in ('click', "
                            "'torchdoctor.kb', 'torchdoctor.match.matcher', 'torchdoctor.diagnose', 'json', "
                            "'subprocess') if m in sys.modules))"], env=env, capture_output=True, text=True).stdout.strip()
    return times, own, check


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=sys.executable, help="an interpreter with torch (the train program needs it)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--imports", type=int, default=31)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="td-surfaces-bench-") as work:
        rows = bench_run(args.python, args.rounds, work)
    print("#### `torchdoctor run` (median of %d rounds, modes alternating)\n" % args.rounds)
    print("| program | mode | median s | best s | ratio to direct | output MB/s | CPU s (all processes) | CPU added | output identical |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, m, med, best, ratio, mbs, cpu, added, same in rows:
        print("| %s | %s | %.3f | %.3f | %.2fx | %.1f | %.2f | %+.2f | %s |" % (
            name, m.replace("|", "\\|"), med, best, ratio, mbs, cpu, added, "" if same is None else ("yes" if same else "NO")))
    times, own, check = bench_import(args.python, args.imports)
    a, b = (statistics.median(v) for v in times.values())
    print("\n#### `import torchdoctor.auto` (median of %d alternating runs)\n" % args.imports)
    print("| command | median ms |\n|---|---|")
    for k, v in times.items():
        print("| %s | %.1f |" % (k, statistics.median(v) * 1000))
    print("\nadded: %.1f ms (wall, median difference); the import's own cumulative time (-X importtime): %s ms; "
          "modules it loads among click, the knowledge base, the matcher, diagnose, json, subprocess: %s"
          % ((b - a) * 1000, "%.1f" % own if own is not None else "?", check))


if __name__ == "__main__":
    main()
