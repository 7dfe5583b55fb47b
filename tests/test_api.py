"""The Python API, including the in-process mode that sees live torch settings."""

import subprocess
import sys

import pytest

import torchdoctor


def test_explain_api():
    found = torchdoctor.explain_text("AssertionError: Torch not compiled with CUDA enabled", use_env=False)
    assert found[0].match.entry.category == "cpu-only-build"
    assert found[0].tailored is False


def test_in_process_check_sees_settings_the_script_changed():
    # A child Python stands in for a user's training script.
    code = (
        "import torch, torchdoctor\n"
        "torch.backends.cudnn.benchmark = True\n"
        "torch.use_deterministic_algorithms(True)\n"
        "rep = torchdoctor.check(in_process=True)\n"
        "print(rep.facts.value('backends.cudnn.benchmark'), rep.facts.value('torch.runtime.are_deterministic_algorithms_enabled'))\n"
        "print(sorted(f.id for f in rep.findings))\n"
        "print(rep.facts.value('probe.in_process'))\n"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr[-2000:]
    first, ids, in_proc = p.stdout.strip().splitlines()[-3:]
    assert first == "True True"
    assert "deterministic-algorithms" in ids  # (cudnn-benchmark is only reported on GPU builds)
    assert in_proc == "True"


def test_a_fresh_probe_sees_only_the_defaults():
    rep = torchdoctor.check(only=["cudnn-benchmark", "deterministic-algorithms"])
    assert rep.findings == []


def test_in_process_with_python_is_refused():
    with pytest.raises(ValueError):
        torchdoctor.check(python=sys.executable, in_process=True)


def test_explain_text_answers_read_like_readme_shows():
    # README: `for f in ...: print(f.id, f.title)`; before, only .to_dict() had them.
    found = torchdoctor.explain_text("AssertionError: Torch not compiled with CUDA enabled", use_env=False)
    f = found[0]
    assert f.id == f.to_dict()["id"] and f.title == f.to_dict()["title"] and f.category == "cpu-only-build"
    assert f.fix.summary and isinstance(f.links, list)
