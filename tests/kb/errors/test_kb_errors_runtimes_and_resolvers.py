"""ONNX Runtime's CPU package where onnxruntime-gpu was wanted, a TensorRT plugin's bare CUDA
status 35, a shell's or Python's own words for SIGILL, and uv's (pixi's) resolver missing torch's
dependency on the index torch came from."""

import shlex
import subprocess

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

import hook_facts
from hook_facts import explain, top, failing_in_venv, hits as ids, pkg_facts as facts

ORT = "onnxruntime-cpu-build-no-cuda-provider"
WARN = ("/.venv/lib/python3.11/site-packages/onnxruntime/capi/onnxruntime_inference_collection.py:121: UserWarning: "
        "Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
        "'AzureExecutionProvider, CPUExecutionProvider'")




# ------------------------------------------------------------ ONNX Runtime's CPU package ----
@pytest.mark.parametrize("text", [
    WARN,
    "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available providers: "
    "'CPUExecutionProvider'",
    "ValueError: ['CUDAExecutionProvider'] does not contain a subset of available providers ['CPUExecutionProvider']",
])
def test_a_provider_list_without_cuda_is_the_cpu_package(text):
    assert ids(text)[:1] == [(ORT, HIGH)], ids(text)


@pytest.mark.parametrize("offered", [
    "TensorrtExecutionProvider, CUDAExecutionProvider, CPUExecutionProvider",  # the GPU build: another error
    "DmlExecutionProvider, CPUExecutionProvider",  # onnxruntime-directml
    "CoreMLExecutionProvider, AzureExecutionProvider, CPUExecutionProvider",  # macOS: no onnxruntime-gpu exists
    "ROCMExecutionProvider, MIGraphXExecutionProvider, CPUExecutionProvider",
    "OpenVINOExecutionProvider, CPUExecutionProvider",
])
def test_a_list_of_another_build_is_not_the_cpu_package(offered):
    text = ("UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names.Available "
            "providers: '%s'" % offered)
    assert ORT not in [i for i, _ in ids(text)]


def test_a_cuda_11_torch_gets_the_cuda_11_feeds_build():
    # PyPI's onnxruntime-gpu is CUDA 12's from 1.19: beside a cu118 torch, the CUDA 11 feed's build
    e = explain(WARN, ORT, facts(torch="2.3.1+cu118", onnxruntime="1.18.1"))
    assert e.fix.commands[1].startswith("/home/u/venv/bin/python -m pip install --no-deps onnxruntime-gpu --index-url "
                                        "https://aiinfra.pkgs.visualstudio.com/"), e.fix.commands


def test_a_cuda_12_torch_gets_pypis_build():
    e = explain(WARN, ORT, facts(torch="2.6.0+cu124", onnxruntime="1.20.1"))
    assert e.fix.commands[1] == "/home/u/venv/bin/python -m pip install onnxruntime-gpu", e.fix.commands


def test_a_check_without_torch_for_an_environment_without_it():
    e = explain(WARN, ORT, facts(onnxruntime="1.19.0"))
    assert "import torch" not in e.fix.commands[-1]


def test_both_packages_installed_are_both_removed_first():
    e = explain(WARN, ORT, facts(onnxruntime="1.16.1", **{"onnxruntime-gpu": "1.16.1"}))
    assert e.fix.commands[:2] == ["/home/u/venv/bin/python -m pip uninstall -y onnxruntime onnxruntime-gpu",
                                  "/home/u/venv/bin/python -m pip install onnxruntime-gpu"], e.fix.commands


def test_the_cpu_package_alone_is_replaced():
    e = explain(WARN, ORT, facts(onnxruntime="1.19.0"))
    assert e.fix.commands[0] == "/home/u/venv/bin/python -m pip uninstall -y onnxruntime"
    assert "another environment" not in e.fix.summary


@pytest.mark.parametrize("record", [{"installer": "conda"}, {}])
def test_condas_onnxruntime_is_not_told_as_the_cpu_package(record):
    # conda's CPU and CUDA builds are both named onnxruntime: the name says nothing about the build
    packages = {"onnxruntime": dict({"version": "1.20.1"}, **record)}
    if not record:
        packages["conda:onnxruntime"] = {"version": "1.20.1", "build": "py311h0123456_0"}
    e = explain(WARN, ORT, hook_facts.facts(torch="2.5.1", packages=packages))
    assert not any("installed here" in n for n in e.notes), e.notes  # the entry's own words, untailored
    assert e.fix.summary == top(WARN).entry.fix["summary"]


def test_the_gpu_package_alone_here_means_another_environment_ran():
    e = explain(WARN, ORT, facts(**{"onnxruntime-gpu": "1.19.0"}))
    assert "another environment" in e.fix.summary


# A session asking for CUDA first, as the face, voice and background-removal tools do; it exits 1 where
# the imported onnxruntime offers no CUDA provider (the warning above is what it prints then).
SESSION = """
import sys
import onnx.helper as h, onnxruntime as ort
graph = h.make_graph([h.make_node("Identity", ["x"], ["y"])], "g", [h.make_tensor_value_info("x", 1, [1])],
                     [h.make_tensor_value_info("y", 1, [1])])
model = h.make_model(graph, opset_imports=[h.make_opsetid("", 13)])
model.ir_version = 8
ort.InferenceSession(model.SerializeToString(), providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
sys.exit(0 if "CUDAExecutionProvider" in ort.get_available_providers() else 1)
"""


