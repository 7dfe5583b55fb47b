"""Intel GPUs: a torch without XPU support gets the XPU build; an XPU build here means the
failing code ran with another torch."""

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

TEXT = "AssertionError: Torch not compiled with XPU enabled"


def facts(torch):
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
                  "packages": {"installed": {"torch": {"version": torch}}}})


def test_a_plain_torch_gets_the_xpu_wheels():
    m = match_text(TEXT)[0]
    assert m.id == "torch-not-compiled-with-xpu"
    e = explain_match(m, facts("2.7.1+cu126"))
    assert e.hook_error is None and "not an XPU build" in e.fix.summary
    assert any("download.pytorch.org/whl/xpu" in c for c in e.fix.commands), e.fix.commands


def test_an_xpu_build_here_means_another_torch_ran_the_code():
    e = explain_match(match_text(TEXT)[0], facts("2.7.1+xpu"))
    assert "another torch" in e.fix.summary


def test_the_runtime_stack_wordings():
    for text in ["OSError: SYCL runtime is not dected.", "RuntimeError: Failed to enumerate devices via Level Zero Sysman.",
                 "OSError: Intel GPU driver is not properly installed, please follow the instruction"]:
        assert match_text(text)[0].id == "xpu-runtime-not-installed", text
