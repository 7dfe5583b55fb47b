"""Wheels that exist for some platforms only: NVIDIA's CUDA libraries as pip packages, asked for
on a platform NVIDIA publishes no file for. The lines are pip's, Poetry's and uv's formats built
for the test; the heal test makes pip's real message with this machine's configuration."""

import os
import shlex
import subprocess
import sys
import venv

import pytest

from torchdoctor.areas.registry import all_hooks as hooks

from hook_facts import facts, top

ID = "nvidia-cuda-wheel-no-platform"


def tailored(text, f):
    m = top(text)
    assert m is not None and m.id == ID, m and m.id
    return hooks()[m.entry.tailor](m, f)


@pytest.mark.parametrize("text,pkg,ver", [
    ("  - Installing nvidia-cudnn-cu11 (8.5.0.96): Failed\n\n  RuntimeError\n\n"
     "  Unable to find installation candidates for nvidia-cudnn-cu11 (8.5.0.96)", "nvidia-cudnn-cu11", "8.5.0.96"),
    ("ERROR: Could not find a version that satisfies the requirement nvidia-nccl-cu12==2.21.5 (from versions: "
     "0.0.1.dev5)\nERROR: No matching distribution found for nvidia-nccl-cu12==2.21.5", "nvidia-nccl-cu12", "2.21.5"),
    ("      and nvidia-cuda-runtime-cu12==12.4.127 has no wheels with a matching platform tag (e.g., "
     "`macosx_14_0_arm64`), we can conclude that", "nvidia-cuda-runtime-cu12", "12.4.127"),
    # CUDA 13's packages drop the -cuXX suffix
    ("      and nvidia-cuda-cccl>=13.1.115 has no wheels with a matching platform tag (e.g., `macosx_15_0_arm64`)",
     "nvidia-cuda-cccl", "13.1.115"),
])
def test_nvidias_cuda_wheels_missing_for_the_platform_name_the_package(text, pkg, ver):
    m = top(text)
    assert m.id == ID and m.groups["pkg"] == pkg and m.groups["ver"] == ver


@pytest.mark.parametrize("text", [
    # NVIDIA's other pip packages: an index helper, NVML's bindings, DALI, TensorRT
    "ERROR: No matching distribution found for nvidia-pyindex",
    "ERROR: No matching distribution found for nvidia-ml-py==12.535.77",
    "ERROR: No matching distribution found for nvidia-dali-cuda110",
    "ERROR: No matching distribution found for nvidia-tensorrt==8.4.1.5",
    # a torch build's own missing file is another entry's reading
    "ERROR: No matching distribution found for torch==2.4.0+cu121",
    # NVIDIA packages whose names begin like a CUDA library's
    "ERROR: No matching distribution found for nvidia-cudnn-frontend==1.5.1",
    "ERROR: No matching distribution found for nvidia-cublasmp-cu12==0.4.0",
])
def test_nvidias_other_packages_are_not_cuda_library_wheels(text):
    m = top(text)
    assert m is None or m.id != ID


PIP_LINE = "ERROR: No matching distribution found for nvidia-cudnn-cu11==8.5.0.96"


def test_on_a_mac_no_cuda_wheel_exists_and_torch_needs_none():
    t = tailored(PIP_LINE, facts(system="Darwin", machine="arm64"))
    assert "macOS" in t.cause and "nvidia-cudnn-cu11 8.5.0.96" in t.cause
    assert t.commands[0].startswith("grep -viE ") and "triton" in t.commands[0]
    assert t.commands[1:] == ["/home/u/venv/bin/python -m pip install -r requirements-no-nvidia.txt",
                              "/home/u/venv/bin/python -m pip install torch"]


def test_on_windows_the_filter_is_a_windows_command_and_the_installed_torch_is_kept():
    # a CUDA torch is installed: no command of the hook may replace it (with a CPU build, say)
    t = tailored(PIP_LINE, facts(torch="2.4.0+cu121", system="Windows", exe="C:\\venv\\Scripts\\python.exe"))
    assert "8.9.4" in t.cause
    assert t.commands[0].startswith("findstr /V") and len(t.commands) == 2
    assert not any("torch" in c for c in t.commands), t.commands


def test_on_linux_x86_64_the_platform_is_not_the_cause():
    t = tailored(PIP_LINE, facts(os={"system": "Linux", "machine": "x86_64", "libc": "glibc 2.17"}))
    assert "index" in t.cause and "glibc 2.17" in t.cause
    # pip says why it skipped a file only at -vv
    assert t.commands[-1] == ("/home/u/venv/bin/python -m pip download -vv --no-deps -d nvidia-check "
                              "nvidia-cudnn-cu11==8.5.0.96")


def test_poetry_asking_for_torch_1_13_0s_unmarked_pins_locks_a_release_with_markers():
    # torch is not installed while `poetry install` fails: the pin itself says which torch locked it
    text = "  Unable to find installation candidates for nvidia-cublas-cu11 (11.10.3.66)"
    t = tailored(text, facts(system="Darwin", machine="arm64"))
    assert t.commands == ['poetry add "torch>=1.13.1"', "poetry install"]
    t = tailored(text, facts(machine="aarch64"))  # 1.13.1's marker is Linux: 2.1 adds x86_64
    assert t.commands == ['poetry add "torch>=2.1"', "poetry install"]
    t = tailored("  Unable to find installation candidates for nvidia-cublas-cu12 (12.4.5.8)", facts(system="Darwin"))
    assert t.commands == ["poetry remove nvidia-cublas-cu12", "poetry lock", "poetry install"]


