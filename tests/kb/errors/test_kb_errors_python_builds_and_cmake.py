"""A Python compiled without one of its C extension modules, DeepSpeed's op probe printing linker
errors at import, and torch's CMake configuration refusing the CUDA toolkit it found."""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

from hook_facts import explain, facts, hits as ids

STDLIB = "python-built-without-stdlib-extension"
LZMA = ('  File "/srv/venv/lib/python3.11/site-packages/torchvision/datasets/utils.py", line 4, in <module>\n'
        "    import bz2\n"
        '  File "/usr/local/lib/python3.11/bz2.py", line 17, in <module>\n'
        "    from _bz2 import BZ2Compressor, BZ2Decompressor\n"
        "ModuleNotFoundError: No module named '_bz2'")


@pytest.mark.parametrize("text", [
    LZMA,
    "ModuleNotFoundError: No module named '_ctypes'",
    "UserWarning: Could not import the lzma module. Your installed Python is incomplete. Attempting to use lzma "
    "compression will result in a RuntimeError.",
    "WARNING: The Python sqlite3 extension was not compiled. Missing the SQLite3 lib?",
])
def test_a_python_built_without_the_module_is_named(text):
    assert ids(text)[:1] == [(STDLIB, HIGH)], ids(text)


@pytest.mark.parametrize("text", ["No module named 'lzma_ext'", "No module named '_lzma_cffi'", "No module named 'ctypes_ext'"])
def test_other_modules_with_the_same_letters_are_not_it(text):
    assert STDLIB not in [i for i, _ in ids(text)]


def _python(base, system="Linux", distro="Ubuntu 22.04"):
    return facts(system=system, python={"base_prefix": base}, os={"system": system, "distro": distro})


def test_a_pyenv_python_is_rebuilt_by_pyenv_after_the_headers():
    e = explain(LZMA, STDLIB, _python("/home/u/.pyenv/versions/3.11.9"))
    assert e.fix.commands[:2] == ["sudo apt-get install -y libbz2-dev", "pyenv install -f 3.11.9"], e.fix.commands
    assert e.fix.commands[-1].endswith("-c \"import bz2\""), e.fix.commands


def test_a_source_build_on_a_dnf_distribution_gets_dnfs_package():
    e = explain("No module named '_ctypes'", STDLIB, _python("/usr/local", distro="Rocky Linux 9.3"))
    assert e.fix.commands[0] == "sudo dnf install -y libffi-devel", e.fix.commands
    assert "pyenv" not in " ".join(e.fix.commands)
    assert "make altinstall" in e.fix.summary


def test_macos_names_brews_package_where_it_has_one_and_none_where_the_sdk_brings_it():
    lz = explain("No module named '_lzma'", STDLIB, _python("/Users/u/.asdf/installs/python/3.12.4", system="Darwin"))
    assert lz.fix.commands[:3] == ["brew install xz", "asdf uninstall python 3.12.4", "asdf install python 3.12.4"]
    bz = explain("No module named '_bz2'", STDLIB, _python("/opt/pyenv/versions/3.12.4", system="Darwin"))
    assert bz.fix.commands[0] == "pyenv install -f 3.12.4", bz.fix.commands  # any PYENV_ROOT


@pytest.mark.parametrize("base, system", [("C:\\Python311", "Windows"),
                                          ("/nix/store/abc123-python3-3.11.9", "Linux"),
                                          ("/opt/spack/opt/spack/linux-x86_64/gcc-12/python-3.11.9-abcdef", "Linux")])
def test_windows_and_recipe_built_pythons_keep_the_entrys_words(base, system):
    e = explain("No module named '_sqlite3'", STDLIB, _python(base, system=system, distro=""))
    assert not any(c.startswith(("sudo", "pyenv")) for c in e.fix.commands), e.fix.commands


