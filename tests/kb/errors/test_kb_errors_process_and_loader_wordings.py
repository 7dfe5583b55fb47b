"""Wordings of known errors that the entries' first patterns did not reach: how torchrun and
mp.spawn report a worker the kernel killed, an old bitsandbytes importing the triton.ops that
triton 3.2 removed, and shorter forms of MPS's buffer-size assertion and of old bitsandbytes' CUDA
setup. The lines are built for the test in the formats those programs print; none is an evaluation
text."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text


def top(text):
    found = match_text(text)
    return (found[0].id, found[0].confidence) if found else (None, None)


@pytest.mark.parametrize("text", [
    # torchrun (elastic): a negative exit code is the signal that ended the worker
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 1 (pid: 2211) of binary: "
    "/usr/bin/python3",
    "E0301 10:00:00.000000 4242 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed "
    "(exitcode: -9) local_rank: 0 (pid: 4300) of binary: /opt/conda/bin/python",
    # mp.spawn
    "torch.multiprocessing.spawn.ProcessExitedException: process 3 terminated with signal SIGKILL",
    "Exception: process 0 terminated with signal SIGKILL",
])
def test_a_worker_killed_with_sigkill_is_out_of_host_memory(text):
    assert top(text) == ("host-ram-exhausted", HIGH)


@pytest.mark.parametrize("text", [
    "failed (exitcode: 1) local_rank: 0 (pid: 13852) of binary: /usr/bin/python3",
    "failed (exitcode: -6) local_rank: 0 (pid: 13852) of binary: /usr/bin/python3",
    "torch.multiprocessing.spawn.ProcessExitedException: process 1 terminated with signal SIGSEGV",
])
def test_other_exit_codes_and_signals_are_not_taken_for_memory(text):
    assert top(text)[0] != "host-ram-exhausted"


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'triton.ops'",
    "ModuleNotFoundError: No module named 'triton.ops.matmul_perf_model'",
    '  File "/venv/lib/python3.12/site-packages/bitsandbytes/triton/int8_matmul_mixed_dequantize.py", line 12, in '
    "<module>\n    from triton.ops.matmul_perf_model import early_config_prune, estimate_matmul_time\n"
    "ModuleNotFoundError: No module named 'triton.ops'",
])
def test_triton_ops_removed_is_an_old_bitsandbytes(text):
    assert top(text) == ("bitsandbytes-triton-ops-removed", HIGH)


def test_other_missing_triton_modules_stay_with_the_triton_entries():
    assert top("ModuleNotFoundError: No module named 'triton.language'")[0] != "bitsandbytes-triton-ops-removed"


@pytest.mark.parametrize("text,entry", [
    ("Crash on an M2: `Error: total bytes of NDArray > 2**32`", "mps-buffer-size-limit"),
    ("CUDA SETUP: Required library version not found: libbitsandbytes_cuda121.so. Maybe you need to compile it from "
     "source?", "bitsandbytes-cuda-library-not-loaded"),
])
def test_short_and_reworded_forms(text, entry):
    assert top(text)[0] == entry


@pytest.mark.parametrize("text", [
    "ImportError: DLL load failed while importing mesh_raster_kernel: The specified procedure could not be found.",
    "ImportError: DLL load failed while importing _backend: 找不到指定的程序。",
    "ImportError: DLL load failed while importing knn_cuda: The specified module could not be found.",
])
def test_a_windows_extension_named_like_a_kernel_or_backend_is_a_compiled_extension(text):
    assert top(text)[0] == "windows-extension-module-dll-load-failed"


@pytest.mark.parametrize("text", [
    # cffi's own module and CPython's: not torch extensions
    "ImportError: DLL load failed while importing _cffi_backend: The specified module could not be found.",
    "ImportError: DLL load failed while importing _ctypes: The specified module could not be found.",
])
def test_other_windows_modules_are_not_taken_for_torch_extensions(text):
    assert top(text)[0] != "windows-extension-module-dll-load-failed"


@pytest.mark.parametrize("text", [
    # a write-up or a log that kept only the head of the line, without Windows' reason
    "DLL load failed while importing exllamav2_ext",
    "ImportError: DLL load failed while importing fused_layer_norm_cuda",
    "DLL load failed while importing _ext",
])
def test_a_windows_extension_dll_failure_without_its_reason_is_still_the_extensions(text):
    assert top(text)[0] == "windows-extension-module-dll-load-failed"


@pytest.mark.parametrize("text", [
    "DLL load failed while importing _ctypes",
    "DLL load failed while importing _cffi_backend",
])
def test_a_reasonless_dll_failure_of_another_module_is_not_an_extensions(text):
    assert top(text)[0] != "windows-extension-module-dll-load-failed"


@pytest.mark.parametrize("text", [
    "Traceback: The paging file is too small for this operation to complete",
])
def test_the_paging_file_message_without_its_winerror_number(text):
    assert top(text)[0] == "windows-paging-file-too-small"


@pytest.mark.parametrize("text", [
    # Rust's form (safetensors mapping a model file), in any language Windows speaks
    "OSError: The paging file is too small for this operation to complete. (os error 1455)",
    "OSError: Le fichier de pagination est insuffisant pour terminer cette opération. (os error 1455)",
])
def test_rusts_form_of_1455_is_a_model_file_being_mapped(text):
    assert top(text) == ("windows-paging-file-model-mapping", "possible")  # any Rust program prints it


def test_a_dll_failing_for_1455_stays_the_worker_entrys():
    text = ('OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading '
            '"C:\\env\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.')
    assert top(text)[0] == "windows-paging-file-too-small"


@pytest.mark.parametrize("text,entry", [
    # mmcv without its compiled ops (mmcv 1.x's lite package, mmcv-lite, a source build without ops)
    ('  File "/venv/lib/python3.10/site-packages/mmcv/utils/ext_loader.py", line 13, in load_ext\n'
     "    ext = importlib.import_module('mmcv.' + name)\nModuleNotFoundError: No module named 'mmcv._ext'",
     "mmcv-ops-not-installed"),
    # a compiled package built against a newer NumPy than the one installed
    ("  File \"pandas/_libs/interval.pyx\", line 1, in init pandas._libs.interval\nValueError: numpy.dtype size changed, "
     "may indicate binary incompatibility. Expected 96 from C header, got 88 from PyObject", "numpy-dtype-size-changed"),
    ("ValueError: numpy.ndarray size changed, may indicate binary incompatibility. Expected 88 from C header, got 80 "
     "from PyObject", "numpy-dtype-size-changed"),
])
def test_companion_binary_mismatches(text, entry):
    assert top(text) == (entry, HIGH)


@pytest.mark.parametrize("text", [
    '  File "/src/GroundingDINO/groundingdino/models/ms_deform_attn.py", line 29, in <module>\n'
    "    from groundingdino import _C\nImportError: cannot import name '_C' from 'groundingdino' (unknown location)",
    "ImportError: cannot import name '_C' from 'pointnet2_ops' (/src/pointnet2_ops/__init__.py)",
])
def test_a_packages_own_compiled_c_module_missing_is_an_unbuilt_extension(text):
    assert top(text) == ("package-c-extension-not-built", HIGH)


@pytest.mark.parametrize("text", [
    # torch's own _C and a project's circular import are other errors
    "ImportError: cannot import name '_C' from 'torch' (unknown location)",
    "ImportError: cannot import name '_C' from partially initialized module 'config' (most likely due to a circular "
    "import)",
])
def test_torch_and_circular_imports_are_not_unbuilt_extensions(text):
    assert top(text)[0] != "package-c-extension-not-built"