@pytest.mark.slow
def test_the_cpu_package_is_replaced_by_the_printed_commands(tmp_path):
    # PyPI's onnxruntime, the real warning, and the printed uninstall and install run as printed. What they
    # heal is the package: the GPU build offers CUDAExecutionProvider; running it needs a GPU this machine
    # lacks, so the session then falls back with another message, not this one.
    py, t = failing_in_venv(tmp_path, ["onnxruntime", "onnx"], SESSION, ORT)
    assert [c.split(" -m pip ")[-1] for c in t.commands[:2]] == ["uninstall -y onnxruntime", "install onnxruntime-gpu"]
    for command in t.commands[:2]:
        subprocess.run(shlex.split(command), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", SESSION], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert "is not in available provider names" not in healed.stderr


# ------------------------------------------------------------ CUDA status 35 ----
def test_a_tensorrt_plugins_status_35_is_the_driver_said_as_cudas_own():
    found = match_text("Cuda failure in file 'yolo_layer.cu' line 51: 35\nAborted (core dumped)")
    assert found[0].id == "cuda-driver-insufficient" and found[0].confidence == POSSIBLE and found[0].neutral


@pytest.mark.parametrize("text", ["Cuda failure in file 'yolo_layer.cu' line 51: 2",
                                  "Cuda failure in file 'yolo_layer.cu' line 51: 350"])
def test_other_status_numbers_are_not_the_driver(text):
    assert "cuda-driver-insufficient" not in [i for i, _ in ids(text)]


# ------------------------------------------------------------ SIGILL in a shell's and Python's words ----
@pytest.mark.parametrize("text", [
    "/run.sh: line 3:     6 Illegal instruction     (core dumped) bin/python3 -m tts_web \"$@\"",
    "Fatal Python error: Illegal instruction\n\nCurrent thread 0x0000ffffa6e414c0 (most recent call first):",
    # a reporter's own words, as written in a Jetson thread
    "it says illegal instruction in python shell core dumped",
])
def test_sigill_without_torch_in_sight_is_possibly_the_cpu_instructions(text):
    assert ids(text)[:1] == [("torch-import-illegal-instruction", POSSIBLE)], ids(text)


@pytest.mark.parametrize("text", [
    "/run.sh: line 3:     6 Segmentation fault      (core dumped) bin/python3 -m tts_web",
    "/usr/local/bin/docker-entrypoint.sh: line 420:    27 Illegal instruction     (core dumped) mongod --bind_ip_all",
    "./run.sh: line 5:  1234 Illegal instruction     (core dumped) ./llama-server -m model.gguf",
])
def test_a_shells_other_job_reports_are_not_torchs_sigill(text):
    assert "torch-import-illegal-instruction" not in [i for i, _ in ids(text)]


# ------------------------------------------------------------ uv's resolver (pixi) ----
def test_uvs_no_version_of_torchs_dependency_is_the_index_lacking_it():
    text = ("  ╰─▶ Because there is no version of pytorch-triton{platform_machine == 'x86_64' and sys_platform == "
            "'linux'}==3.2.0+git0d4682f0 and torch>=2.7.0.dev20250105+cu124,<=2.7.0.dev20250124+cu124 depends on "
            "pytorch-triton{platform_machine == 'x86_64' and sys_platform == 'linux'}==3.2.0+git0d4682f0, we can "
            "conclude that torch>=2.7.0.dev20250105+cu124,<=2.7.0.dev20250124+cu124 cannot be used.")
    assert ids(text)[0][0] == "torch-index-lacks-dependency"


def test_torch_itself_missing_from_the_index_is_not_its_dependency():
    text = ("  ╰─▶ Because there is no version of torch==2.5.1+cu124 and torchvision==0.20.1+cu124 depends on "
            "torch==2.5.1+cu124, we can conclude that torchvision==0.20.1+cu124 cannot be used.")
    assert "torch-index-lacks-dependency" not in [i for i, _ in ids(text)]


# ------------------------------------------------------------ a conda mirror without the nvidia channel ----
CONDA = "conda-torch-not-in-channels"
MIRROR = ("Collecting package metadata (current_repodata.json): failed\n\nUnavailableInvalidChannel: The channel is not "
          "accessible or is invalid.\n  channel name: nvidia\n  channel url: https://mirrors.ustc.edu.cn/anaconda/nvidia\n"
          "  error code: 404")


@pytest.mark.parametrize("text", [
    MIRROR,
    "UnavailableInvalidChannel: HTTP 404 NOT FOUND for channel nvidia <https://mirrors.bfsu.edu.cn/anaconda/nvidia>",
    "CondaHTTPError: HTTP 404 NOT FOUND for url <https://mirrors.sjtug.sjtu.edu.cn/anaconda/pytorch/noarch/repodata.json>",
])
def test_a_mirror_without_the_channel_is_the_channel_missing(text):
    assert ids(text)[:1] == [(CONDA, HIGH)], ids(text)


def test_the_mirror_is_named_and_the_channels_own_url_given():
    e = explain(MIRROR, CONDA, facts(torch="2.5.1"))
    assert "https://mirrors.ustc.edu.cn/anaconda/nvidia" in e.fix.summary
    assert e.fix.commands[-1] == "conda install <packages> -c https://conda.anaconda.org/nvidia", e.fix.commands


def test_anacondas_own_404_is_not_told_as_a_mirror():
    text = "UnavailableInvalidChannel: HTTP 404 NOT FOUND for channel pytorch-nightly <https://conda.anaconda.org/pytorch-nightly>"
    e = explain(text, CONDA, facts(torch="2.5.1"))
    assert "mirror set in .condarc" not in e.fix.summary


def test_another_channel_missing_on_a_mirror_is_not_torchs():
    text = "UnavailableInvalidChannel: HTTP 404 NOT FOUND for channel rapidsai <https://mirrors.ustc.edu.cn/anaconda/rapidsai>"
    assert CONDA not in [i for i, _ in ids(text)]
