"""Whose error a text is (match/whose.py): PyTorch's, another framework's, or any program's.

The texts are the shapes people paste; the knowledge base's real examples stay where they are.
"""

import io
import json
import os
import subprocess
import sys

import pytest

from torchdoctor import diagnose
from torchdoctor.match import whose as W
from torchdoctor.match.logscan import LogScan
from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

HERE = os.path.dirname(os.path.abspath(__file__))
EVAL = os.path.join(os.path.dirname(HERE), "eval")

TORCH_FRAME = '  File "/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", line 319, in _lazy_init\n'
DRIVER = "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"


def test_a_generic_cuda_message_with_nothing_of_torch_is_only_possible_and_said_for_any_program():
    m = match_text(DRIVER)[0]
    assert m.id == "cuda-driver-insufficient" and m.confidence == POSSIBLE
    assert m.neutral is not None and "driver" in m.neutral.by
    (x,), _ = diagnose.explain(matches=[m])
    assert x.confidence == POSSIBLE
    assert x.cause.startswith("Nothing in the text shows PyTorch") and "If the program is PyTorch: " in x.cause
    assert x.fix.summary.startswith("If the program is PyTorch: ")


def test_the_same_message_from_torch_is_a_diagnosis():
    m = match_text(TORCH_FRAME + DRIVER)[0]
    assert m.id == "cuda-driver-insufficient" and m.confidence == HIGH and m.neutral is None
    (x,), _ = diagnose.explain(matches=[m])
    assert not x.cause.startswith("Nothing in the text")


@pytest.mark.parametrize("text", [
    # torch's C++ namespaces, its mangled symbols and its CUDA error trailer name it as well as its path
    "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
    "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43\n"
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
])
def test_torch_only_wording_claims_the_text(text):
    m = match_text(text)[0]
    assert m.confidence == HIGH and m.neutral is None


def test_a_known_torch_message_beside_a_generic_one_shows_the_text_is_torchs():
    # NNPACK's warning is torch's own: the crash after it is torch's too, and ranks first.
    found = match_text("[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware.\n"
                       "Illegal instruction (core dumped)\n")
    assert found[0].entry.category == "illegal-instruction" and all(m.confidence == HIGH for m in found)


def test_a_specific_assertion_on_a_line_with_generic_wording_is_judged_by_what_the_pattern_needed():
    line = ("Assertion `t >= 0 && t < n_classes` failed. RuntimeError: CUDA error: device-side assert triggered")
    m = match_text(line)[0]
    assert m.id == "nll-loss-target-out-of-range" and m.confidence == HIGH and m.neutral is None


@pytest.mark.parametrize("text,framework", [
    # CTranslate2's own wordings, as faster-whisper raises them
    ("RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version",
     "CTranslate2 (faster-whisper)"),
    ("RuntimeError: cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED", "CTranslate2 (faster-whisper)"),
    # numba's driver wording
    ("numba.cuda.cudadrv.driver.CudaAPIError: [100] Call to cuInit results in CUDA_ERROR_NO_DEVICE", "numba"),
    ("LinkerError: [222] Call to cuLinkAddData results in UNKNOWN_CUDA_ERROR", "numba"),
    # PaddlePaddle's External errors, with or without its source path
    ("OSError: (External) CUDNN error(9), CUDNN_STATUS_NOT_SUPPORTED.", "PaddlePaddle"),
    ("CUDNN error(4) CUDNN_STATUS_INTERNAL_ERROR", "PaddlePaddle"),
    # TensorFlow's Windows build prints backslashed source paths
    ("E c:\\tf_jenkins\\workspace\\tensorflow\\stream_executor\\cuda\\cuda_dnn.cc:359] could not create cudnn "
     "handle: CUDNN_STATUS_NOT_INITIALIZED", "TensorFlow"),
    # MindSpore's device log carries its C++ source path
    ("[ERROR] DEVICE(1,7f,python):2024-01-01-00:00:00.000.000 [mindspore/ccsrc/plugin/device/gpu/hal/device/"
     "cuda_driver.cc:1] SyncStream] cudaStreamSynchronize failed, ret[700], an illegal memory access was encountered",
     "MindSpore"),
    # Julia's CUDA.jl names its error enum
    ("ERROR: CUDA error: out of memory (code 2, ERROR_OUT_OF_MEMORY)\nStacktrace:\n [1] throw_api_error"
     "(res::CUDA.cudaError_enum)", "Julia (CUDA.jl)"),
    # Rust: candle's and burn's crates
    ("Error: DriverError(CUDA_ERROR_OUT_OF_MEMORY, \"out of memory\") at candle-core-0.8.0/src/cuda_backend/mod.rs",
     "Rust (candle, burn, cudarc)"),
    # XLA from Elixir
    ("** (RuntimeError) DNN library initialization failed.\n    (exla 0.7.2) lib/exla/mlir/module.ex:127: "
     "EXLA.MLIR.Module.unwrap!/1", "JAX/XLA"),
])
def test_another_frameworks_error_is_named_not_diagnosed(text, framework):
    assert match_text(text) == []
    v = W.judge(text)
    assert v.other == framework and not v.own and v.marker in text


