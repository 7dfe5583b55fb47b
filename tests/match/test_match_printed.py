"""What a paste printed about torch (match/printed.py): the build and CUDA printed
unavailable, read together, and never one without the other."""

import pytest

from torchdoctor.kb.errors import load_entries
from torchdoctor.match.matcher import match_text
from torchdoctor.match.normalize import normalize
from torchdoctor.match.printed import OBSERVATIONS, read


def _read(text):
    return read([normalize(ln) for ln in text.splitlines()])


def _top(text):
    found = match_text(text)
    return (found[0].id, found[0].confidence) if found else None


@pytest.mark.parametrize("text,build", [
    ("2.4.0+cpu\nNone\nFalse", "cpu"),                      # print(torch.__version__); ...cuda; is_available()
    (">>> torch.__version__\n'2.6.0+cpu'", "cpu"),
    ("torch.__version__: 2.6.0+cu124", "cuda"),
    ("Ultralytics YOLOv8.0.222 Python-3.11.6 torch-2.1.0+cpu", "cpu"),
    ("[pip3] torch==2.4.0+cpu", "cpu"),
    ("PyTorch version: 2.5.1+rocm6.2", "rocm"),
    ("CUDA used to build PyTorch: Could not collect", "cpu"),
    ("CUDA used to build PyTorch: None", "cpu"),
    ("CUDA used to build PyTorch: 12.4", "cuda"),
    ("torch 2.8.0.dev20250101+cu128", "cuda"),
    ("0.19.0+cpu", None),                                    # a bare 0.x is torchvision's, not torch's
    ("[pip3] torchvision==0.19.0+cpu", None),
    ("torchaudio 2.4.0+cpu is installed", None),
    ("2.4.0", None),                                         # no local tag: which build is unknown
])
def test_the_build_a_paste_printed(text, build):
    assert _read(text).build == build


def test_collect_env_prints_could_not_collect_for_cuda_on_a_rocm_build():
    text = "PyTorch version: 2.3.0\nCUDA used to build PyTorch: Could not collect\nROCM used to build PyTorch: 6.0.32830"
    assert _read(text).build == "rocm"
    text = "PyTorch version: 2.3.0\nROCM used to build PyTorch: 6.0.32830\nCUDA used to build PyTorch: Could not collect"
    assert _read(text).build == "rocm"


@pytest.mark.parametrize("text", [
    "print(torch.cuda.is_available())  # False",
    "torch.cuda.is_available() returns False",
    ">>> torch.cuda.is_available()\nFalse",
    "print(torch.cuda.is_available())\n\nreturn False",
    "CUDA available: False",
    "cuda is not available on this machine",
    "运行web-ui时显示cuda is no avaible",
    "my GPU isn't detected",
    "it can't use the gpu",
    "GPU不可用",
])
def test_cuda_printed_or_said_unavailable(text):
    assert _read("2.4.0+cpu\n" + text).unavailable_line
    assert _read("2.4.0+cpu\n" + text).observations == ["cpu-build-cuda-unavailable"]


@pytest.mark.parametrize("text", [
    "torch.cuda.is_available()\nTrue",
    "False",                                   # a bare False under nothing it answers
    "x = 1\ny = 2\nz = 3\nw = 4\nFalse",       # ... or too far below
    "CUDA: True",
])
def test_no_unavailability(text):
    assert not _read(text + "\n2.4.0+cpu").unavailable_line


def test_a_bare_false_answers_a_print_only_within_a_few_lines():
    assert _read("2.4.0+cpu\nNone\nFalse").unavailable_line == 3
    assert not _read("2.4.0+cpu\na\nb\nc\nd\nFalse").unavailable_line


# collect_env of a CPU build on a machine without an NVIDIA GPU: "Is CUDA available: False" is
# the normal state there, whatever the report is about.
CPU_MACHINE = """PyTorch version: 2.4.0+cpu
Is debug build: False
CUDA used to build PyTorch: None
ROCM used to build PyTorch: N/A
OS: Ubuntu 22.04.4 LTS (x86_64)
Python version: 3.11.9 (main, Apr 19 2024, 16:48:06) [GCC 11.2.0] (64-bit runtime)
Is CUDA available: False
CUDA runtime version: No CUDA
GPU models and configuration: No CUDA
Nvidia driver version: No CUDA"""


def test_collect_env_on_a_machine_without_a_gpu_is_no_observation():
    assert _read(CPU_MACHINE).observations == []
    text = "Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: shapes (2,3) and (4,5)\n\n" + CPU_MACHINE
    assert _top(text) is None


def test_collect_env_with_an_nvidia_gpu_is_an_observation():
    text = CPU_MACHINE.replace("GPU models and configuration: No CUDA",
                               "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090")
    assert _read(text).observations == ["cpu-build-cuda-unavailable"]
    assert _top(text) == ("torch-not-compiled-with-cuda", "high")


def test_a_cpu_build_printed_beside_a_working_cuda_is_no_observation():
    assert _read("2.4.0+cpu\nTrue").observations == []
    assert _top("print(torch.__version__)\n2.4.0+cpu") is None


def test_a_cuda_build_printed_unavailable_is_only_possible():
    assert _top("2.6.0+cu124\n12.4\nFalse") == ("cuda-not-available", "possible")


def test_a_known_error_line_keeps_its_diagnosis():
    # The driver's own message decides; the printed pair only speaks where no line does.
    text = ("2.4.0+cu121\nFalse\nUserWarning: CUDA initialization: Found no NVIDIA driver on your system. "
            "Please check that you have an NVIDIA GPU and installed a driver")
    assert _top(text)[0] == "nvidia-driver-not-found"
    assert _top("2.4.0+cpu\nFalse\nAssertionError: Torch not compiled with CUDA enabled") == \
        ("torch-not-compiled-with-cuda", "high")


def test_the_match_quotes_the_version_line():
    m = match_text("import torch\nprint(torch.cuda.is_available())\n# False\nprint(torch.__version__)\n# 2.3.1+cpu")[0]
    assert m.id == "torch-not-compiled-with-cuda"
    assert "2.3.1+cpu" in m.text


def test_every_printed_name_in_the_kb_is_an_observation_and_every_observation_is_claimed():
    claimed = {n for e in load_entries() for n in e.printed}
    assert claimed <= set(OBSERVATIONS)
    assert set(OBSERVATIONS) <= claimed
