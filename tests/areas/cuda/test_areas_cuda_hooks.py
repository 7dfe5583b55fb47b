"""Tailoring hooks of the CUDA / cuDNN / memory / NCCL known errors.

Each hook gets a real matched line (from match_text, so the named groups are the
ones the knowledge base really produces) and hand-built facts. For every hook a
tailored case checks the machine-specific advice, and a fallback case checks that
the entry's generic text is kept when the facts add nothing.
"""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts, absent
from torchdoctor.kb.errors import get_entry


# The texts are torch programs' errors: a frame of torch in the traceback says so, as a
# generic CUDA line alone would be any program's (match/whose.py).
TORCH_FRAME = '  File "/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1553, in _call_impl\n'


def explain(entry_id, text, data):
    found = [m for m in match_text(TORCH_FRAME + text) if m.id == entry_id]
    assert found, "%r did not match %s" % (text, entry_id)
    ex = explain_match(found[0], Facts(data))
    assert ex.hook_error is None, ex.hook_error
    return ex


def generic(ex):
    e = get_entry(ex.match.id)
    return not ex.tailored and ex.fix.summary == e.fix["summary"] and ex.cause == e.cause


def torch_pkg(version, **extra):
    return {"installed": dict({"torch": {"version": version}}, **extra)}


LINUX = {"system": "Linux"}
DRIVER_470 = {"present": True, "driver_version": "470.82.01", "cuda_driver_version": "11.4",
              "gpus": [{"name": "NVIDIA GeForce RTX 3090", "capability": [8, 6]}]}
DRIVER_570 = {"present": True, "driver_version": "570.86.10", "cuda_driver_version": "12.8",
              "gpus": [{"name": "NVIDIA GeForce RTX 5090", "capability": [12, 0]}]}
NO_DRIVER = {"present": False, "driver_version": absent("no NVIDIA driver found"), "gpus": absent("none")}

FOUND_11040 = ("RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU "
               "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")


# ------------------------------------------------------------ driver too old ---
def test_cudas_invalid_image_on_a_rocm_build_is_answered_as_hips():
    # ROCm prints CUDA's words: on a ROCm torch the PTX/driver reading cannot apply.
    text = "RuntimeError: CUDA error: device kernel image is invalid"
    ex = explain("cuda-ptx-jit-failed", text, {"packages": torch_pkg("2.9.0+rocm6.4"), "torch": {"hip": "6.4.43482"},
                                               "os": LINUX})
    assert ex.tailored and "ROCm build" in ex.cause
    assert ex.fix.commands and ex.fix.commands[0] == get_entry("hip-invalid-device-function").fix["commands"][0]
    cuda = explain("cuda-ptx-jit-failed", text, {"packages": torch_pkg("2.9.0+cu128"), "driver": DRIVER_570, "os": LINUX})
    assert "ROCm build" not in (cuda.cause or "")


def test_no_cuda_gpus_on_a_rocm_build_is_answered_as_hips():
    # A ROCm container without the render group prints CUDA's words; the HIP entry's fix applies.
    text = "RuntimeError: No CUDA GPUs are available"
    ex = explain("no-cuda-gpus-available", text, {"packages": torch_pkg("2.9.0+rocm6.4"), "torch": {"hip": "6.4.43482"},
                                                  "os": LINUX})
    assert ex.tailored and "ROCm build" in ex.cause
    assert ex.fix.commands == get_entry("no-hip-gpus-available").fix["commands"]
    cuda = explain("no-cuda-gpus-available", text, {"packages": torch_pkg("2.9.0+cu128"), "driver": DRIVER_570,
                                                    "os": LINUX})
    assert "ROCm build" not in (cuda.cause or "")
    # The HIP entry's commands are Linux's (render group, /dev/kfd): a Windows ROCm build keeps the entry's text.
    win = explain("no-cuda-gpus-available", text, {"packages": torch_pkg("2.9.0+rocm7.1"), "torch": {"hip": "7.1"},
                                                   "os": {"system": "Windows"}})
    assert "ROCm build" not in (win.cause or "") and "usermod" not in " ".join(win.fix.commands)


