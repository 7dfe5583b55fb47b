#!/usr/bin/env python3
"""Every verb's output on a fixed matrix of environments, normalised, one file per case:
run it before and after a change that must not change output, then `diff -r A B`.

    python tools/output_snapshot.py OUT_DIR [--cuda-python PATH] [--no-kb]

Environments: the interpreter running this script (it must have the real torch, as the
test venv does), an optional real CUDA build (`--cuda-python`), and three fake ones built
under OUT_DIR/_env (a fake torch on PYTHONPATH, fake nvidia-smi/nvcc on PATH): a healthy
A100 box, an old driver with a Pascal GPU and a CUDA 13 torch, and a torch whose import
segfaults. Verbs: check (text, --json), report (markdown, json, text), check --from,
triage and diff of the collect_env fixtures, explain of every knowledge-base example (CLI
for a sample, the library for all, each with and without environment facts), the lists.

Volatile values (timings, dates, free memory, temporary paths) are masked so two runs of
the same code compare equal. A maintainer tool: not part of the test run.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))
sys.path.insert(0, ROOT)

MASKS = [
    (re.compile(r"\d+(?:\.\d+)? ?(?:s|ms)\b"), "<T>"),
    (re.compile(r'"(duration_s|total_s|import_s|t|timeout_s|elapsed_s|took_s)": ?[0-9.e-]+'), r'"\1": <T>'),
    (re.compile(r'"(collected_at)": ?"[^"]*"'), r'"\1": "<DATE>"'),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}"), "<DATE>"),
    (re.compile(r'"(available_bytes|rss_bytes|free_bytes)": ?\d+'), r'"\1": <N>'),
    (re.compile(r"[0-9.]+ GiB available"), "<N> GiB available"),
    (re.compile(r"\| [0-9.]+ GiB total, [0-9.]+ GiB available"), "| <MEM>"),
    (re.compile(r"/tmp/torchdoctor-[A-Za-z0-9_]+\.jsonl"), "<TMP>"),
    (re.compile(r"\(pid \d+\)|\bpid \d+"), "pid <N>"),
]


def mask(text, out_dir):
    text = text.replace(out_dir, "<OUT>").replace(ROOT, "<ROOT>")
    for rx, sub in MASKS:
        text = rx.sub(sub, text)
    return text


def run(argv, env, cwd):
    p = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    return "rc=%d\n--- stdout\n%s--- stderr\n%s" % (p.returncode, p.stdout, p.stderr)


def fake_envs(base):
    from fakes import fake_nvcc, fake_nvidia_smi, fake_torch
    envs = {}
    for name, torch_kw, smi in (
            ("a100", dict(version="2.4.1+cu124", cuda="12.4"), dict(driver="550.54.15", cuda="12.4")),
            ("pascal_old_driver", dict(version="2.14.1+cu130", cuda="13.0",
                                       devices=(("NVIDIA GeForce GTX 1080", (6, 1)),),
                                       arch_list=["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]),
             dict(driver="470.82.01", cuda="11.4", gpus=(("NVIDIA GeForce GTX 1080", "6.1"),))),
            ("import_segfault", dict(version="2.5.1+cu121", cuda="12.1",
                                     import_code="import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"), None)):
        site = os.path.join(base, name, "site")
        bindir = os.path.join(base, name, "bin")
        if not os.path.isdir(site):
            fake_torch(site, **torch_kw)
            os.makedirs(bindir, exist_ok=True)
            if smi:
                fake_nvidia_smi(bindir, **smi)
            fake_nvcc(bindir, "12.4")
        envs[name] = {"PYTHONPATH": site, "PATH": bindir + os.pathsep + "/usr/bin:/bin"}
    return envs


def kb_examples():
    from torchdoctor.kb.errors import load_entries
    for e in load_entries():
        for i, ex in enumerate(e.examples):
            yield "%s.%d" % (e.id, i), ex["text"]


def library_explain(out_dir, facts_kind):
    """explain of every KB example through the public API: the text renderer and the JSON dicts."""
    import torchdoctor
    from torchdoctor.render.style import Style
    from torchdoctor.render.text import render_explain
    results = {}
    for key, text in kb_examples():
        exps = torchdoctor.explain_text(text, use_env=(facts_kind == "light"))
        results[key] = {"json": [e.to_dict() for e in exps],
                        "text": render_explain(exps, Style(color=False), show_all=True)}
    return results


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--cuda-python")
    ap.add_argument("--no-kb", action="store_true", help="skip explain of every KB example")
    args = ap.parse_args(argv)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    base_env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX")}
    base_env.update(NO_COLOR="1", COLUMNS="100")
    envs = {"cpu": {}}
    if args.cuda_python:
        envs["cuda"] = {}
    envs.update(fake_envs(os.path.join(out, "_env")))
    td = [sys.executable, "-m", "torchdoctor"]
    cases = {}
    for name, extra in envs.items():
        env = dict(base_env, **extra)
        env["PYTHONPATH"] = ROOT + (os.pathsep + extra["PYTHONPATH"] if "PYTHONPATH" in extra else "")
        py = args.cuda_python if name == "cuda" else sys.executable
        cases["%s.check.txt" % name] = (td + ["check", "--no-color", "--python", py], env)
        cases["%s.check.json" % name] = (td + ["check", "--json", "--python", py], env)
        for fmt in ("markdown", "json", "text"):
            cases["%s.report.%s" % (name, fmt)] = (td + ["report", "--format", fmt, "--python", py], env)
    env = dict(base_env, PYTHONPATH=ROOT)
    cases["list-checks"] = (td + ["check", "--list-checks"], env)
    cases["explain-list"] = (td + ["explain", "--list"], env)
    cases["explain-list.json"] = (td + ["explain", "--list", "--json"], env)
    cases["explain-entry"] = (td + ["explain", "cpu-only-build-not-compiled"], env)
    fixtures = os.path.join(ROOT, "tests", "fixtures", "collect_env")
    names = sorted(os.listdir(fixtures))
    for n in names:
        p = os.path.join(fixtures, n)
        cases["triage.%s" % n] = (td + ["triage", "--no-color", p], env)
        cases["triage.%s.json" % n] = (td + ["triage", "--json", p], env)
    for a, b in zip(names, names[1:]):
        cases["diff.%s--%s" % (a, b)] = (td + ["diff", os.path.join(fixtures, a), os.path.join(fixtures, b)], env)
    sample = list(kb_examples())[::25]
    for key, text in sample:
        for mode in ([], ["--no-env"], ["--json"], ["--json", "--all", "--no-env"]):
            cases["explain.%s.%s" % (key, "_".join(m.strip("-") for m in mode) or "plain")] = (
                td + ["explain"] + mode + [text], env)
    for key, (argv_, env_) in sorted(cases.items()):
        with open(os.path.join(out, key), "w") as fh:
            fh.write(mask(run(argv_, env_, ROOT), out))
    # check --from a saved report, and diff of two real reports
    saved = os.path.join(out, "_saved.json")
    subprocess.run(td + ["report", "--format", "json", "--no-redact", "-o", saved], env=env, cwd=ROOT,
                   capture_output=True, timeout=600)
    with open(os.path.join(out, "check-from.txt"), "w") as fh:
        fh.write(mask(run(td + ["check", "--no-color", "--from", saved], env, ROOT), out))
    if not args.no_kb:
        for kind in ("none", "light"):
            res = library_explain(out, kind)
            with open(os.path.join(out, "kb-explain.%s.json" % kind), "w") as fh:
                fh.write(mask(json.dumps(res, indent=1, sort_keys=True), out))
    shutil.rmtree(os.path.join(out, "_env"), ignore_errors=True)
    os.unlink(saved)
    print("wrote %d cases to %s" % (len(cases) + 1 + (0 if args.no_kb else 2), out))


if __name__ == "__main__":
    main()
