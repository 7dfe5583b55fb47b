"""ROCm's launch failure read with this machine's facts: whether HSA_OVERRIDE_GFX_VERSION is set
here decides the first step, and CUDA's words on a ROCm build get HIP's advice."""

import pytest

from torchdoctor.areas.rocm import gfx_of
from torchdoctor.diagnose import explain_match
from torchdoctor.kb.errors import get_entry
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

HIP_TEXT = ("torch.AcceleratorError: HIP error: unspecified launch failure\n"
            "For debugging consider passing AMD_SERIALIZE_KERNEL=3\n")
ROCM = {"packages": {"installed": {"torch": {"version": "2.9.0+rocm6.4"}}}, "torch": {"hip": "6.4.43482"},
        "os": {"system": "Linux"}}


def explain(entry_id, text, data):
    (m,) = [m for m in match_text(text) if m.id == entry_id]
    ex = explain_match(m, Facts(data))
    assert ex.hook_error is None, ex.hook_error
    return ex


@pytest.mark.parametrize("value, gfx", [("10.3.0", "gfx1030"), ("11.0.0", "gfx1100"), ("9.0.10", "gfx90a"),
                                        ("11.5.1", "gfx1151"), ("09.0.0", "gfx900"),
                                        (" 10.3.0", "gfx1030"), ("9.0.16", "gfx9010"),
                                        # the runtime reads three decimal numbers and nothing after them
                                        ("9.0.a", None), ("10.3.0 ", None), ("gfx1030", None), ("", None)])
def test_the_override_names_a_gfx_target(value, gfx):
    assert gfx_of(value) == gfx


def test_an_override_set_here_is_the_first_thing_to_undo():
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT, dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    assert ex.tailored and "HSA_OVERRIDE_GFX_VERSION is set here" in ex.fix.summary
    assert ex.fix.commands[0] == "unset HSA_OVERRIDE_GFX_VERSION"
    assert "HSA_OVERRIDE_GFX_VERSION=10.3.0 (the runtime loads gfx1030's kernels for that GPU)" in ex.notes


def test_a_per_gpu_override_counts_and_odd_values_are_read_as_the_runtime_reads_them():
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT,
                 dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION_1": "11.0.0", "HSA_OVERRIDE_GFX_VERSION": ""}))
    assert ex.fix.commands[:2] == ["unset HSA_OVERRIDE_GFX_VERSION", "unset HSA_OVERRIDE_GFX_VERSION_1"]
    assert any("set but empty" in n for n in ex.notes)
    assert "HSA_OVERRIDE_GFX_VERSION_1=11.0.0 (the runtime loads gfx1100's kernels for that GPU)" in ex.notes
    bad = explain("hip-unspecified-launch-failure", HIP_TEXT, dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION": "9.0.a"}))
    assert any("newer ROCm ignores it" in n for n in bad.notes)
    # node 0 is the CPU: its override is no cause, and nothing is to be unset for it
    cpu = explain("hip-unspecified-launch-failure", HIP_TEXT, dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION_0": "10.3.0"}))
    assert "overrides nothing" in cpu.fix.summary and not any("unset" in c for c in cpu.fix.commands)


def test_on_windows_the_override_is_not_read_and_the_commands_are_cmds():
    win = dict(ROCM, os={"system": "Windows"}, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"})
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT, win)
    assert "TDR" in ex.fix.summary and ex.fix.commands == ["set AMD_SERIALIZE_KERNEL=3", "python your_script.py"]
    assert not any("unset" in c or "dmesg" in c for c in ex.fix.commands)


@pytest.mark.parametrize("data", [
    {"packages": {"installed": {"torch": {"version": "2.9.0+cu128"}}}, "os": {"system": "Linux"}, "env": {}},  # CUDA torch
    {"packages": {"installed": {"torch": {"version": "2.9.0+rocm6.4"}}}, "torch": {"hip": "6.4"},
     "os": {"system": "Linux"}},  # the environment was not read
])
def test_facts_that_cannot_answer_leave_the_entrys_text(data):
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT, data)
    assert not ex.tailored


def test_no_override_here_says_so_and_looks_at_the_kernel():
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT, dict(ROCM, env={"HIP_VISIBLE_DEVICES": "0"}))
    assert "is not set in this environment" in ex.fix.summary
    assert "AMD_SERIALIZE_KERNEL=3 python your_script.py" in ex.fix.commands
    assert "unset HSA_OVERRIDE_GFX_VERSION" not in ex.fix.commands


