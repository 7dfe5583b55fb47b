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
    # torch 2.3's cuDNN 8: PyPI's CUDA 12 builds (cuDNN 9) would not load either
    ("libcublasLt.so.11", "2.3.1+cu121", "1.17.1", "1.18.0 from onnxruntime's CUDA 12 feed", None),
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


def test_a_cu118_torch_with_cudnn_9_gets_no_cuda_11_feed():
    _, t = tailored_as(ORT, LOAD % "libcublasLt.so.12", _ort("2.6.0+cu118", "1.20.1"))
    assert "use a CUDA 12 torch" in t.summary and not any("onnxruntime-cuda-11" in c for c in t.commands)


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


def test_a_conda_cuda_home_gets_the_libraries_dev_package_and_a_safe_lib64_link():
    _, t = tailored_as(LINK, "/usr/bin/ld: cannot find -lcurand: No such file or directory",
                       facts(torch="2.0.1+cu118", python={"conda": True, "prefix": "/opt/conda/envs/x"},
                             env={"CUDA_HOME": "/opt/conda/envs/x/"}))
    assert t.commands == ["conda install -y -c nvidia/label/cuda-11.8.0 libcurand-dev",
                          "[ -e /opt/conda/envs/x/lib64 ] || ln -s /opt/conda/envs/x/lib /opt/conda/envs/x/lib64"]


@pytest.mark.parametrize("env, toolkit, want", [
    ({"CUDA_HOME": "/usr/local/cuda-12.1"}, None, "point CUDA_HOME at a full CUDA toolkit"),
    ({"CUDA_HOME": "/usr/local/cuda-12.4"}, None, "lacks that development library"),
    ({"CUDA_PATH": "/opt/cuda"}, None, "(CUDA_PATH)"),
    ({}, {"nvcc_path": "/opt/conda/envs/y/bin/nvcc"}, "/opt/conda/envs/y (nvcc's folder)"),
])
def test_the_cuda_home_torch_would_use_is_named(env, toolkit, want):
    f = facts(torch="2.5.1+cu124", env=env, **({"toolkit": toolkit} if toolkit else {}))
    _, t = tailored_as(LINK, "/usr/bin/ld: cannot find -lcudart: No such file or directory", f)
    assert want in t.summary


def test_a_cpu_torch_is_told_it_has_no_cuda_to_link():
    _, t = tailored_as(LINK, "/usr/bin/ld: cannot find -lcudart", facts(torch="2.5.1+cpu", env={"CUDA_HOME": "/x"}))
    assert "CPU build" in t.summary and not t.commands


@pytest.mark.parametrize("text", [
    "/usr/bin/ld: cannot find -lcuda: No such file or directory",        # the driver's library: triton's entry
    "/usr/bin/ld: cannot find -lcudart_static: No such file or directory",  # CMake's static runtime
    "/usr/bin/ld: cannot find -lcusparseLt: No such file or directory",     # a separate library
    "/usr/bin/ld: cannot find -lcufftw",
])
def test_other_libraries_are_not_the_toolkits_link_names(text):
    m = top(text)
    assert m is None or m.id != LINK


def test_the_linkers_words_quoted_at_a_line_start_are_read_too():
    # an issue's title or a reporter's summary quotes the linker without its `ld:` prefix
    m = top("cannot find -lcudart\n  File \"/env/lib/python3.8/site-packages/torch/utils/cpp_extension.py\", line 1202")
    assert m.id == LINK and m.groups["lib"] == "cudart"
    assert top("we cannot find -lcudart here") is None or top("we cannot find -lcudart here").id != LINK


def test_the_linker_without_a_torch_marker_is_said_possibly():
    # a Rust crate's link of CUDA (a negatives row): the same words, no torch
    assert top("  note: /usr/bin/ld: cannot find -lcudart\n          collect2: error: ld returned 1 exit status"
               ).confidence == "possible"
    torch_log = ("c++ ext.o -shared -L/env/lib/python3.10/site-packages/torch/lib -lc10 -ltorch -L/env/lib64 "
                 "-lcudart -o ext.so\n/usr/bin/ld: cannot find -lcudart: No such file or directory")
    assert (top(torch_log).id, top(torch_log).confidence) == (LINK, "high")


def test_ray_before_1_9_and_aiohttp_3_8_get_the_ray_upgrade():
    _, t = tailored_as("hf-library-version-mismatch", "ModuleNotFoundError: No module named 'aiohttp.signals'",
                       facts(packages={"aiohttp": {"version": "3.9.1"}}))
    assert "removed in aiohttp 3.8" in t.summary and 'ray>=1.9' in t.commands[0]


def test_an_env_files_resolve_failure_is_not_claimed_by_its_torch_line():
    # a pasted environment.yml lists pytorch; conda's failure names another package
    text = ("dependencies:\n  - pytorch=1.8.0\n  - numpy=1.19\nSolving environment: failed\n\nResolvePackageNotFound: "
            "\n  - numpy==1.19.2=py38h54aff64_0\n")
    m = top(text)
    assert m is None or m.id != "conda-torch-not-in-channels"
