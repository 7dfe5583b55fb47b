#!/usr/bin/env python3
"""torchdoctor's benchmark: speed and memory against the tools people use instead.

    python3 benchmarks/run.py --setup            # fresh clone: makes a venv with torch, then runs
    python3 benchmarks/run.py --python VENV/bin/python [--log-mb 300] [--runs 11]

Measures, side by side in one run, each tool in its own process:

* `torchdoctor check` against `python -c "import torch"` and
  `python -m torch.utils.collect_env` in the same venv;
* `torchdoctor explain` cold start against `python -c pass`;
* scanning a generated training log (known errors planted at known places,
  and the result verified) with each scan engine (native: ahocorasick-rs, the
  `[fast]` extra; pure: the standard library) against `grep -c -F -f` with
  every literal the scanner looks for (the same work), `grep -E` with the
  same list, and `grep -c -E 'Error|error'` as a floor; at 1x, 2x and 4x the
  size, with peak memory;
* hostile inputs (one 100 MB line, an ANSI flood, lines dense with anchors)
  at 1x, 2x and 4x with each engine, to show the time is linear.

Cold timings: one warm-up round, then the median of N interleaved rounds
(every command once per round, so drift on a shared machine hits all alike).
CPU time and peak RSS come from wait4(): RSS is that of the largest process
of the command's tree, as /usr/bin/time reports it.

Not part of the test suite (shared machines are too noisy for timed
assertions). Standard library only; Linux or macOS.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WORK = os.path.join(HERE, "_work")
sys.path.insert(0, ROOT)
sys.path.insert(0, HERE)

import loggen  # noqa: E402

ERROR_TEXT = "AssertionError: Torch not compiled with CUDA enabled"


def _gnu_time():
    exe = "/usr/bin/time"
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return exe if b"GNU" in out.stdout + out.stderr else None


GNU_TIME = _gnu_time()
TARGETS = {
    "check_vs_import": 1.25,
    "check_vs_collect_env": 1.0,
    "explain_cold_ms": 100.0,  # with the environment facts: an answer that feels instant
    "scan_vs_grep_f": 1.5,  # the native engine against grep -F -f
    "pure_vs_grep_f": 4.0,  # the standard-library engine
}
ENGINE_VAR = "TORCHDOCTOR_SCAN_ENGINE"


# --------------------------------------------------------------- running --
class Result:
    def __init__(self, name, argv):
        self.name, self.argv = name, argv
        self.wall, self.cpu, self.rss, self.rc = [], [], [], []

    def add(self, wall, cpu, rss, rc):
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.rss.append(rss)
        self.rc.append(rc)

    @property
    def median(self):
        return statistics.median(self.wall)

    @property
    def best(self):
        return min(self.wall)

    @property
    def cpu_median(self):
        return statistics.median(self.cpu)

    @property
    def rss_mb(self):
        return max(self.rss) / 1024.0


def run_once(argv, env, cwd, out_path, err_path):
    """Wall seconds, CPU seconds (tree), peak RSS KiB (largest process), exit code.

    stdout goes to a real file, never /dev/null: GNU grep notices /dev/null
    and stops at the first match. Children start with posix_spawn (vfork):
    a fork() would copy this process, and Linux counts that copy in the
    child's peak RSS even after exec.
    """
    rss_file = None
    if GNU_TIME:
        # Linux counts the memory of the process that exec()s into the new
        # program's peak RSS; GNU time is that process here, and it is tiny.
        rss_file = out_path + ".rss"
        argv = [GNU_TIME, "-f", "%M", "-o", rss_file] + list(argv)
    exe = argv[0] if os.sep in argv[0] else shutil.which(argv[0], path=env.get("PATH"))
    if hasattr(os, "posix_spawn") and hasattr(os, "wait4") and exe:
        fa = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
              (os.POSIX_SPAWN_OPEN, 1, out_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
              (os.POSIX_SPAWN_OPEN, 2, err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)]
        here = os.getcwd()
        os.chdir(cwd)  # posix_spawn has no cwd argument before Python 3.13
        try:
            t0 = time.perf_counter()
            pid = os.posix_spawn(exe, argv, env, file_actions=fa)
        finally:
            os.chdir(here)
        _, status, ru = os.wait4(pid, 0)
        wall = time.perf_counter() - t0
        rc = os.waitstatus_to_exitcode(status)
        rss = ru.ru_maxrss / (1024.0 if sys.platform == "darwin" else 1.0)
        if rss_file:
            try:
                with open(rss_file) as fh:
                    rss = float(fh.read().split()[-1])
            except (OSError, ValueError, IndexError):
                pass
        return wall, ru.ru_utime + ru.ru_stime, rss, rc
    with open(out_path, "wb") as out, open(err_path, "wb") as err:
        t0 = time.perf_counter()
        rc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env, cwd=cwd).returncode
        return time.perf_counter() - t0, float("nan"), float("nan"), rc


def bench(commands, runs, warmup, env, cwd, tmp, expect=None):
    """Interleaved rounds; returns {name: Result}."""
    commands = [c if len(c) == 3 else (c[0], c[1], env) for c in commands]
    results = {name: Result(name, argv) for name, argv, _ in commands}
    out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
    for r in range(warmup + runs):
        for name, argv, cenv in commands:
            wall, cpu, rss, rc = run_once(argv, cenv, cwd, out, err)
            ok = expect(name, rc, out, err) if expect else rc == 0
            if not ok:
                with open(err, "rb") as fh:
                    tail = fh.read()[-2000:].decode("utf-8", "replace")
                raise SystemExit("benchmark: %s failed (exit %s):\n%s" % (" ".join(argv), rc, tail))
            if r >= warmup:
                results[name].add(wall, cpu, rss, rc)
        sys.stderr.write(".")
        sys.stderr.flush()
    sys.stderr.write("\n")
    return results


def capture(argv, env, cwd, timeout=600):
    p = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


# ------------------------------------------------------------------ setup --
def _cfg_list(section, key):
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    return [x.strip() for x in cfg.get(section, key, fallback="").splitlines() if x.strip() and not x.startswith("#")]


def install_requires():
    return _cfg_list("options", "install_requires")


def fast_extra():
    return _cfg_list("options.extras_require", "fast")


def setup_venv(path, torch_spec, pip_args):
    py = os.path.join(path, "Scripts" if os.name == "nt" else "bin", "python")
    if not os.path.exists(py):
        print("creating %s" % path)
        subprocess.run([sys.executable, "-m", "venv", path], check=True)
    rc = subprocess.run([py, "-c", "import torch, click, packaging, psutil, ahocorasick_rs"], capture_output=True).returncode
    if rc != 0:
        cmd = [py, "-m", "pip", "install", "--quiet", torch_spec] + install_requires() + fast_extra() + list(pip_args)
        print("installing: %s" % " ".join(cmd[3:]))
        subprocess.run(cmd, check=True)
    return py


def can_import(py, modules, env):
    return subprocess.run([py, "-c", "import " + ", ".join(modules)], env=env, capture_output=True).returncode == 0


# ------------------------------------------------------------ formatting --
def table(headers, rows):
    cells = [[str(c) for c in headers]] + [[str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"  # noqa: E731
    out = [line(cells[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out.extend(line(r) for r in cells[1:])
    return "\n".join(out)


def verdict(ok):
    return "met" if ok else "NOT met"


def fmt_s(x):
    return "%.3f" % x


def fmt_ms(x):
    return "%.0f" % (x * 1000)


# --------------------------------------------------------------- sections --
def cold_start(target_py, doctor_py, env, cwd, tmp, runs, warmup, compare=None):
    td = [doctor_py, "-m", "torchdoctor"]
    commands = [
        ("python -c pass", [target_py, "-c", "pass"]),
        ("python -c 'import torch'", [target_py, "-c", "import torch"]),
        ("python -m torch.utils.collect_env", [target_py, "-m", "torch.utils.collect_env"]),
        ("torchdoctor check", td + ["check", "--python", target_py]),
        ("torchdoctor check --json", td + ["check", "--json", "--python", target_py]),
        ("torchdoctor explain --no-env TEXT", td + ["explain", "--no-env", ERROR_TEXT]),
        ("torchdoctor explain TEXT", td + ["explain", ERROR_TEXT]),
        ("torchdoctor explain (no match)", td + ["explain", "KeyError: 'learning_rate'"]),
    ]
    if doctor_py != target_py:
        commands.insert(1, ("doctor python -c pass", [doctor_py, "-c", "pass"]))
    if compare:  # another revision's explain, in the same interleaved rounds
        rev = os.path.basename(compare.rstrip(os.sep))
        cenv = dict(env, PYTHONPATH=compare)
        commands += [("explain --no-env TEXT (%s)" % rev, td + ["explain", "--no-env", ERROR_TEXT], cenv),
                     ("explain TEXT (%s)" % rev, td + ["explain", ERROR_TEXT], cenv)]

    def expect(name, rc, out, err):
        if name.startswith("torchdoctor check") or name.startswith("torchdoctor explain (no match)"):
            return rc in (0, 1)
        return rc == 0
    return bench(commands, runs, warmup, env, cwd, tmp, expect)


def reported_fields(target_py, doctor_py, env, cwd):
    """How much each reports: collect_env's 'Key: value' lines vs check's facts."""
    rc, out, _ = capture([target_py, "-m", "torch.utils.collect_env"], env, cwd)
    ce = sum(1 for ln in out.splitlines() if re.match(r"^[A-Za-z][^:]{0,80}:", ln))
    ce_lines = sum(1 for ln in out.splitlines() if ln.strip())
    rc, out, _ = capture([doctor_py, "-m", "torchdoctor", "check", "--json", "--python", target_py], env, cwd)
    doc = json.loads(out)

    def leaves(x):
        if isinstance(x, dict):
            if len(x) == 1 and ("_absent" in x or "_failed" in x):
                return 1
            return sum(leaves(v) for v in x.values()) or 1
        if isinstance(x, list):
            return sum(leaves(v) for v in x) or 1
        return 1
    probe = doc["facts"].get("probe", {})
    imp = doc["facts"].get("torch_import", {})
    return {"collect_env_fields": ce, "collect_env_lines": ce_lines, "check_facts": leaves(doc["facts"]),
            "check_findings": len(doc["findings"]), "probe_s": probe.get("duration_s"),
            "gather_s": probe.get("total_s"), "torch_import_s": imp.get("duration_s")}


def grep_anchor_args(tmp):
    """Files for grep -F -f and grep -E -f with every literal the scanner looks
    for: the patterns' anchors (kb/data/anchors.json) and the entries' context
    literals."""
    from torchdoctor.match.matcher import Index
    from torchdoctor.kb.errors import load_entries
    anchors = Index(load_entries()).anchors
    fixed, ere = os.path.join(tmp, "anchors.txt"), os.path.join(tmp, "anchors.ere")
    with open(fixed, "w", encoding="utf-8") as fh:
        fh.write("\n".join(anchors) + "\n")
    with open(ere, "w", encoding="utf-8") as fh:
        # One pattern a line: grep -E -f ORs them, exactly like a|b|c.
        fh.write("\n".join(re.sub(r"([.\[\]()*+?{}|^$\\])", r"\\\1", a) for a in anchors) + "\n")
    return fixed, ere, len(anchors)


def engines(doctor_py, env):
    """(label, env) for each scan engine the doctor's interpreter can run."""
    out = []
    if can_import(doctor_py, ["ahocorasick_rs"], env):
        out.append(("native", dict(env, **{ENGINE_VAR: "native"})))
    out.append(("pure", dict(env, **{ENGINE_VAR: "pure"})))
    return out


