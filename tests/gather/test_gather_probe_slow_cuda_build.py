"""Integration against a real CUDA build on a machine without an NVIDIA driver.

Needs a venv with `pip install torch==2.14.1` (a CUDA 13.0 build, ~5 GB):
    TORCHDOCTOR_CUDA_PYTHON=/path/to/venv/bin/python python -m pytest -m slow
"""

import os

import pytest

from torchdoctor.gather.probe import gather
from torchdoctor.diagnose import diagnose

CUDA_PY = os.environ.get("TORCHDOCTOR_CUDA_PYTHON")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CUDA_PY, reason="set TORCHDOCTOR_CUDA_PYTHON to a venv with a CUDA torch build")]


def test_cuda_build_without_driver_says_so_clearly():
    facts = gather(python=CUDA_PY, timeout=180)
    assert facts.value("torch.cuda"), "expected a CUDA build of torch"
    assert facts.value("cuda.is_available") is False
    assert isinstance(facts.value("backends.cudnn.version"), int)
    assert facts.value("cuda.arch_list")
    rep = diagnose(facts)
    if facts.value("driver.present"):
        pytest.skip("this machine has an NVIDIA driver")
    f = next(f for f in rep.findings if f.id == "no-gpu-driver")
    assert "no NVIDIA driver" in f.title
    assert facts.value("torch.cuda") in f.detail
