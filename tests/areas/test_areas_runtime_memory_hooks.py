"""Tailoring hooks of the memory known errors: host RAM (this machine's total, free and cgroup
limit against the size asked for), the CUDA out-of-memory hidden behind NVML, and CUDA driver
calls of the allocator's expandable segments."""

import pytest

from torchdoctor.areas.registry import all_hooks
from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import facts

GIB = 1 << 30
HOST = ("RuntimeError: [enforce fail at alloc_cpu.cpp:75] err == 0. DefaultCPUAllocator: can't allocate memory: "
        "you tried to allocate %d bytes. Error code 12 (Cannot allocate memory)")


def tailor(text, f, entry_id):
    m = [x for x in match_text(text) if x.id == entry_id][0]
    return all_hooks()[m.entry.tailor](m, f)


def test_an_allocation_larger_than_all_ram_is_a_shape_not_a_setting():
    t = tailor(HOST % (132 * GIB), facts(memory={"total_bytes": 16 * GIB, "available_bytes": 10 * GIB}),
               "host-ram-exhausted")
    assert "larger than all of this machine's RAM (16.00 GiB)" in t.summary


def test_a_cgroup_limit_below_the_machine_is_named():
    t = tailor(HOST % (2 * GIB), facts(memory={"total_bytes": 256 * GIB, "available_bytes": 200 * GIB,
                                               "cgroup_limit_bytes": 8 * GIB}), "host-ram-exhausted")
    assert "memory limit of 8.00 GiB" in t.summary and "256.00 GiB" in t.summary


def test_too_little_available_now_points_at_other_processes():
    t = tailor(HOST % (6 * GIB), facts(memory={"total_bytes": 32 * GIB, "available_bytes": 2 * GIB}),
               "host-ram-exhausted")
    assert "only 2.00 GiB of 32.00 GiB is available now" in t.summary


def test_the_windows_wording_and_no_facts():
    text = ("RuntimeError: [enforce fail at C:\\b\\abs\\work\\c10\\core\\impl\\alloc_cpu.cpp:81] data. "
            "DefaultCPUAllocator: not enough memory: you tried to allocate 1981808640 bytes.")
    t = tailor(text, facts(), "host-ram-exhausted")
    assert t.summary is None and t.notes == ["tried to allocate 1.85 GiB"]


def test_pinned_memory_under_wsl_says_so():
    t = tailor("RuntimeError: Pin memory thread exited unexpectedly", facts(os={"system": "Linux", "wsl": True}),
               "pinned-memory-alloc-failed")
    assert t.summary.startswith("WSL2 limits page-locked (pinned) memory")


ASSERT = ('RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at "../c10/cuda/CUDACachingAllocator.cpp":830, '
          "please report a bug to PyTorch.")


def test_a_mig_slice_is_recognised_from_the_visible_devices():
    f = facts(env={"CUDA_VISIBLE_DEVICES": "MIG-3b6d3f1c-1e1e-5c2a-9a2b-2f0e5c7d8a11"})
    t = tailor(ASSERT, f, "cuda-oom-nvml-assert")
    assert "This is a MIG slice" in t.summary
    assert "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:False" in t.commands


def test_a_failing_nvml_init_means_a_reboot():
    text = ('RuntimeError: NVML_SUCCESS == DriverAPI::get()->nvmlInit_v2_() INTERNAL ASSERT FAILED at '
            '"../c10/cuda/CUDACachingAllocator.cpp":963, please report a bug to PyTorch.')
    assert "Reboot" in tailor(text, facts(), "cuda-oom-nvml-assert").summary


def test_a_plain_gpu_keeps_the_generic_answer():
    assert tailor(ASSERT, facts(), "cuda-oom-nvml-assert") is None


