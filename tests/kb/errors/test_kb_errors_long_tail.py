"""Long-tail families found by sampling 2025-26 environment reports (blind17 group 4): torch.compile's C++
backend on macOS without OpenMP, a Triton too old for Blackwell's sm_120, gloo's full mesh across nodes
that cannot reach each other, and an older libcudart than a library was built with. Each: a held-out text
from another report answered by the entry, and a near miss the entry must leave alone."""

import pytest

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    assert found, text
    return found[0]


def ids(text):
    return [m.id for m in match_text(text)]


@pytest.mark.parametrize("text,want", [
    # torch's own instruction, appended on macOS when the compiler output names omp.h or libomp
    # (torch/_inductor/cpp_builder.py, _run_compile_cmd)
    ("torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n\nOpenMP support not found. Please try one "
     "of the following solutions:\n(1) Set the `CXX` environment variable to a compiler other than Apple clang++/g++ "
     "that has builtin OpenMP support;", "inductor-macos-openmp-missing"),
    # Triton 3.2's LLVM on an RTX 50xx, printed before ptxas compiled the kernel (woct0rdho/triton-windows#59)
    ("'sm_120' is not a recognized processor for this target (ignoring processor)\nptxas info    : 0 bytes gmem\n"
     "ptxas info    : Compiling entry function 'add_kernel' for 'sm_120'", "triton-llvm-sm120-unrecognized"),
    # gloo's mesh across nodes (sgl-project/sglang#3226's title)
    ("[Bug] multinode fails with RuntimeError: Gloo connectFullMesh failed with "
     "[../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error", "gloo-connectfullmesh-failed"),
    # another CUDA runtime function of a newer toolkit, from torch's own library
    ("OSError: /env/lib/python3.12/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: "
     "cudaStreamGetCaptureInfo_v3, version libcudart.so.12", "cudart-older-than-built-for"),
])
def test_held_out_text_lands_on_its_entry(text, want):
    assert top(text).id == want


@pytest.mark.parametrize("text, want, refined", [
    # the libcudart entry steps in for the "mixed torch builds" answer
    ("ImportError: /usr/lib/python3/site-packages/torch/lib/libc10_cuda.so: undefined symbol: "
     "cudaGetDriverEntryPointByVersion, version libcudart.so.12", "cudart-older-than-built-for",
     "torch-own-lib-undefined-symbol"),
    # the OpenMP entry replaces the generic compile failure
    ("torch._dynamo.exc.BackendCompilerFailed: backend='inductor' raised:\nCppCompileError: C++ compile error\n"
     "clang: error: unsupported option '-fopenmp'", "inductor-macos-openmp-missing", "inductor-backend-compiler-failed"),
])
def test_a_specific_entry_replaces_the_generic_one(text, want, refined):
    found = ids(text)
    assert found[0] == want and refined not in found


@pytest.mark.parametrize("text", [
    # any other macOS build without OpenMP (jts/nanopolish#16, karpathy/llama2.c#49): not torch.compile's
    "src/nanopolish_consensus.cpp:20:10: fatal error: 'omp.h' file not found\n#include <omp.h>\n         ^\n1 error generated.",
    "clang -Ofast -fopenmp -march=native run.c  -lm  -o run\n\n    clang: error: unsupported option '-fopenmp'",
])
def test_other_projects_openmp_failures_are_not_torch_compile(text):
    assert "inductor-macos-openmp-missing" not in ids(text)


def test_an_older_gpu_name_is_not_the_blackwell_triton_answer():
    # an LLVM without a much older target is another problem; only sm_100-sm_129 are this family
    assert "triton-llvm-sm120-unrecognized" not in ids(
        "'sm_90a' is not a recognized processor for this target (ignoring processor)")


def test_gloo_interface_name_errors_keep_their_own_entry():
    # GLOO_SOCKET_IFNAME given NCCL's exclusion list (aws-samples/aws-do-eks#51): the interface entry, not the mesh
    text = ("RuntimeError: [enforce fail at .../gloo/transport/tcp/device.cc:84]\n  ifa != nullptr. "
            "Unable to find address for: ^lo")
    assert "gloo-connectfullmesh-failed" not in ids(text)


def test_a_cublas_symbol_is_not_the_cudart_answer():
    text = "undefined symbol: cublasGemmGroupedBatchedEx, version libcublas.so.12"
    assert "cudart-older-than-built-for" not in ids(text)


def test_torchs_source_listing_of_the_openmp_instruction_is_not_a_diagnosis():
    # an IPython traceback prints cpp_builder.py's source, string literal included, on Linux too
    text = ('File /env/lib/python3.11/site-packages/torch/_inductor/cpp_builder.py:633, in _run_compile_cmd(cmd_line, cwd)\n'
            '    621 if openmp_problem and sys.platform == "darwin":\n'
            '    623     instruction = (\n'
            '    624         "\\n\\nOpenMP support not found. Please try one of the following solutions:\\n"\n'
            '    625         "(1) Set the `CXX` environment variable to a compiler other than Apple clang++/g++ "')
    assert "inductor-macos-openmp-missing" not in ids(text)


def test_dgx_spark_capability_warning_is_a_false_alarm_when_sm_120_is_there():
    # mllam/neural-lam#163: torch 2.9.0+cu130 on a GB10
    text = ("   - torch now picks up `GB10` GPU, but I get warning that \n"
            "    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
            "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n"
            "    (8.0) - (12.0)")
    assert top(text).id == "gb10-capability-warning-false-alarm"


@pytest.mark.parametrize("text", [
    # a build without sm_120 on the same GPU: then the warning is right
    "UserWarning: Found GPU0 NVIDIA GB10 which is of compute capability (CC) 12.1.\n"
    "Your installed torch==2.13.0+cu126 does not include kernels for this GPU.",
    # another GPU under the same range
    "Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1. Minimum and Maximum cuda capability "
    "supported by this version of PyTorch is (7.0) - (12.0)",
])
def test_other_capability_warnings_keep_the_unsupported_gpu_answer(text):
    assert top(text).id == "gpu-too-old-for-torch"