def kb_digest():
    h = hashlib.sha256()
    d = os.path.join(ROOT, "torchdoctor", "kb", "errors")
    for fn in sorted(os.listdir(d)):
        with open(os.path.join(d, fn), "rb") as fh:
            h.update(fn.encode() + fh.read())
    with open(loggen.__file__, "rb") as fh:
        h.update(fh.read())
    return h.hexdigest()[:12]


def make_log(work, mb, seed):
    path = os.path.join(work, "train-%gMB-%s.log" % (mb, kb_digest()))
    meta = path + ".json"
    if os.path.exists(path) and os.path.exists(meta):
        with open(meta) as fh:
            return json.load(fh)
    for old in os.listdir(work):  # logs of another knowledge base
        if old.startswith("train-%gMB-" % mb):
            os.unlink(os.path.join(work, old))
    t0 = time.perf_counter()
    info = loggen.generate(path, mb, seed=seed)
    info["generate_s"] = round(time.perf_counter() - t0, 1)
    with open(meta, "w") as fh:
        json.dump(info, fh)
    return info


def scan_name(engine):
    return "torchdoctor explain --file (%s)" % engine


def log_scan(doctor_py, env, cwd, tmp, work, log_mb, runs, warmup, seed, compare=None):
    grep = shutil.which("grep")
    fixed_file, ere_file, n_anchors = grep_anchor_args(tmp)
    genv = dict(env, LC_ALL="C")
    sizes = [log_mb / 4.0, log_mb / 2.0, float(log_mb)]
    out = []
    for mb in sizes:
        sys.stderr.write("log %g MB: generating/verifying " % mb)
        info = make_log(work, mb, seed)
        path = info["path"]
        argv = [doctor_py, "-m", "torchdoctor", "explain", "--no-env", "--json", "--file", path]
        problems, commands = [], []
        for engine, eenv in engines(doctor_py, env):
            # Verify before timing: a benchmark that reports wrong results is worthless.
            rc, text, err = capture(argv, eenv, cwd, timeout=3600)
            found = loggen.verify(info["expected"], json.loads(text)["matches"]) if rc in (0, 1) else [err[-500:]]
            problems += ["%s: %s" % (engine, p) for p in found]
            commands.append((scan_name(engine), argv, eenv))
        if compare:  # another revision's explain, unverified (its KB may differ)
            commands.append(("explain --file (%s)" % os.path.basename(compare.rstrip(os.sep)), argv,
                             dict(env, PYTHONPATH=compare)))
        if grep:  # in the C locale, grep's fastest mode
            commands += [("grep -c -F -f (all %d anchors)" % n_anchors, [grep, "-c", "-F", "-f", fixed_file, path], genv),
                         ("grep -c -E -f (all %d anchors)" % n_anchors, [grep, "-c", "-E", "-f", ere_file, path], genv),
                         ("grep -c -E 'Error|error'", [grep, "-c", "-E", "Error|error", path], genv)]
        res = bench(commands, runs, warmup, env, cwd, tmp, expect=lambda name, rc, o, e: rc in (0, 1))
        out.append({"mb": mb, "bytes": info["bytes"], "lines": info["lines"], "planted": info["planted_blocks"],
                    "entries": len(info["expected"]), "problems": problems, "results": res})
    return out


