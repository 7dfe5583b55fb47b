#!/usr/bin/env python3
"""`torchdoctor lint` against TorchFix: speed and memory on a torch/ tree, findings on TorchFix's
own test fixtures, findings per kLOC on real repositories.

    python3 benchmarks/lint_bench.py --setup           # makes benchmarks/_work/torchfix-venv (pip install torchfix)
    python3 benchmarks/lint_bench.py --quick           # the tree phases on every 8th file (~3 min on 2 vCPU)
    python3 benchmarks/lint_bench.py --json all.json   # the whole torch/ tree (TorchFix: ~20 min on 2 vCPU)
    python3 benchmarks/lint_bench.py --phases fixtures --torchfix-src CHECKOUT
    python3 benchmarks/lint_bench.py --phases repos --repos DIR --sample-out sample.json

Phases (--phases, comma-separated; default: tree,fixtures,repos; fixtures and repos need
their directories and are skipped without them):

* tree: `torchdoctor lint TREE --torch 2.13 -j N --format json` and `torchfix --jobs N TREE`
  (TorchFix 0.7.0, its default rules, report only) one after the other on the same files,
  each in its own process: wall time, CPU time of the process tree, peak RSS, and the ratios;
* serial: lint -j 1 against -j N;  linearity: lint on 1/4, 1/2 and all of the files (time
  per file should stay flat);
* fixtures: TorchFix's own checker/*.py and codemod/*.in.py fixtures of a TorchFix checkout
  (--torchfix-src; its tests/fixtures). What TorchFix expects there is what that checkout's
  own TorchFix reports with --select ALL (it reproduces every checker/*.txt; the released
  0.7.0 predates some fixtures). Per rule family (the fixture directory; deprecated_symbols
  per symbol): TorchFix's findings, how many lint reports on the same line, and lint's
  findings on lines TorchFix does not flag;
* repos: lint on each checkout under --repos (default target and --torch '>=1.11'):
  findings, per rule, per kLOC (non-blank lines of .py files). --sample-out writes a fixed
  random sample (--sample, --seed) of those findings, for reading by hand.

Every phase's numbers are written to --json as soon as it ends, so a run that is stopped
keeps what it measured, and --reuse takes the phases of an earlier --json instead of
running them again. Not part of the test suite: shared machines are too noisy for timed
assertions. Standard library only; Linux or macOS.
"""

import argparse
import collections
import json
import os
import random
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, ROOT)

from run import run_once  # noqa: E402

WORK = os.path.join(HERE, "_work")
TF_VENV = os.path.join(WORK, "torchfix-venv")
TF_VERSION = "0.7.0"
TF_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<col>\d+): (?P<code>TOR\d+) (?:\[\*\] )?(?P<msg>.*)$")
TF_SYMBOL = re.compile(r"(?:Use|Import) of (?:deprecated|removed|non-public) function `?(?P<sym>[\w.]+)")
QUICK_EVERY = 8
REPO_TARGETS = (("default", []), (">=1.11", ["--torch", ">=1.11"]))


def measure(cmd, cwd=None, env=None):
    """run.run_once on `cmd`, its output read back: wall/cpu seconds, peak RSS MB, rc, out, err."""
    with tempfile.TemporaryDirectory() as tmp:
        out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        wall, cpu, rss_kib, rc = run_once(cmd, dict(env or os.environ), cwd or ROOT, out, err)
        with open(out, encoding="utf-8", errors="replace") as f, open(err, encoding="utf-8", errors="replace") as g:
            return {"wall": wall, "cpu": cpu, "rss_mb": rss_kib / 1024.0, "rc": rc, "out": f.read(), "err": g.read()}


def measured(r):
    return {k: r[k] for k in ("wall", "cpu", "rss_mb", "rc")}


