"""The CUDA and MPS code paths of tune, through the real worker in a real child process,
with tune_fakes' shim: the real CPU torch of the test venv dressed up as a CUDA (or MPS)
build with one device. What applies, which API is used, the SDPA backends, the
varying-shape cuDNN benchmark and the device-synchronising timer all run; the numbers
are the CPU's, so nothing here is about speed."""

import json
import os

import pytest

from conftest import needs_torch
from tune_fakes import fake_gpu_torch
from tune_run import Run
from torchdoctor.verbs.tune.numbers import MIN_SAMPLES

pytestmark = needs_torch


def by_id(w):
    return {s["id"]: s for s in w["settings"]}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The three fake-GPU runs of this file, started together (see tune_run)."""
    d = tmp_path_factory.mktemp("fakegpu")
    mark = str(d / "mark")
    cuda = fake_gpu_torch(d / "cuda", mark=mark, sync_s=5e-5)
    legacy = fake_gpu_torch(d / "legacy", legacy_tf32=True, version="2.8.0+cu126", bf16=False)
    mps = fake_gpu_torch(d / "mps", kind="mps")
    return {
        "cuda": (Run(["--workload", "convnet", "--workload", "attention", "--size", "tiny", "--budget", "15",
                      "--json"], d, pythonpath=cuda), mark),
        "legacy": Run(["--list-settings", "--workload", "convnet", "--workload", "lstm", "--budget", "60", "--json"],
                      d, pythonpath=legacy),
        "mps": Run(["--list-settings", "--workload", "matmul", "--budget", "60", "--json"], d, pythonpath=mps),
    }


@pytest.fixture(scope="module")
def cuda_run(runs):
    run, mark = runs["cuda"]
    p = run.wait()
    assert "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout), mark, p


def test_the_child_saw_a_cuda_device(cuda_run):
    r, mark, _ = cuda_run
    env = r["environment"]
    assert env["device"] == "cuda" and env["name"] == "NVIDIA A100-SXM4-80GB" and env["capability"] == [8, 0]
    assert env["cudnn_version"] == 90100 and env["fp32_precision_api"] is True
    # Timing synchronised the device (the shim marks its first torch.cuda.synchronize()),
    # and autocast was asked for "cuda".
    assert os.path.exists(mark + ".synchronize") and os.path.exists(mark + ".autocast_cuda")


def test_a_synchronising_timer_still_gives_enough_timed_blocks(cuda_run):
    # On a real H200 the Timer's block-size estimate, fed a timer that synchronises the device,
    # made each block outlast the slice: one sample per round, "too few samples" nearly
    # everywhere and "keep the defaults" as the advice. The shim's synchronize costs what a
    # real one does.
    r, _, _ = cuda_run
    conv = by_id(next(w for w in r["workloads"] if w["name"] == "convnet"))
    assert conv["default"]["time"]["n"] >= MIN_SAMPLES, conv["default"]["time"]
    timed = [x for x in conv.values() if x["status"] == "measured" and not x.get("varying_shapes")]
    assert timed and all(x["time"]["n"] >= MIN_SAMPLES for x in timed), [(x["id"], x["time"]["n"]) for x in timed]


def test_every_cuda_setting_is_planned_with_the_2_9_api(cuda_run):
    r, _, _ = cuda_run
    conv = by_id(next(w for w in r["workloads"] if w["name"] == "convnet"))
    for sid in ("cudnn.benchmark=True", "varying:cudnn.benchmark=False", "varying:cudnn.benchmark=True",
                "cudnn.deterministic=True", "cudnn.enabled=False", "tf32.matmul=on", "tf32.conv=off",
                "float32_matmul_precision=high", "float32_matmul_precision=medium", "channels_last",
                "autocast=bf16", "autocast=fp16", "sdpa=flash", "sdpa=efficient", "sdpa=cudnn", "sdpa=math"):
        assert sid in conv, sid
    assert conv["tf32.matmul=on"]["code"] == 'torch.backends.cuda.matmul.fp32_precision = "tf32"'
    assert conv["tf32.conv=off"]["code"] == 'torch.backends.cudnn.conv.fp32_precision = "ieee"'
    assert conv["tf32.matmul=on"]["api"].startswith("fp32_precision")
    # The convnet calls no attention: the SDPA settings say so instead of measuring nothing.
    assert conv["sdpa=flash"]["status"] == "not_applicable" and "scaled_dot_product_attention" in conv["sdpa=flash"]["reason"]


def test_the_varying_shape_benchmark_is_timed_against_its_own_reference(cuda_run):
    r, _, _ = cuda_run
    conv = by_id(next(w for w in r["workloads"] if w["name"] == "convnet"))
    on, off = conv["varying:cudnn.benchmark=True"], conv["varying:cudnn.benchmark=False"]
    assert off["role"] == "reference" and on["reference"] == "varying:cudnn.benchmark=False"
    if on["status"] == "measured" and off["status"] == "measured":
        assert on["speedup"]["reference"] == "varying:cudnn.benchmark=False"
        assert on["drift"] is None  # other shapes than the baseline: no drift to compare
    else:
        assert on["status"] in ("not_measured", "partial"), on


def test_sdpa_backends_run_under_autocast_and_an_unavailable_one_is_a_finding(cuda_run):
    r, _, _ = cuda_run
    att = next(w for w in r["workloads"] if w["name"] == "attention")
    s = by_id(att)
    if att["status"] == "not_measured":
        pytest.skip("the budget ran out before the attention workload on this machine")
    for b in ("flash", "efficient", "cudnn", "math"):
        x = s["sdpa=" + b]
        assert x["reference"] == "autocast=bf16" and "sdpa_kernel(SDPBackend." in x["code"]
    # The CPU under the shim has a flash and a math kernel, no efficient or cuDNN one: an
    # SDPA backend that cannot run these inputs fails, and says so.
    failed = [x for x in s.values() if x["status"] == "error"]
    assert any(x["id"] in ("sdpa=efficient", "sdpa=cudnn") for x in failed), [(x["id"], x["status"]) for x in s.values()]
    for x in failed:
        assert x["error"]["error"] and any(f["id"] == "tune-setting-failed" and x["label"] in f["title"]
                                           for f in r["findings"])
    assert s["sdpa=math"]["status"] in ("measured", "partial", "not_measured")


def test_a_legacy_build_gets_the_allow_tf32_flags_and_an_old_gpu_no_bf16(runs):
    p = runs["legacy"].wait()
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["environment"]["torch"] == "2.8.0+cu126" and r["environment"]["fp32_precision_api"] is False
    conv = by_id(r["workloads"][0])
    assert conv["tf32.matmul=on"]["code"] == "torch.backends.cuda.matmul.allow_tf32 = True"
    assert conv["tf32.conv=off"]["code"] == "torch.backends.cudnn.allow_tf32 = False"
    assert conv["tf32.conv=off"]["api"] == "allow_tf32 (legacy flag)"
    assert conv["autocast=bf16"]["status"] == "not_applicable" and "bf16" in conv["autocast=bf16"]["reason"]
    assert conv["sdpa=flash"]["reference"] == "autocast=fp16"  # no bf16: SDPA is compared under fp16
    lstm = by_id(r["workloads"][1])
    # The legacy cudnn.allow_tf32 covers cuDNN RNNs as well as convolutions.
    assert lstm["tf32.conv=off"]["status"] == "planned"
    assert lstm["channels_last"]["status"] == "not_applicable"


def test_mps_measures_precision_and_explains_the_fallback_variable(runs):
    p = runs["mps"].wait()
    assert p.returncode == 0, p.stderr
    r = json.loads(p.stdout)
    assert r["environment"]["device"] == "mps"
    s = by_id(r["workloads"][0])
    assert {x["family"] for x in s.values()} == {"default", "float32_matmul_precision", "autocast", "mps_fallback"}
    fb = s["PYTORCH_ENABLE_MPS_FALLBACK"]
    assert fb["status"] == "not_measurable" and "before Python starts" in fb["code"] and "unset" in fb["reason"]
