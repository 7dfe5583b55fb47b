"""`No module named 'torchvision'`: the companion paired with the installed torch, with torch pinned
and the build's tag on the companion. On this machine the printed command runs for real in a venv
whose torch is 2.13.0+cpu: pip's configuration offers PyPI's CUDA torchvision 0.28.0 and no +cpu
build, and an untagged pin installed it and left `torchvision.ops` broken; the tagged one heals
where the +cpu build is reachable and fails loudly where it is not, never exiting 0 on a broken env."""

import shlex
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH

ENTRY = "torch-companion-not-installed"
TEXT = "ModuleNotFoundError: No module named 'torchvision'"


@pytest.mark.parametrize("text, kind", [(TEXT, "torchvision"), ("No module named 'torchaudio'", "torchaudio")])
def test_the_companions_own_name(text, kind):
    m = top(text)
    assert m is not None and m.id == ENTRY and m.confidence == HIGH and m.groups["pkg"] == kind


@pytest.mark.parametrize("text", ["No module named 'torchvision.models.utils'", "No module named 'torchvisionx'",
                                  "No module named 'torchaudio.sox_effects'"])
def test_submodules_and_other_names_are_not_this_entry(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_a_cpu_torch_gets_the_paired_release_with_its_tag():
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.13.0+cpu"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install torch==2.13.0 torchvision==0.28.0+cpu "
                          "--index-url https://download.pytorch.org/whl/cpu"]
    assert "the +cpu pin refuses another build" in t.summary


def test_an_installed_pair_means_another_interpreter_failed():
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.13.0+cpu", packages={"torchvision": {"version": "0.28.0+cpu"}}))
    assert "probably ran another environment" in t.cause


def test_no_torch_read_claims_nothing():
    _, t = tailored_as(ENTRY, TEXT, facts())
    assert t is None


@pytest.mark.slow
def test_the_printed_command_never_exits_0_on_a_broken_env(tmp_path):
    from torchdoctor.gather.light import light_facts
    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    done = subprocess.run([py, "-m", "pip", "install", "-q", "torch==2.13.0"], capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        pytest.skip("pip could not install torch 2.13.0 here: %s" % done.stderr.strip()[-300:])
    failed = subprocess.run([py, "-c", "import torchvision"], capture_output=True, text=True, timeout=300)
    assert failed.returncode != 0
    m, t = tailored_as(ENTRY, failed.stderr, light_facts(py))
    assert m.confidence == HIGH
    (cmd,) = t.commands
    assert "torchvision==" in cmd and "+cpu" in cmd, cmd
    ran = subprocess.run(shlex.split(cmd), capture_output=True, text=True, timeout=900)
    works = subprocess.run([py, "-c", "import torch, torchvision.ops as o; o.nms(torch.rand(3, 4), torch.rand(3), .5)"],
                           capture_output=True, text=True, timeout=300)
    assert ran.returncode != 0 or works.returncode == 0, (ran.stdout[-600:], works.stderr[-600:])
    if ran.returncode != 0:  # this machine: no +cpu torchvision on any index pip reaches
        assert "torchvision==0.28.0+cpu" in ran.stderr + ran.stdout
        # and the failed command left the environment as it was: no other build slipped in
        still = subprocess.run([py, "-c", "import torchvision"], capture_output=True, text=True, timeout=300)
        assert still.returncode != 0 and "No module named 'torchvision'" in still.stderr


@pytest.mark.parametrize("torch", ["2.1.0a0+41361538.nv23.06", "2.4.0a0+gitabcdef", "2.4.0+rocm6.3.4.git7cecbf6d"])
def test_a_vendor_or_source_torch_gets_no_pip_command_that_would_swap_it(torch):
    _, t = tailored_as(ENTRY, TEXT, facts(torch=torch, machine="aarch64"))
    assert t.commands == [] and "is not a release build from PyTorch's indexes" in t.summary


def test_a_nightly_is_sent_to_the_nightly_index():
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.6.0.dev20241201+cpu"))
    assert t.commands == [] and "download.pytorch.org/whl/nightly/cpu" in t.summary


@pytest.mark.parametrize("build", ["cuda126_mkl_py311_h1234", "cpu_py310h5e1f01c_0"])
def test_a_conda_torch_not_from_the_pytorch_channel_gets_its_own_channels_companion(build):
    # conda-forge's and Anaconda's defaults' builds look alike: the channel is read, not guessed
    f = facts(torch="2.5.1", packages={"conda:pytorch": {"version": "2.5.1", "build": build}})
    f.data["packages"]["installed"]["torch"]["installer"] = "conda"
    _, t = tailored_as(ENTRY, TEXT, f)
    assert t.commands == ["conda list ^pytorch$"] and "pytorch==2.5.1" in t.summary


def test_an_untagged_nightly_is_sent_to_the_cpu_nightly_index():
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.6.0.dev20241112", system="Darwin", machine="arm64"))
    assert t.commands == [] and "download.pytorch.org/whl/nightly/cpu" in t.summary


def test_a_mismatched_companion_beside_a_vendor_torch_gets_no_made_up_index():
    text = "RuntimeError: operator torchvision::nms does not exist"
    f = facts(torch="2.4.0+rocm6.3.4.git7cecbf6d", packages={"torchvision": {"version": "0.19.0+rocm6.2"}})
    m = top(text)
    if m is None or m.entry.tailor != "torchvision-mismatch":
        pytest.skip("the nms wording goes to another entry")
    _, t = tailored_as(m.id, text, f)
    assert not any("rocm6.3.4.git" in c for c in t.commands)


def test_pypis_default_build_gets_no_tag_pypi_does_not_carry():
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.5.1+cu124"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install torch==2.5.1 torchvision==0.20.1"]
    _, t = tailored_as(ENTRY, TEXT, facts(torch="2.5.1+cu121"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install torch==2.5.1 torchvision==0.20.1+cu121 "
                          "--index-url https://download.pytorch.org/whl/cu121"]


@pytest.mark.parametrize("torch, comp, says", [
    # a release compat does not know yet, from a vendor: still no pip install from PyPI
    ("2.99.0+rocm7.0.0.gitabc", "0.99.0", "is not a release build from PyTorch's indexes"),
    ("2.6.0.dev20241001+cu124", "0.20.0.dev20241001+cu124", "download.pytorch.org/whl/nightly/cu124"),
])
def test_a_mismatch_beside_a_vendor_or_nightly_torch_gets_no_release_from_pip(torch, comp, says):
    from torchdoctor.areas.companions.vision_audio import _tailor_companion
    m = top(TEXT)
    t = _tailor_companion("torchvision", m, facts(torch=torch, packages={"torchvision": {"version": comp}}))
    assert says in t.summary and not any("pip install" in c for c in t.commands)
