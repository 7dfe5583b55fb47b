"""Device and runtime families met on new hardware and stacks: Intel XPU's memory query and Unified
Runtime statuses, HIP's wordings of CUDA's errors, ROCm wheels' libdrm notice, vLLM's platform and
kernel checks, bitsandbytes' CUDA binary, MPS's float8 and INT_MAX limits. The lines are built for the
test in the formats those programs print; none is an evaluation text."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text


def ids(text):
    return [m.id for m in match_text(text)]


@pytest.mark.parametrize("line, want", [
    ("RuntimeError: Native API failed. Native API returns: 39 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)",
     "xpu-native-api-out-of-memory"),
    # the number before the name differs between Unified Runtime versions
    ("RuntimeError: Native API failed. Native API returns: 40 (UR_RESULT_ERROR_OUT_OF_DEVICE_MEMORY)",
     "xpu-native-api-out-of-memory"),
    ("RuntimeError: The device does not have the ext_intel_free_memory aspect", "xpu-free-memory-query-unsupported"),
    ("checkHipErrors() HIP API error = 0100 \"no ROCm-capable device is detected\"", "hip-no-rocm-capable-device"),
    ("RuntimeError: Configured CUDA binary not found at C:\\venv\\Lib\\site-packages\\bitsandbytes\\"
     "libbitsandbytes_cuda129.dll", "bitsandbytes-cuda-binary-not-shipped"),
    ("No compiled cutlass_scaled_mm for CUDA device capability: 121. Required capability: 90 or 100",
     "vllm-cutlass-kernels-missing-for-capability"),
    ("TypeError: Trying to convert Float8_e5m2 to the MPS backend but it does not have support for that dtype.",
     "mps-float8-unsupported"),
    ("/AppleInternal/Library/BuildRoots/x/MPSNDArray.mm:829: failed assertion `[MPSNDArray initWithDevice:descriptor:] "
     "Error: NDArray dimension length > INT_MAX'", "mps-buffer-size-limit"),
])
def test_each_wording_lands_on_its_entry(line, want):
    assert ids(line)[0] == want


def test_other_unified_runtime_statuses_are_not_out_of_memory():
    # DEVICE_LOST is a hang, reset or removal as often as memory pressure: not said to be out of memory
    for status in ("45 (UR_RESULT_ERROR_INVALID_ARGUMENT)", "20 (UR_RESULT_ERROR_DEVICE_LOST)"):
        assert "xpu-native-api-out-of-memory" not in ids("RuntimeError: Native API failed. Native API returns: " + status)


def test_hips_launch_failure_gets_no_nvidia_advice():
    # the CUDA entry's cause and commands are NVIDIA's (nvidia-smi, Xid): HIP's wording is not its
    assert "cuda-unspecified-launch-failure" not in ids("torch.AcceleratorError: HIP error: unspecified launch failure")


def test_vllms_cutlass_message_is_this_entry_only_for_blackwell_workstation_gpus():
    assert ids("No compiled cutlass_scaled_mm for CUDA device capability: 86. Required capability: 90 or 100") == []


def test_the_fix_texts_say_what_the_cause_needs():
    from torchdoctor.kb.errors import get_entry
    assert "DS_BUILD_OPS=0" in " ".join(get_entry("deepspeed-ops-build-without-torch").fix["commands"])
    assert "use_cpu" in get_entry("bf16-requested-without-cuda-gpu").fix["summary"]
    assert "#194074" in get_entry("mps-float8-unsupported").fix["summary"]


def test_the_libdrm_notice_is_no_diagnosis_beside_a_real_failure():
    text = ("/opt/amdgpu/share/libdrm/amdgpu.ids: No such file or directory\n"
            "RuntimeError: HIP error: invalid device function")
    found = match_text(text)
    assert found[0].id == "hip-invalid-device-function"
    notice = next(m for m in found if m.id == "rocm-amdgpu-ids-missing-notice")
    assert notice.confidence == POSSIBLE


def test_symptoms_are_said_possibly():
    for line in ("RuntimeError: Failed to infer device type", "RuntimeError: HIP error: no ROCm-capable device is detected"):
        assert match_text(line)[0].confidence == POSSIBLE


def test_a_bitsandbytes_binary_of_another_name_is_not_this_entry():
    assert "bitsandbytes-cuda-binary-not-shipped" not in ids(
        "RuntimeError: Configured CUDA binary not found at /opt/lib/libfoo_cuda121.so")
    assert match_text("Configured CUDA binary not found at /x/bitsandbytes/libbitsandbytes_cuda131.so")[0].confidence == HIGH


@pytest.mark.parametrize("line, want", [
    ("lightning_fabric.utilities.exceptions.MisconfigurationException: `MPSAccelerator` can not run on your system "
     "since the accelerator is not available.", "mps-not-available"),
    ("MisconfigurationException: `CUDAAccelerator` can not run on your system since the accelerator is not available.",
     "cuda-not-available"),
    ("AttributeError: '_OpNamespace' '_C' object has no attribute 'silu_and_mul'", "vllm-built-for-other-torch"),
    ("ValueError: Your setup doesn't support bf16/gpu.", "bf16-requested-without-cuda-gpu"),
    ("ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu if you want to train the model on "
     "CPU.", "bf16-requested-without-cuda-gpu"),
    ("ValueError: Your setup doesn't support bf16/gpu. You need Ampere+ GPU with cuda>=11.0", "bf16-needs-ampere"),
])
def test_framework_wordings_of_known_causes(line, want):
    assert ids(line)[0] == want


def test_another_namespaces_missing_op_is_not_vllms():
    assert "vllm-built-for-other-torch" not in ids("AttributeError: '_OpNamespace' '_C' object has no attribute 'my_op'")
    assert "vllm-built-for-other-torch" not in ids("AttributeError: '_OpNamespace' 'mylib' object has no attribute 'rms_norm'")


def test_the_gb10_warning_is_a_notice_beside_triton_failing_on_sm_121a():
    warning = ("UserWarning: \n    Found GPU0 NVIDIA GB10 which is of cuda capability 12.1.\n"
               "    Minimum and Maximum cuda capability supported by this version of PyTorch is\n    (8.0) - (12.0)\n")
    assert ids(warning) == ["gb10-capability-warning-false-alarm"]  # alone: the false alarm, not "too old"
    failing = warning + "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'"
    assert ids(failing)[0] == "triton-ptxas-unknown-gpu-arch"
    # ptxas's fatal line is the failure the warning stands beside: the notice is no diagnosis there
    assert [(m.id, m.confidence) for m in match_text(failing)][1] == ("gb10-capability-warning-false-alarm", "possible")


@pytest.mark.parametrize("line, entry", [
    # other memory queries and other dtypes, other platforms' detection, other devices' counts
    ("RuntimeError: The device doesn't support querying the available GPU temperature", "xpu-free-memory-query-unsupported"),
    ("TypeError: Trying to convert BFloat16 to the MPS backend but it does not have support for that dtype.",
     "mps-float8-unsupported"),
    ("RuntimeError: Failed to infer dtype from the checkpoint", "vllm-failed-to-infer-device-type"),
    ("RuntimeError: no CUDA-capable device is detected", "hip-no-rocm-capable-device"),
    ("/usr/share/libdrm/amdgpu.ids: Permission denied", "rocm-amdgpu-ids-missing-notice"),
    ("The user requested (constraint) torch==2.7.0", "torch-prerelease-excluded-by-pin"),
    ("The user requested (constraint) torchvision==0.23.0a0+abc123", "torch-prerelease-excluded-by-pin"),
])
def test_the_new_entries_stay_quiet_on_their_neighbours(line, entry):
    assert entry not in ids(line)