@pytest.mark.parametrize("text,framework", [
    # R's torch package: "torch" is in every line, but it is R's torch (liblantern), not PyTorch
    ("Torch failed to start, restart your R session to try again.\n"
     "/home/u/R/x86_64-pc-linux-gnu-library/4.1/torch/lib/liblantern.so - /lib64/libstdc++.so.6: version "
     "`GLIBCXX_3.4.20' not found (required by /home/u/R/x86_64-pc-linux-gnu-library/4.1/torch/lib/liblantern.so)",
     "R torch (mlverse, liblantern)"),
    # R's start-up failure of a package named like torch: the bare name on lines R prints itself
    ("ℹ torch failed to start, restart your R session to try again.\n"
     "ℹ You might need to reinstall torch using `install_torch()`\n"
     "! /home/u/R/x86_64-pc-linux-gnu-library/4.5/torch/lib/liblantern.so - libcudart.so.12: cannot open shared "
     "object file: No such file or directory\n"
     "Error : Lantern is not loaded. Please use `install_torch()` to install additional dependencies.\n"
     "Error: unable to load R code in package 'mytorchpkg'", "R torch (mlverse, liblantern)"),
    # Lua Torch7's cutorch
    ("THCudaCheck FAIL file=/root/torch/extra/cutorch/lib/THC/THCGeneral.c line=70 error=30 : unknown error",
     "Lua Torch7"),
])
def test_a_framework_named_like_torch_is_another_framework(text, framework):
    assert match_text(text) == []
    assert W.judge(text).other == framework


def test_pytorch_beside_a_namesake_is_still_pytorch():
    # The namesake's lines do not count as torch's; another line that names PyTorch does.
    text = ("luarocks install nn\n" + TORCH_FRAME + DRIVER)
    v = W.judge(text)
    assert v.own and v.other is None
    assert match_text(text)[0].confidence == HIGH


def test_the_log_scan_reaches_the_same_verdicts():
    for text, want in ((DRIVER, POSSIBLE), (TORCH_FRAME + DRIVER, HIGH)):
        found = LogScan().run(io.BytesIO(("step 1 loss 0.5\n" * 3 + text + "\n").encode()))
        assert found[0].id == "cuda-driver-insufficient" and found[0].confidence == want
    foreign = "RuntimeError: CUDA failed with error CUDA driver version is insufficient for CUDA runtime version\n"
    assert LogScan().run(io.BytesIO(foreign.encode())) == []


CT2 = "RuntimeError: cuBLAS failed with status CUBLAS_STATUS_NOT_SUPPORTED"


def test_explain_names_the_other_framework():
    # The installed command, in a child process: what a user sees, text and JSON.
    run = lambda *a: subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", *a],
                                    capture_output=True, text=True, timeout=60)
    p = run(CT2)
    assert p.returncode == 1 and "No known PyTorch error" in p.stdout and "CTranslate2" in p.stdout
    assert "cuBLAS failed with status" in p.stdout and p.stderr == ""
    p = run("--json", CT2)
    doc = json.loads(p.stdout)
    assert p.returncode == 1 and doc["matches"] == []
    assert doc["other_framework"] == {"name": "CTranslate2 (faster-whisper)", "marker": "cuBLAS failed with status"}


