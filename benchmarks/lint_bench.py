#!/usr/bin/env python3
"""`torchdoctor lint` against TorchFix on the installed torch's own torch/ tree.

    python3 benchmarks/lint_bench.py --setup          # makes benchmarks/_work/torchfix-venv (pip install torchfix)
    python3 benchmarks/lint_bench.py [--torch-tree DIR] [--jobs 2] [--no-torchfix]
    python3 benchmarks/lint_bench.py --phases torchfix --json tf.json     # TorchFix alone (~20 min on 2 vCPU)
    python3 benchmarks/lint_bench.py --reuse tf.json --json all.json      # lint, beside the saved TorchFix run

One run, side by side on the same tree and machine, each tool in its own process:
* `torchdoctor lint TREE --torch 2.13 -j N --format json` (every rule on by default);
* `torchfix --jobs N TREE` (TorchFix 0.7.0: its default rules, report only);
* linearity: torchdoctor lint on 1/4, 1/2 and all of the tree's .py files (as arguments), the
  same job count; time per file should stay flat;
* serial (-j 1) against parallel (-j N).
Wall time, CPU time of the process tree (wait4) and peak RSS. Not part of the test suite:
shared machines are too noisy for timed assertions. Standard library only; Linux or macOS.

Each phase's numbers are written to --json as soon as it ends, so a long TorchFix phase can run
once (niced, in the background) and the lint phases beside it later with --reuse: a run that
is stopped keeps what it measured.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, "_work")
TF_VENV = os.path.join(WORK, "torchfix-venv")
TF_VERSION = "0.7.0"


class Meter:
    """Wall time, CPU (user+sys of the process and its children) and peak RSS of one command,
    from wait4() (the children's CPU as RUSAGE_CHILDREN differences around it)."""

    def run(self, cmd, cwd=None):
        import tempfile
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err)
            _, status, ru = os.wait4(p.pid, 0)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            p.returncode = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            rss = ru.ru_maxrss / (1024.0 * 1024 if sys.platform == "darwin" else 1024.0)
            return {"wall": wall, "cpu": cpu, "rss_mb": rss, "rc": p.returncode,
                    "out": out.read().decode("utf-8", "replace"), "err": err.read().decode("utf-8", "replace")}


def torch_tree(python):
    out = subprocess.run([python, "-c", "import importlib.util as u, os; "
                                        "print(os.path.dirname(u.find_spec('torch').origin))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def setup():
    os.makedirs(WORK, exist_ok=True)
    if not os.path.exists(os.path.join(TF_VENV, "bin", "torchfix")):
        subprocess.run([sys.executable, "-m", "venv", TF_VENV], check=True)
        subprocess.run([os.path.join(TF_VENV, "bin", "python"), "-m", "pip", "install", "-q", "torchfix==" + TF_VERSION],
                       check=True)


def py_files(tree):
    out = []
    for d, dirs, files in os.walk(tree):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__")
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="store_true", help="create the TorchFix venv under benchmarks/_work first")
    ap.add_argument("--torch-tree", help="the torch/ directory to lint (default: the one of this interpreter)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-torchfix", action="store_true")
    ap.add_argument("--json", help="also write the numbers to this file (after each phase)")
    ap.add_argument("--phases", default="lint,torchfix,serial,linearity",
                    help="comma-separated: lint, torchfix, serial, linearity (default: all)")
    ap.add_argument("--reuse", help="a --json file of an earlier run: its phases are taken, not run again")
    a = ap.parse_args(argv)
    if a.setup:
        setup()
    phases = [x.strip() for x in a.phases.split(",") if x.strip()]
    if a.no_torchfix and "torchfix" in phases:
        phases.remove("torchfix")
    tree = a.torch_tree or torch_tree(sys.executable)
    files = py_files(tree)
    lint = [sys.executable, "-m", "torchdoctor", "lint", "--torch", "2.13", "--format", "json"]
    m = Meter()
    result = {}
    if a.reuse:
        with open(a.reuse) as f:
            result = json.load(f)
    result.update({"tree": tree, "files": len(files), "jobs": a.jobs})

    def save():
        if a.json:
            with open(a.json, "w") as f:
                json.dump(result, f, indent=1)

    def measured(r):
        return {k: r[k] for k in ("wall", "cpu", "rss_mb", "rc")}

    if "lint" in phases:
        r = m.run(lint + ["-j", str(a.jobs), tree], cwd=ROOT)
        doc = json.loads(r["out"])
        result["lint"] = dict(measured(r), findings=len(doc["findings"]), files_scanned=doc["files_scanned"])
        save()
    if "torchfix" in phases:
        exe = os.path.join(TF_VENV, "bin", "torchfix")
        if not os.path.exists(exe):
            sys.exit("TorchFix is not installed: run with --setup first")
        r = m.run([exe, "--jobs", str(a.jobs), tree], cwd=WORK)
        # TorchFix prints one `path:line:col: TORnnn message` line per finding, then a summary on stderr
        n = sum(1 for line in r["out"].splitlines() if ": TOR" in line)
        result["torchfix"] = dict(measured(r), findings=n, version=TF_VERSION,
                                  summary=(r["err"].strip().splitlines() or [""])[-1][:200])
        save()
    if "serial" in phases:
        r = m.run(lint + ["-j", "1", tree], cwd=ROOT)
        result["lint_serial"] = measured(r)
        save()
    if "linearity" in phases:
        result["linearity"] = []
        for frac in (4, 2, 1):
            subset = files[: len(files) // frac]
            r = m.run(lint + ["-j", str(a.jobs)] + subset, cwd=ROOT)
            result["linearity"].append({"files": len(subset), "wall": r["wall"], "cpu": r["cpu"],
                                        "rss_mb": r["rss_mb"], "ms_per_file": 1000 * r["wall"] / len(subset)})
            save()
    report(result)


def report(result):
    print("tree: %s (%d .py files), jobs %d\n" % (result["tree"], result["files"], result["jobs"]))
    print("| command | wall s | CPU s | peak RSS MB | note |")
    print("|---|---|---|---|---|")
    rows = [("torchdoctor lint -j %d" % result["jobs"], result.get("lint"), "%s findings" % (result.get("lint") or {}).get("findings")),
            ("torchfix --jobs %d (%s)" % (result["jobs"], TF_VERSION), result.get("torchfix"),
             "%s findings" % (result.get("torchfix") or {}).get("findings")),
            ("torchdoctor lint -j 1", result.get("lint_serial"), "")]
    for name, r, note in rows:
        if r:
            print("| %s | %.1f | %.1f | %.0f | %s |" % (name, r["wall"], r["cpu"], r["rss_mb"], note))
    for row in result.get("linearity") or []:
        print("| torchdoctor lint, %d files | %.1f | %.1f | %.0f | %.1f ms/file |" % (
            row["files"], row["wall"], row["cpu"], row.get("rss_mb", 0), row["ms_per_file"]))
    if result.get("torchfix") and result.get("lint"):
        tf, li = result["torchfix"], result["lint"]
        print("\ntorchfix / torchdoctor lint: wall x%.0f, CPU x%.0f, peak RSS x%.1f" % (
            tf["wall"] / li["wall"], tf["cpu"] / li["cpu"], tf["rss_mb"] / li["rss_mb"]))
    if result.get("lint_serial") and result.get("lint"):
        print("serial / parallel wall x%.2f" % (result["lint_serial"]["wall"] / result["lint"]["wall"]))


if __name__ == "__main__":
    main()