def test_a_frozen_requirements_file_on_a_mac_installs_once_the_entrys_filter_ran(tmp_path):
    # A requirements file frozen on a Linux GPU machine (an nvidia-* pin beside the project's own
    # package), installed for macOS arm64 with this machine's real pip configuration: pip finds no
    # file of the pin. explain names the entry on pip's real output; the hook's filter, run as
    # printed, and its pip command (plus the folder that serves the package, as the user's index
    # would, and the macOS platform pip is asked to install for) install the rest.
    sys.path.insert(0, os.path.dirname(__file__))
    from test_kb_errors_fix_heals import _wheel
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    _wheel(str(wheels), "tdmacpkg", "1.0", "packaging")
    # what a Linux freeze also holds that has no macOS file: triton, a +cu torch; and an NVIDIA
    # package that is no CUDA library (kept)
    (tmp_path / "requirements.txt").write_text("nvidia-cudnn-cu11==8.5.0.96\ntriton==3.1.0\ntorch==2.4.0+cu121\n"
                                               "tdmacpkg==1.0\n")
    env = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(str(env))
    py = str(env / "bin" / "python")
    mac = ["--no-deps", "--target", str(tmp_path / "site"), "--platform", "macosx_11_0_arm64",
           "--only-binary=:all:", "--find-links", str(wheels)]
    broken = subprocess.run([py, "-m", "pip", "install", "-r", "requirements.txt"] + mac, capture_output=True,
                            text=True, timeout=600, cwd=str(tmp_path))
    out = broken.stdout + broken.stderr
    assert broken.returncode != 0, out[-1500:]
    m = top(out)
    assert m is not None and m.id == ID, out[-1500:]
    t = hooks()[m.entry.tailor](m, facts(system="Darwin", machine="arm64", exe=py))
    grep, install = t.commands[:2]
    assert subprocess.run(grep, shell=True, cwd=str(tmp_path)).returncode == 0
    healed = subprocess.run(shlex.split(install) + mac, capture_output=True, text=True, timeout=600,
                            cwd=str(tmp_path))
    assert healed.returncode == 0, healed.stderr[-1500:]
    assert (tmp_path / "site" / "tdmacpkg" / "__init__.py").exists()
    assert (tmp_path / "requirements-no-nvidia.txt").read_text() == "tdmacpkg==1.0\n"
    assert (tmp_path / "requirements.txt").read_text().startswith("nvidia-cudnn-cu11")  # the user's file is kept


FBGEMM = ("ERROR: Could not find a version that satisfies the requirement fbgemm-gpu==1.3.0 (from versions: none)\n"
          "ERROR: No matching distribution found for fbgemm-gpu==1.3.0")


def fbgemm(f, text=FBGEMM):
    m = top(text)
    assert m is not None and m.id == "fbgemm-gpu-linux-only", m and m.id
    return hooks()[m.entry.tailor](m, f)


def test_fbgemm_off_linux_x86_64_is_another_os_not_another_version():
    assert fbgemm(facts(system="Windows")).commands == ["wsl --install -d Ubuntu"]
    assert "--platform linux/amd64" in fbgemm(facts(system="Darwin", machine="arm64")).summary
    assert "x86_64 wheels only" in fbgemm(facts(machine="aarch64")).cause


def test_fbgemm_on_linux_x86_64_comes_from_the_installed_torchs_index():
    t = fbgemm(facts(torch="2.4.0+cu121"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install fbgemm-gpu "
                          "--index-url https://download.pytorch.org/whl/cu121"]
    assert "torch 2.4.0" in t.summary
    # a plain torch from PyPI: fbgemm-gpu from PyPI too
    assert fbgemm(facts(torch="2.8.0")).commands == ["/home/u/venv/bin/python -m pip install fbgemm-gpu"]
    assert fbgemm(facts()) is None  # no torch: the entry's own commands


def test_fbgemms_variants_are_read_and_its_namesakes_are_not():
    m = top("ERROR: No matching distribution found for fbgemm-gpu-nightly-cpu")
    assert m.id == "fbgemm-gpu-linux-only" and m.groups["pkg"] == "fbgemm-gpu-nightly-cpu"
    m = top("ERROR: No matching distribution found for fbgemm-gpu-extras")
    assert m is None or m.id != "fbgemm-gpu-linux-only"


@pytest.mark.parametrize("system, want", [
    ("Darwin", "none for macOS: drop nvidia-dali-cuda120"),
    ("Windows", "use the Python version its wheels are tagged for"),
    ("Linux", "pip install --extra-index-url https://pypi.nvidia.com nvidia-dali-cuda120"),
])
def test_nvidias_placeholder_packages_are_told_apart_from_cuda_library_wheels(system, want):
    text = "RuntimeError: Didn't find wheel for nvidia-dali-cuda120 1.46.0"
    t = tailored(text, facts(system=system))
    assert "placeholder" in t.cause and "nvidia-dali-cuda120 1.46.0" in t.cause
    assert want in t.summary + " ".join(t.commands)
