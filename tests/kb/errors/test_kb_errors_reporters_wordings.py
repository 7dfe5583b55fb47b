"""Known causes in the words and messages their reporters met: a Windows DataLoader configured by
mmdetection-style `workers_per_gpu`, pykeops built without CUDA, and S4's Cauchy kernel left
unbuilt. Lines are built for the test in each program's format."""

import pytest

from hook_facts import top
from torchdoctor.match.matcher import HIGH


def test_a_broken_pipe_beside_workers_per_gpu_is_the_windows_dataloader():
    m = top("BrokenPipeError: [Errno 32] Broken pipe\n\nwindows下 把device.workers_per_gpu改成0后，就可以正常训练了")
    assert m.id == "dataloader-windows-broken-pipe"


def test_a_keops_formula_built_without_cuda():
    m = top("RuntimeError: [KeOps] This KeOps shared object has been compiled without cuda support:\n 1) to perform "
            "computations on CPU, simply set tagHostDevice to 0\n 2) to perform computations on GPU, please recompile")
    assert m.id == "extension-built-without-cuda" and m.confidence == HIGH


@pytest.mark.parametrize("text", [
    "CUDA extension for cauchy multiplication not found. go to ./extensions/cauchy and try `python setup.py install`",
    "CUDA extension for structured kernels (Cauchy and Vandermonde multiplication) not found. Install by going to "
    "extensions/kernels/ and running `python setup.py install`",
])
def test_s4s_kernel_left_unbuilt(text):
    assert top(text).id == "cuda-extension-package-not-built"


def test_no_kernel_image_retyped_with_typos_is_possibly_the_arch():
    m = top("an error occured:\nCUDA error: no kernal image is available for excution on the device")
    assert m.id == "cuda-no-kernel-image" and m.confidence != HIGH  # a generic CUDA message, retyped


@pytest.mark.parametrize("text", [
    "AttributeError: module 'd2l.torch' has no attribute 'load_data_time_machine'",
    "module 'd2l.torch' has no attribute 'load_data_time_machine\n\nJust checked torch.py.",  # a title, quote lost
])
def test_the_books_library_out_of_step_with_the_book(text):
    assert top(text).id == "hf-library-version-mismatch"
