"""What a paste printed about torch (match/printed.py): the build and CUDA printed
unavailable, read together, and never one without the other."""

import pytest

from torchdoctor.kb.errors import load_entries
from torchdoctor.match.matcher import match_text
from torchdoctor.match.normalize import normalize
from torchdoctor.match.printed import OBSERVATIONS, read


def _read(text):
    return read([normalize(ln) for ln in text.splitlines()])


def _build(text):
    builds = _read(text).builds
    return builds[-1][1] if builds else None


def _observed(text):
    return [o[0] for o in _read(text).observations]


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
    assert _build(text) == build


def test_collect_env_prints_could_not_collect_for_cuda_on_a_rocm_build():
    text = "PyTorch version: 2.3.0\nCUDA used to build PyTorch: Could not collect\nROCM used to build PyTorch: 6.0.32830"
    assert _read(text + "\nIs CUDA available: False\nGPU 0: NVIDIA A100").pair[1] == "rocm"
    text = "PyTorch version: 2.3.0\nROCM used to build PyTorch: 6.0.32830\nCUDA used to build PyTorch: Could not collect"
    assert _read(text + "\ncuda is not available").pair[1] == "rocm"


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
    assert _observed("2.4.0+cpu\n" + text) == ["cpu-build-cuda-unavailable"]


@pytest.mark.parametrize("text", [
    "torch.cuda.is_available()\nTrue",
    "False",                                   # a bare False under nothing it answers
    "x = 1\ny = 2\nz = 3\nw = 4\nFalse",       # ... or too far below
    "CUDA: True",
])
def test_no_unavailability(text):
    assert _read(text + "\n2.4.0+cpu").pair is None


def test_a_bare_false_answers_a_print_only_within_a_few_lines():
    assert _read("2.4.0+cpu\nNone\nFalse").pair == (1, "cpu", 3)
    assert _read("2.4.0+cpu\na\nb\nc\nd\nFalse").pair is None


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
    assert _observed(CPU_MACHINE) == []
    text = "Traceback (most recent call last):\n  File \"x.py\", line 3\nValueError: shapes (2,3) and (4,5)\n\n" + CPU_MACHINE
    assert _top(text) is None


def test_collect_env_with_an_nvidia_gpu_is_an_observation():
    text = CPU_MACHINE.replace("GPU models and configuration: No CUDA",
                               "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 4090")
    assert _observed(text) == ["cpu-build-cuda-unavailable"]
    assert _top(text) == ("torch-not-compiled-with-cuda", "high")


def test_a_cpu_build_printed_beside_a_working_cuda_is_no_observation():
    assert _observed("2.4.0+cpu\nTrue") == []
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


# What a second reader found the first reading claimed wrongly.
@pytest.mark.parametrize("text", [
    "My laptop has no GPU\ntorch.__version__ 2.4.0+cpu\ntorch.cuda.is_available() False",
    "Expected output:\n torch 2.4.0+cpu\n CUDA available: False",
    "I'm on an M1 Mac, the script can't use the gpu.\nCUDA used to build PyTorch: None\nOS: macOS 14.5 (arm64)",
    "torch 2.4.0+cpu\n-- Could NOT find CUDA (missing: CUDA_TOOLKIT_ROOT_DIR)",
    "torch.cuda.is_available(): True\ntorch.backends.mps.is_available(): False\n2.4.0+cu121",
    "torch.distributed.is_available() False\n2.4.0+cu121",
    "2.4.0+cu121\nif torch.cuda.is_available() == False:",
    "2.4.0+cpu\nFalse\nthen I reinstalled\n2.5.1+cu121\nTrue",  # the fix worked
])
def test_no_observation(text):
    assert _observed(text) == []


def test_another_build_is_not_read_as_cpu_because_it_prints_cuda_none():
    assert _read("PyTorch version: 2.7.0+xpu\nCUDA used to build PyTorch: None\ncuda is not available").pair[1] == "xpu"
    assert _read("torch.version.hip: 6.0.32830\ntorch.version.cuda: None\ncuda is not available").pair[1] == "rocm"
    assert _observed("PyTorch version: 2.7.0+xpu\nCUDA used to build PyTorch: None\ncuda is not available") == []


def test_the_build_paired_is_the_one_printed_before_the_unavailability():
    text = "2.5.1+cu121\nTrue\nafter an upgrade:\n2.6.0+cpu\nFalse"
    assert _read(text).pair == (4, "cpu", 5)


@pytest.mark.parametrize("text", [
    "2.4.0+cpu False",                                           # print(torch.__version__, ...is_available())
    "2.4.0+cpu None False",
    ">>> torch.__version__\n'2.4.0+cpu'\n>>> torch.cuda.is_available()\nOut[3]: False",
    "print(torch.version.cuda)\nNone\ncuda is not available",  # torch.version.cuda printed None
    "torch version .................... 2.4.0+cpu\ntorch.cuda.is_available() False",  # ds_report
    "[rank0]: torch 2.4.0+cpu, CUDA available: False, backend=gloo",
])
def test_more_printed_forms(text):
    assert _observed(text) == ["cpu-build-cuda-unavailable"]


