"""onnxruntime 1.10 to 1.16.0 refuse a session without providers on a build with several; 1.16.0's
CPU package had two. A real onnxruntime 1.16.0 from this machine's pip fails for real, and the
printed upgrade heals it; GPU builds are told to name their providers, not to upgrade."""

import shlex
import subprocess

import pytest

from hook_facts import facts, tailored_as

ENTRY = "onnxruntime-providers-required"
AZURE = ("ValueError: This ORT build has ['AzureExecutionProvider', 'CPUExecutionProvider'] enabled. Since ORT 1.9, "
         "you are required to explicitly set the providers parameter when instantiating InferenceSession.")
GPU = ("ValueError: This ORT build has ['TensorrtExecutionProvider', 'CUDAExecutionProvider', 'CPUExecutionProvider'] "
       "enabled. Since ORT 1.9, you are required to explicitly set the providers parameter when instantiating "
       "InferenceSession.")
MODEL = ("import onnx\nfrom onnx import helper, TensorProto as T\n"
         "g = helper.make_graph([helper.make_node('Identity', ['x'], ['y'])], 'g', "
         "[helper.make_tensor_value_info('x', T.FLOAT, [1])], [helper.make_tensor_value_info('y', T.FLOAT, [1])])\n"
         "m = helper.make_model(g, opset_imports=[helper.make_opsetid('', 13)]); m.ir_version = 8\n"
         "import sys; onnx.save(m, sys.argv[1])\n")


def test_cpu_1160_is_upgraded_past_the_check():
    _, t = tailored_as(ENTRY, AZURE, facts(packages={"onnxruntime": {"version": "1.16.0"}}))
    assert "AzureExecutionProvider" in t.summary
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "onnxruntime>=1.16.1"']


def test_a_gpu_build_names_its_providers_rather_than_upgrading():
    _, t = tailored_as(ENTRY, GPU, facts(packages={"onnxruntime-gpu": {"version": "1.14.1"}}))
    assert t.commands == [] and "providers=['CUDAExecutionProvider', 'CPUExecutionProvider']" in t.summary


def test_a_release_without_the_check_means_another_onnxruntime_failed():
    _, t = tailored_as(ENTRY, AZURE, facts(packages={"onnxruntime": {"version": "1.17.0"}}))
    assert "imported an older onnxruntime" in t.summary


def test_no_onnxruntime_read_goes_by_the_providers_listed():
    # a GPU build must not be told to install the CPU package over it
    _, t = tailored_as(ENTRY, GPU, facts())
    assert t.commands == [] and "providers=['CUDAExecutionProvider', 'CPUExecutionProvider']" in t.summary
    _, t = tailored_as(ENTRY, AZURE, facts())
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "onnxruntime>=1.16.1"']


@pytest.mark.slow
def test_onnxruntime_1160_fails_for_real_and_the_printed_upgrade_heals_it(tmp_path):
    from torchdoctor.gather.light import light_facts
    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    done = subprocess.run([py, "-m", "pip", "install", "-q", "onnxruntime==1.16.0", "onnx<1.17", "numpy<2"],
                          capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        pytest.skip("pip could not install onnxruntime 1.16.0 here: %s" % done.stderr.strip()[-300:])
    model = str(tmp_path / "id.onnx")
    subprocess.run([py, "-c", MODEL, model], check=True, capture_output=True, timeout=300)
    session = "import sys, onnxruntime as ort; ort.InferenceSession(sys.argv[1])"
    failed = subprocess.run([py, "-c", session, model], capture_output=True, text=True, timeout=300)
    assert failed.returncode != 0
    _, t = tailored_as(ENTRY, failed.stderr, light_facts(py))
    (cmd,) = t.commands
    subprocess.run(shlex.split(cmd), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", session, model], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]


@pytest.mark.parametrize("eps, keep", [
    ("'ROCMExecutionProvider', 'CPUExecutionProvider'", "['ROCMExecutionProvider', 'CPUExecutionProvider']"),
    ("'DmlExecutionProvider', 'CPUExecutionProvider'", "['DmlExecutionProvider', 'CPUExecutionProvider']"),
    ("'OpenVINOExecutionProvider', 'CPUExecutionProvider'", "['OpenVINOExecutionProvider', 'CPUExecutionProvider']"),
])
def test_other_builds_are_told_their_own_providers_and_no_cpu_package(eps, keep):
    text = AZURE.replace("'AzureExecutionProvider', 'CPUExecutionProvider'", eps)
    _, t = tailored_as(ENTRY, text, facts())
    assert t.commands == [] and keep in t.summary and "1.16.0" not in t.summary.split(":")[0]


@pytest.mark.parametrize("text", [
    "This ORT build has ['CPUExecutionProvider'] enabled.",  # no providers sentence: a log line
    "you are required to explicitly set the providers parameter",
    "ValueError: providers must be a list",
])
def test_other_onnxruntime_lines_are_not_this_entry(text):
    from hook_facts import top
    m = top(text)
    assert m is None or m.id != ENTRY
