"""The surfaces against a real CUDA build of torch on a machine without an NVIDIA driver.

Needs a venv with `pip install torch==2.14.1` (a CUDA 13.0 build, ~5 GB):
    TORCHDOCTOR_CUDA_PYTHON=/path/to/venv/bin/python python -m pytest -m slow tests/surfaces
"""

import os
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

CUDA_PY = os.environ.get("TORCHDOCTOR_CUDA_PYTHON")

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not CUDA_PY, reason="set TORCHDOCTOR_CUDA_PYTHON to a venv with a CUDA torch build")]


def test_the_hook_reads_a_cuda_build_without_initialising_cuda():
    code = textwrap.dedent("""
        import atexit, sys
        import torchdoctor.auto
        import torch
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        def after():
            from torchdoctor.gather.live import live_facts
            f = live_facts()
            sys.stderr.write("AFTER %s %s %s\\n" % (torch.cuda.is_initialized(), f.value("cuda"),
                                                    isinstance(f.value("backends.cudnn.version"), int)))
        atexit.register(after)
        raise RuntimeError("operator torchvision::nms does not exist")
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([CUDA_PY, "-c", code], capture_output=True, timeout=300, env=env)
    err = r.stderr.decode()
    assert "[torchvision-operator-does-not-exist, torchvision-mismatch]" in err
    assert "+cu" in err and "cudnn.benchmark on" in err and "CUDA not initialised" in err
    assert "float32 matmul precision high," in err  # allow_tf32 = True, as the program set it
    assert "AFTER False {'initialized': False} True" in err


def test_run_tailors_to_the_cuda_interpreter_it_ran():
    r = subprocess.run([sys.executable, "-m", "torchdoctor", "run", "--", CUDA_PY, "-c",
                        "import torch; torch.zeros(1).cuda()"], capture_output=True, timeout=300)
    err = r.stderr.decode()
    assert r.returncode == 1
    assert "[nvidia-driver-not-found, no-gpu-driver]" in err
    assert "(fixes for %s: the command is %s)" % (CUDA_PY, CUDA_PY) in err
