"""Hardware backends beyond plain CUDA: Ascend torch_npu, PrivateUse1 plug-ins, Intel Gaudi,
Jetson, ROCm's rocBLAS on Windows, Intel Extension for PyTorch and MPS. Each family by a text
from a report that is not one of its entry's examples, and near-misses the entry must leave
alone."""

import pytest

from torchdoctor.match.matcher import match_text

from hook_facts import top


@pytest.mark.parametrize("text,want,confidence", [
    # Ascend: CANN not sourced, inside a torch_npu traceback (vllm-project/vllm-ascend#262) and
    # bare (the loader's line alone could be any program's)
    ("  File \"/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/__init__.py\", line 1, in <module>\n"
     "    from torch_npu import _C\nImportError: libhccl.so: cannot open shared object file: No such file or directory",
     "torch-npu-cann-runtime-not-found", "high"),
    ("ImportError: libhccl.so: cannot open shared object file: No such file or directory",
     "torch-npu-cann-runtime-not-found", "possible"),
    # torch_npu's own wording for libascendcl (Ascend/pytorch torch_npu/__init__.py)
    ("ImportError: libascendcl.so: cannot open shared object file: No such file or directory. Please check that the "
     "runtime package is installed. Please run 'source set_env.sh' in the CANN installation path.",
     "torch-npu-cann-runtime-not-found", "high"),
    # a CUDA torch beside torch_npu (the raise site's other wording)
    ("RuntimeError: Two accelerators cannot be used at the same time in PyTorch: npu and cuda. You can install the cpu "
     "version of PyTorch to use your npu device, or use the cuda device with 'export TORCH_DEVICE_BACKEND_AUTOLOAD=0'.",
     "torch-privateuse1-accelerator-registered-twice", "high"),
    # Gaudi: another synStatus (huggingface/optimum-habana#1611)
    ("RuntimeError: synStatus=26 [Generic failure] Device acquire failed.", "gaudi-hpu-device-acquire-failed", "high"),
    # Jetson with a CPU-only aarch64 wheel (Lmy0217/PyTorch-aarch64#3)
    ("I successfully install the torch on my jetson nano(Jetpack 4.4 [L4T 32.4.3]),but cuda.is_available() returns false",
     "jetson-non-tegra-torch-wheel-no-cuda", "high"),
    # Windows HIP SDK without kernels for the GPU, and the iGPU taken first (CS1o/Stable-Diffusion-Info#6 title)
    ("rocBLAS error: Cannot read C:\\Program Files\\AMD\\ROCm\\6.1\\bin\\/rocblas/library/TensileLibrary.dat: "
     "No such file or directory for GPU arch : gfx1103", "rocblas-tensile-missing-for-gfx-hip-sdk", "high"),
    ("rocBLAS error: Cannot read %HIP_PATH%bin\\rocblas/library\\TensileLibrary.dat",
     "rocblas-tensile-missing-for-gfx-hip-sdk", "high"),
    ("rocBLAS error: Cannot read /home/u/venv/lib/python3.12/site-packages/torch/lib/rocblas/library/TensileLibrary.dat: "
     "No such file or directory for GPU arch : gfx1036", "hip-igpu-enumerated-before-dgpu", "high"),
    # IPEX: oneAPI's MKL not found in an IPEX traceback (intel/intel-extension-for-pytorch#281)
    ("  File \"/home/vidyut/.pyenv/versions/env/lib/python3.9/site-packages/intel_extension_for_pytorch/__init__.py\", "
     "line 3, in <module>\n    from . import _C\nImportError: libmkl_sycl.so.2: cannot open shared object file: "
     "No such file or directory", "ipex-oneapi-runtime-not-activated", "high"),
    ("ERROR! Intel® Extension for PyTorch* needs to work with PyTorch 2.3.*, but PyTorch 2.4.1+cpu is found. "
     "Please switch to the matching version and run again.", "ipex-torch-version-check-mismatch", "high"),
    # MPS: sparse tensors, autocast's dtype, Docker on a Mac (pytorch/pytorch#140941, #139190, #96066)
    ("`NotImplementedError: Could not run 'aten::_sparse_coo_tensor_with_dims_and_tensors' with arguments from the "
     "'SparseMPS' backend. `", "mps-sparse-tensors-unsupported", "high"),
    ("/opt/homebrew/lib/python3.10/site-packages/torch/amp/autocast_mode.py:332: UserWarning: In MPS autocast, but the "
     "target dtype is not supported. Disabling autocast.\nMPS Autocast only supports dtype of torch.bfloat16 currently.",
     "mps-autocast-dtype-unsupported", "high"),
    ("Running a docker container on a mac running Mac OS 13.0 can't run pytorch operations on the GPU.  I.E. "
     "torch.backends.mps.is_available() returns false.", "mps-unavailable-in-linux-docker-container", "high"),
])
def test_hardware_backend_family(text, want, confidence):
    m = top(text)
    assert m is not None, text
    assert m.id == want, (text, m.id)
    assert m.confidence == confidence


@pytest.mark.parametrize("text,not_want", [
    # Tensile host with no device at all is not a missing kernel file
    ("rocBLAS error: Could not initialize Tensile host: No devices found", "rocblas-tensile-missing-for-gfx-hip-sdk"),
    # Linux wheel's rocBLAS without the arch: the generic HIP entry keeps it
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: Illegal seek for GPU arch: gfx1103",
     "rocblas-tensile-missing-for-gfx-hip-sdk"),
    # no Jetson marker: not the Jetson entry
    ("print(torch.cuda.is_available()) returns False on my RTX 3090", "jetson-non-tegra-torch-wheel-no-cuda"),
    ("CUDA available:  False", "jetson-non-tegra-torch-wheel-no-cuda"),
    # a Mac with no Docker in sight: not the container entry
    ("torch.backends.mps.is_available() returns False on my M1 MacBook", "mps-unavailable-in-linux-docker-container"),
    # OpenBLAS missing with nothing of torch or a Jetson around
    ("ImportError: libopenblas.so.0: cannot open shared object file: No such file or directory",
     "jetson-torch-wheel-missing-system-lib"),
    # another device's autocast warning is not the MPS entry
    ("UserWarning: In CPU autocast, but the target dtype is not supported. Disabling autocast.",
     "mps-autocast-dtype-unsupported"),
    # a dense MPS operator keeps the generic not-implemented entry
    ("NotImplementedError: The operator 'aten::angle' is not currently implemented for the MPS device.",
     "mps-sparse-tensors-unsupported"),
    # torch_npu missing a CANN ATB symbol (vllm-project/vllm-ascend#117) is no torch version mismatch
    ("ImportError: /usr/local/python3.10.14/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined "
     "symbol: _ZN3atb15CreateOperationINS_5infer14GroupTopkParamEEEiRKT_PPNS_9OperationE", "torch-npu-built-for-other-torch"),
    # a Gaudi graph compile failure is not a busy card
    ("[rank0]: RuntimeError: Graph compile failed. synStatus=synStatus 26 [Generic failure]",
     "gaudi-hpu-device-acquire-failed"),
])
def test_hardware_backend_near_miss(text, not_want):
    assert all(m.id != not_want for m in match_text(text)), text
