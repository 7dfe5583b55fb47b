"""CPU kernels that need an instruction set: the cpu.flags fact decides whether this CPU
lacks it or the failing run was elsewhere."""

from torchdoctor.areas.cpu_features import wanted_flags
from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

TEXT = "RuntimeError: mkldnn_linear: bf16 path needs the cpu support avx_ne_convert or avx512bw, avx512vl and avx512dq"


def facts(flags):
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
                  "packages": {"installed": {}}, "cpu": {"model": "Intel(R) Core(TM) i7-8700", "flags": flags}})


def test_the_flags_a_message_asks_for():
    assert wanted_flags(TEXT) == ["avx512bw", "avx512vl"]
    assert wanted_flags("RuntimeError: Your CPU does not support FBGEMM.") == ["avx2"]


def test_a_cpu_without_avx512_is_told_so():
    e = explain_match(match_text(TEXT)[0], facts(["sse4_2", "avx", "avx2", "fma"]))
    assert e.match.id == "cpu-lacks-isa-for-kernel"
    assert "has no avx512bw, avx512vl" in e.fix.summary


def test_a_cpu_with_the_flags_means_another_machine():
    e = explain_match(match_text(TEXT)[0], facts(["avx2", "avx512f", "avx512bw", "avx512vl"]))
    assert "another machine" in e.fix.summary