def test_driver_too_old_offers_the_variant_this_driver_runs():
    ex = explain("nvidia-driver-too-old", FOUND_11040,
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_470, "os": LINUX})
    assert ex.tailored
    assert "cu118 build of torch 2.4.1" in ex.fix.summary
    assert "525.60.13" in ex.fix.summary  # minimum driver for CUDA 12.4 under minor-version compatibility
    assert any("download.pytorch.org/whl/cu118" in c for c in ex.fix.commands)
    assert any("CUDA 12.4" in n for n in ex.notes)


def test_driver_too_old_without_driver_facts_uses_the_found_version():
    # torch 2.13 has no CUDA 11 build: the newest release with one is proposed instead.
    ex = explain("nvidia-driver-too-old", FOUND_11040, {"packages": torch_pkg("2.13.0+cu130"), "os": LINUX})
    assert ex.tailored
    assert "580" in ex.fix.summary  # CUDA 13.0 needs a 580 driver
    assert "No CUDA build of torch 2.13.0 runs on this driver" in ex.fix.summary
    assert any("whl/cu118" in c for c in ex.fix.commands)


def test_driver_too_old_falls_back_without_torch_or_driver():
    ex = explain("cuda-driver-insufficient",
                 "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version", {})
    assert generic(ex)


# -------------------------------------------------------------- no driver ---
def test_no_driver_with_a_gpu_on_the_pci_bus():
    drv = dict(NO_DRIVER, pci_gpus=[{"slot": "0000:01:00.0", "device_id": "0x2684"}])
    ex = explain("nvidia-driver-not-found", "RuntimeError: Found no NVIDIA driver on your system.",
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": drv, "os": LINUX})
    assert ex.tailored and "no driver is loaded" in ex.fix.summary
    assert ">= 525.60.13" in ex.fix.summary
    assert "lsmod | grep nvidia" in ex.fix.commands


def test_no_driver_message_on_a_machine_whose_driver_works():
    ex = explain("nvidia-smi-cannot-communicate",
                 "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_470, "os": LINUX})
    assert ex.tailored and "--gpus all" in " ".join(ex.fix.commands)


def test_no_driver_no_gpu_offers_the_cpu_wheel():
    ex = explain("nvidia-driver-not-found", "RuntimeError: Found no NVIDIA driver on your system.",
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": dict(NO_DRIVER, pci_gpus=[]), "os": LINUX})
    assert ex.tailored and "run on the CPU" in ex.fix.summary
    assert any("whl/cpu" in c for c in ex.fix.commands)


def test_no_driver_on_wsl():
    ex = explain("cuda-driver-initialization-failed", "RuntimeError: CUDA driver initialization failed, you might not have a CUDA gpu.",
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": NO_DRIVER, "os": dict(LINUX, wsl=True)})
    assert "wsl --shutdown" in ex.fix.commands


def test_no_driver_when_the_driver_was_not_probed():
    assert generic(explain("nvidia-driver-not-found", "Found no NVIDIA driver on your system",
                           {"packages": torch_pkg("2.4.1+cu124"), "os": LINUX}))


def test_no_driver_on_macos():
    ex = explain("nvidia-driver-not-found", "Found no NVIDIA driver on your system", {"os": {"system": "Darwin"}})
    assert "mps" in ex.fix.summary


# ---------------------------------------------------------- fabric manager ---
ERR_802 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
           "NumCudaDevices() that might have already set an error? Error 802: system not yet initialized")


def test_fabric_manager_version_matches_the_driver():
    drv = {"present": True, "driver_version": "535.104.05", "cuda_driver_version": "12.2",
           "gpus": [{"name": "NVIDIA H100 80GB HBM3", "capability": [9, 0]}]}
    ex = explain("cuda-system-not-ready-fabric-manager", ERR_802, {"driver": drv, "os": LINUX})
    assert any(c.startswith("sudo apt-get install -y nvidia-fabricmanager-535=") and "grep '^535\\.104\\.05'" in c
               for c in ex.fix.commands), ex.fix.commands


def test_fabric_manager_without_driver_facts():
    assert generic(explain("cuda-system-not-ready-fabric-manager", ERR_802, {"os": LINUX}))


# ------------------------------------------------------ cudaGetDeviceCount ---
def test_device_count_error_code_is_explained():
    text = ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
            "before calling NumCudaDevices() that might have already set an error? Error 999: unknown error")
    ex = explain("cuda-get-device-count-error", text, {"os": LINUX})
    assert ex.tailored and "Error 999" in ex.cause and "nvidia_uvm" in " ".join(ex.fix.commands)


def test_device_count_error_without_code():
    text = "UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions"
    assert generic(explain("cuda-get-device-count-error", text, {"os": LINUX}))


def test_unknown_error_on_wsl_and_on_plain_linux():
    text = "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, e.g. changing env"
    assert explain("cuda-unknown-error", text, {"os": dict(LINUX, wsl=True)}).fix.commands == ["wsl --shutdown"]
    assert generic(explain("cuda-unknown-error", text, {"os": dict(LINUX, wsl=False, container=False)}))


# -------------------------------------------------------------- visibility ---
def test_visible_devices_naming_a_missing_gpu():
    ex = explain("no-cuda-gpus-available", "RuntimeError: No CUDA GPUs are available",
                 {"driver": DRIVER_470, "env": {"CUDA_VISIBLE_DEVICES": "3"}, "os": LINUX})
    assert "names GPU 3" in ex.fix.summary and "export CUDA_VISIBLE_DEVICES=0" in ex.fix.commands


def test_invalid_ordinal_counts_the_gpus():
    drv = dict(DRIVER_470, gpus=[{"name": "A", "capability": [8, 0]}, {"name": "B", "capability": [8, 0]}])
    ex = explain("cuda-invalid-device-ordinal", "RuntimeError: CUDA error: invalid device ordinal", {"driver": drv, "os": LINUX})
    assert "'cuda:0'..'cuda:1'" in ex.fix.summary


def test_visibility_without_facts():
    assert generic(explain("cuda-invalid-device-ordinal", "RuntimeError: CUDA error: invalid device ordinal", {}))


# ----------------------------------------------------------- architectures ---
def test_sm120_on_a_release_without_it_proposes_a_newer_one_the_driver_runs():
    text = "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch installation."
    ex = explain("gpu-capability-not-compatible", text,
                 {"packages": torch_pkg("2.6.0+cu124"), "driver": DRIVER_570, "os": LINUX})
    assert ex.tailored
    assert "No build of torch 2.6.0 supports sm_120" in ex.fix.summary
    # driver 570 runs CUDA 12.x but not 13.x: the advice stays on a cu12x build
    assert any("whl/cu12" in c for c in ex.fix.commands) and not any("whl/cu13" in c for c in ex.fix.commands)
    assert any("RTX 5090" in n for n in ex.notes)


def test_old_gpu_gets_the_variant_that_still_has_it():
    text = "Found GPU0 NVIDIA GeForce GTX 1080 Ti which is of cuda capability 6.1."
    ex = explain("gpu-too-old-for-torch", text, {"packages": torch_pkg("2.11.0+cu128"), "os": LINUX})
    assert "cu126 build of torch 2.11.0" in ex.fix.summary
    assert any("whl/cu126" in c for c in ex.fix.commands)


def test_capability_warning_that_is_a_false_alarm():
    text = ("Found GPU0 NVIDIA GB10 which is of cuda capability 12.1. Minimum and Maximum cuda capability supported by "
            "this version of PyTorch is (8.0) - (12.0)")
    # GB10's own entry hides "GPU too old" (it refines it): the false alarm is said as such.
    assert [m.id for m in match_text(TORCH_FRAME + text)] == ["gb10-capability-warning-false-alarm"]
    ex = explain("gb10-capability-warning-false-alarm", text, {"packages": torch_pkg("2.13.0+cu130"), "os": LINUX})
    assert "false alarm" in ex.title


def test_no_kernel_image_without_gpu_facts():
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    assert generic(explain("cuda-no-kernel-image", text, {"packages": torch_pkg("2.11.0+cu128"), "os": LINUX}))


def test_no_kernel_image_uses_the_machines_gpu():
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    drv = dict(DRIVER_470, gpus=[{"name": "Tesla P100-PCIE-16GB", "capability": [6, 0]}])
    ex = explain("cuda-no-kernel-image", text, {"packages": torch_pkg("2.11.0+cu128"), "driver": drv, "os": LINUX})
    assert "cu126" in ex.fix.summary and any("Tesla P100" in n for n in ex.notes)


def test_bf16_gemm_on_an_old_gpu():
    text = ("RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasGemmStridedBatchedEx(handle, opa, "
            "opb, (int)m, (int)n, (int)k, (void*)&falpha, a, CUDA_R_16BF, (int)lda, stridea, b, CUDA_R_16BF`")
    drv = dict(DRIVER_470, gpus=[{"name": "Tesla M40", "capability": [5, 2]}])
    ex = explain("cublas-not-supported", text, {"packages": torch_pkg("2.4.1+cu124"), "driver": drv, "os": LINUX})
    assert "bfloat16" in ex.fix.summary and "Tesla M40" in ex.fix.summary


def test_cublas_not_supported_without_bf16_or_gpu_facts():
    text = "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_SUPPORTED when calling `cublasSgemmStridedBatched( handle)`"
    assert generic(explain("cublas-not-supported", text, {"os": LINUX}))


# ------------------------------------------------------------------ cuDNN ---
def test_cudnn_mismatch_points_at_the_foreign_library():
    text = ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime "
            "version (8, 5, 0). PyTorch already comes bundled with cuDNN.")
    facts = {"packages": torch_pkg("2.1.2+cu121", **{"nvidia-cudnn-cu12": {"version": "8.5.0.96"}}),
             "env": {"LD_LIBRARY_PATH": "/usr/local/cuda-11.7/lib64"}, "os": LINUX}
    ex = explain("cudnn-version-incompatibility", text, facts)
    assert "LD_LIBRARY_PATH" in ex.fix.summary and "/usr/local/cuda-11.7/lib64" in ex.fix.summary
    # the check's pin, one command for both: the wheel torch was built with
    assert any(c.endswith('install "nvidia-cudnn-cu12==8.9.2.26"') for c in ex.fix.commands)
    assert any("8.9.2" in n and "8.5.0" in n for n in ex.notes)


def test_cudnn_mismatch_without_facts():
    text = "RuntimeError: cuDNN version mismatch: PyTorch was compiled against 7102 but linked against 7600"
    assert generic(explain("cudnn-version-incompatibility", text, {}))


def test_cudnn_sm75_floor_on_a_pascal_gpu():
    drv = dict(DRIVER_570, gpus=[{"name": "NVIDIA GeForce GTX 1080 Ti", "capability": [6, 1]}])
    ex = explain("cudnn-status-not-initialized", "RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED",
                 {"packages": torch_pkg("2.11.0+cu128"), "driver": drv, "os": LINUX})
    assert "compute capability 7.5" in ex.fix.summary and "cu126 build of torch 2.11.0" in ex.fix.summary


def test_cudnn_runtime_error_with_nothing_suspicious():
    drv = dict(DRIVER_570, gpus=[{"name": "NVIDIA GeForce RTX 4090", "capability": [8, 9]}])
    facts = {"packages": torch_pkg("2.11.0+cu128", **{"nvidia-cudnn-cu12": {"version": "9.17.1.4"}}), "driver": drv, "os": LINUX}
    assert generic(explain("cudnn-status-execution-failed", "RuntimeError: cuDNN error: CUDNN_STATUS_EXECUTION_FAILED", facts))


def test_plan_failed_warning_on_230():
    text = "UserWarning: Plan failed with a cudnnException: CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR: cudnnFinalize Descriptor Failed"
    ex = explain("cudnn-plan-failed-warning", text, {"packages": torch_pkg("2.3.0+cu121"), "os": LINUX})
    assert any(c.endswith("install torch==2.3.1") for c in ex.fix.commands)
    assert generic(explain("cudnn-plan-failed-warning", text, {}))


def test_cudnn8_libcuda_on_wsl():
    text = "Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: No such file or directory"
    ex = explain("cudnn8-library-load-failed", text, {"packages": torch_pkg("2.0.1+cu118"), "os": dict(LINUX, wsl=True)})
    assert "export LD_LIBRARY_PATH=/usr/lib/wsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" in ex.fix.commands
    assert generic(explain("cudnn8-library-load-failed", text, {"os": {"system": "Windows"}}))


def test_cudnn9_wanted_but_environment_has_cudnn8():
    text = "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, libcudnn_ops.so}"
    facts = {"packages": torch_pkg("2.1.2+cu121", **{"nvidia-cudnn-cu12": {"version": "8.9.2.26"}}), "os": LINUX}
    ex = explain("cudnn9-library-load-failed", text, facts)
    assert "needs cuDNN 9" in ex.fix.summary and "8.9.2.26" in ex.fix.summary


# ----------------------------------------------------------------- memory ---
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 22.78 GiB. GPU 0 has a total capacity of 31.47 GiB "
       "of which 12.73 GiB is free. Including non-PyTorch memory, this process has 18.73 GiB memory in use. Of the "
       "allocated memory 9.08 GiB is allocated by PyTorch, and 9.35 GiB is reserved by PyTorch but unallocated.")