def test_an_observation_beside_a_failure_nothing_explains_is_only_possible():
    text = ("Traceback (most recent call last):\n  File \"train.py\", line 9, in <module>\n"
            "KeyError: 'label'\n\n" + CPU_MACHINE.replace("GPU models and configuration: No CUDA",
                                                            "GPU models and configuration: GPU 0: NVIDIA GeForce RTX 3090"))
    assert _top(text) == ("torch-not-compiled-with-cuda", "possible")



def test_rules_naming_a_known_error_do_not_read_prints():
    # dist, tune and check name the known error in a rank's or a child's output with best_match:
    # a banner printing the build is no error of that output.
    from torchdoctor.match.matcher import best_match
    text = "[rank0]: torch 2.4.0+cpu, CUDA available: False, backend=gloo"
    assert _top(text) == ("torch-not-compiled-with-cuda", "high")
    assert best_match(text) is None


@pytest.mark.parametrize("text", [
    "2.4.0+cpu\nNo GPU found, running on CPU",
    "torch 2.4.0+cpu\nno GPUs available",
    "2.4.0+cpu\nUnsloth: No NVIDIA GPU found?",
])
def test_a_complaint_that_no_gpu_was_found_is_no_machine_without_one(text):
    assert _observed(text) == ["cpu-build-cuda-unavailable"]


# What a second reading of the guarded version found.
@pytest.mark.parametrize("lead", [
    "torch says no GPU found even though I have an RTX 3090",
    "Windows 11, RTX 4060\nno GPU detected",
    "There is no GPU usage in task manager",
    "Expected: True",
    "Works on my macOS laptop, not on the Windows PC",
    "I installed torch 2.4.0+cpu but cuda is not available. My env:",
])
def test_genuine_reports_are_not_vetoed(lead):
    assert _observed(lead + "\ntorch 2.4.0+cpu\ntorch.cuda.is_available() False") == ["cpu-build-cuda-unavailable"]


@pytest.mark.parametrize("text", [
    "2.4.0+cpu\ntorch.backends.mps.is_available()\nFalse",
    "2.4.0+cpu\ntorch.distributed.is_available()\nFalse",
    "2.4.0+cpu\ntorch.backends.cudnn.enabled\nFalse",
    "2.4.0+cu121\nuse_cpu = torch.cuda.is_available() == False",
])
def test_another_calls_value_is_not_cudas(text):
    assert _observed(text) == []


def test_prose_about_the_call_is_read_and_code_is_not():
    assert _observed("2.4.0+cpu\nif i run torch.cuda.is_available() it returns False") == ["cpu-build-cuda-unavailable"]
    assert _observed("2.4.0+cpu\ntorch.cuda.is_available() returns False, full output below:") == \
        ["cpu-build-cuda-unavailable"]


@pytest.mark.parametrize("failure", [
    "ValueError: CUDA is not available on this machine",
    "RuntimeError: cuda is not available, aborting",
])
def test_the_unavailability_as_the_failure_keeps_the_diagnosis(failure):
    assert _top("torch 2.4.0+cpu\n" + failure) == ("torch-not-compiled-with-cuda", "high")


def test_the_build_nearest_before_the_unavailability_is_paired():
    text = ("2.4.0+cu121\nTrue\nafter pip install -U torch:\nprint(torch.version.cuda)\nNone\n"
            "torch.cuda.is_available() False")
    assert _read(text).pair[1] == "cpu"


@pytest.mark.parametrize("text", [
    "- PyTorch: `2.11.0+cpu`\n- GPU: NVIDIA GeForce RTX 5080 (16 GB)\n- NVIDIA driver: `580.88`",
    "torch 2.4.0+cpu\nGPU: RTX 4090",
])
def test_a_cpu_build_printed_beside_a_named_nvidia_gpu(text):
    assert _observed(text) == ["cpu-build-cuda-unavailable"]
    # Nothing printed CUDA unavailable: a possibility, not a diagnosis.
    assert _top(text) == ("torch-not-compiled-with-cuda", "possible")


@pytest.mark.parametrize("text", [
    "torch 2.4.0+cpu",                                   # no GPU in view: a CPU machine's torch
    "torch 2.4.0+cu121\nGPU: RTX 4090",                  # a CUDA build beside the GPU: nothing printed wrong
    "CUDA used to build PyTorch: None\nGPU: RTX 4090",    # a weak reading (XPU and ROCm print it too)
    "torch 2.4.0+cpu\nGPU: RTX 4090\ntorch.cuda.is_available() True",
])
def test_no_cpu_build_beside_a_gpu_observation(text):
    assert _observed(text) == []