def test_a_log_file_names_the_other_framework_too(tmp_path):
    # A log bigger than SMALL_INPUT is scanned in chunks; the verdict the scan reaches names
    # the framework (its marker is not kept), as a short paste's does.
    from torchdoctor.match.matcher import SMALL_INPUT
    log = tmp_path / "ct2.log"
    log.write_text("step 1 loss 0.5\n" * (SMALL_INPUT // 16 + 1) + CT2 + "\n")
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", "--file", str(log)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "No known PyTorch error" in p.stdout
    assert "It is CTranslate2 (faster-whisper)'s output (nothing of PyTorch shows in it)" in p.stdout
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", "--json", "--file", str(log)],
                       capture_output=True, text=True, timeout=60)
    assert json.loads(p.stdout)["other_framework"] == {"name": "CTranslate2 (faster-whisper)", "marker": ""}


# `import cv2` in a torch project: OpenCV's own traceback, which the entries that declare
# OpenCV among their frameworks diagnose (and only they).
CV2_TRACE = ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    import cv2\n'
             '  File "/usr/local/lib/python3.10/site-packages/cv2/__init__.py", line 181, in <module>\n'
             '    bootstrap()\n')


@pytest.mark.parametrize("last, want", [
    ("ImportError: libGL.so.1: cannot open shared object file: No such file or directory", "opencv-libgl-missing"),
    ("ImportError: libgthread-2.0.so.0: cannot open shared object file: No such file or directory",
     "opencv-libgl-missing"),
])
def test_an_entry_declaring_opencv_diagnoses_opencvs_own_traceback(last, want):
    text = CV2_TRACE + last
    assert W.judge(text).other == "OpenCV"
    m = match_text(text)[0]
    assert m.id == want and m.confidence == HIGH and m.neutral is None
    found = LogScan().run(io.BytesIO(text.encode()))
    assert found[0].id == want and found[0].confidence == HIGH


def test_opencvs_traceback_keeps_no_entry_that_does_not_declare_it():
    # The loader's generic entry, NumPy's (whose advice is torch's NumPy build) and the driver's
    # are not OpenCV's diagnoses: silence, and the name.
    for last in ("ImportError: libfoo.so.3: cannot open shared object file: No such file or directory",
                 "ImportError: numpy.core.multiarray failed to import",
                 "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version"):
        assert match_text(CV2_TRACE + last) == []


def test_another_frameworks_traceback_keeps_no_opencv_entry():
    # Declared for OpenCV, not for TensorFlow: libGL under TensorFlow's markers stays TensorFlow's.
    text = ('  File "/usr/lib/python3/dist-packages/tensorflow/python/framework/load_library.py", line 54\n'
            "ImportError: libGL.so.1: cannot open shared object file: No such file or directory")
    assert W.judge(text).other == "TensorFlow"
    assert match_text(text) == []


def test_a_pip_line_naming_opencv_is_no_opencv_traceback():
    # opencv-python in an install line marks the text as OpenCV's, but only OpenCV's own frames
    # let its entry diagnose: Open3D's libGL failure beside it is not OpenCV's to fix.
    text = ("Successfully installed numpy-1.26.4 opencv-python-4.10.0.84 open3d-0.18.0\n"
            "  File \"/usr/local/lib/python3.10/site-packages/open3d/__init__.py\", line 94, in <module>\n"
            "ImportError: libGL.so.1: cannot open shared object file: No such file or directory")
    assert W.judge(text).other == "OpenCV" and W.frames_in(text) == set()
    assert match_text(text) == []
    assert W.frames_in(CV2_TRACE) == {"OpenCV"} and W.frames_in(CV2_TRACE.encode()) == {"OpenCV"}