def test_oom_fragmentation_recommends_expandable_segments():
    ex = explain("cuda-out-of-memory", OOM, {"os": LINUX})
    assert "fragmented" in ex.fix.summary
    assert ex.fix.commands == ["export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
    ex = explain("cuda-out-of-memory", OOM, {"os": {"system": "Windows"}})
    assert ex.fix.commands == ["set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
    # a Windows CUDA build has no expandable segments: the same advice as the check's
    win = {"os": {"system": "Windows"}, "torch": {"version": "2.13.0+cu126", "cuda": "12.6", "hip": absent("no")}}
    ex = explain("cuda-out-of-memory", OOM, win)
    assert ex.fix.commands == ["set PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:256"] and "max_split_size_mb" in ex.fix.summary


def test_oom_other_processes_and_oversized_allocation():
    text = ("CUDA out of memory. Tried to allocate 35.60 GiB. GPU 0 has a total capacity of 79.33 GiB of which 26.16 GiB is "
            "free. Process 76883 has 53.16 GiB memory in use. Of the allocated memory 11.97 GiB is allocated by PyTorch")
    assert "Other processes hold 53.16 GiB" in explain("cuda-out-of-memory", text, {}).fix.summary
    text = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 29.76 GiB. GPU 0 has a total capacity of 10.74 GiB"
    assert "larger than the whole GPU" in explain("cuda-out-of-memory", text, {}).fix.summary
    # as printed on an H200 (a real run of benchmarks/gpu_all.sh): no allocator setting among the commands
    text = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 32768.00 GiB. GPU 0 has a total capacity of "
            "139.80 GiB of which 139.29 GiB is free. Including non-PyTorch memory, this process has 518.00 MiB memory in "
            "use. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
            "unallocated. If reserved but unallocated memory is large try setting "
            "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
    fix = explain("cuda-out-of-memory", text, {}).fix
    assert "32768.00 GiB is larger than the whole GPU (139.80 GiB)" in fix.summary
    assert not any("PYTORCH_CUDA_ALLOC_CONF" in c for c in fix.commands)


def test_oom_without_numbers_or_facts():
    assert generic(explain("cuda-out-of-memory", "RuntimeError: CUDA error: out of memory", {}))


# ------------------------------------------------------------ device/dtype ---
def test_input_weight_device_vs_dtype():
    ex = explain("input-weight-type-mismatch",
                 "RuntimeError: Input type (torch.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same", {})
    assert ex.fix.summary.startswith("Device mismatch: the weights are on the GPU")
    ex = explain("input-weight-type-mismatch",
                 "RuntimeError: Input type (torch.cuda.HalfTensor) and weight type (torch.cuda.FloatTensor) should be the same", {})
    assert "different dtypes (HalfTensor vs FloatTensor)" in ex.fix.summary
    assert generic(explain("input-weight-type-mismatch",
                           "Input type (torch.cuda.FloatTensor) and weight type (torch.cuda.FloatTensor) should be the same", {}))


def test_deserialize_on_a_gpu_machine_with_a_cpu_wheel():
    text = "RuntimeError: Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False."
    ex = explain("deserialize-cuda-on-cpu-only", text, {"packages": torch_pkg("2.4.1+cpu"), "driver": DRIVER_570, "os": LINUX})
    assert "CPU-only build" in ex.fix.summary and any("whl/cu12" in c for c in ex.fix.commands)
    assert generic(explain("deserialize-cuda-on-cpu-only", text,
                           {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_570, "os": LINUX}))


# -------------------------------------------------------------- determinism ---
CUBLAS = ("RuntimeError: Deterministic behavior was enabled with either `torch.use_deterministic_algorithms(True)` or "
          "`at::Context::setDeterministicAlgorithms(true)`, but this operation is not deterministic because it uses CuBLAS "
          "and you have CUDA >= 10.2.")


@pytest.mark.parametrize("version,expect", [("2.4.1+cu124", "before the process starts"), ("2.12.0+cu130", "no longer raises")])
def test_cublas_workspace_depends_on_the_torch_version(version, expect):
    ex = explain("cublas-workspace-config-required", CUBLAS, {"packages": torch_pkg(version), "os": LINUX})
    assert expect in ex.fix.summary and ex.fix.commands == ["export CUBLAS_WORKSPACE_CONFIG=:4096:8"]


def test_cublas_workspace_already_set_in_this_shell():
    ex = explain("cublas-workspace-config-required", CUBLAS,
                 {"packages": torch_pkg("2.4.1+cu124"), "env": {"CUBLAS_WORKSPACE_CONFIG": ":16:8"}, "os": LINUX})
    assert "is set in this shell" in ex.fix.summary


def test_cublas_workspace_without_torch():
    assert generic(explain("cublas-workspace-config-required", CUBLAS, {}))


# ------------------------------------------------------------------- NCCL ---
def test_nccl_missing_on_windows_and_on_linux_cuda():
    text = "RuntimeError: Distributed package doesn't have NCCL built in"
    ex = explain("nccl-not-built-in", text, {"packages": torch_pkg("2.4.1+cu124"), "os": {"system": "Windows"}})
    assert "gloo" in ex.fix.summary
    ex = explain("nccl-not-built-in", text, {"packages": torch_pkg("2.4.1+cpu"), "driver": DRIVER_570, "os": LINUX})
    assert "CPU-only" in ex.fix.summary and any("whl/cu12" in c for c in ex.fix.commands)
    ex = explain("nccl-not-built-in", text, {"packages": torch_pkg("2.4.1+cpu"), "driver": NO_DRIVER, "os": LINUX})
    assert "backend='gloo'" in ex.fix.summary and "no NVIDIA driver found" in ex.notes
    assert generic(explain("nccl-not-built-in", text, {"packages": torch_pkg("2.4.1+cu124"), "os": LINUX}))


def test_duplicate_gpu_binds_ranks_to_the_visible_gpus():
    text = "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 10"
    drv = dict(DRIVER_570, gpus=[{"name": "A", "capability": [9, 0]}] * 4)
    ex = explain("nccl-duplicate-gpu", text, {"env": {"CUDA_VISIBLE_DEVICES": "0,1"}, "driver": drv, "os": LINUX})
    assert ex.fix.summary.startswith("Ranks 1 and 0 landed on the same GPU")
    assert "at most 2 ranks" in ex.fix.summary and "set_device" in ex.fix.summary
    assert "torchrun --nproc_per_node=2 your_script.py" in ex.fix.commands
    assert generic(explain("nccl-duplicate-gpu", text, {"os": LINUX}))


# ------------------------------------------------------------ is_available ---
def test_is_available_false_walks_the_causes():
    text = "torch.cuda.is_available() returns False"
    ex = explain("cuda-not-available", text, {"packages": torch_pkg("2.4.1+cpu"), "driver": DRIVER_570, "os": LINUX})
    assert any("whl/cu12" in c for c in ex.fix.commands)  # CPU wheel on a GPU machine
    ex = explain("cuda-not-available", text, {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_470, "os": LINUX})
    assert "cu118" in ex.fix.summary  # driver too old for cu124
    assert generic(explain("cuda-not-available", text, {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_570, "os": LINUX}))


def test_cpu_only_build_hook_on_a_cuda_build():
    ex = explain("torch-not-compiled-with-cuda", "AssertionError: Torch not compiled with CUDA enabled",
                 {"packages": torch_pkg("2.4.1+cu124"), "driver": DRIVER_570, "os": LINUX,
                  "python": {"executable": "/opt/venv/bin/python"}})
    assert "another interpreter" in ex.cause and "/opt/venv/bin/python" in ex.cause


# ------------------------------------------------------------ the stub libcuda ---
STUB_34 = ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
           "NumCudaDevices() that might have already set an error? Error 34: CUDA driver is a stub library")


WARP_34 = "Warp CUDA error: Failed to get driver entry point 'cuInit' (CUDA error 34)"


def test_stub_library_for_warp_takes_the_stubs_folder_off_ld_library_path_and_keeps_the_rest():
    # Warp opens plain libcuda.so first: a toolkit's stubs folder on the path is what it loads
    ex = explain("cuda-driver-stub-library", WARP_34, {
        "os": LINUX, "import_env": {"LD_LIBRARY_PATH": ["/usr/local/cuda/lib64/stubs", "/opt/lib"]}})
    assert ex.tailored and "/usr/local/cuda/lib64/stubs" in ex.fix.summary
    assert ex.fix.commands[0] == "export LD_LIBRARY_PATH=/opt/lib"


def test_stub_library_for_torch_asks_whether_the_stubs_folder_holds_libcuda_so_1():
    # torch's runtime opens libcuda.so.1 only: a stubs folder on the path explains it only with that link in it
    ex = explain("cuda-driver-stub-library", STUB_34, {
        "os": LINUX, "env": {"LD_LIBRARY_PATH": "/opt/conda/envs/x/lib/stubs"}})
    assert ex.tailored and "libcuda.so.1" in ex.fix.summary and "ld.so.conf.d" in ex.fix.summary
    assert ex.fix.commands[0] == "ls -l /opt/conda/envs/x/lib/stubs/libcuda.so*"
    assert "unset LD_LIBRARY_PATH" in ex.fix.commands and any(c.startswith("ldconfig -p") for c in ex.fix.commands)


def test_stub_library_without_a_stubs_folder_points_at_the_loaders_configuration():
    ex = explain("cuda-driver-stub-library", STUB_34, {"os": LINUX, "env": {"LD_LIBRARY_PATH": "/opt/lib"}})
    assert ex.tailored and "ld.so.conf.d" in ex.fix.summary
    assert not any(c.startswith(("export", "unset")) for c in ex.fix.commands)


def test_stub_library_with_nothing_read_keeps_the_entry():
    assert generic(explain("cuda-driver-stub-library", STUB_34, {"os": LINUX}))
    assert generic(explain("cuda-driver-stub-library", STUB_34, {
        "os": {"system": "Windows"}, "env": {"LD_LIBRARY_PATH": "/x/stubs"}}))


def test_warps_error_34_is_the_stub_and_other_codes_are_not():
    assert match_text("Warp CUDA error: Failed to get driver entry point 'cuInit' (CUDA error 34)")[0].id == \
        "cuda-driver-stub-library"
    assert not [m for m in match_text("Warp CUDA error: Failed to get driver entry point 'cuInit' (CUDA error 1)")
                if m.id == "cuda-driver-stub-library"]
