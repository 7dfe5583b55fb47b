"""Redaction cost on a report with many env vars, against another revision of torchdoctor/redact/.

    mkdir -p /tmp/redact_main && git archive main torchdoctor | tar -x -C /tmp/redact_main
    python benchmarks/redact_bench.py --baseline /tmp/redact_main/torchdoctor/redact --vars 2000

(A revision from before redact/ was a package: --baseline /tmp/redact_main/torchdoctor/redact.py.
The baseline is read inside its own tree, which holds the kb/data/secrets.json it loads.)

Builds one report (real-shaped env values: library path lists, device lists, NCCL
and allocator settings, URLs, a few secrets; a probe stderr tail; findings), then
times redact_report() of this checkout and of the baseline file side by side,
alternating, and prints the medians and their ratio. Not part of the test run.
"""

import argparse
import importlib.util
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from torchdoctor import redact as current  # noqa: E402
from torchdoctor.model.facts import Facts  # noqa: E402
from torchdoctor.model.findings import Finding, Fix  # noqa: E402
from torchdoctor.model.report import Report  # noqa: E402

VALUES = [
    "/usr/local/cuda-12.1/lib64:/usr/lib/x86_64-linux-gnu:/opt/conda/lib:/opt/hf_token/lib",
    "0,1,2,3", "expandable_segments:True,max_split_size_mb:128", "mlx5_0:1,mlx5_1:1", "^docker0,lo",
    "7.0;7.5;8.0;8.6;9.0+PTX", ":4096:8", "granularity=fine,compact,1,0", "8", "1", "INFO", "LAZY",
    "/tmp/torchinductor_cache", "https://download.pytorch.org/whl/cu121", "libcudnn8=8.9.0.131-1+cuda12.1",
    "cuda>=12.1 brand=tesla,driver>=470,driver<471", "a8d6afb511a69687bbb2b7e88a3cf67917e1697e",
    "--xla_gpu_cuda_data_dir=/usr/local/cuda-12.1", "+dynamo,recompiles,graph_breaks",
    "https://ml:Xk2pQ9rT7vLm4Nw8@artifacts.example.com/simple",
    "https://b.s3.amazonaws.com/m.pt?X-Amz-Date=20240101T000000Z&X-Amz-Signature=" + "9f1c" * 16,
    "DefaultEndpointsProtocol=https;AccountName=ml;AccountKey=Zm9vYmFyYmF6cXV4Zm9vYmFy==;EndpointSuffix=core.windows.net",
    "ghp_R8x2LmQ9vTz4KpW7nYb3Jc6Hd1Fs5Ga0Ue8X", '{"hf_auth": "abc123def456", "lr": 0.001}',
]
STDERR = ("W0611 10:15:00.123 torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each "
          "process to be 1 in default\nRuntimeError: CUDA error: no kernel image is available for execution on the "
          "device\nCUDA kernel errors might be asynchronously reported at some other API call\n")


def build(n_vars):
    env = {"TORCH_BENCH_%05d" % i: VALUES[i % len(VALUES)] for i in range(n_vars)}
    facts = Facts({"schema_version": 1, "source": "probe", "env": env, "os": {"system": "Linux", "hostname": "bench-host"},
                   "python": {"executable": "/home/bench/venv/bin/python", "sys_path": ["/home/bench/venv/lib"] * 20},
                   "probe": {"completed": True, "stderr_tail": STDERR * 40}})
    findings = [Finding(id="f%d" % i, category="config", severity="warning", title="finding %d" % i,
                        detail=STDERR, fix=Fix(summary="fix", commands=["/home/bench/venv/bin/python -m pip install torch"]))
                for i in range(10)]
    return Report(facts, findings)


def load(path):
    """The baseline: a redact/ package folder, or the single redact.py of an older revision."""
    name = "torchdoctor._redact_baseline"
    if os.path.isdir(path):
        spec = importlib.util.spec_from_file_location(name, os.path.join(path, "__init__.py"),
                                                      submodule_search_locations=[path])
    else:
        spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # a package's own relative imports look it up there
    spec.loader.exec_module(mod)
    return mod


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--baseline", help="another revision's torchdoctor/redact/ (or redact.py, before it was a package)")
    ap.add_argument("--vars", type=int, default=2000, help="env vars in the report (default 2000)")
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    report = build(args.vars)
    mods = [("this checkout", current)] + ([("baseline", load(args.baseline))] if args.baseline else [])
    times = {name: [] for name, _ in mods}
    counts = {}
    for _ in range(args.repeat):
        for name, mod in mods:  # alternating, so load on the machine hits both alike
            t0 = time.perf_counter()
            red = mod.redact_report(report, extra_users=["bench"], extra_hosts=["bench-host"])
            times[name].append(time.perf_counter() - t0)
            counts[name] = red.facts.value("redaction.counts")
    chars = sum(len(v) for v in report.facts.value("env").values()) + len(STDERR) * 40
    print("report: %d env vars, %d characters of values and stderr; median of %d" % (args.vars, chars, args.repeat))
    for name, _ in mods:
        print("  %-14s %8.1f ms   secrets redacted: %d" % (name, 1000 * statistics.median(times[name]),
                                                        counts[name].get("secret", 0)))
    if args.baseline:
        print("  ratio          %8.2fx" % (statistics.median(times["this checkout"]) / statistics.median(times["baseline"])))


if __name__ == "__main__":
    main()
