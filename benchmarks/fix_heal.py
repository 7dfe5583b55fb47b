#!/usr/bin/env python3
"""Do torchdoctor's fixes work on this machine? Real broken environments, built from the wheels
this machine's pip reaches with its own configuration (tests/verbs/fix/realenvs.py), side by side:

    python3 benchmarks/fix_heal.py [--kinds a,b] [--workdir DIR] [--printed-big] [--speed N]

For each environment: the cause `check` names; the first printed fix run as printed, in a shell,
then `check` again in that shell (healed / says why not / exits 0 and leaves it broken); on a
fresh copy, `fix --yes` (healed / not applied / rolled back), then `fix --undo` (is
`pip freeze --all` byte for byte what it was?). The CUDA pairs are gigabytes each: their printed
command is what `fix --yes` runs (the same argv), so --printed-big runs it a second time only when
asked. --speed N: `check` on the healthy base venv against `python -c "import torch"`, N runs each,
interleaved (the ratio is what the doctor costs over importing torch).

Not part of the test suite: it takes an hour with the CUDA pairs.
"""

import argparse
import os
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "verbs", "fix"))

import realenvs  # noqa: E402


def one(kind, base, work, printed_big):
    row = {"kind": kind}
    big = realenvs.KINDS[kind][2] == "big"
    env = realenvs.make(kind, base, os.path.join(work, kind, "printed"))
    t0 = time.monotonic()
    before = env.check()
    row["check_s"] = round(time.monotonic() - t0, 1)
    f = env.finding(before)
    row["cause"] = bool(f)
    row["named"] = f["title"] if f else "NOT NAMED: %s" % [x["id"] for x in before["findings"]]
    row["printed"] = list(f["fix"]["commands"]) if f else []
    row["resolution"] = f["fix"].get("resolution", "") if f else ""
    if f and f["fix"]["commands"] and (printed_big or not big):
        status, after = env.run_printed(f["fix"]["commands"])
        if status != 0 or after is None:
            row["printed_result"] = "failed loudly (exit %s)" % status
        else:
            row["printed_result"] = "healed" if env.healthy(after, before) else "EXIT 0, STILL BROKEN"
    elif f and f["fix"]["commands"]:
        row["printed_result"] = "(same argv as fix --yes)"
    else:
        row["printed_result"] = "says why: " + row["resolution"][:120]
    applied = realenvs.make(kind, base, os.path.join(work, kind, "applied"))
    start = realenvs.freeze(applied.py)
    t0 = time.monotonic()
    r = applied.fix("--yes")
    row["fix_s"] = round(time.monotonic() - t0, 1)
    if r.returncode == 0:
        row["fix_yes"] = "healed" if applied.healthy(applied.check(), before) else "EXIT 0, STILL BROKEN"
        if row["printed_result"] == "(same argv as fix --yes)":
            row["printed_result"] = "healed (run by fix --yes)" if row["fix_yes"] == "healed" else row["fix_yes"]
        t0 = time.monotonic()
        u = applied.undo()
        row["undo_s"] = round(time.monotonic() - t0, 1)
        row["undo"] = "exact" if u.returncode == 0 and realenvs.freeze(applied.py) == start else "NOT EXACT"
    else:
        row["fix_yes"] = "not applied" if "not applied:" in r.stdout else "rolled back" if "rolled back" in r.stdout \
            else "failed (%d)" % r.returncode
        row["undo"] = "n/a (unchanged: %s)" % (realenvs.freeze(applied.py) == start)
    return row


def speed(base, n):
    py = realenvs.python_of(base)
    imp, chk = [], []
    for _ in range(n):
        t0 = time.monotonic()
        realenvs.run([py, "-c", "import torch"])
        imp.append(time.monotonic() - t0)
        t0 = time.monotonic()
        realenvs.run(realenvs.TD + ["check", "--resolve", "--python", py])
        chk.append(time.monotonic() - t0)
    imp.sort()
    chk.sort()
    mi, mc = imp[len(imp) // 2], chk[len(chk) // 2]
    print("check on the healthy base venv: median %.2f s; python -c 'import torch': median %.2f s; ratio %.2f "
          "(%d runs each, interleaved)" % (mc, mi, mc / mi, n))


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--kinds", default=",".join(realenvs.KINDS))
    ap.add_argument("--workdir", default=None)
    ap.add_argument("--printed-big", action="store_true")
    ap.add_argument("--speed", type=int, default=0)
    a = ap.parse_args(argv)
    work = a.workdir or tempfile.mkdtemp(prefix="torchdoctor-fixheal-")
    os.environ.setdefault("XDG_CACHE_HOME", os.path.join(work, "cache"))
    base = os.path.join(work, "base")
    if not os.path.exists(realenvs.python_of(base)):
        realenvs.build_base(work)
    if a.speed:
        speed(base, a.speed)
    rows = []
    for kind in [k for k in a.kinds.split(",") if k]:
        row = one(kind, base, work, a.printed_big)
        rows.append(row)
        print("%-38s cause: %-5s printed: %-28s fix --yes: %-12s undo: %s  (check %ss, fix %ss)"
              % (kind, row["cause"], row["printed_result"][:28], row["fix_yes"], row["undo"], row["check_s"],
                 row["fix_s"]), flush=True)
        print("    %s" % row["named"])
        for c in row["printed"]:
            print("    $ %s" % c)
        if row["resolution"]:
            print("    %s" % row["resolution"])
    n = len(rows)
    print("\n%d environments: cause named %d; printed fix healed %d; printed fix exit 0 but broken %d; "
          "fix --yes healed %d; undo exact %d of %d applied"
          % (n, sum(r["cause"] for r in rows), sum(r["printed_result"].startswith("healed") for r in rows),
             sum("STILL BROKEN" in r["printed_result"] for r in rows), sum(r["fix_yes"] == "healed" for r in rows),
             sum(r["undo"] == "exact" for r in rows), sum(r["undo"] in ("exact", "NOT EXACT") for r in rows)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
