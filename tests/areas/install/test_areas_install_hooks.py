"""Tailoring hooks for install / import / native-library errors
(torchdoctor/areas/install/). Each hook gets a real Match from the
matcher (so its named groups are the ones the patterns really capture) and
hand-built Facts; each is tested once where the facts change the fix and once
where they do not (None: the entry's generic text stands)."""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.areas.registry import all_hooks as hooks
from hook_facts import SITE, explain, facts, tailored_as  # noqa: F401 - other tests take them from here too
from torchdoctor.model.facts import Facts

def match_for(text, entry_id):
    found = [m for m in match_text(text) if m.id == entry_id]
    assert found, "%r did not match %s" % (text, entry_id)
    return found[0]


def run(text, entry_id, f):
    m = match_for(text, entry_id)
    return hooks()[m.entry.tailor](m, f)


# ------------------------------------------------------------------ install ----
def test_not_installed_but_present_here_means_another_interpreter():
    t = run("ModuleNotFoundError: No module named 'torch'", "torch-module-not-found", facts(torch="2.13.0+cpu"))
    assert "another interpreter" in t.cause
    assert t.commands[0].startswith("/home/u/venv/bin/python -c")


def test_not_installed_installs_with_the_target_pip():
    t = run("ModuleNotFoundError: No module named 'torch'", "torch-module-not-found", facts())
    assert t.commands and t.commands[0].startswith("/home/u/venv/bin/python -m pip install torch==")
    assert "--index-url https://download.pytorch.org/whl/cpu" in t.commands[0]  # no driver: CPU build


def test_not_installed_python_too_new():
    t = run("ModuleNotFoundError: No module named 'torch'", "torch-module-not-found", facts(py="3.19.0"))
    assert "No PyTorch release has wheels for Python 3.19" in t.summary
    assert t.commands[0].startswith("python3.1") and t.commands[0].endswith("-m venv .venv")


def test_not_installed_without_python_facts_is_generic():
    assert run("No module named 'torch'", "torch-module-not-found", Facts({})) is None


def test_wrong_package_name_uses_same_hook():
    t = run('Exception: You tried to install "pytorch". The package named for PyTorch is "torch"',
            "pip-install-pytorch-wrong-name", facts())
    assert t.commands[0].startswith("/home/u/venv/bin/python -m pip install torch==")


def test_pip_old_pin_on_new_python():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==1.12.0 "
            "(from versions: 1.13.0, 1.13.1, 2.0.0)")
    t = run(text, "pip-no-matching-distribution-torch", facts(py="3.12.1"))
    assert "torch 1.12.0 has wheels for Python 3.7, 3.8, 3.9, 3.10 only" in t.cause
    assert "Use Python 3.10" in t.summary
    assert t.commands and "torch==" in t.commands[0]


