"""Features a torch build was compiled without: which build has them, from the torch here."""

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

CUDNN = "UserWarning: PyTorch was compiled without cuDNN/MIOpen support. To use cuDNN/MIOpen, rebuild PyTorch"


def facts(torch, cuda=None):
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
                  "packages": {"installed": {"torch": {"version": torch}}},
                  "torch": {"version": torch, "cuda": cuda}})


def test_cudnn_on_a_cpu_build_gets_a_cuda_build():
    m = match_text(CUDNN)[0]
    assert m.id == "torch-built-without-feature"
    e = explain_match(m, facts("2.5.1+cpu"))
    assert e.hook_error is None and "not a CUDA build" in e.fix.summary


def test_cudnn_on_a_cuda_build_means_another_torch():
    e = explain_match(match_text(CUDNN)[0], facts("2.5.1+cu124", cuda="12.4"))
    assert "another torch" in e.fix.summary


def test_cuda_itself_stays_with_the_cpu_only_entries():
    assert match_text("AssertionError: Torch not compiled with CUDA enabled")[0].id == "torch-not-compiled-with-cuda"
    assert match_text("RuntimeError: PyTorch was compiled without CUDA support")[0].id == "torch-not-compiled-with-cuda"