def torch_tree(python):
    import subprocess
    out = subprocess.run([python, "-c", "import importlib.util as u, os; "
                                        "print(os.path.dirname(u.find_spec('torch').origin))"],
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def setup():
    import subprocess
    os.makedirs(WORK, exist_ok=True)
    if not os.path.exists(os.path.join(TF_VENV, "bin", "torchfix")):
        subprocess.run([sys.executable, "-m", "venv", TF_VENV], check=True)
        subprocess.run([os.path.join(TF_VENV, "bin", "python"), "-m", "pip", "install", "-q", "torchfix==" + TF_VERSION],
                       check=True)


def py_files(tree):
    out = []
    for d, dirs, files in os.walk(tree):
        dirs[:] = sorted(x for x in dirs if x != "__pycache__" and not x.startswith("."))
        out += [os.path.join(d, f) for f in sorted(files) if f.endswith(".py")]
    return out


def lint_cmd(*args):
    return [sys.executable, "-m", "torchdoctor", "lint", "--format", "json"] + list(args)


def lint_findings(r, what):
    """The findings of a lint --format json run; a run that did not answer stops the phase."""
    if r["rc"] not in (0, 1):
        raise SystemExit("lint on %s failed (exit %s): %s" % (what, r["rc"], r["err"].strip()[-500:]))
    return json.loads(r["out"])


def torchfix_findings(text, cwd=WORK):
    """TorchFix's `path:line:col: TORnnn message` lines (paths as it prints them: from its cwd)."""
    out = []
    for line in text.splitlines():
        m = TF_LINE.match(line)
        if m:
            out.append(dict(m.groupdict(), line=int(m.group("line")),
                            path=os.path.realpath(os.path.join(cwd, m.group("path")))))
    return out


# -- phases --------------------------------------------------------------------------------------------
def phase_tree(a, result, files):
    targets = files if a.quick else [result["tree"]]
    if "lint" in a.phases:
        r = measure(lint_cmd("--torch", "2.13", "-j", str(a.jobs), *targets))
        doc = lint_findings(r, "the tree")
        result["lint"] = dict(measured(r), findings=len(doc["findings"]), files_scanned=doc["files_scanned"])
        a.save()
    if "torchfix" in a.phases:
        exe = os.path.join(TF_VENV, "bin", "torchfix")
        if not os.path.exists(exe):
            raise SystemExit("TorchFix is not installed: run with --setup first")
        r = measure([exe, "--jobs", str(a.jobs)] + targets, cwd=WORK)
        result["torchfix"] = dict(measured(r), findings=len(torchfix_findings(r["out"])), version=TF_VERSION,
                                  summary=(r["err"].strip().splitlines() or [""])[-1][:200])
        a.save()
    if "serial" in a.phases:
        result["lint_serial"] = measured(measure(lint_cmd("--torch", "2.13", "-j", "1", *targets)))
        a.save()
    if "linearity" in a.phases:
        result["linearity"] = []
        for frac in (4, 2, 1):
            subset = files[: len(files) // frac]
            r = measure(lint_cmd("--torch", "2.13", "-j", str(a.jobs), *subset))
            result["linearity"].append({"files": len(subset), "wall": r["wall"], "cpu": r["cpu"],
                                        "rss_mb": r["rss_mb"], "ms_per_file": 1000 * r["wall"] / len(subset)})
            a.save()


def fixture_files(src):
    root = os.path.join(src, "tests", "fixtures")
    files = [f for f in py_files(root)
             if os.sep + "checker" + os.sep in f or f.endswith(".in.py")]
    return root, files


def import_start(path, line, _starts={}):
    """The first line of the import statement that spans `line` (TorchFix places a finding on
    any name of `from m import (a,\n b)` at the statement, lint at the name), else `line`."""
    import ast
    if path not in _starts:
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read())
        _starts[path] = {n: node.lineno for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))
                         for n in range(node.lineno, (node.end_lineno or node.lineno) + 1)}
    return _starts[path].get(line, line)


def family_of(root, path, msg):
    fam = os.path.relpath(path, root).split(os.sep)[0]
    m = TF_SYMBOL.search(msg)
    return fam, (m.group("sym") if m else None)


def phase_fixtures(a, result):
    root, files = fixture_files(os.path.realpath(a.torchfix_src))
    env = dict(os.environ, PYTHONPATH=a.torchfix_src)
    r = measure([os.path.join(TF_VENV, "bin", "python"), "-m", "torchfix", "--select", "ALL"] + files, cwd=WORK, env=env)
    tf = torchfix_findings(r["out"])
    if not tf:
        raise SystemExit("TorchFix found nothing on its fixtures: %s" % r["err"].strip()[-500:])
    doc = lint_findings(measure(lint_cmd("--torch", a.fixtures_torch, *files)), "the fixtures")
    from torchdoctor.verbs.lint import history
    flagged = {(f["path"], f["line"]) for f in tf}
    linted = collections.defaultdict(list)
    for f in doc["findings"]:
        # TorchFix places a name of a parenthesised from-import at the statement (deprecated
        # symbols) or at the name (vision's ToTensor): a finding at either line matches.
        path = os.path.realpath(f["path"])
        for line in {f["line"], import_start(f["path"], f["line"])}:
            linted[(path, line)].append(f["code"])
    rows = collections.OrderedDict()
    for f in sorted(tf, key=lambda f: family_of(root, f["path"], f["msg"])):
        fam, sym = family_of(root, f["path"], f["msg"])
        key = "%s %s" % (fam, sym or f["code"])
        row = rows.setdefault(key, {"family": fam, "symbol": sym, "code": f["code"], "torchfix": 0, "lint": 0,
                                    "lint_knows": bool(sym and history.history(sym)), "lint_codes": []})
        row["torchfix"] += 1
        got = linted.get((f["path"], f["line"]))
        if got:
            row["lint"] += 1
            row["lint_codes"] = sorted(set(row["lint_codes"]) | set(got))
    extra = [{"path": os.path.relpath(f["path"], root), "line": f["line"], "code": f["code"], "message": f["message"]}
             for f in doc["findings"]
             if not any((os.path.realpath(f["path"]), line) in flagged
                        for line in (f["line"], import_start(f["path"], f["line"])))]
    result["fixtures"] = {"files": len(files), "torch": a.fixtures_torch, "rows": list(rows.values()),
                          "lint_only": extra, "torchfix_total": len(tf), "lint_total": len(doc["findings"])}
    a.save()