def test_driver_errors_of_expandable_segments():
    f = facts(env={"PYTORCH_CUDA_ALLOC_CONF": "max_split_size_mb:128,expandable_segments:True"})
    t = tailor("RuntimeError: CUDA driver error: invalid argument", f, "cuda-driver-call-failed")
    assert "export PYTORCH_CUDA_ALLOC_CONF=max_split_size_mb:128,expandable_segments:False" in t.commands
    oom = tailor("RuntimeError: CUDA driver error: out of memory", f, "cuda-driver-call-failed")
    assert "out of memory" in oom.summary
    assert tailor("RuntimeError: CUDA driver error: unknown error", facts(), "cuda-driver-call-failed") is None
    assert "WSL2" in tailor("RuntimeError: CUDA driver error: unknown error",
                            facts(os={"system": "Linux", "wsl": True}), "cuda-driver-call-failed").summary


# ------------------------------------------------------------------ cuFFT ---
CUFFT = ('  File "/venv/lib/python3.10/site-packages/torch/functional.py", line 632, in stft\n'
         "RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR\n")
ADA = {"present": True, "driver_version": "550.54.14", "cuda_driver_version": "12.4",
       "gpus": [{"name": "NVIDIA GeForce RTX 4090", "capability": [8, 9]}]}


def _cufft(data):
    (m,) = [m for m in match_text(CUFFT) if m.id == "cufft-internal-error"]
    ex = explain_match(m, Facts(data))
    assert ex.hook_error is None, ex.hook_error
    return ex


def test_an_old_cuda_build_on_an_ada_gpu_is_the_cause_and_gets_a_newer_build():
    ex = _cufft({"packages": {"installed": {"torch": {"version": "1.13.1+cu117"}}}, "driver": ADA,
                 "os": {"system": "Linux"}})
    assert ex.tailored and "built with CUDA 11.7" in ex.fix.summary and "RTX 4090" in ex.fix.summary
    assert any("--index-url https://download.pytorch.org/whl/cu12" in c for c in ex.fix.commands)


def test_a_newer_build_points_at_memory_instead():
    ex = _cufft({"packages": {"installed": {"torch": {"version": "2.1.0+cu121"}}}, "driver": ADA,
                 "os": {"system": "Linux"}})
    assert "memory nearly full" in ex.fix.summary
    assert ex.fix.commands == ["export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]


def test_an_old_build_on_an_older_gpu_keeps_the_entrys_text():
    ex = _cufft({"packages": {"installed": {"torch": {"version": "1.13.1+cu117"}}},
                 "driver": dict(ADA, gpus=[{"name": "NVIDIA GeForce RTX 3090", "capability": [8, 6]}]),
                 "os": {"system": "Linux"}})
    assert not ex.tailored


# ------------------------------------------------------ a segfault's commands ---
SEGV = ("Ultralytics YOLOv8.0.196 Python-3.10.5 torch-2.1.0+cu121 CUDA:0 (NVIDIA GeForce RTX 4060)\n"
        "Segmentation fault (core dumped)\n")


def _segv(data):
    (m,) = [m for m in match_text(SEGV) if m.id == "torch-process-segfault"]
    ex = explain_match(m, Facts(data))
    assert ex.hook_error is None, ex.hook_error
    return ex


@pytest.mark.parametrize("system, version, want, never", [
    ("Windows", "2.1.0+cu121", "nvidia-smi", "gdb"),
    ("Darwin", "2.1.0", "lldb --batch -o run -o bt -- python your_script.py", "nvidia-smi"),
    ("Linux", "2.1.0+rocm6.0", "rocm-smi", "nvidia-smi"),
])
def test_a_segfaults_commands_fit_the_platform(system, version, want, never):
    data = {"packages": {"installed": {"torch": {"version": version}}}, "os": {"system": system}}
    if "rocm" in version:
        data["torch"] = {"hip": "6.0"}
    ex = _segv(data)
    assert want in ex.fix.commands and not any(never in c for c in ex.fix.commands)


def test_linux_with_nvidia_keeps_the_entrys_commands():
    ex = _segv({"packages": {"installed": {"torch": {"version": "2.1.0+cu121"}}}, "os": {"system": "Linux"}})
    assert not ex.tailored and "nvidia-smi" in ex.fix.commands
