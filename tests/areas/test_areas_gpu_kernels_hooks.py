"""Kernels that need a newer GPU: the entry names the kernel, the GPU's compute capability on
this machine decides the answer (too old: another path, never a torch reinstall; newer than the
build: upgrade the library; new enough: the error came from another GPU)."""

import pytest

from torchdoctor.areas.gpu_kernels import needed_cap, parse_cap
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain

FA = "RuntimeError: FlashAttention only supports Ampere GPUs or newer."
BF16 = ("ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. Your Tesla T4 GPU has "
        "compute capability 7.5.")
FP8 = "RuntimeError: torch._scaled_mm is only supported on CUDA devices with compute capability >= 9.0 or 8.9, or ROCm MI300+"
RANGE = ("UserWarning: Flash attention only supports gpu architectures in the range [sm80, sm90]. "
         "Attempting to run on a sm 12.0 gpu.")


def facts(*gpus, torch="2.5.1+cu124", system="Linux", **packages):
    installed = {"torch": {"version": torch}}
    installed.update({name.replace("_", "-"): {"version": v} for name, v in packages.items()})
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": system},
                  "packages": {"installed": installed},
                  "driver": {"gpus": [{"name": n, "capability": list(c)} for n, c in gpus]}})


@pytest.mark.parametrize("text", [
    "Error: FlashAttention only supports Ampere GPUs or newer.",
    "RuntimeError: Expected is_sm90 || is_sm8x || is_sm75 to be true, but got false.",
    "AssertionError: Unsupported compute capability: 8.6. Supported: 9.x, 10.x",
    # flash-attn 2.8's CuTe interface prints only the major version (flash_attn/cute/interface.py)
    "ValueError: Unsupported compute capability: 8. Supported: 9.x, 10.x",
])
def test_flash_attention_wordings(text):
    assert match_text(text)[0].id == "flash-attn-needs-ampere"


def test_a_turing_gpu_is_too_old_for_flash_attention_and_no_reinstall_helps():
    e = explain(FA, "flash-attn-needs-ampere", facts(("Tesla T4", (7, 5))))
    assert "Tesla T4 is sm_75, older than the sm_80" in e.fix.summary
    assert "no torch reinstall" in e.fix.summary and "sdpa" in e.fix.summary
    assert e.category == "gpu-too-old-for-kernel"  # not the torch build's arch list


def test_an_rtx50_meeting_an_old_flash_attn_build_needs_a_newer_flash_attn():
    e = explain(FA, "flash-attn-needs-ampere", facts(("NVIDIA GeForce RTX 5090", (12, 0))))
    assert "upgrade flash-attn" in e.fix.summary


def test_bf16_on_volta_says_float16():
    e = explain(BF16, "bf16-needs-ampere", facts(("Tesla V100-SXM2-32GB", (7, 0))))
    assert "sm_70" in e.fix.summary and "--dtype=half" in e.fix.summary


def test_fp8_needs_ada_or_hopper():
    e = explain(FP8, "kernel-needs-newer-gpu", facts(("NVIDIA GeForce RTX 3090", (8, 6))))
    assert "sm_86, older than the sm_89" in e.fix.summary


def test_a_new_enough_gpu_means_another_gpu_failed():
    e = explain(FP8, "kernel-needs-newer-gpu", facts(("NVIDIA GeForce RTX 4090", (8, 9))))
    assert "another GPU" in e.fix.summary


def test_a_gpu_newer_than_the_sdpa_range_means_the_build_predates_it():
    e = explain(RANGE, "kernel-needs-newer-gpu", facts(("NVIDIA GeForce RTX 5090", (12, 0))))
    assert "newer than the sm_90" in e.fix.summary


def test_without_gpu_facts_the_entry_is_generic():
    e = explain(FA, "flash-attn-needs-ampere", Facts({"os": {"system": "Linux"}}))
    assert not e.tailored