# ------------------------------------------------------------------ DeepSpeed's op probe ----
@pytest.mark.parametrize("text, confidence", [
    ("test.c\nLINK : fatal error LNK1181: cannot open input file 'aio.lib'\ntest.c\nLINK : fatal error LNK1181: cannot "
     "open input file 'cufile.lib'", HIGH),
    ("test.c\nLINK : fatal error LNK1181: 无法打开输入文件“cufile.lib”", HIGH),
    ("/opt/conda/compiler_compat/ld: /usr/local/cuda/lib64/libcufile.so: undefined reference to `dlopen@GLIBC_2.2.5'",
     POSSIBLE),
])
def test_deepspeeds_probe_lines_are_its_probe(text, confidence):
    assert ids(text)[:1] == [("deepspeed-op-probe-linker-noise", confidence)], ids(text)


def test_deepspeeds_linux_build_failing_without_libaio_is_not_called_noise():
    text = ("[WARNING]  async_io requires the dev libaio .so object and headers but these were not found.\n"
            "AssertionError: Unable to pre-compile async_io")
    assert "deepspeed-op-probe-linker-noise" not in [i for i, _ in ids(text)]


def test_another_librarys_link_failure_is_not_deepspeeds_probe():
    text = "LINK : fatal error LNK1181: cannot open input file 'python311.lib'"
    assert "deepspeed-op-probe-linker-noise" not in [i for i, _ in ids(text)]


def test_a_real_error_after_the_probe_lines_comes_first():
    text = ("test.c\nLINK : fatal error LNK1181: cannot open input file 'aio.lib'\n"
            "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    import torch\n"
            "OSError: [WinError 126] The specified module could not be found. Error loading \"C:\\venv\\lib\\"
            "site-packages\\torch\\lib\\c10.dll\" or one of its dependencies.")
    assert ids(text)[0][0] != "deepspeed-op-probe-linker-noise", ids(text)


# ------------------------------------------------------------------ torch's cuda.cmake ----
@pytest.mark.parametrize("text, want", [
    ("CMake Error at /venv/lib/python3.11/site-packages/torch/share/cmake/Caffe2/public/cuda.cmake:74 (message):\n"
     "  PyTorch requires CUDA 12.1 or above.", "torch-cmake-cuda-too-old"),
    ("CMake Error at libtorch/share/cmake/Caffe2/public/cuda.cmake:207 (message):\n  PyTorch requires cuDNN 8.1 and above.",
     "torch-cmake-cuda-too-old"),
    ("CMake Error at cuda.cmake:65 (message):\n  Found two conflicting CUDA versions:\n\n  V12.4.131 in "
     "'/usr/local/cuda-12.4/include' and\n\n  V11.8.89 in '/usr/include'", "torch-cmake-two-cuda-toolkits"),
    ("  FindCUDA says CUDA version is 11.8 (usually determined by nvcc), but the CUDA\n  headers say the version is "
     "12.2.  This often occurs when you set both", "torch-cmake-two-cuda-toolkits"),
])
def test_torchs_cmake_refusals_are_named(text, want):
    assert ids(text)[:1] == [(want, HIGH)], ids(text)


def test_a_too_old_toolkit_is_told_torchs_cuda():
    e = explain("PyTorch requires CUDA 12.1 or above.", "torch-cmake-cuda-too-old",
                facts(torch="2.13.0+cu128", toolkit={"nvcc": "11.8", "nvcc_path": "/usr/bin/nvcc"}))
    # FindCUDA does not read CUDA_HOME: the toolkit is named to CMake, from an emptied build folder
    assert e.fix.commands == ["rm -f CMakeCache.txt", "cmake -DCUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda-12.8 "
                              "-DCMAKE_CUDA_COMPILER=/usr/local/cuda-12.8/bin/nvcc "
                              "-DCMAKE_PREFIX_PATH=/home/u/venv/lib/python3.11/site-packages/torch/share/cmake .."], \
        e.fix.commands  # the emptied cache no longer holds where torch's package is
    assert "nvcc 11.8 at /usr/bin/nvcc" in e.notes


def test_windows_names_the_toolkit_to_visual_studios_generator():
    e = explain("PyTorch requires CUDA 12.1 or above.", "torch-cmake-cuda-too-old",
                facts(torch="2.13.0+cu128", system="Windows"))
    assert e.fix.commands[-1] == ('cmake -T cuda="C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.8" '
                                  '-DCUDA_TOOLKIT_ROOT_DIR="C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v12.8" '
                                  '-DCMAKE_PREFIX_PATH="/home/u/venv/lib/python3.11/site-packages/torch/share/cmake" ..')