@pytest.mark.parametrize("text", [
    # the banners of Ultralytics and YOLOv5 (ultralytics/ultralytics#1495, ultralytics/yolov5#7639), in pastes that
    # ask for the GPU
    "Ultralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cpu CPU\nin window10, latest YOLOv8 can't use GPU for training",
    "YOLOv5 \U0001f680 2022-4-22 torch 1.11.0+cpu CPU\nyolo is using only Cpu instead of my gpu (gtx 1080)",
    "python train.py --device 0\nUltralytics YOLOv8.0.196  Python-3.10.5 torch-2.1.2+cpu CPU (AMD Ryzen 5 5600X)",
])
def test_a_banner_that_chose_the_cpu_with_a_cpu_build(text):
    assert _observed(text) == ["cpu-build-cuda-unavailable"]
    # a diagnosis where the paste also says the GPU is not used ("can't use GPU"), else a possibility
    assert _top(text)[0] == "torch-not-compiled-with-cuda"


@pytest.mark.parametrize("text", [
    "Ultralytics YOLOv8.2.92 Python-3.11.9 torch-2.4.1+cu121 CPU (Intel Xeon Gold 6133 2.50GHz)",  # a CUDA build
    "Ultralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cu118 CUDA:0 (NVIDIA GeForce RTX 3070, 8192MiB)",
    "This laptop has no GPU.\nUltralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cpu CPU",  # the CPU is all there is
    "pip install torch-2.0.0+cpu CPU wheels",  # an install line, not a banner
    # the banner alone, or beside another failure: every GPU-less user prints it
    "Ultralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cpu CPU",
    "Ultralytics YOLOv8.0.54 Python-3.10.6 torch-2.0.0+cpu CPU\nKeyError: 'names'",
])
def test_no_banner_observation(text):
    assert _observed(text) == []



@pytest.mark.parametrize("text", [
    # a fix log: the +cpu build was uninstalled
    "NVIDIA GeForce RTX 4070, driver 550\nFound existing installation: torch 2.4.0+cpu\nUninstalling torch-2.4.0+cpu:\n"
    "  Successfully uninstalled torch-2.4.0+cpu\nSuccessfully installed torch-2.4.0\nNow it works, thanks!",
    # a README's install options
    "GPU (RTX 3090): pip install torch==2.4.0+cu121 --index-url https://download.pytorch.org/whl/cu121\n"
    "CPU: pip install torch==2.4.0+cpu --index-url https://download.pytorch.org/whl/cpu",
    "RUN pip install torch==2.4.0+cpu --index-url https://download.pytorch.org/whl/cpu\nhost: NVIDIA A100",
    "Downloading torch-2.4.0+cpu-cp311-cp311-win_amd64.whl\nGPU: RTX 4090\nERROR: [WinError 5] Access is denied",
])
def test_an_install_log_beside_a_gpu_is_no_observation(text):
    assert _observed(text) == []


@pytest.mark.parametrize("text", [
    "My GPU is not getting used in processing, its using CPU only.\n\nHow to set it up to use GPU as well.",
    "No GPU found. Conversion on CPU is very slow.",
    "the app runs on the CPU instead of the GPU, any idea?",
    "显卡不可用，cuda 不可用",
    "Why is my PyTorch's CUDA false after installing?\nafter installing it says GPU unavailable!",
])
def test_a_short_paste_saying_the_gpu_is_unused_is_cuda_not_available_possibly(text):
    assert _observed(text) == ["cuda-said-unavailable"]
    assert _top(text) == ("cuda-not-available", "possible")


@pytest.mark.parametrize("text", [
    # the machine has no GPU to use
    "I have no GPU, so it is using CPU only. Is that fine?",
    "Running on an M1 Mac: no GPU found, using CPU only.",
    # the GPU works in the end
    "GPU is not used at first\nafter reinstalling, torch.cuda.is_available() returns True",
    # a question about another thing
    "How do I change the batch size?",
    # prose that is no report: a README's condition, code, a wish, a how-to, partial use
    "If no GPU is found, the script falls back to CPU.",
    'print("No GPU found, using CPU only")',
    "allow using CPU only mode (GPU not needed)",
    "How do I force using CPU instead of GPU?",
    "GPU is not used fully (50% utilization)",
    # a failure in the paste is its question; another vendor's GPU is not CUDA's
    "No GPU found, using CPU\nTraceback (most recent call last):\n  File \"x.py\", line 1\nKeyError: 'state_dict'",
    "I use an AMD RX 7900 with ROCm and no GPU found",
    # a setting, a flag's value, a config dump or a test's skip reason, not a report
    "use_gpu false",
    "my_cuda unavailable_devices = []",
    "Running with --cuda false\nloss: nan",
    "Config: cuda False",
    "test_foo SKIPPED (CUDA unavailable)",
])
def test_no_said_observation(text):
    assert _observed(text) == []


def test_a_long_log_saying_no_gpu_once_is_no_question():
    log = "\n".join("step %d loss 0.%d" % (i, i) for i in range(60)) + "\nNo GPU found, using CPU"
    assert _observed(log) == []


def test_a_build_printed_keeps_the_paired_reading():
    text = "torch 2.4.0+cpu\nMy GPU is not getting used, it's using CPU only"
    assert _observed(text) == ["cpu-build-cuda-unavailable"]


def test_a_companions_version_is_no_torch_build_beside_the_words():
    # torchaudio's version is not torch's: only the words remain, which say no more than the symptom
    assert _observed("torchaudio:\n2.4.0+cpu\ncuda is not available") == ["cuda-said-unavailable"]