def test_reading_capabilities():
    assert parse_cap("8.9") == (8, 9) and parse_cap("8") == (8, 0) and parse_cap("121") == (12, 1)
    m = match_text("NotImplementedError: cvt_e8m0_rceil requires NVIDIA SM100+ (Blackwell) for PTX instruction support")[0]
    assert needed_cap(m) == (10, 0)


def test_the_cute_interfaces_major_version_alone_is_tailored_to_hopper():
    e = explain("ValueError: Unsupported compute capability: 8. Supported: 9.x, 10.x", "flash-attn-needs-ampere",
                facts(("NVIDIA GeForce RTX 3090", (8, 6))))
    assert "sm_86, older than the sm_90" in e.fix.summary


FALLBACK = "FlashAttention is not available on this device. Using scaled_dot_product_attention instead."


def test_the_fallback_notice_on_an_old_gpu_is_all_the_gpu_can_do():
    e = explain(FALLBACK, "flash-attn-fallback-notice", facts(("TITAN V", (7, 0))))
    assert "TITAN V is sm_70" in e.fix.summary and "nothing needs fixing" in e.fix.summary


def test_the_fallback_notice_on_an_ampere_gpu_without_flash_attn_says_install_it():
    e = explain(FALLBACK, "flash-attn-fallback-notice", facts(("NVIDIA A100-SXM4-40GB", (8, 0))))
    assert "flash-attn is not installed" in e.fix.summary and "2.5.1+cu124" in e.fix.summary


def test_the_fallback_notice_with_flash_attn_installed_means_its_import_failed():
    f = facts(("NVIDIA GeForce RTX 4090", (8, 9)), torch="2.2.2+cu121", flash_attn="2.7.3")
    e = explain(FALLBACK, "flash-attn-fallback-notice", f)
    assert "flash-attn 2.7.3 is installed, so importing it failed" in e.fix.summary
    assert "torch 2.2.2+cu121" in e.fix.summary


def test_the_fallback_notice_under_a_cpu_only_torch_names_the_torch_build():
    f = facts(("NVIDIA A100-SXM4-40GB", (8, 0)), torch="2.5.1+cpu", system="Windows")
    e = explain(FALLBACK, "flash-attn-fallback-notice", f)
    assert "torch 2.5.1+cpu is a CPU-only build" in e.fix.summary and "flash-attn" not in e.fix.summary


# -- triton kernels asking for more shared memory than the GPU has ---------------------------
def _oor(need, limit):
    from hook_facts import explain, facts
    text = ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: %d, Hardware limit: %d. "
            "Reducing block sizes or `num_stages` may help." % (need, limit))
    return explain(text, "triton-out-of-resources-shared-memory", facts(torch="2.9.1+cu128"))


def test_the_limit_names_the_gpu_class_and_the_classes_that_fit():
    e = _oor(81920, 65536)  # a T4 (vllm-project/vllm#36802)
    assert "80 KiB" in e.cause and "64 KiB (on NVIDIA: sm_75 (Turing: T4, RTX 20))" in e.cause
    assert "sm_80/sm_87" in e.cause and "sm_90/sm_100" in e.cause and "sm_70/sm_72" in e.cause
    assert "sm_50-sm_62" not in e.cause.split("allows")[1]


def test_an_amd_gpu_is_not_named_as_an_nvidia_class():
    from hook_facts import explain, facts
    text = ("triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 81920, Hardware limit: "
            "65536. Reducing block sizes or `num_stages` may help.")  # an MI300 (sgl-project/sglang#2384)
    e = explain(text, "triton-out-of-resources-shared-memory",
                facts(torch="2.5.1+rocm6.2"))
    assert "sm_75" not in e.cause


def test_a_kernel_no_gpu_can_hold_is_said_to_be_misconfigured():
    e = _oor(589824, 101376)  # 576 KiB (OpenSpaceAI/DEST3D#2)
    assert "No NVIDIA GPU has that much" in e.cause


def test_an_unknown_limit_still_gets_the_sizes():
    e = _oor(70000, 60000)
    assert "68 KiB" in e.cause and "58 KiB." in e.cause and "on NVIDIA:" not in e.cause