HOSTILE = {
    # name: (unit of bytes repeated, newline every N bytes or None, base MB)
    "one 25-100 MB line": (b"step 1 loss 0.1 Torch not compiled with CUDA x \x1b[31m" + b"y" * 30, None, 25),
    "ANSI flood": (b"\x1b[1;31m\x1b]0;" + b"t" * 20 + b"\x07\x1b[" + b"0" * 30 + b"m", 4096, 2.5),
    "anchor-dense lines": (None, 60000, 2),  # above 1 MiB: the streaming path, like the others
}


def hostile_inputs(doctor_py, env, cwd, tmp, runs):
    from torchdoctor.kb.errors import load_entries
    anchors = sorted({p.anchor for e in load_entries() for p in e.patterns if p.anchor})
    rows = []
    for (name, (unit, every, base)), (engine, eenv) in [(h, e) for h in HOSTILE.items() for e in engines(doctor_py, env)]:
        if unit is None:
            unit = (" ".join(anchors) + " ").encode("utf-8")
        times = []
        for k in (1, 2, 4):
            size = int(base * k * 1024 * 1024)
            path = os.path.join(tmp, "hostile.log")
            with open(path, "wb") as fh:
                written = 0
                block = unit * (65536 // len(unit) + 1)
                if every:
                    line = (unit * (every // len(unit) + 1))[:every - 1] + b"\n"
                    block = line * max(1, 1048576 // len(line))
                while written < size:
                    piece = block[:size - written]
                    fh.write(piece)
                    written += len(piece)
            argv = [doctor_py, "-m", "torchdoctor", "explain", "--no-env", "--json", "--file", path]
            r = bench([(name, argv, eenv)], runs, 0, env, cwd, tmp, expect=lambda n, rc, o, e: rc in (0, 1))[name]
            times.append((size, r.median, r.rss_mb))
        rows.append((name, engine, times))
    return rows


# ------------------------------------------------------------------- main --
def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--python", help="interpreter of the venv to diagnose (has torch)")
    ap.add_argument("--setup", action="store_true",
                    help="create benchmarks/_work/venv with torch and torchdoctor's dependencies, and use it")
    ap.add_argument("--torch", default="torch==2.13.0", help="what --setup installs (default: torch==2.13.0)")
    ap.add_argument("--pip-arg", action="append", default=[],
                    help="extra pip argument for --setup, e.g. --pip-arg=--index-url=https://download.pytorch.org/whl/cpu")
    ap.add_argument("--log-mb", type=float, default=300, help="size of the largest log (4x); default 300")
    ap.add_argument("--runs", type=int, default=11, help="timed rounds for cold starts (default 11)")
    ap.add_argument("--scan-runs", type=int, default=3, help="timed rounds for log scans (default 3)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--skip", action="append", default=[], choices=["cold", "scan", "hostile"])
    ap.add_argument("--json", metavar="PATH", help="also write the raw numbers here")
    ap.add_argument("--compare-with", metavar="DIR",
                    help="a checkout of another revision: its explain cold starts and explain --file are timed "
                         "beside this one's")
    args = ap.parse_args(argv)

    os.makedirs(WORK, exist_ok=True)
    if args.setup:
        target = setup_venv(os.path.join(WORK, "venv"), args.torch, args.pip_arg)
    elif args.python:
        # a relative path would not survive the neutral cwd the commands run in
        target = os.path.abspath(args.python) if os.sep in args.python else args.python
    elif os.path.exists(os.path.join(WORK, "venv", "bin", "python")):
        target = os.path.join(WORK, "venv", "bin", "python")
    else:
        target = sys.executable
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    env["PYTHONPATH"] = ROOT + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if not can_import(target, ["torch"], env):
        raise SystemExit("benchmark: %s cannot import torch; pass --python VENV/bin/python or --setup" % target)
    doctor = target if can_import(target, ["click", "packaging", "psutil"], env) else sys.executable
    if not can_import(doctor, ["click", "packaging", "psutil", "torchdoctor"], env):
        raise SystemExit("benchmark: neither %s nor %s can run torchdoctor (needs %s)"
                         % (target, sys.executable, ", ".join(install_requires())))
    # Byte-compile the tree, as pip does on install; reads work even under
    # PYTHONDONTWRITEBYTECODE.
    subprocess.run([doctor, "-m", "compileall", "-q", os.path.join(ROOT, "torchdoctor")], env=env,
                   stdout=subprocess.DEVNULL)
    tv = capture([target, "-c", "import torch, sys; print(torch.__version__, sys.version.split()[0])"], env, ROOT)[1]
    tmp = tempfile.mkdtemp(prefix="tdbench-")
    cwd = tmp  # neutral: no torch/ or torch.py next to the probe
    report = {"machine": "%s, %s, %d CPUs" % (platform.platform(), platform.processor() or platform.machine(),
                                              os.cpu_count() or 0),
              "target": target, "doctor": doctor, "torch": tv.strip()}
    print("# torchdoctor benchmark\n")
    print("- machine: %s" % report["machine"])
    print("- target: %s (torch %s)" % (target, report["torch"]))
    print("- doctor runs under: %s" % doctor)
    print("- command: python3 benchmarks/run.py %s\n" % " ".join(argv if argv is not None else sys.argv[1:]))
    summary = []
    try:
        if "cold" not in args.skip:
            sys.stderr.write("cold starts (%d rounds + 1 warm-up) " % args.runs)
            compare = os.path.abspath(args.compare_with) if args.compare_with else None
            res = cold_start(target, doctor, env, cwd, tmp, args.runs, 1, compare)
            fields = reported_fields(target, doctor, env, cwd)
            base = res["python -c pass"].median
            imp = res["python -c 'import torch'"].median
            ce = res["python -m torch.utils.collect_env"].median
            rows = []
            for name, r in res.items():
                ratio = ""
                if name.startswith("torchdoctor check"):
                    ratio = "%.2fx import, %.2fx collect_env" % (r.median / imp, r.median / ce)
                elif "explain" in name:
                    ratio = "+%s ms over python -c pass" % fmt_ms(r.median - base)
                rows.append((name, fmt_s(r.median), fmt_s(r.best), fmt_s(r.cpu_median), "%.0f" % r.rss_mb, ratio))
            print("## Cold start (median of %d, seconds)\n" % args.runs)
            print(table(["command", "median s", "best s", "CPU s", "peak RSS MB", "ratio"], rows))
            print("\ncheck reports %d facts and %d findings; collect_env prints %d 'Key: value' fields (%d lines)."
                  % (fields["check_facts"], fields["check_findings"], fields["collect_env_fields"],
                     fields["collect_env_lines"]))
            print("Inside check: import torch %.3f s, probe child %.3f s, all probes %.3f s.\n"
                  % (fields["torch_import_s"] or 0, fields["probe_s"] or 0, fields["gather_s"] or 0))
            chk = res["torchdoctor check"].median
            exp = res["torchdoctor explain --no-env TEXT"].median
            summary += [
                ("check / import torch", "%.2f" % (chk / imp), "<= %.2f" % TARGETS["check_vs_import"],
                 verdict(chk / imp <= TARGETS["check_vs_import"])),
                ("check / collect_env", "%.2f" % (chk / ce), "< 1 (and reports more)",
                 verdict(chk < ce and fields["check_facts"] > fields["collect_env_fields"])),
                ("explain --no-env cold, ms", fmt_ms(exp), "<= %.0f" % TARGETS["explain_cold_ms"],
                 verdict(exp * 1000 <= TARGETS["explain_cold_ms"])),
                ("explain (with env facts) cold, ms", fmt_ms(res["torchdoctor explain TEXT"].median),
                 "<= %.0f" % TARGETS["explain_cold_ms"],
                 verdict(res["torchdoctor explain TEXT"].median * 1000 <= TARGETS["explain_cold_ms"])),
            ]
            report["cold"] = {k: {"median": v.median, "best": v.best, "cpu": v.cpu_median, "rss_mb": v.rss_mb,
                                  "argv": v.argv} for k, v in res.items()}
            report["fields"] = fields
        if "scan" not in args.skip:
            sys.stderr.write("log scans\n")
            compare = os.path.abspath(args.compare_with) if args.compare_with else None
            scans = log_scan(doctor, env, cwd, tmp, WORK, args.log_mb, args.scan_runs, 1, args.seed, compare)
            rows = []
            for s in scans:
                res = s["results"]
                mb = s["bytes"] / 1048576.0
                gf = next((v for k, v in res.items() if k.startswith("grep -c -F")), None)
                for name, r in res.items():
                    ratio = "%.2fx grep -F" % (r.median / gf.median) if gf is not None and r is not gf else ""
                    rows.append(("%.0f" % mb, name, fmt_s(r.median), fmt_s(r.cpu_median), "%.0f" % (mb / r.median),
                                 "%.0f" % r.rss_mb, ratio))
                if s["problems"]:
                    print("VERIFICATION FAILED at %.0f MB:\n  %s\n" % (mb, "\n  ".join(s["problems"][:10])))
            print("## Log scan (median of %d; generated training log, known errors planted)\n" % args.scan_runs)
            print(table(["MB", "command", "median s", "CPU s", "MB/s", "peak RSS MB", "ratio"], rows))
            s4, s1 = scans[-1], scans[0]
            ok = all(not s["problems"] for s in scans)
            print("\n%d lines, %d planted error blocks from %d knowledge-base entries; explain's counts and first "
                  "lines (every engine) checked against a naive matcher: %s." % (
                      s4["lines"], s4["planted"], s4["entries"], "all correct" if ok else "MISMATCHES (above)"))
            names = [k for k in s4["results"] if k.startswith("torchdoctor")]
            for name in names:
                r1, r4 = s1["results"][name], s4["results"][name]
                print("%s, 1x -> 4x: time x%.2f, peak RSS %.0f -> %.0f MB." % (
                    name, r4.median / r1.median, r1.rss_mb, r4.rss_mb))
            print()
            gf4 = next((v for k, v in s4["results"].items() if k.startswith("grep -c -F")), None)
            mb4 = s4["bytes"] / 1048576.0
            for engine, key, target in (("native", "scan_vs_grep_f", "<= 1.5"), ("pure", "pure_vs_grep_f", "<= 4")):
                r = s4["results"].get(scan_name(engine))
                if r is None:
                    summary.append(("log scan (%s) / grep -F -f (%.0f MB)" % (engine, mb4), "not installed", target,
                                    "not measured"))
                elif gf4 is not None:
                    summary.append(("log scan (%s) / grep -F -f (%.0f MB)" % (engine, mb4),
                                    "%.2f" % (r.median / gf4.median), target,
                                    verdict(r.median / gf4.median <= TARGETS[key])))
            summary.append(("scan results verified (every engine)", "yes" if ok else "NO", "yes", verdict(ok)))
            for name in names:
                r1, r4 = s1["results"][name], s4["results"][name]
                summary.append(("peak RSS 1x -> 4x, MB (%s)" % name.split("(")[-1].rstrip(")"),
                                "%.0f -> %.0f" % (r1.rss_mb, r4.rss_mb), "constant",
                                verdict(r4.rss_mb < r1.rss_mb * 1.5 + 20)))
            report["scan"] = [{"mb": s["mb"], "problems": s["problems"],
                               "results": {k: {"median": v.median, "cpu": v.cpu_median, "rss_mb": v.rss_mb}
                                           for k, v in s["results"].items()}}
                              for s in scans]
        if "hostile" not in args.skip:
            sys.stderr.write("hostile inputs\n")
            rows = []
            for name, engine, times in hostile_inputs(doctor, env, cwd, tmp, max(1, args.scan_runs)):
                (s1, t1, r1), (s2, t2, r2), (s4, t4, r4) = times
                rows.append((name, engine, "%.1f / %.1f / %.1f" % (s1 / 1048576.0, s2 / 1048576.0, s4 / 1048576.0),
                             "%.2f / %.2f / %.2f" % (t1, t2, t4), "x%.2f" % (t4 / t1),
                             "%.0f / %.0f / %.0f" % (r1, r2, r4)))
            print("## Hostile input (explain --file, 1x / 2x / 4x)\n")
            print(table(["input", "engine", "MB", "seconds", "time 4x/1x", "peak RSS MB"], rows))
            print()
            report["hostile"] = rows
        if summary:
            print("## Targets\n")
            print(table(["measure", "value", "target", ""], summary))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(report, fh, indent=2, default=str)
    return 0


if __name__ == "__main__":
    sys.exit(main())