def test_every_framework_an_entry_declares_is_a_known_framework():
    from torchdoctor.kb.errors import foreign_frameworks, load_entries
    known = set(foreign_frameworks()["frameworks"])
    declared = {(e.id, f) for e in load_entries() for f in e.frameworks}
    assert declared and all(f in known for _, f in declared), declared
    # and shows its own frames, without which no text of it keeps the entry's match
    framed = dict(W.markers().frames)
    assert all(framed.get(f) for _, f in declared), declared


def test_a_torch_text_or_an_unknown_one_names_no_framework():
    from torchdoctor.verbs.explain import explain
    assert explain((TORCH_FRAME + CT2,), no_env=True).other is None
    assert explain(("something went wrong",), no_env=True).other is None


def test_the_mcp_tool_names_the_other_framework_too():
    from torchdoctor.surfaces.mcp_server import explain
    data, summary = explain(CT2)
    assert data["matches"] == [] and data["other_framework"]["name"] == "CTranslate2 (faster-whisper)"
    assert "CTranslate2" in summary


@pytest.mark.parametrize("name", ["unrelated11.jsonl", "unrelated12.jsonl", "unrelated13.jsonl", "unrelated14.jsonl",
                                  "unrelated15.jsonl", "unrelated16.jsonl", "unrelated17.jsonl", "unrelated18.jsonl",
                                  "unrelated19.jsonl", "unrelated20.jsonl",
                                  "unrelated21.jsonl", "unrelated22.jsonl", "unrelated23.jsonl", "unrelated24.jsonl"])
def test_other_stacks_errors_get_no_high_confidence_diagnosis(name):
    # Real negatives from other stacks (JAX, PaddlePaddle, CTranslate2, TensorFlow, ONNX Runtime,
    # llama.cpp, CuPy, numba, plain CUDA C++ builds): at most a "possibly", never a diagnosis.
    with open(os.path.join(EVAL, name), encoding="utf-8") as fh:
        rows = [json.loads(ln) for ln in fh if ln.strip()]
    high = [r["source"] for r in rows for m in match_text(r["text"])[:1] if m.confidence == HIGH]
    assert high == []


# Messages of the CUDA driver and of NVIDIA's services that any CUDA program meets: without a
# torch marker a match is a possibility, with one it is a diagnosis.
GENERIC_RUNTIME = [
    ("RuntimeError: CUDA error: uncorrectable ECC error encountered", "cuda-hardware-fault"),
    ("CUDA error: the launch timed out and was terminated", "cuda-launch-timeout-watchdog"),
    ("CUDA error: operation not supported", "cuda-platform-unsupported-operation"),
    ("CUDA error: peer access is not supported between these two devices", "cuda-platform-unsupported-operation"),
    ("CUDA error: a PTX JIT compilation failed", "cuda-ptx-jit-failed"),
    ("CUDA error: PTX JIT compiler library not found", "cuda-ptx-jit-failed"),
    ("CUDA error: MPS client failed to connect to the MPS control daemon or the MPS server", "cuda-gpu-sharing-service-error"),
    ("cuFile error: nvidia-fs driver is not loaded", "gds-nvidia-fs-unavailable"),
]


@pytest.mark.parametrize("text,entry", GENERIC_RUNTIME, ids=[t for t, _ in GENERIC_RUNTIME])
def test_generic_driver_and_service_messages_are_possible_without_torch(text, entry):
    m = match_text(text)[0]
    assert m.id == entry and m.confidence == POSSIBLE and m.neutral is not None
    m = match_text(TORCH_FRAME + text)[0]
    assert m.id == entry and m.confidence == HIGH and m.neutral is None


# PaddlePaddle's DataLoader printed torch's worker-death wording word for word: without a torch
# marker the line is only a possibility, with the cause said for both; with one, a diagnosis.
SHM = ("RuntimeError: DataLoader worker (pid 4121) is killed by signal: Bus error. It is possible that "
       "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")


