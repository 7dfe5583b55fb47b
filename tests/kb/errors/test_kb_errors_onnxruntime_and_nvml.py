"""Two libraries torch users load beside torch: onnxruntime-gpu's CUDA provider (its CUDA and cuDNN
majors against torch's) and the driver's NVML, which torch 2.3+ asserts on. No GPU here: the hooks
read facts a probe would gather, and each branch is checked against the installed versions."""

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.verbs.explain import explain

ORT = "onnxruntime-gpu-cuda-libs-not-loaded"
LOAD = "import torch\nFAIL : Failed to load library libonnxruntime_providers_cuda.so with error: %s: cannot open " \
       "shared object file: No such file or directory"


def _ort(torch, ort, **more):
    return facts(torch=torch, packages=dict({"onnxruntime-gpu": {"version": ort}}, **more))


@pytest.mark.parametrize("lib, torch, ort, want, command", [
    ("libcublasLt.so.11", "2.5.1+cu124", "1.18.0", "wants CUDA 11 libraries", "onnxruntime-gpu>=1.19"),
    ("libcudnn.so.8", "2.5.1+cu124", "1.17.1", "built with cuDNN 8", "onnxruntime-gpu>=1.19"),
    # cuFFT's file version is not CUDA's: 10 is CUDA 11's
    ("libcufft.so.10", "2.5.1+cu124", "1.17.1", "wants CUDA 11 libraries", "onnxruntime-gpu>=1.19"),
    # a 1.19+ that still wants CUDA 11 came from the CUDA 11 feed: PyPI's same release replaces it
    ("libcublasLt.so.11", "2.5.1+cu124", "1.20.1", "wants CUDA 11 libraries", '--force-reinstall --no-deps "onnxruntime-gpu==1.20.1"'),
    ("libcudnn.so.9", "2.3.1+cu121", "1.18.1", "torch 2.3 brings cuDNN 8", None),
    ("libcudnn_adv.so.9", "2.6.0+cu124", "1.20.1", "upgrade to onnxruntime-gpu 1.21+", None),
    ("libcudnn_adv.so.9", "2.6.0+cu124", "1.22.0", "call onnxruntime.preload_dlls()", None),
])
def test_the_provider_failure_is_read_against_torchs_cuda(lib, torch, ort, want, command):
    m, t = tailored_as(ORT, LOAD % lib, _ort(torch, ort))
    assert m.confidence == "high"
    assert want in t.summary
    if command:
        assert any(command in c for c in t.commands)


@pytest.mark.parametrize("lib", ["libcufft.so.11", "libcusolver.so.11", "libcurand.so.10"])
def test_library_file_versions_that_are_not_cudas_claim_no_mismatch(lib):
    # cuFFT 11 is CUDA 12's; cuSOLVER and cuRAND keep one file version across CUDA majors
    _, t = tailored_as(ORT, LOAD % lib, _ort("2.5.1+cu124", "1.20.1"))
    assert t is None or "wants CUDA 11" not in t.summary


def test_torch_2_3_does_not_agree_with_a_cudnn_9_build():
    text = "import torch\nFailed to create CUDAExecutionProvider. Require cuDNN 9.* and CUDA 12.*. Please install"
    _, t = tailored_as(ORT, text, _ort("2.3.1+cu121", "1.20.1"))
    assert "torch 2.3 brings cuDNN 8" in t.summary and "agree" not in t.summary


def test_only_the_cpu_package_installed_is_not_called_both():
    _, t = tailored_as(ORT, LOAD % "libcublasLt.so.12", facts(torch="2.6.0+cu124",
                                                             packages={"onnxruntime": {"version": "1.20.0"}}))
    assert t.summary.startswith("Only onnxruntime (CPU only") and "Both" not in t.summary


def test_a_cuda_11_torch_gets_the_cuda_11_feed_alone():
    text = 'torch\nFAIL : Error loading "C:\\venv\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll" which depends ' \
           'on "cublasLt64_12.dll" which is missing.'
    _, t = tailored_as(ORT, text, _ort("2.1.0+cu118", "1.20.0"))
    # --index-url: beside PyPI (--extra-index-url) pip would pick PyPI's newer CUDA 12 build
    assert "--index-url https://aiinfra.pkgs.visualstudio.com/PublicPackages/_packaging/onnxruntime-cuda-11/" \
           in t.commands[0] and "--extra-index-url" not in t.commands[0] and "--no-deps" in t.commands[0]


def test_both_onnxruntime_packages_installed_come_first():
    text = "CUDA_PATH is set but CUDA wasnt able to be loaded. Please install the correct version of CUDA andcuDNN"
    _, t = tailored_as(ORT, text, _ort("2.6.0+cu124", "1.22.0", onnxruntime={"version": "1.22.0"}))
    assert "pip uninstall -y onnxruntime onnxruntime-gpu" in t.commands[0]