def test_a_cudnn_refusal_gets_no_cuda_toolkit_advice():
    e = explain("PyTorch requires cuDNN 8.1 and above.", "torch-cmake-cuda-too-old",
                facts(torch="2.13.0+cu128", toolkit={"nvcc": "12.8"}))
    assert not any("CUDA_TOOLKIT_ROOT_DIR=/usr/local/cuda-12.8" in c for c in e.fix.commands), e.fix.commands


def test_another_packages_targets_file_is_said_in_cmakes_words_and_gets_no_torch_reinstall():
    # every exported package's targets file checks its files the same way
    text = ("CMake Error at /usr/lib/cmake/Qt5Core/Qt5CoreTargets.cmake:80 (message):\n  The imported target "
            "\"Qt5::Core\" references the file\n\n     \"/usr/lib/libQt5Core.so.5.15.2\"\n\n  but this file does not exist.")
    found = match_text(text)
    assert (found[0].id, found[0].confidence) == ("torch-cmake-imported-file-missing", POSSIBLE) and found[0].neutral
    e = explain_match(found[0], facts(torch="2.13.0+cpu"))
    assert not e.tailored, e.fix.commands  # the entry's words under "if the program is PyTorch", no reinstall here


@pytest.mark.parametrize("text", [
    # TorchConfig looks for kineto, which the pip wheels link into libtorch_cpu: every configure prints it
    "CMake Warning at /venv/lib/python3.11/site-packages/torch/share/cmake/Torch/TorchConfig.cmake:22 (message):\n"
    "  library kineto not found.\nCall Stack (most recent call first):\n"
    "  /venv/lib/python3.11/site-packages/torch/share/cmake/Torch/TorchConfig.cmake:119 (append_torchlib_if_found)",
])
def test_other_packages_targets_and_the_kineto_notice_are_not_a_damaged_torch(text):
    assert "torch-cmake-imported-file-missing" not in [i for i, _ in ids(text)], ids(text)


@pytest.mark.parametrize("text, confidence", [
    # CMake's own FindCUDA prints the old wording for any project
    ("CMake Error at /usr/share/cmake-3.16/Modules/FindCUDA/select_compute_arch.cmake:215 (message):\n  Unknown CUDA "
     "Architecture Name 8.6 in CUDA_SELECT_NVCC_ARCH_FLAGS", POSSIBLE),
    ("Found Unknown CUDA Architecture Name in CUDA_SELECT_NVCC_ARCH_FLAGS: Rubin+", HIGH),
])
def test_the_arch_name_words_are_torchs_only_in_its_own_wording(text, confidence):
    assert ids(text)[:1] == [("torch-cmake-unknown-cuda-arch-name", confidence)], ids(text)


def test_another_packages_target_in_a_libtorch_projects_log_gets_no_torch_reinstall():
    text = ("-- Found Torch: /venv/lib/python3.11/site-packages/torch/lib/libtorch.so\n"
            "CMake Error at /usr/lib/x86_64-linux-gnu/cmake/opencv4/OpenCVModules.cmake:90 (message):\n"
            "  The imported target \"opencv_core\" references the file\n\n     \"/usr/lib/libopencv_core.so.4.5d\"\n")
    found = match_text(text)
    assert (found[0].id, found[0].confidence) == ("torch-cmake-imported-file-missing", POSSIBLE), found
    assert not explain_match(found[0], facts(torch="2.13.0+cpu")).tailored


def test_torchs_own_copy_of_the_old_arch_wording_is_torchs():
    text = ("CMake Error at /venv/lib/python3.10/site-packages/torch/share/cmake/Caffe2/Modules_CUDA_fix/upstream/FindCUDA/"
            "select_compute_arch.cmake:227 (message):\n  Unknown CUDA Architecture Name 9.0a in CUDA_SELECT_NVCC_ARCH_FLAGS")
    assert ids(text)[:1] == [("torch-cmake-unknown-cuda-arch-name", HIGH)], ids(text)