def test_pip_cuda_tag_needs_index_url():
    text = "ERROR: No matching distribution found for torch==2.4.1+cu121"
    t = run(text, "pip-no-matching-distribution-torch", facts(py="3.11.4", system="Windows", exe="C:\\v\\python.exe"))
    assert t.commands == ["C:\\v\\python.exe -m pip install torch==2.4.1 --index-url "
                          "https://download.pytorch.org/whl/cu121"]
    # on Linux the PyPI wheel of 2.4.1 is the cu121 build: drop the tag instead
    t = run(text, "pip-no-matching-distribution-torch", facts(py="3.11.4"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install torch==2.4.1"] and "without the +cu121" in t.summary


def test_pip_cuda_tag_on_macos():
    text = "ERROR: No matching distribution found for torch==2.4.1+cu121"
    t = run(text, "pip-no-matching-distribution-torch", facts(py="3.11.4", system="Darwin", machine="arm64"))
    assert "no CUDA builds of torch for macOS" in t.cause


def test_pip_intel_mac():
    text = "ERROR: No matching distribution found for torch==2.4"
    t = run(text, "pip-no-matching-distribution-torch",
            facts(py="3.11.4", system="Darwin", os={"apple_silicon": False, "rosetta": False}))
    assert "2.2.2" in t.summary and t.commands == ["/home/u/venv/bin/python -m pip install torch==2.2.2"]


def test_pip_32bit_placeholder():
    text = ("ERROR: Could not find a version that satisfies the requirement torch==1.5.1+cpu "
            "(from versions: 0.1.2, 0.1.2.post1, 0.1.2.post2)")
    assert match_text(text)[0].id == "pip-torch-placeholder-only"
    t = run(text, "pip-torch-placeholder-only", facts(bits=32, system="Windows", exe="C:\\Py37-32\\python.exe"))
    assert "32-bit" in t.cause and t.commands == ["py -0p"]


def test_pip_supported_python_without_pin_is_generic():
    text = "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)"
    assert run(text, "pip-no-matching-distribution-torch", facts(py="3.11.2")) is None


def test_pip_python_too_new_without_pin():
    text = "ERROR: Could not find a version that satisfies the requirement torch (from versions: none)"
    t = run(text, "pip-no-matching-distribution-torch", facts(py="3.19.0", system="Windows"))
    assert "No torch release publishes wheels for Python 3.19" in t.cause
    assert t.commands[0].startswith("py -3.")


def test_wheel_for_other_python_and_os():
    text = "torch-1.0.0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform."
    t = run(text, "torch-wheel-not-supported-platform", facts(py="3.11.1", system="Darwin", machine="arm64"))
    assert "Python 3.7" in t.cause and "linux wheel" in t.cause and "built for x86_64" in t.cause


def test_a_companions_wheel_gets_its_own_advice_not_torchs_install_command():
    text = ("ERROR: sageattention-2.2.0+cu128.torch2.11-cp311-cp311-win_amd64.whl is not a supported wheel on "
            "this platform.")
    t = run(text, "torch-wheel-not-supported-platform", facts(py="3.12.9", system="Windows", machine="AMD64"))
    assert "Python 3.11" in t.cause and "Python 3.12" in t.cause
    assert "sageattention wheel built for this interpreter" in t.summary and "cp312" in t.summary
    assert not any("torch" in c for c in t.commands), t.commands


def test_an_abi3_wheel_fits_every_later_python():
    text = "ERROR: sageattention-2.2.0+cu128torch2.8.0-cp39-abi3-win_amd64.whl is not a supported wheel on this platform."
    assert run(text, "torch-wheel-not-supported-platform", facts(py="3.12.1", system="Windows", machine="AMD64")) is None
    t = run(text, "torch-wheel-not-supported-platform", facts(py="3.8.10", system="Windows", machine="AMD64"))
    assert "Python 3.9 or later" in t.cause


def test_wheel_that_matches_is_generic():
    text = "torch-2.4.1-cp311-cp311-manylinux1_x86_64.whl is not a supported wheel on this platform."
    assert run(text, "torch-wheel-not-supported-platform", facts(py="3.11.1")) is None


def test_long_path_store_python():
    exe = ("C:\\Users\\me\\AppData\\Local\\Microsoft\\WindowsApps\\PythonSoftwareFoundation.Python.3.11_qbz5n2kfra8p0"
           "\\python.exe")
    text = ("HINT: This error might have occurred since this system does not have Windows Long Path support enabled. "
            "You can find information on how to enable this at https://pip.pypa.io/warnings/enable-long-paths")
    t = run(text, "windows-long-path-torch-install", facts(system="Windows", exe=exe))
    assert "Microsoft Store Python" in t.cause
    assert run(text, "windows-long-path-torch-install", facts(system="Windows", exe="C:\\Python311\\python.exe")) is None


def test_long_path_reinstalls_the_build_named_in_the_dist_info_path():
    # pip was writing torch 2.8.0+cu128 (its dist-info folder says so): the reinstall keeps that
    # build, where a plain `pip install torch` would take PyPI's CPU wheel on Windows.
    text = ("ERROR: Could not install packages due to an OSError: [WinError 206] The filename or extension is too "
            "long: 'C:\\\\venvs\\\\a\\\\Lib\\\\site-packages\\\\torch-2.8.0+cu128.dist-info\\\\licenses'")
    t = run(text, "windows-long-path-torch-install", facts(system="Windows", exe="C:\\Python311\\python.exe"))
    assert t is not None and t.commands[0].startswith("New-ItemProperty")
    assert any("torch==2.8.0" in c and "download.pytorch.org/whl/cu128" in c for c in t.commands), t.commands


# ------------------------------------------------------------------- shadowing ----
def test_shadowed_path_from_python313_message():
    text = ("AttributeError: module 'torch' has no attribute 'rand' (consider renaming '/home/me/proj/torch.py' "
            "if it has the same name as a library you intended to import)")
    t = run(text, "torch-shadowed-missing-core-attribute", facts())
    assert t.commands == ["mv /home/me/proj/torch.py /home/me/proj/my_torch.py", "rm -rf /home/me/proj/__pycache__"]


def test_shadowed_from_probe_candidates_windows():
    f = facts(system="Windows", torch_location={"candidates": [
        {"path": "C:\\work\\torch.py", "kind": "module", "sys_path_entry": ""},
        {"path": SITE + "/torch", "kind": "package", "sys_path_entry": SITE}]})
    t = run("AttributeError: partially initialized module 'torch' has no attribute 'cuda' (most likely due to a "
            "circular import)", "torch-partially-initialized-circular-import", f)
    assert t.commands[0] == 'ren "C:\\work\\torch.py" "my_torch.py"'


def test_shadowed_leftover_namespace_dir():
    f = facts(torch_location={"candidates": [{"path": SITE + "/torch", "kind": "namespace-dir",
                                              "sys_path_entry": SITE}]})
    t = run("AttributeError: module 'torch' has no attribute 'Tensor'", "torch-shadowed-missing-core-attribute", f)
    assert t.commands[0] == "rm -rf %s/torch" % SITE


def test_shadowed_without_location_is_generic():
    f = facts(torch="2.13.0", torch_location={"candidates": [{"path": SITE + "/torch", "kind": "package",
                                                              "sys_path_entry": SITE}]})
    assert run("AttributeError: module 'torch' has no attribute 'Tensor'",
               "torch-shadowed-missing-core-attribute", f) is None


def test_partially_initialized_version_on_torch_24():
    text = ("AttributeError: partially initialized module 'torch' has no attribute 'version' "
            "(most likely due to a circular import)")
    t = run(text, "torch-partially-initialized-circular-import", facts(torch="2.4.0+cu121"))
    assert "134019" in t.cause


def test_c_module_missing_uses_probe_candidate():
    f = facts(torch_location={"candidates": [{"path": "/src/pytorch/torch", "kind": "package",
                                              "sys_path_entry": ""}]})
    t = run("ModuleNotFoundError: No module named 'torch._C'", "torch-c-module-not-found", f)
    assert t.commands[0] == "mv /src/pytorch/torch /src/pytorch/my_torch"


def test_reinstall_keeps_version_and_variant():
    t = run("ImportError: Failed to load PyTorch C extensions:", "torch-c-extensions-failed-to-load",
            facts(torch="2.4.1+cu121", system="Windows", exe="C:\\v\\python.exe"))
    assert t.commands == ["C:\\v\\python.exe -m pip install --force-reinstall --no-cache-dir torch==2.4.1 "
                          "--index-url https://download.pytorch.org/whl/cu121"]
    assert run("ImportError: Failed to load PyTorch C extensions:", "torch-c-extensions-failed-to-load",
               Facts({})) is None


# ------------------------------------------------------------------- crashes ----
def test_illegal_instruction_pi_on_240():
    t = run(">>> import torch\nIllegal instruction", "torch-import-illegal-instruction",
            facts(torch="2.4.0", machine="aarch64"))
    assert "2.4.1" in t.summary and "torch==2.4.1" in t.commands[0]


@pytest.mark.parametrize("jetson", [True, False])
def test_illegal_instruction_with_numpy_1195_on_arm_names_openblas_core_type(jetson):
    f = facts(torch="1.10.0", machine="aarch64",
              os={"system": "Linux", "release": "4.9.253-tegra" if jetson else "5.15.0-1034-raspi"},
              packages={"numpy": {"version": "1.19.5"}})
    t = run(">>> import torch\nIllegal instruction (core dumped)", "torch-import-illegal-instruction", f)
    assert "OpenBLAS" in t.cause and t.commands[0] == "export OPENBLAS_CORETYPE=ARMV8"
    assert t.commands[1].endswith("pip install numpy==1.19.4")
    assert ("Jetson" in " ".join(t.notes)) is jetson
    other = run(">>> import torch\nIllegal instruction", "torch-import-illegal-instruction",
                facts(torch="2.4.0", machine="aarch64",
                      packages={"numpy": {"version": "1.26.4"}}))
    assert "OPENBLAS" not in " ".join(other.commands) and "2.4.1" in other.summary


def test_illegal_instruction_x86_without_avx2():
    t = run("Illegal instruction (core dumped)", "torch-import-illegal-instruction",
            facts(torch="2.13.0", cpu={"flags": ["sse4_2", "avx"], "model": "Xeon E5-2640"}))
    assert "avx2" in t.cause and "avx " not in t.cause.replace("avx2", "")


def test_illegal_instruction_without_cpu_facts_is_generic():
    assert run("Illegal instruction (core dumped)", "torch-import-illegal-instruction", facts(torch="2.13.0")) is None


def test_segfault_mentions_ld_library_path():
    f = facts(torch="2.13.0+cpu", env={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"})
    t = run('$ python -c "import torch"\nSegmentation fault (core dumped)', "torch-import-segfault", f)
    assert "LD_LIBRARY_PATH" in t.cause
    assert any(c.startswith("env -u LD_LIBRARY_PATH") for c in t.commands)
    assert run(">>> import torch\nSegmentation fault (core dumped)", "torch-import-segfault", Facts({})) is None


def test_macos_rosetta_python():
    text = ("OSError(\"dlopen(/x/torch/lib/libtorch_global_deps.dylib, 0x000A): tried: '/x/torch/lib/"
            "libtorch_global_deps.dylib' (mach-o file, but is an incompatible architecture (have (arm64), need "
            "(x86_64h)))\")")
    t = run(text, "macos-torch-incompatible-architecture",
            facts(system="Darwin", os={"apple_silicon": True, "rosetta": True}))
    assert "Rosetta" in t.cause
    t2 = run(text, "macos-torch-incompatible-architecture",
             facts(system="Darwin", os={"apple_silicon": False, "rosetta": False}))
    assert "torch==2.2.2" in t2.commands[0]
    assert run(text, "macos-torch-incompatible-architecture", facts(system="Darwin")) is None


def test_mujocos_rosetta_check_is_the_same_x86_python():
    # MuJoCo refuses before torch's libraries load; its message names no architectures for the hook to
    # compare, so the entry's own fix (a native arm64 Python) stands
    text = ("gymnasium.error.DependencyNotInstalled: You are running an x86_64 build of Python on an Apple Silicon "
            "machine. This is not supported by MuJoCo. Please install and run a native, arm64 build of Python.")
    assert run(text, "macos-torch-incompatible-architecture", facts(system="Darwin")) is None


# ------------------------------------------------------------------- Windows ----
FBGEMM = ('OSError: [WinError 126] The specified module could not be found. Error loading '
          '"C:\\v\\Lib\\site-packages\\torch\\lib\\fbgemm.dll" or one of its dependencies.')


def test_fbgemm_on_240_upgrades_same_variant():
    f = facts(torch="2.4.0+cu121", system="Windows", exe="C:\\v\\python.exe",
              packages={"torchvision": {"version": "0.19.0+cu121"}})
    t = run(FBGEMM, "windows-fbgemm-dll-missing-libomp", f)
    assert t.commands == ["C:\\v\\python.exe -m pip install torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1 "
                          "--index-url https://download.pytorch.org/whl/cu121"]


def test_windows_hook_stays_out_on_linux():
    assert run(FBGEMM, "windows-fbgemm-dll-missing-libomp", facts(torch="2.4.0+cu121")) is None


def test_dll_init_1114_on_new_torch():
    text = ('OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed. Error loading '
            '"C:\\v\\Lib\\site-packages\\torch\\lib\\c10.dll" or one of its dependencies.')
    t = run(text, "windows-dll-init-failed-1114", facts(torch="2.9.0+cpu", system="Windows", exe="C:\\v\\python.exe"))
    assert "14.40" in t.cause and t.commands[0].startswith("https://aka.ms/")
    t2 = run(text, "windows-dll-init-failed-1114", facts(torch="2.8.0+cpu", system="Windows", exe="C:\\v\\python.exe"))
    assert t2.cause is None and "torch==2.8.0" in t2.commands[1]


def test_dll_32bit_python():
    t = run("ImportError: DLL load failed while importing _C: The specified module could not be found.",
            "windows-import-c-dll-load-failed", facts(torch="2.4.1", bits=32, system="Windows"))
    assert "32-bit" in t.cause


# ----------------------------------------------------------- Linux native libs ----
CUDNN = "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory"


def test_cuda_lib_missing_reinstalls_same_build():
    f = facts(torch="2.1.2+cu118", driver={"present": True, "driver_version": "550.54.15"})
    t = run(CUDNN, "cuda-runtime-lib-cannot-open", f)
    assert t.commands[0] == ("/home/u/venv/bin/python -m pip install --force-reinstall --no-cache-dir torch==2.1.2 "
                             "--index-url https://download.pytorch.org/whl/cu118")
    assert "no nvidia-* / cuda-* pip packages installed" in t.notes


def test_cuda_lib_missing_without_driver_suggests_cpu_build():
    t = run(CUDNN, "cuda-runtime-lib-cannot-open", facts(torch="2.1.2+cu121"))
    assert "--index-url https://download.pytorch.org/whl/cpu" in t.commands[0]


def test_cuda_lib_missing_with_cpu_torch():
    t = run(CUDNN, "cuda-runtime-lib-cannot-open", facts(torch="2.13.0+cpu"))
    assert "another package" in t.cause and t.commands == []


def test_cuda_lib_missing_without_torch_is_generic():
    assert run("ValueError: libcublas.so.*[0-9] not found in the system path ['']",
               "torch-cuda-deps-not-found-in-path", facts()) is None


NVJIT = ("ImportError: /x/site-packages/torch/lib/../../nvidia/cusparse/lib/libcusparse.so.12: undefined symbol: "
         "__nvJitLinkAddData_12_1, version libnvJitLink.so.12")


def test_nvjitlink_with_ld_library_path_and_old_package():
    f = facts(torch="2.1.0+cu121", env={"LD_LIBRARY_PATH": "/usr/local/cuda-12.0/lib64"},
              packages={"nvidia-nvjitlink-cu12": {"version": "12.0.140", "location": SITE}})
    t = run(NVJIT, "nvjitlink-undefined-symbol", f)
    assert "/usr/local/cuda-12.0/lib64" in t.cause
    assert "export LD_LIBRARY_PATH=%s/nvidia/nvjitlink/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" % SITE in t.commands
    assert '/home/u/venv/bin/python -m pip install "nvidia-nvjitlink-cu12>=12.1"' in t.commands


def test_nvjitlink_without_env_or_package_is_generic():
    assert run(NVJIT, "nvjitlink-undefined-symbol", facts(torch="2.1.0+cu121")) is None


def test_nccl_pin_from_compat():
    f = facts(torch="2.13.0+cu126", packages={"nvidia-nccl-cu12": {"version": "2.21.5"}})
    t = run("torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister", "nccl-undefined-symbol-import", f)
    assert t.commands == ["/home/u/venv/bin/python -m pip install --force-reinstall nvidia-nccl-cu12==2.29.3"]
    f2 = facts(torch="2.13.0+cu126", packages={"nvidia-nccl-cu12": {"version": "2.29.3"}})
    assert run("torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
               "nccl-undefined-symbol-import", f2) is None


def test_ijit_in_conda_env():
    f = facts(torch="2.2.0", python={"conda": True, "prefix": "/opt/conda/envs/a"},
              packages={"conda:mkl": {"version": "2024.1.0"}})
    t = run("libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent", "mkl-ijit-notify-event-undefined", f)
    assert t.commands == ['conda install -y -p "/opt/conda/envs/a" "mkl=2024.0"'] and "2024.1.0" in t.summary
    assert run("libtorch_cpu.so: undefined symbol: iJIT_NotifyEvent", "mkl-ijit-notify-event-undefined",
               facts(torch="2.2.0")) is None


def test_glibcxx_conda_and_system():
    text = "ImportError: /usr/lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found"
    t = run(text, "glibcxx-version-not-found", facts(python={"conda": True, "prefix": "/opt/c/envs/x"}))
    assert t.commands[1] == 'conda install -y -p "/opt/c/envs/x" -c conda-forge libstdcxx-ng'
    assert "GLIBCXX_3.4.30" in run(text, "glibcxx-version-not-found", facts()).commands[0]
    assert run(text, "glibcxx-version-not-found", Facts({})) is None


def test_glibc_too_old_compares_versions():
    text = ("ImportError: /lib/aarch64-linux-gnu/libc.so.6: version `GLIBC_2.28' not found (required by "
            "/x/site-packages/torch/lib/libtorch_python.so)")
    t = run(text, "glibc-too-old-for-torch", facts(os={"libc": "glibc 2.27"}))
    assert "glibc 2.27" in t.cause and "2.28" in t.cause
    t2 = run(text, "glibc-too-old-for-torch", facts(os={"libc": "glibc 2.35"}))
    assert "new enough" in t2.cause
    assert run(text, "glibc-too-old-for-torch", facts()) is None


def test_omp_duplicate_conda_windows():
    f = facts(system="Windows", python={"conda": True, "prefix": "C:\\conda\\envs\\a"})
    t = run("OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.",
            "omp-error-15-duplicate-runtime", f)
    assert t.commands == ['conda install -y -p "C:\\conda\\envs\\a" nomkl', "where libiomp5md.dll"]
    assert run("OMP: Error #15: Initializing libomp.dylib, but found libomp.dylib already initialized.",
               "omp-error-15-duplicate-runtime", facts(system="Darwin")) is None


def test_mkl_fatal_only_tailors_conda():
    f = facts(python={"conda": True, "prefix": "/c/envs/a", "conda_env": "a"})
    t = run("Intel MKL FATAL ERROR: Cannot load libmkl_avx2.so or libmkl_def.so.", "mkl-fatal-cannot-load", f)
    assert t.commands[0] == "conda activate a"
    assert run("Intel MKL FATAL ERROR: Cannot load libmkl_avx2.so or libmkl_def.so.",
               "mkl-fatal-cannot-load", facts()) is None


def test_nnpack_switch_depends_on_version():
    text = "[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware."
    assert "set_flags(False)" in run(text, "nnpack-unsupported-hardware", facts(torch="2.13.0")).commands[0]
    old = run(text, "nnpack-unsupported-hardware", facts(torch="1.13.1"))
    assert old.commands == [] and "added in 2.3" in old.summary
    assert run(text, "nnpack-unsupported-hardware", facts()) is None


def test_libuv_commands_per_os():
    text = "RuntimeError: use_libuv was requested but PyTorch was build without libuv support"
    assert run(text, "libuv-not-built-use-libuv", facts(system="Windows")).commands[0] == "set USE_LIBUV=0"
    assert run(text, "libuv-not-built-use-libuv", facts()).commands == ["export USE_LIBUV=0"]
    assert run(text, "libuv-not-built-use-libuv", Facts({})) is None


# ----------------------------------------------------------------- extensions ----
FLASH = ("ImportError: /x/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: "
         "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE")


def test_extension_rebuild_names_the_package():
    f = facts(torch="2.6.0+cu124", packages={"flash-attn": {"version": "2.6.3"}})
    # flash-attn's own entry (it refines the generic one) keeps the generic rebuild hook
    t = run(FLASH, "flash-attn-built-for-other-torch", f)
    assert t.commands[1].endswith("--force-reinstall --no-deps flash-attn") and "flash-attn 2.6.3" in t.notes
    assert "cxx11" in t.cause


def test_extension_rebuild_unknown_package_without_torch_is_generic():
    text = "ImportError: /x/_C.so: undefined symbol: _ZN2at4_ops5zeros4callEv"
    assert run(text, "extension-undefined-torch-symbol", facts()) is None


def test_xformers_with_cpu_torch_installs_cuda_build_first():
    text = ("WARNING[XFORMERS]: xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
            "    PyTorch 2.1.2+cu121 with CUDA 1201 (you have 2.1.2+cpu)")
    f = facts(torch="2.1.2+cpu", driver={"present": True, "driver_version": "550.54.15"})
    t = run(text, "xformers-built-for-other-torch", f)
    assert "CPU-only" in t.cause
    assert t.commands[-1].startswith("/home/u/venv/bin/python -m pip install -U xformers --index-url "
                                     "https://download.pytorch.org/whl/cu")


def test_xformers_with_cuda_torch_pins_torch():
    text = "    PyTorch 2.0.1+cu118 with CUDA 1108 (you have 2.1.0+cu121)"
    t = run(text, "xformers-built-for-other-torch", facts(torch="2.1.0+cu121"))
    assert t.commands == ["/home/u/venv/bin/python -m pip install torch==2.1.0 xformers --index-url "
                          "https://download.pytorch.org/whl/cu121"]
    assert run(text.replace("+cu121", ""), "xformers-built-for-other-torch", facts(torch="2.1.0")) is None


def test_cuda_toolkit_mismatch_offers_matching_variant():
    text = ("The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.8). "
            "Please make sure to use the same CUDA versions.")
    t = run(text, "cpp-extension-cuda-version-mismatch", facts(torch="2.4.1+cu118"))
    # cu121 is the PyPI default of 2.4 on Linux, so no index URL is needed
    # the toolkit of torch's CUDA first (the check says the same), then the variant that matches nvcc
    assert t.commands[0] == "export CUDA_HOME=/usr/local/cuda-11.8"
    assert t.commands[-1] == "/home/u/venv/bin/python -m pip install --force-reinstall --no-cache-dir torch==2.4.1"
    assert run(text, "cpp-extension-cuda-version-mismatch", facts()) is None  # torch's CUDA unknown


def test_extension_cuda_lib_with_cpu_torch():
    t = run("OSError: libc10_cuda.so: cannot open shared object file: No such file or directory",
            "extension-libtorch-so-not-found", facts(torch="2.13.0+cpu"))
    assert "CPU-only" in t.cause
    assert run("ImportError: libc10.so: cannot open shared object file: No such file or directory",
               "extension-libtorch-so-not-found", facts(torch="2.13.0+cpu")) is None


# ------------------------------------------------------------ whole pipeline ----
@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'torch'",
    FBGEMM, CUDNN, NVJIT, FLASH,
    "OMP: Error #15: Initializing libiomp5md.dll, but found libiomp5md.dll already initialized.",
    "torch-1.0.0-cp37-cp37m-linux_x86_64.whl is not a supported wheel on this platform.",
])
def test_hooks_never_raise_into_explain(text):
    for f in (Facts({}), facts(), facts(torch="2.4.0+cu121", system="Windows"), facts(torch="weird")):
        for m in match_text(text):
            ex = explain_match(m, f)
            assert ex.hook_error is None, ex.hook_error


UV_NO_WHEEL = ("error: Distribution `torch==2.8.0 @ registry+https://pypi.org/simple` can't be installed because it "
               "doesn't have a source distribution or wheel for the current platform")


@pytest.mark.parametrize("system, os_section, kept, dropped", [
    # off macOS neither macOS remedy fits
    ("Linux", {}, ["uv python pin 3.12", "uv python list"], ["macos-aarch64", "sys_platform == 'darwin'"]),
    ("Windows", {}, ["uv python list"], ["macos-aarch64", "sys_platform == 'darwin'"]),
    # an Intel Mac: torch 2.2.2's pin, not an arm64 Python it cannot run
    ("Darwin", {"apple_silicon": False}, ["sys_platform == 'darwin'"], ["macos-aarch64"]),
    # Apple silicon under Rosetta: a native Python, not the Intel pin
    ("Darwin", {"apple_silicon": True}, ["macos-aarch64"], ["sys_platform == 'darwin'"]),
    # a Mac whose chip is not known keeps both
    ("Darwin", {}, ["macos-aarch64", "sys_platform == 'darwin'"], []),
])
def test_uvs_missing_wheel_keeps_the_commands_that_fit_this_machine(system, os_section, kept, dropped):
    f = facts(system=system, os=dict({"system": system}, **os_section))
    e = explain(UV_NO_WHEEL, "uv-torch-no-wheel-for-platform", f)
    joined = "\n".join(e.fix.commands)
    assert all(k in joined for k in kept) and not any(d in joined for d in dropped), joined


def test_uvs_missing_wheel_without_facts_keeps_every_command():
    match, said = tailored_as("uv-torch-no-wheel-for-platform", UV_NO_WHEEL, Facts({}))
    assert said is None
