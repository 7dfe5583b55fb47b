"""CUDA_VISIBLE_DEVICES that hides every GPU is a finding of its own, driver or not: the real
probe of a fake CUDA build of torch (this machine has no GPU), with and without a fake
nvidia-smi listing two GPUs; an entry naming a GPU UUID the driver does not list hides it too.
"""

import subprocess

import pytest

from torchdoctor.diagnose import diagnose
from torchdoctor.gather.probe import gather

from fakes import fake_nvidia_smi, fake_torch


@pytest.fixture
def box(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % bindir)
    for k in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "LD_LIBRARY_PATH"):
        monkeypatch.delenv(k, raising=False)
    root = fake_torch(tmp_path / "site", version="2.13.0+cu130", cuda="13.0", available=False, devices=())
    monkeypatch.setenv("PYTHONPATH", root)
    return bindir


def _hidden(monkeypatch, cvd):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", cvd)
    report = diagnose(gather(timeout=60))
    return [f for f in report.findings if f.id == "gpu-hidden"]


@pytest.mark.parametrize("cvd", ["", "-1"])
def test_a_mask_that_hides_every_gpu_without_a_driver(box, monkeypatch, cvd):
    (f,) = _hidden(monkeypatch, cvd)
    assert f.severity == "warning" and "hides every GPU" in f.title, f.title
    assert f.fix.commands == ["unset CUDA_VISIBLE_DEVICES"]


def test_an_entry_that_is_no_gpu_at_all_hides_every_gpu(box, monkeypatch):
    # CUDA reads the list up to its first invalid entry: "NoDevFiles" first means no GPU
    (f,) = _hidden(monkeypatch, "NoDevFiles")
    assert f.severity == "warning" and "names GPUs that do not exist" in f.title, f.title
    assert f.fix.commands == ["unset CUDA_VISIBLE_DEVICES"]


@pytest.mark.parametrize("cvd", ["7", "GPU-00000000-dead-beef-0000-000000000000"])
def test_a_gpu_torch_cannot_see_without_a_driver_to_tell(box, monkeypatch, cvd):
    (f,) = _hidden(monkeypatch, cvd)
    assert f.severity == "warning" and f.title == "CUDA_VISIBLE_DEVICES=%s and torch sees no GPU" % cvd
    assert f.fix.commands == ["unset CUDA_VISIBLE_DEVICES"]


def test_a_uuid_the_driver_does_not_list_hides_every_gpu(box, monkeypatch):
    fake_nvidia_smi(box, driver="580.65.06", cuda="13.0", gpus=(("NVIDIA A100", "8.0"), ("NVIDIA A100", "8.0")))
    (f,) = _hidden(monkeypatch, "GPU-ffffffff")
    assert f.severity == "error" and "names GPUs that do not exist" in f.title, f.title
    # a prefix of a UUID the driver lists is a GPU CUDA accepts: a note at most (deliberate masking)
    assert [f.severity for f in _hidden(monkeypatch, "GPU-00000001")] in ([], ["info"])


def test_no_mask_no_finding(box, monkeypatch):
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    assert [f for f in diagnose(gather(timeout=60)).findings if f.id == "gpu-hidden"] == []


def test_unsetting_it_heals(box, monkeypatch):
    (f,) = _hidden(monkeypatch, "")
    script = "; ".join(f.fix.commands[:1] + ['[ -z "${CUDA_VISIBLE_DEVICES+x}" ]'])
    assert subprocess.run(["bash", "-c", script], timeout=30).returncode == 0