def kloc(files):
    n = 0
    for p in files:
        with open(p, encoding="utf-8", errors="replace") as f:
            n += sum(1 for line in f if line.strip())
    return n / 1000.0


def phase_repos(a, result):
    repos = sorted(d for d in os.listdir(a.repos) if os.path.isdir(os.path.join(a.repos, d)))
    rows, found = [], []
    for name in repos:
        path = os.path.join(a.repos, name)
        row = {"repo": name, "kloc": round(kloc(py_files(path)), 1)}
        for label, args in REPO_TARGETS:
            r = measure(lint_cmd(*(args + ["-j", str(a.jobs), path])))
            doc = lint_findings(r, name)
            row[label] = {"findings": len(doc["findings"]), "wall": round(r["wall"], 1),
                          "codes": dict(collections.Counter(f["code"] for f in doc["findings"]))}
            for f in doc["findings"]:
                found.append(dict(target=label, path=os.path.relpath(f["path"], a.repos), line=f["line"],
                                  code=f["code"], message=f["message"]))
        rows.append(row)
        result["repos"] = {"dir": a.repos, "rows": rows}
        a.save()
    if a.sample_out:
        write_sample(a, found)


def write_sample(a, found):
    """A fixed random sample of the findings (one per file:line:code, every target named)."""
    merged = collections.OrderedDict()
    for f in sorted(found, key=lambda f: (f["path"], f["line"], f["code"], f["target"])):
        key = (f["path"], f["line"], f["code"])
        if key in merged:
            merged[key]["targets"].append(f["target"])
        else:
            merged[key] = dict(f, targets=[f.pop("target")])
    pool = list(merged.values())
    picked = random.Random(a.seed).sample(pool, min(a.sample, len(pool)))
    for f in picked:
        with open(os.path.join(a.repos, f["path"]), encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
        f["text"] = lines[f["line"] - 1].strip() if 0 < f["line"] <= len(lines) else ""
        f.update(verdict=None, reason="")
    with open(a.sample_out, "w", encoding="utf-8") as fh:
        json.dump({"seed": a.seed, "pool": len(pool), "targets": [t for t, _ in REPO_TARGETS], "sample": picked},
                  fh, indent=1)
        fh.write("\n")


# -- report ----------------------------------------------------------------------------------------------
def report(result):
    if result.get("tree"):
        print("tree: %s (%d .py files%s), jobs %d\n" % (result["tree"], result["files"],
                                                        ", every %dth: --quick" % QUICK_EVERY if result.get("quick") else "",
                                                        result["jobs"]))
        print("| command | wall s | CPU s | peak RSS MB | note |")
        print("|---|---|---|---|---|")
        rows = [("torchdoctor lint -j %d" % result["jobs"], result.get("lint"),
                 "%s findings" % (result.get("lint") or {}).get("findings")),
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
    fx = result.get("fixtures")
    if fx:
        print("\nTorchFix's fixtures (%d files; lint --torch '%s'): TorchFix %d findings, lint %d\n" % (
            fx["files"], fx["torch"], fx["torchfix_total"], fx["lint_total"]))
        print("| family | symbol or rule | TorchFix | lint, same line | lint knows the symbol |")
        print("|---|---|---|---|---|")
        for r in fx["rows"]:
            print("| %s | %s | %d | %d %s | %s |" % (r["family"], r["symbol"] or r["code"], r["torchfix"], r["lint"],
                                                    ",".join(r["lint_codes"]), "yes" if r["lint_knows"] else "-"))
        known = [r for r in fx["rows"] if r["lint_knows"]]
        other = [r for r in fx["rows"] if not r["lint_knows"]]
        print("\nsymbols lint knows: %d of %d TorchFix findings reported; the rest: %d of %d" % (
            sum(r["lint"] for r in known), sum(r["torchfix"] for r in known),
            sum(r["lint"] for r in other), sum(r["torchfix"] for r in other)))
        fams = collections.OrderedDict()
        for r in fx["rows"]:
            t = fams.setdefault(r["family"], [0, 0])
            t[0] += r["torchfix"]
            t[1] += r["lint"]
        print("per family (TorchFix / lint on the same line): " + ", ".join(
            "%s %d/%d" % (k, v[0], v[1]) for k, v in fams.items()))
        print("lint findings on lines TorchFix does not flag: %d" % len(fx["lint_only"]))
        for f in fx["lint_only"]:
            print("  %s:%d %s %s" % (f["path"], f["line"], f["code"], f["message"][:110]))
    rp = result.get("repos")
    if rp:
        print("\nreal repositories (%s)\n" % rp["dir"])
        print("| repo | kLOC | findings (default target) | per kLOC | findings (>=1.11) | per kLOC |")
        print("|---|---|---|---|---|---|")
        tot = collections.Counter()
        for r in rp["rows"]:
            d, o = r["default"]["findings"], r[">=1.11"]["findings"]
            tot.update({"kloc": r["kloc"], "d": d, "o": o})
            print("| %s | %.1f | %d | %.2f | %d | %.2f |" % (r["repo"], r["kloc"], d, d / max(r["kloc"], 0.1),
                                                          o, o / max(r["kloc"], 0.1)))
        print("| all | %.1f | %d | %.2f | %d | %.2f |" % (tot["kloc"], tot["d"], tot["d"] / max(tot["kloc"], 0.1),
                                                        tot["o"], tot["o"] / max(tot["kloc"], 0.1)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--setup", action="store_true", help="create the TorchFix venv under benchmarks/_work first")
    ap.add_argument("--torch-tree", help="the torch/ directory to lint (default: the one of this interpreter)")
    ap.add_argument("--quick", action="store_true", help="the tree phases on every %dth .py file only" % QUICK_EVERY)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--no-torchfix", action="store_true", help="leave TorchFix out of the tree phases")
    ap.add_argument("--json", help="also write the numbers to this file (after each phase)")
    ap.add_argument("--phases", default="tree,fixtures,repos",
                    help="comma-separated: tree (= lint,torchfix), lint, torchfix, serial, linearity, fixtures, repos")
    ap.add_argument("--reuse", help="a --json file of an earlier run: its phases are taken, not run again")
    ap.add_argument("--torchfix-src", help="a TorchFix checkout: its tests/fixtures and its own checker")
    ap.add_argument("--fixtures-torch", default=">=1.11", help="lint's target on the fixtures (default: >=1.11)")
    ap.add_argument("--repos", help="a directory of repository checkouts, one per subdirectory")
    ap.add_argument("--sample", type=int, default=30)
    ap.add_argument("--seed", type=int, default=28)
    ap.add_argument("--sample-out", help="write a random sample of the repos' findings here (JSON)")
    a = ap.parse_args(argv)
    if a.setup:
        setup()
    phases = set()
    for x in a.phases.split(","):
        x = x.strip()
        phases |= {"lint", "torchfix"} if x == "tree" else ({x} if x else set())
    if a.no_torchfix:
        phases.discard("torchfix")
    a.phases = phases
    result = {}
    if a.reuse:
        with open(a.reuse) as f:
            result = json.load(f)

    def save():
        if a.json:
            with open(a.json, "w") as f:
                json.dump(result, f, indent=1)
    a.save = save
    if phases & {"lint", "torchfix", "serial", "linearity"}:
        tree = a.torch_tree or torch_tree(sys.executable)
        files = py_files(tree)
        if a.quick:
            files = files[::QUICK_EVERY]
        result.update({"tree": tree, "files": len(files), "jobs": a.jobs, "quick": a.quick})
        phase_tree(a, result, files)
    if "fixtures" in phases:
        if a.torchfix_src:
            phase_fixtures(a, result)
        else:
            print("fixtures: skipped (no --torchfix-src)", file=sys.stderr)
    if "repos" in phases:
        if a.repos:
            phase_repos(a, result)
        else:
            print("repos: skipped (no --repos)", file=sys.stderr)
    report(result)


if __name__ == "__main__":
    main()