def test_a_dataloader_bus_error_alone_is_possible_and_said_for_both_dataloaders():
    m = match_text(SHM)[0]
    assert m.id == "dataloader-bus-error-shm" and m.confidence == POSSIBLE
    assert m.neutral is not None and "PaddlePaddle" in m.neutral.by and "/dev/shm" in m.neutral.cause
    frame = '  File "/usr/lib/python3/dist-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler\n'
    m = match_text(frame + SHM)[0]
    assert m.id == "dataloader-bus-error-shm" and m.confidence == HIGH and m.neutral is None
    # torch's worker prints its own line first: that is torch's wording only
    m = match_text("ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
                   "memory (shm).\n" + SHM)[0]
    assert m.id == "dataloader-bus-error-shm" and m.confidence == HIGH


def test_cudnn9s_own_loader_message_is_possible_without_torch():
    # cuDNN 9 loads its sub-libraries itself: any program using it (CTranslate2 under an app's own
    # log line here) prints this; with torch's name in the text it is torch's.
    text = ("Loading the encoder\nUnable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9}\n"
            "Invalid handle. Cannot load symbol cudnnCreateTensorDescriptor")
    m = match_text(text)[0]
    assert m.id == "cudnn9-library-load-failed" and m.confidence == POSSIBLE and "loader" in m.neutral.by
    m = match_text(TORCH_FRAME + text)[0]
    assert m.id == "cudnn9-library-load-failed" and m.confidence == HIGH and m.neutral is None


# llama.cpp logs its own attention setting as `flash_attn = 1`: a word, not the flash-attn
# package, whose marks are its module paths and imports.
LLAMA_CPP_NO_GPU = ("llama_new_context_with_model: flash_attn = 1\n"
                    "ggml_cuda_host_malloc: failed to allocate 512.00 MiB of pinned memory: "
                    "no CUDA-capable device is detected")


def test_llama_cpp_flash_attn_setting_is_not_a_torch_marker():
    assert not W.judge(LLAMA_CPP_NO_GPU).own
    assert all(m.confidence != HIGH for m in match_text(LLAMA_CPP_NO_GPU))


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'flash_attn'",
    '  File "/venv/lib/python3.10/site-packages/flash_attn/flash_attn_interface.py", line 10',
    "ImportError: flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2E",
])
def test_the_flash_attn_package_is_still_a_torch_marker(text):
    assert W.judge(text).own


def test_real_gpu_failures_land_on_their_entry():
    # Texts of real failures made on an NVIDIA H200 by benchmarks/gpu_errors.py (torch 2.11.0+cu130):
    # each must be answered by the entry it was labelled with before its first run (or one named
    # as equally right), a usage error labelled with none by nothing at all.
    with open(os.path.join(EVAL, "gpu_h200_real.jsonl"), encoding="utf-8") as fh:
        rows = [json.loads(ln) for ln in fh if ln.strip()]
    wrong = []
    for r in rows:
        found = match_text(r["text"])
        top = found[0].id if found else None
        if (r["id"] is None and top is not None) or (r["id"] is not None and top not in [r["id"]] + r["also"]):
            wrong.append((r["case"], r["id"], top))
    assert len(rows) >= 40 and wrong == []


def test_r_s_load_failure_lines_hide_torch_s_name_but_name_no_framework():
    # R prints these for any package: a package called like torch on them is not PyTorch, yet
    # the lines do not make the text R torch's (an sf install, a reticulate model's cuDNN).
    sf = ("Error: package or namespace load failed for 'sf' in dyn.load(file, DLLpath = DLLpath, ...):\n"
          "  libudunits2.so.0: cannot open shared object file: No such file or directory\n"
          "ERROR: lazy loading failed for package 'sf'")
    assert W.judge(sf).other is None
    py = ("Error: ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory\n"
          "Error: unable to load R code in package 'mymodel'")
    assert W.judge(py).other is None and match_text(py)[0].id == "cudnn-so-cannot-open"
    named = ("  libcudart.so.12: cannot open shared object file: No such file or directory\n"
             "Error: unable to load R code in package 'CPTtorch'")
    assert not W.judge(named).own and match_text(named)[0].confidence != HIGH
    found = LogScan().run(io.BytesIO((named + "\n").encode()))
    assert found and found[0].confidence != HIGH
