"""DeepSpeed's accelerator choice: DS_ACCELERATOR set here, a CPU-only torch, hidden GPUs, or a
CUDA torch that sees GPUs here (so the process that warned could not)."""

from torchdoctor.model.facts import Facts

from hook_facts import explain as explain_as

CPU = ("[2025-08-08 15:46:24,763] [WARNING] [real_accelerator.py:209:get_accelerator] Setting accelerator to CPU. "
       "If you have GPU or other accelerator, we were unable to detect it.")
NPU = "ValueError: NPU_Accelerator requires torch_npu, which is not installed on this system."


def facts(torch_version, env=None, devices=None):
    data = {"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
            "packages": {"installed": {"torch": {"version": torch_version}}}, "env": env or {}}
    if devices is not None:
        data["torch"] = {"version": torch_version, "cuda": "12.4"}
        data["cuda"] = {"devices": devices}
    return Facts(data)


def explain(text, f):
    return explain_as(text, "deepspeed-accelerator-not-detected", f)


def test_ds_accelerator_naming_a_missing_plugin_is_unset_here():
    e = explain(NPU, facts("2.5.1+cu124", {"DS_ACCELERATOR": "npu"}))
    assert "DS_ACCELERATOR=npu is set here" in e.fix.summary and e.fix.commands == ["unset DS_ACCELERATOR"]


def test_a_cpu_only_torch_is_why_deepspeed_fell_back_to_the_cpu():
    e = explain(CPU, facts("2.5.1+cpu"))
    assert any("cu" in c and "torch" in c for c in e.fix.commands), e.fix.commands


def test_hidden_gpus_are_named():
    e = explain(CPU, facts("2.5.1+cu124", {"CUDA_VISIBLE_DEVICES": ""}))
    assert "hides every GPU" in e.fix.summary


def test_a_cuda_torch_seeing_gpus_here_points_at_the_process_that_warned():
    e = explain(CPU, facts("2.5.1+cu124", devices=[{"name": "NVIDIA A100-SXM4-80GB", "capability": [8, 0]}]))
    assert "sees 1 GPU(s) here" in e.fix.summary