def test_without_any_facts_the_entrys_own_text_stays():
    ex = explain("hip-unspecified-launch-failure", HIP_TEXT, {})
    e = get_entry("hip-unspecified-launch-failure")
    assert not ex.tailored and ex.fix.summary == e.fix["summary"]


TORCH_FRAME = '  File "/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1553, in _call_impl\n'


def test_cudas_launch_failure_on_a_rocm_build_gets_hips_advice():
    text = TORCH_FRAME + "RuntimeError: CUDA error: unspecified launch failure\n"
    ex = explain("cuda-unspecified-launch-failure", text, ROCM)
    assert ex.tailored and "ROCm build" in ex.cause
    assert ex.fix.commands == get_entry("hip-unspecified-launch-failure").fix["commands"]  # the environment unread
    read = explain("cuda-unspecified-launch-failure", text, dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION": "10.3.0"}))
    assert "ROCm build" in read.cause and read.fix.commands[0] == "unset HSA_OVERRIDE_GFX_VERSION"
    cuda = explain("cuda-unspecified-launch-failure", text,
                   {"packages": {"installed": {"torch": {"version": "2.9.0+cu128"}}}, "os": {"system": "Linux"}})
    assert "ROCm build" not in (cuda.cause or "") and "nvidia-smi" in " ".join(cuda.fix.commands)


@pytest.mark.parametrize("line, entry", [
    ("RuntimeError: HIP error: invalid device function", "hip-invalid-device-function"),
    ("RuntimeError: CUDA error: unspecified launch failure", "cuda-unspecified-launch-failure"),
])
def test_neighbours_keep_their_own_entry(line, entry):
    ids = [m.id for m in match_text(line)]
    assert ids[0] == entry and "hip-unspecified-launch-failure" not in ids


FAULT = ("Memory access fault by GPU node-1 (Agent handle: 0x55f8b54eec30) on address 0x7f2a53193000. Reason: Page not "
         "present or supervisor privilege.")


def test_a_memory_fault_with_an_override_set_undoes_it_first():
    ex = explain("rocm-gpu-memory-access-fault", FAULT, dict(ROCM, env={"HSA_OVERRIDE_GFX_VERSION": "11.0.0"}))
    assert ex.fix.commands[0] == "unset HSA_OVERRIDE_GFX_VERSION"
    assert any("gfx1100" in n for n in ex.notes)


@pytest.mark.parametrize("release, series", [("6.18.4-arch1-1", True), ("7.0.2-200.fc43.x86_64", True),
                                             ("6.17.9-arch1-1", False), ("6.12.63-1-lts", False)])
def test_a_memory_fault_reads_the_kernel_series_this_machine_boots(release, series):
    data = dict(ROCM, env={}, os={"system": "Linux", "release": release})
    ex = explain("rocm-gpu-memory-access-fault", FAULT, data)
    assert ("6.12 LTS" in ex.fix.summary and release in ex.fix.summary) is series, ex.fix.summary
    assert ("No override is set here" in ex.fix.summary) is not series


def test_a_memory_fault_on_a_cuda_build_keeps_the_entrys_words():
    data = {"packages": {"installed": {"torch": {"version": "2.9.0+cu128"}}}, "torch": {"cuda": "12.8"},
            "os": {"system": "Linux", "release": "6.18.4"}, "env": {}}
    ex = explain("rocm-gpu-memory-access-fault", FAULT, data)
    assert not ex.tailored


def test_the_amdgpu_kernel_log_alone_is_read_as_the_same_fault():
    for line in ("[   67.058794] amdgpu 0000:c4:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32786)",
                 "[   67.058812] amdgpu 0000:c4:00.0: amdgpu: GCVM_L2_PROTECTION_FAULT_STATUS:0x00800932"):
        assert match_text(line)[0].id == "rocm-gpu-memory-access-fault"
    # a display engine's fault on the multimedia hub is not compute's
    for line in ("amdgpu 0000:03:00.0: amdgpu: [mmhub] page fault (src_id:0 ring:8 vmid:1 pasid:0)",
                 "amdgpu 0000:03:00.0: amdgpu: MMVM_L2_PROTECTION_FAULT_STATUS:0x00040B53"):
        assert all(m.id != "rocm-gpu-memory-access-fault" for m in match_text(line))
    # CUDA's own fault stays CUDA's
    assert match_text("RuntimeError: CUDA error: an illegal memory access was encountered")[0].id == \
        "cuda-illegal-memory-access"