def test_the_cuda_not_found_warning_does_not_outrank_the_error_after_it():
    text = ("CMake Warning at cmake/public/cuda.cmake:40 (message):\n  PyTorch: CUDA cannot be found.  Depending on "
            "whether you are building\n  PyTorch or a PyTorch dependent library, the next warning / error will give "
            "you\n  more info.\nModuleNotFoundError: No module named 'torchgen'")
    assert ids(text)[0] != ("torch-cmake-cuda-not-found", HIGH), ids(text)


@pytest.mark.slow
def test_a_torch_missing_a_file_its_cmake_package_names_is_healed_by_the_printed_reinstall(tmp_path):
    # A real torch (this machine's pip) and PyPI's cmake; find_package(Torch) configures, then, with
    # libc10.so gone, fails with CMake's own words; the printed commands, run as printed, heal it.
    import os
    import shlex
    import shutil
    import subprocess

    from torchdoctor.gather.light import light_facts

    from hook_facts import tailored_as, venv_with

    py, run, env = venv_with(tmp_path, "torch==2.13.0", "cmake")
    site = run(py, "-c", "import torch, os; print(os.path.dirname(torch.__file__))").stdout.strip()
    project, build = tmp_path / "project", tmp_path / "build"
    project.mkdir()
    (project / "CMakeLists.txt").write_text("cmake_minimum_required(VERSION 3.18)\nproject(t NONE)\n"
                                            "find_package(Torch REQUIRED)\n")
    cmake = os.path.join(os.path.dirname(py), "cmake")

    def configure():
        shutil.rmtree(str(build), ignore_errors=True)
        return run(cmake, "-S", str(project), "-B", str(build), "-DCMAKE_PREFIX_PATH=%s/share/cmake" % site)

    assert configure().returncode == 0
    os.remove(os.path.join(site, "lib", "libc10.so"))
    failed = configure()
    assert failed.returncode != 0
    m, t = tailored_as("torch-cmake-imported-file-missing", failed.stdout + failed.stderr, light_facts(py))
    assert m.confidence == HIGH and t.commands, (failed.stderr[-600:], t)
    for command in t.commands:
        done = subprocess.run(shlex.split(command), capture_output=True, text=True, timeout=900, env=env)
        assert done.returncode == 0, (command, done.stderr[-600:])
    healed = configure()
    assert healed.returncode == 0, healed.stderr[-600:]


@pytest.mark.parametrize("text, want", [
    ("CMake Warning at /venv/lib/python3.12/site-packages/torch/share/cmake/Caffe2/public/cuda.cmake:202 (message):\n"
     "  Cannot find cuDNN library.  Turning the option off", "torch-cmake-cuda-library-not-found"),
    ("CMake Error at cmake/public/LoadHIP.cmake:70 (message):\n  No GPU arch specified for ROCm build.  Please use "
     "PYTORCH_ROCM_ARCH\n  environment variable to specify GPU archs to build for.", "torch-cmake-rocm-build-config"),
    ("CMake Error at cmake/public/LoadHIP.cmake:12 (message):\n  ROCM_PATH environment variable is set to /opt/rocm-6.2 "
     "but does not exist.", "torch-cmake-rocm-build-config"),
])
def test_torchs_cmake_library_and_rocm_words_are_named(text, want):
    assert ids(text)[:1] == [(want, HIGH)], ids(text)


@pytest.mark.parametrize("text, entry", [
    # another project's own words for a library it could not find, and a ROCm GPU list that was read
    ("CMake Warning at CMakeLists.txt:40 (message):\n  Cannot find OpenBLAS library, turning BLAS off",
     "torch-cmake-cuda-library-not-found"),
    ("-- Building PyTorch for GPU arch: gfx90a;gfx942", "torch-cmake-rocm-build-config"),
    # ColossalAI's other modules are the installed release's, not its kernels
    ("ModuleNotFoundError: No module named 'colossalai.nn.parallel'", "cuda-extension-package-not-built"),
])
def test_near_misses_stay_quiet(text, entry):
    assert entry not in [i for i, _ in ids(text)], ids(text)
