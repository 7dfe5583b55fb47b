"""Known causes in the words and messages their reporters met: pykeops and mmcv built without CUDA, optional
kernels left unbuilt (S4's, CroCo's RoPE2D: notices), CUDA's no-kernel-image retyped with typos, d2l
out of step with the book. Lines are built for the test in each program's format."""

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH


def test_mmdetections_workers_per_gpu_alone_is_no_windows_dataloader():
    # mmdetection prints its config (workers_per_gpu=2) at every start: a Linux Broken pipe beside it is
    # not the Windows spawn failure
    m = top("workers_per_gpu=2,\nBrokenPipeError: [Errno 32] Broken pipe\n  File \"tensorboard/summary/writer.py\"")
    assert m is None or m.id != "dataloader-windows-broken-pipe"


def test_a_keops_formula_built_without_cuda_is_compiled_again():
    m, t = tailored_as("extension-built-without-cuda",
                       "RuntimeError: [KeOps] This KeOps shared object has been compiled without cuda support:\n 1) to "
                       "perform computations on CPU, simply set tagHostDevice to 0\n 2) to perform computations on GPU, "
                       "please recompile")
    assert m.confidence == HIGH and "pykeops.clean_pykeops(); pykeops.test_torch_bindings()" in t.commands[0]


def test_mmcvs_ops_without_a_cuda_kernel_rebuild_the_installed_release():
    m, t = tailored_as("extension-built-without-cuda", "RuntimeError: nms_impl: implementation for device cuda:0 not "
                       "found.", facts(packages={"mmcv-full": {"version": "1.7.0"}}))
    assert m.confidence == HIGH and "no CUDA kernel for nms_impl" in t.summary
    assert "get_compiling_cuda_version" in t.commands[0]
    assert t.commands[1] == ("MMCV_WITH_OPS=1 FORCE_CUDA=1 /home/u/venv/bin/python -m pip install --no-cache-dir "
                             "--no-build-isolation --force-reinstall --no-deps mmcv-full==1.7.0")
    # mmcv not listed here: only its own check
    _, t = tailored_as("extension-built-without-cuda", "RuntimeError: nms_impl: implementation for device cuda:0 not "
                       "found.", facts())
    assert len(t.commands) == 1


def test_an_op_with_no_cpu_kernel_is_not_a_build_without_cuda():
    # a CUDA-only op run on the CPU: the build is fine
    m = top("RuntimeError: diff_iou_rotated_sort_vertices_forward_impl: implementation for device cpu not found.")
    assert m is None or m.id != "extension-built-without-cuda"


@pytest.mark.parametrize("text", [
    "CUDA extension for cauchy multiplication not found. go to ./extensions/cauchy and try `python setup.py install`",
    "CUDA extension for structured kernels (Cauchy and Vandermonde multiplication) not found. Install by going to "
    "extensions/kernels/ and running `python setup.py install`",
])
def test_s4s_kernel_left_unbuilt_is_a_fallback_notice(text):
    # S4 warns and falls back to a slower kernel on every run: a notice, not the failure beside it
    assert top(text).id == "optional-kernel-fallback-notice"


def test_croco_rope2d_fallback_is_a_notice_that_never_outranks_a_failure():
    warn = "Warning, cannot find cuda-compiled version of RoPE2D, using a slow pytorch version instead"
    assert top(warn).id == "optional-kernel-fallback-notice"
    m = top(warn + "\nTraceback (most recent call last):\n  File \"demo.py\", line 3, in <module>\n"
                   "RuntimeError: CUDA error: out of memory")
    assert m.id == "cuda-out-of-memory"


def test_no_kernel_image_retyped_with_typos_is_possibly_the_arch():
    m = top("an error occured:\nCUDA error: no kernal image is available for excution on the device")
    assert m.id == "cuda-no-kernel-image" and m.confidence != HIGH  # a generic CUDA message, retyped


@pytest.mark.parametrize("text", [
    "AttributeError: module 'd2l.torch' has no attribute 'load_data_time_machine'",
    "module 'd2l.torch' has no attribute 'load_data_time_machine\n\nJust checked torch.py.",  # a title, quote lost
])
def test_the_books_library_out_of_step_with_the_book(text):
    assert top(text).id == "hf-library-version-mismatch"