def test_onnxruntimes_own_log_without_torch_is_named_as_onnxruntimes():
    # another framework's output: the tool names it instead of claiming it (its negatives sets)
    line = "FAIL : Failed to load library libonnxruntime_providers_cuda.so with error: libcublasLt.so.11: cannot " \
           "open shared object file: No such file or directory"
    out = explain(text=(line,), no_env=True)
    assert not out.explanations and out.other is not None and "ONNX Runtime" in str(out.other)


NVML = "torch-nvml-symbol-missing"
ASSERT = 'RuntimeError: r.nvmlDeviceGetNvLinkRemoteDeviceType_ INTERNAL ASSERT FAILED at "../c10/cuda/driver_api.cpp":' \
         '27, please report a bug to PyTorch. Can\'t find nvmlDeviceGetNvLinkRemoteDeviceType: %s: undefined symbol: ' \
         'nvmlDeviceGetNvLinkRemoteDeviceType'


@pytest.mark.parametrize("lib, driver, want", [
    ("/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "460.32.03", "older than R470"),
    ("/lib64/libnvidia-ml.so.1", "550.54.15", "ran against an older driver's NVML"),
    ("/usr/local/nvidia/lib64/libnvidia-ml.so.1", "550.54.15", "ran against an older driver's NVML"),
    ("/home/opt/gpuproxy/lib64/libnvidia-ml.so.1", "550.54.15", "not the driver's own"),
])
def test_the_nvml_that_loaded_decides(lib, driver, want):
    m, t = tailored_as(NVML, ASSERT % lib, facts(driver={"present": True, "driver_version": driver}))
    assert m.confidence == "high" and want in t.summary


def test_the_allocators_nvml_init_failure_keeps_its_own_entry():
    m = top('RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at '
            '"../c10/cuda/CUDACachingAllocator.cpp":1123, please report a bug to PyTorch.')
    assert m is not None and m.id != NVML


@pytest.mark.parametrize("line", [
    "  - nothing provides pytorch 1.13.* needed by torchaudio-0.13.1-py310_cu117",
    "  - nothing provides pytorch 2.0.1 needed by torchvision-0.15.2-py39_cu118",
])
def test_conda_specs_without_an_operator_are_read(line):
    _, t = tailored_as("conda-torch-not-in-channels", "Encountered problems while solving:\n" + line, facts())
    assert "depends on pytorch" in t.summary


def test_pytorch_cuda_needed_by_pytorch_keeps_the_channel_answer():
    _, t = tailored_as("conda-torch-not-in-channels", "Encountered problems while solving:\n  - nothing provides "
                       "pytorch-cuda >=12.1,<12.2 needed by pytorch-2.1.0-py3.10_cuda12.1_cudnn8.9.2_0", facts())
    assert t.summary is None or "first" not in t.summary
    assert "nvidia/pytorch channels" in (t.cause or "")


def test_a_conda_package_needing_pytorch_names_the_package():
    _, t = tailored_as("conda-torch-not-in-channels", "Encountered problems while solving:\n"
                       "  - nothing provides pytorch needed by napari-sam-0.4.1-pyhd8ed1ab_0", facts())
    assert t.summary.startswith("napari-sam-0.4.1-pyhd8ed1ab_0 depends on pytorch") and "then napari-sam;" in t.summary


LINK = "cpp-extension-cannot-find-cuda-lib"


def test_a_conda_cuda_home_gets_the_dev_package_and_a_safe_lib64_link():
    _, t = tailored_as(LINK, "/usr/bin/ld: cannot find -lcudart: No such file or directory",
                       facts(torch="2.0.1+cu118", python={"conda": True, "prefix": "/opt/conda/envs/x"},
                             env={"CUDA_HOME": "/opt/conda/envs/x"}))
    assert t.commands == ["conda install -c nvidia cuda-cudart-dev=11.8",
                          "[ -e /opt/conda/envs/x/lib64 ] || ln -s /opt/conda/envs/x/lib /opt/conda/envs/x/lib64"]


def test_another_cuda_home_is_named_and_the_driver_library_keeps_its_own_entry():
    _, t = tailored_as(LINK, "/usr/bin/ld: cannot find -lcurand: No such file or directory", facts(torch="2.5.1+cu124",
                                                                      env={"CUDA_HOME": "/usr/local/cuda-12.1"}))
    assert "CUDA_HOME is /usr/local/cuda-12.1" in t.summary and "libcurand.so" in t.summary
    assert top("/usr/bin/ld: cannot find -lcuda: No such file or directory").id != LINK


def test_conda_env_files_and_ray_aiohttp_are_read():
    assert top("Solving environment: failed\n\nResolvePackageNotFound: \n  - pytorch==1.3.1=py3.7_cuda10.1.243_cudnn7.6"
               ".3_0\n").id == "conda-torch-not-in-channels"
    assert top("ModuleNotFoundError: No module named 'aiohttp.signals'").id == "hf-library-version-mismatch"
