"""torchdoctor tune for real, on the CPU torch of the test venv: the built-in convnet and
a user model from a temp module, through the CLI, in a real child process.

Runs are small (tiny sizes, budgets of seconds). OMP_NUM_THREADS=1 in the child: on a
busy machine with two cores, two OpenMP threads spinning against other processes make a
tiny step a hundred times slower, and the test is about what is reported, not how fast.
No timing is asserted beyond the budget's upper bound.
"""

import json
import subprocess
import sys
import textwrap

import pytest

from conftest import needs_torch
from tune_run import Run

pytestmark = needs_torch

CPU_FAMILIES = {"threads", "mkldnn.enabled", "float32_matmul_precision", "channels_last",
                "deterministic_algorithms", "inference_mode"}
SKIPPED = ("same_as_default", "not_applicable", "unsupported")

USER_MODEL = '''
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.lin = nn.Linear(8, 4)
    def forward(self, x, scale=1.0):
        return self.lin(torch.relu(self.conv(x)).mean((2, 3))) * scale

def make():
    return Net()

def inputs():
    return {"x": torch.randn(2, 3, 12, 12), "scale": 0.5}
'''

# Inputs whose batch size varies from call to call (a data loader's last batch, bucketed
# sequence lengths): the model must really see several shapes, and the result says how many.
# The model writes each batch size it is called with to SEEN, so the test sees what ran.
VARYING = '''
import os
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 4)
    def forward(self, x):
        with open(os.environ["SEEN"], "a") as fh:
            fh.write("%d\\n" % x.shape[0])
        return self.lin(x)

def make():
    return Net()

def varying_batch():
    n = int(torch.randint(1, 9, ()).item())
    return torch.randn(n, 16)
'''


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Both real runs of this file, started together (see tune_run)."""
    d = tmp_path_factory.mktemp("cpu")
    u = tmp_path_factory.mktemp("user")
    (u / "mymodels.py").write_text(textwrap.dedent(USER_MODEL))
    # The budget counts the child's `import torch`: with three runs starting at once on a busy
    # two-core machine that import alone took 9-13 s, and a 9-12 s budget measured nothing.
    conv = Run(["--workload", "convnet", "--size", "tiny", "--mode", "infer", "--budget", "20", "--json",
                "--report", "run.md", "--report", "run.html"], d)
    user = Run(["--model", "mymodels:make", "--inputs", "mymodels.py:inputs", "--budget", "15", "--json"], u)
    v = tmp_path_factory.mktemp("varying")
    (v / "vary.py").write_text(textwrap.dedent(VARYING))
    vary = Run(["--model", "vary:make", "--inputs", "vary:varying_batch", "--mode", "infer", "--budget", "20",
                "--json"], v, env={"SEEN": str(v / "seen.txt")})
    return {"convnet": (d, conv), "user": (u, user), "varying": (v, vary)}


@pytest.fixture(scope="module")
def convnet(runs):
    d, run = runs["convnet"]
    p = run.wait()
    assert p.returncode == 0, p.stderr
    return d, json.loads(p.stdout), p


def settings_of(result, workload=None):
    w = result["workloads"][0] if workload is None else next(x for x in result["workloads"] if x["name"] == workload)
    return {s["id"]: s for s in w["settings"]}


def test_json_is_versioned_and_names_the_machine(convnet):
    _, r, _ = convnet
    assert r["schema_version"] == 1 and r["kind"] == "torchdoctor-tune"
    env = r["environment"]
    assert env["device"] == "cpu" and env["torch"].startswith("2.13")
    assert env["threads"] == 1  # OMP_NUM_THREADS=1 reached the child
    assert r["run"]["completed"] is True and r["run"]["ending"] is None
    assert r["options"]["tolerance"] == 1e-3 and r["options"]["mode"] == "infer"


def test_every_cpu_setting_has_median_spread_drift_and_reproducibility(convnet):
    _, r, _ = convnet
    s = settings_of(r)
    assert CPU_FAMILIES <= {x["family"] for x in s.values()}
    cores = r["environment"]["cores"]
    for n in {1, cores["physical"], cores["logical"]}:
        assert "threads=%d" % n in s
    assert s["threads=1"]["status"] == "same_as_default"
    # the noise control: the default settings timed again, with the others; timed only
    control = s.pop("control")
    assert control["role"] == "control" and control["drift"] is None and control["time"]["n"] >= 1
    assert r["workloads"][0]["noise"]["measured"] is True
    measured = [x for x in s.values() if x["status"] not in SKIPPED]
    assert {x["family"] for x in measured} >= CPU_FAMILIES - {"threads"} | {"default"}
    for x in measured:
        assert x["status"] == "measured", (x["id"], x["status"], x["reason"])
        t = x["time"]
        assert t["n"] >= 1 and t["q1_s"] <= t["median_s"] <= t["q3_s"] and t["spread"] >= 0
        assert x["drift"]["output"]["max_abs"] >= 0 and x["drift"]["within_tolerance"] in (True, False)
        assert x["drift"]["grad"] is None  # --mode infer: no gradients
        # Two seeded runs each; a setting whose step is very slow (two threads on a busy
        # 2-core machine can be 100x slower than one) may only fit one: then it says null.
        assert x["runs"] in (1, 2) and x["reproducible"] in ((True, False) if x["runs"] == 2 else (None,))
        if x["id"] != "default":
            assert x["speedup"]["reference"] == "default"
            assert x["speedup"]["verdict"] in ("faster", "slower", "no_measurable_difference", "not_enough_data",
                                               "too_busy")
            assert x["speedup"]["low"] <= x["speedup"]["value"] <= x["speedup"]["high"]
    assert sum(x["runs"] == 2 for x in measured) >= len(measured) - 1
    # Same model, same inputs, same thread count: bitwise equal twice is what a CPU gives.
    assert s["default"]["reproducible"] is True
    assert s["default"]["drift"]["rel"] == 0 or s["default"]["drift"]["rel"] < 1e-6


def test_recommendations_come_in_words_and_code(convnet):
    _, r, _ = convnet
    rec = r["workloads"][0]["recommendations"]
    assert rec["speed_notes"] or rec["speed"]
    for item in rec["speed"]:
        assert item["low"] > 1, "a speedup is only recommended when its whole range is above 1x"
        assert item["code"] in rec["code_speed"]
    assert rec["reproducibility"]
    assert rec["code_reproducibility"].startswith("import torch\ntorch.manual_seed(0)")
    compile(rec["code_reproducibility"], "repro", "exec")
    if rec["code_speed"]:
        compile(rec["code_speed"], "speed", "exec")


def test_progress_goes_to_stderr_as_plain_lines(convnet):
    _, r, p = convnet
    assert "convnet: drift and reproducibility checks" in p.stderr
    assert "\r" not in p.stderr and "\x1b[" not in p.stderr  # not a terminal: no bar
    assert p.stdout.lstrip().startswith("{")


def test_markdown_report_has_every_setting(convnet):
    d, r, _ = convnet
    text = (d / "run.md").read_text()
    assert text.startswith("## torchdoctor tune")
    for s in r["workloads"][0]["settings"]:
        assert "| " + s["label"].replace("|", "\\|").replace('"', '"') in text.replace("\\_", "_")
    assert "```python" in text and "What the settings mean" in text


def test_saved_json_renders_again(convnet, tmp_path):
    d, r, _ = convnet
    saved = tmp_path / "r.json"
    saved.write_text(json.dumps(r))
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "tune", "--from", str(saved), "--no-color"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    for s in r["workloads"][0]["settings"]:
        assert s["label"] in p.stdout
    assert "For speed:" in p.stdout and "For reproducibility:" in p.stdout


def test_a_user_model_from_a_temp_module_is_measured_in_train_mode(runs):
    p = runs["user"][1].wait()
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    [w] = r["workloads"]
    assert w["name"] == "mymodels:make" and w["builtin"] is False and w["mode"] == "train"
    assert "conv2d" in w["ops"] and "linear" in w["ops"]
    s = {x["id"]: x for x in w["settings"]}
    assert s["inference_mode"]["status"] == "not_applicable"
    assert s["channels_last"]["status"] != "not_applicable"  # x is 4-d, and the model convolves
    d = s["default"]
    assert d["status"] == "measured" and d["time"]["n"] >= 1
    assert d["drift"]["grad"] is not None, "train mode compares gradients too"
    assert d["reproducible"] is True


def test_varying_inputs_really_vary_and_the_result_says_how_many_shapes(runs):
    v, run = runs["varying"]
    p = run.wait()
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    [w] = r["workloads"]
    seen = [int(x) for x in (v / "seen.txt").read_text().split()]
    timed = [s for s in w["settings"] if s.get("time")]
    assert timed, [(s["id"], s["status"], s["reason"]) for s in w["settings"]]
    assert w["shapes"] >= 2 and len(set(seen)) == w["shapes"], (w["shapes"], sorted(set(seen)))
    assert "%d shapes" % w["shapes"] in w["input"]
    (v / "r.json").write_text(p.stdout)
    text = subprocess.run([sys.executable, "-m", "torchdoctor", "tune", "--from", str(v / "r.json"), "--no-color"],
                          capture_output=True, text=True, timeout=60).stdout
    assert "%d shapes" % w["shapes"] in text
