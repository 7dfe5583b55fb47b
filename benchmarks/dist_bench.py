#!/usr/bin/env python3
"""torchdoctor dist's benchmark, side by side in one run.

    python3 benchmarks/dist_bench.py [--python VENV/bin/python] [--ranks 2,4,8] [--synthetic 64,256,1024]

1. Wall time of `torchdoctor dist --nproc-per-node 4` (every step, gloo's default sweep)
   against a plain `torchrun --standalone --nproc-per-node 4` of a minimal all_reduce
   script (init, one all_reduce, destroy) in the same interpreter: one run each, the
   baseline first; the ratio is what the doctor costs over the least a torchrun job costs.
2. Gather and diff as the rank count grows (2, 4, 8 local ranks, `--no-collectives`):
   each rank's own gather (probe + summary + redaction), rank 0's reading of every
   summary from the store and its diff, per rank.
3. The diff alone on synthetic jobs of many ranks (copies of a real summary, one env var
   changed on one rank), to show it stays linear past what one machine can start.

Not part of the test suite (a shared machine is too noisy for timed assertions).
"""

import argparse
import copy
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

MINIMAL = """
import torch, torch.distributed as dist
dist.init_process_group("gloo")
t = torch.ones(1 << 16)
dist.all_reduce(t)
assert t[0].item() == dist.get_world_size()
dist.destroy_process_group()
"""


def timed(cmd, env=None):
    t0 = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, stdin=subprocess.DEVNULL)
    return time.monotonic() - t0, p


def env_for(python):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    for k in list(env):
        if k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "LOCAL_RANK") or k.startswith("TORCHELASTIC_"):
            env.pop(k)
    return env


def table(header, rows):
    widths = [max(len(str(r[i])) for r in [header] + rows) for i in range(len(header))]
    line = lambda r: "| " + " | ".join(str(c).ljust(widths[i]) for i, c in enumerate(r)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [line(r) for r in rows])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--ranks", default="2,4,8")
    ap.add_argument("--synthetic", default="64,256,1024")
    args = ap.parse_args()
    env = env_for(args.python)
    tmp = tempfile.mkdtemp(prefix="torchdoctor-dist-bench-")
    script = os.path.join(tmp, "minimal_all_reduce.py")
    with open(script, "w") as fh:
        fh.write(MINIMAL)
    with open("/proc/loadavg") if os.path.exists("/proc/loadavg") else open(os.devnull) as fh:
        load = fh.read().split()[:3]
    print("torchdoctor dist benchmark: %s, %d CPUs, load average %s" % (args.python, os.cpu_count() or 0,
                                                                        " ".join(load) or "?"))
    print()

    base_s, p = timed([args.python, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "4", script],
                      env)
    if p.returncode != 0:
        sys.exit("the minimal torchrun job failed: %s" % p.stderr.decode()[-2000:])
    dist_s, p = timed([args.python, "-m", "torchdoctor", "dist", "--nproc-per-node", "4", "--json"], env)
    job = json.loads(p.stdout)
    steps = sum(1 for s in job["steps"] if s.get("status") == "ok")
    print("#### 1. Wall time, 4 local ranks (one run each)")
    print()
    print(table(("command", "wall s", "ratio"), [
        ("torchrun --standalone --nproc-per-node 4 minimal_all_reduce.py", "%.2f" % base_s, ""),
        ("torchdoctor dist --nproc-per-node 4 (%d steps ok, %d bandwidth rows)" % (steps, len(job["bandwidth"]["rows"])),
         "%.2f" % dist_s, "%.2fx" % (dist_s / base_s))]))
    t = job["timings"]
    print()
    print("Inside the doctor's run: the ranks' own work took %.2f s (join %.2f s); the rest is torchrun and "
          "`import torch` in every process." % (t["total_s"], t["join_s"]))
    print()

    rows = []
    for n in [int(x) for x in args.ranks.split(",") if x]:
        wall, p = timed([args.python, "-m", "torchdoctor", "dist", "--nproc-per-node", str(n), "--json",
                         "--no-collectives"], env)
        job = json.loads(p.stdout)
        g = [v for v in job["timings"]["gather_s"].values() if isinstance(v, (int, float))]
        size = sum(len(json.dumps(r["summary"])) for r in job["ranks"] if r.get("summary"))
        c, d = job["timings"]["collect_s"], job["timings"]["diff_s"]
        rows.append((n, "%.3f" % (sum(g) / len(g)), "%.3f" % max(g), "%.1f" % (c * 1000), "%.2f" % (c * 1000 / n),
                     "%.1f" % (d * 1000), "%.2f" % (d * 1000 / n), "%.1f" % (size / n / 1024), "%.1f" % wall))
    print("#### 2. Gather and diff per rank (`--no-collectives`)")
    print()
    print(table(("ranks", "gather s/rank (mean)", "max", "rank 0 reads ms", "per rank", "diff ms", "per rank",
                 "KiB/summary", "wall s"), rows))
    print()

    from torchdoctor.verbs.dist import conditions as C
    from torchdoctor.verbs.dist import jobfacts as J
    one = job["ranks"][0]["summary"]
    srows = []
    for n in [int(x) for x in args.synthetic.split(",") if x]:
        ranks = []
        for r in range(n):
            s = copy.deepcopy(one)
            if r == n // 2:
                s["env"]["NCCL_DEBUG"] = "INFO"
            ranks.append({"rank": r, "joined": True, "summary": s, "gather": {"ok": True},
                          "where": {"host": "node%d" % (r // 8), "node_id": "n%d" % (r // 8), "local_rank": r % 8,
                                    "local_world_size": 8}})
        synth = {"world_size": n, "ranks": ranks, "steps": [{"name": "join", "kind": "join", "status": "ok"},
                                                             {"name": "gather", "kind": "gather", "status": "ok"}]}
        J.assign_nodes(synth)
        t0 = time.perf_counter()
        found = C.diagnose(synth)
        dt = time.perf_counter() - t0
        assert [f.id for f in found] == ["dist-env-mismatch"], [f.id for f in found]
        srows.append((n, "%.1f" % (dt * 1000), "%.3f" % (dt * 1000 / n)))
    print("#### 3. The diff alone, synthetic jobs (8 ranks per node, one odd env var; finds exactly it)")
    print()
    print(table(("ranks", "diff ms", "ms per rank"), srows))


if __name__ == "__main__":
    main()
