"""cuDNN features gated by version, the cuDNN SDPA backend and cuDNN's sub-libraries: the
message names the version it needs, the cuDNN torch loads here decides the answer."""

import pytest

from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain

OLD = ("RuntimeError: cuDNN Frontend error: s_kv not a multiple of 64 or d not a multiple of 64 is not supported with "
       "cudnn version below 8.9.6")
PLANS = "RuntimeError: cuDNN Frontend error: [cudnn_frontend] Error: No execution plans support the graph."
SUB = ("RuntimeError: CUDNN_BACKEND_TENSOR_DESCRIPTOR cudnnFinalize failed cudnn_status: "
       "CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH")


def facts(torch="2.5.1+cu124", cudnn_int=None, env=None, **pkgs):
    data = {"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
            "torch": {"version": torch, "cuda": "12.4"},
            "packages": {"installed": dict({"torch": {"version": torch}},
                                           **{n: {"version": v} for n, v in pkgs.items()})},
            "env": env or {}}
    if cudnn_int:
        data["backends"] = {"cudnn": {"version": cudnn_int}}
    return Facts(data)


@pytest.mark.parametrize("text", [
    "Alibi mask for unified SDPA node requires cuDNN 9.21.0 or above",
    "DETERMINISTIC mode is not supported in cudnn version < 9.11.0",
    "For cuDNN version below 9.5.0, paged caches are not supported",
    "s_q less than 64 is not supported before cudnn 9.0.0",
    "head_dim should be less than or equal to 128 for backend version 9.8 or below on blackwell architecture",
    "SDPA FP16/BF16 backward is not supported on cuDNN 9.10.0/9.10.1 due to known bugs. Please consider upgrading to "
    "9.10.2 or newer.",
])
def test_version_gated_wordings_are_one_entry(text):
    assert match_text(text)[0].id == "cudnn-too-old-for-feature"


def test_the_version_gate_hides_the_generic_frontend_entry():
    assert [m.id for m in match_text(OLD)] == ["cudnn-too-old-for-feature"]


def test_an_old_cudnn_here_gets_an_upgrade_of_torchs_cudnn_wheel():
    e = explain(OLD, "cudnn-too-old-for-feature", facts(cudnn_int=8700, **{"nvidia-cudnn-cu12": "8.7.0.84"}))
    assert "cuDNN 8.7.0 here; this feature needs 8.9.6" in e.fix.summary
    assert e.fix.commands == ['/opt/env/bin/python -m pip install -U "nvidia-cudnn-cu12>=8.9.6"']


def test_a_new_enough_cudnn_here_means_another_one_was_loaded():
    e = explain(OLD, "cudnn-too-old-for-feature", facts(cudnn_int=91002))
    assert "loaded an older cuDNN" in e.fix.summary


def test_a_version_ceiling_asks_for_the_next_minor():
    text = "head_dim should be less than or equal to 128 for backend version 9.8 or below on blackwell architecture"
    e = explain(text, "cudnn-too-old-for-feature", facts(cudnn_int=90800, **{"nvidia-cudnn-cu12": "9.8.0.87"}))
    assert "needs 9.9 or newer" in e.fix.summary


def test_torch_250_is_told_about_its_cudnn_attention_default():
    e = explain(PLANS, "cudnn-sdpa-frontend-error", facts(torch="2.5.0+cu124"))
    assert "2.5.1" in e.fix.summary and e.tailored
    e = explain(PLANS, "cudnn-sdpa-frontend-error", facts(torch="2.6.0+cu124"))
    assert not e.tailored


def test_sublibraries_from_ld_library_path():
    e = explain(SUB, "cudnn-sublibrary-load-failed", facts(env={"LD_LIBRARY_PATH": "/usr/local/cuda-12.1/lib64"}))
    assert "LD_LIBRARY_PATH" in e.fix.summary and e.fix.commands[0].startswith("env -u LD_LIBRARY_PATH")
    e = explain(SUB, "cudnn-sublibrary-load-failed", facts(**{"nvidia-cudnn-cu12": "9.1.0.70"}))
    assert "--force-reinstall" in e.fix.commands[0] and "nvidia-cudnn-cu12==9.1.0.70" in e.fix.commands[0]


def test_cudnn8_version_mismatch_with_a_second_cudnn_wheel_uninstalls_the_other():
    text = "RuntimeError: cuDNN error: CUDNN_STATUS_VERSION_MISMATCH"
    e = explain(text, "cudnn-sublibrary-load-failed",
                facts(torch="2.1.0+cu121", **{"nvidia-cudnn-cu12": "8.9.2.26", "nvidia-cudnn-cu11": "8.5.0.96"}))
    assert "Two cuDNN wheels are installed: nvidia-cudnn-cu12," in e.fix.summary
    # the two wheels share nvidia/cudnn/lib: torch's is put back after the other goes
    assert e.fix.commands == ["/opt/env/bin/python -m pip uninstall -y nvidia-cudnn-cu11",
                              "/opt/env/bin/python -m pip install --force-reinstall --no-deps nvidia-cudnn-cu12==8.9.2.26"]
    # one wheel: what the message said before, a reinstall of torch's own
    e = explain(text, "cudnn-sublibrary-load-failed", facts(torch="2.1.0+cu121", **{"nvidia-cudnn-cu12": "8.9.2.26"}))
    assert "--force-reinstall" in e.fix.commands[0]


def test_other_cudnn_statuses_are_not_read_as_a_version_mismatch():
    found = match_text("RuntimeError: cuDNN error: CUDNN_STATUS_NOT_INITIALIZED")
    assert not found or found[0].id != "cudnn-sublibrary-load-failed"
