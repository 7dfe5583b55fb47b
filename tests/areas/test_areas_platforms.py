"""Checks read with facts from real machines: they must neither fire falsely nor give a
command that does the wrong thing (or nothing) there."""

import pytest

from conftest import make_facts
from torchdoctor.areas.checks import all_checks, run_check

CHECKS = {c.id: c for c in all_checks()}
LINUX = {"system": "Linux", "release": "6.8.0-45-generic", "machine": "x86_64"}
WINDOWS = {"system": "Windows", "release": "11", "machine": "AMD64"}


def run(cid, facts):
    return run_check(CHECKS[cid], facts)


def driver(version="560.35.03", cuda="12.6", gpus=(("NVIDIA A100-SXM4-80GB", [8, 0]),)):
    return {"present": True, "driver_version": version, "cuda_driver_version": cuda,
            "gpus": [{"index": i, "name": n, "capability": c} for i, (n, c) in enumerate(gpus)], "pci_gpus": []}


def cudnn(version, available=True):
    return {"cudnn": {"is_available": available, "version": version, "enabled": True}}


# -- cuDNN: only official wheels pin a cuDNN the KB knows ------------------------------
@pytest.mark.parametrize("torch_version,runtime", [
    ("2.5.0a0+e000cf0ad9.nv24.10", 90500),   # NGC PyTorch 24.10 container: its own cuDNN 9.5
    ("2.5.0a0+872d972e41.nv24.08", 90300),   # Jetson JetPack 6 wheel: the system cuDNN 9.3
    ("2.6.0.dev20241015+cu124", 90300),      # a nightly
])
def test_cudnn_of_non_pypi_builds_is_not_called_a_mismatch(torch_version, runtime):
    # Before: "cuDNN 9.5.0 is loaded, but torch ... ships cuDNN 9.1.0.70" and a command that
    # pip-installs nvidia-cudnn-cu12==9.1.0.70 into an NGC container.
    f = make_facts(torch={"version": torch_version, "cuda": "12.6"}, torch_import={"ok": True},
                   backends=cudnn(runtime), driver=driver(), os=LINUX, python={"executable": "/usr/bin/python"},
                   packages={"installed": {"torch": {"version": torch_version}}})
    assert run("cudnn-version-mismatch", f) == []


def test_official_wheel_with_a_foreign_cudnn_still_warns():
    f = make_facts(torch={"version": "2.4.1+cu124", "cuda": "12.4"}, torch_import={"ok": True},
                   backends=cudnn(90300), driver=driver(), os=LINUX, python={"executable": "/v/bin/python"},
                   packages={"installed": {"torch": {"version": "2.4.1+cu124"}}})
    out = run("cudnn-version-mismatch", f)
    assert out and "9.1.0.70" in out[0].title


def test_windows_cudnn_load_failure_does_not_send_the_user_to_a_linux_only_wheel():
    # Windows wheels bundle cuDNN in torch\\lib; there is no nvidia-cudnn wheel to install.
    err = {"_failed": "OSError: [WinError 126] Error loading cudnn_ops64_9.dll or one of its dependencies."}
    f = make_facts(torch={"version": "2.5.1+cu121", "cuda": "12.1"}, torch_import={"ok": True},
                   backends={"cudnn": {"is_available": True, "version": err}},
                   driver=driver("566.36", "12.7", (("NVIDIA GeForce RTX 4090", [8, 9]),)), os=WINDOWS,
                   python={"executable": "C:\\venv\\Scripts\\python.exe"},
                   packages={"installed": {"torch": {"version": "2.5.1+cu121"}}})
    out = run("cudnn-unavailable", f)[0]
    assert not any("nvidia-cudnn" in c for c in out.fix.commands), out.fix.commands
    assert "nvidia-cudnn" not in out.detail


# -- companions -----------------------------------------------------------------------
def test_untagged_cpu_torch_from_pypi_beside_a_cuda_torchvision_is_a_clash():
    # Windows: `pip install torch` from PyPI (CPU, no +tag) after torchvision came from the
    # cu124 index. torch says torch.version.cuda is None; the tag-only comparison saw nothing.
    f = make_facts(torch={"version": "2.5.1", "cuda": {"_absent": "not built with it"}}, torch_import={"ok": True},
                   os=WINDOWS, python={"executable": "C:\\venv\\Scripts\\python.exe"},
                   packages={"installed": {"torch": {"version": "2.5.1"}, "torchvision": {"version": "0.20.1+cu124"}}})
    out = run("torchvision-mismatch", f)
    assert out, "CPU torch with a CUDA torchvision went unnoticed"
    cmds = out[0].fix.commands
    # PyPI's torchvision (the CPU build on Windows) replaces the cu124 one; torch is not touched
    assert cmds == ["C:\\venv\\Scripts\\python.exe -m pip install --no-deps --force-reinstall torchvision==0.20.1"]


def test_untagged_cuda_torch_on_linux_beside_a_cuda_torchvision_is_fine():
    f = make_facts(torch={"version": "2.5.1", "cuda": "12.4"}, torch_import={"ok": True}, os=LINUX,
                   packages={"installed": {"torch": {"version": "2.5.1"}, "torchvision": {"version": "0.20.1+cu121"}}})
    assert run("torchvision-mismatch", f) == []


def test_pip_over_conda_removes_pips_record_before_reinstalling():
    # After `conda remove --force pytorch` deleted the shared files, pip's dist-info is left:
    # a bare `pip install torch==X` then says "Requirement already satisfied" and does nothing.
    f = make_facts(torch={"version": "2.5.1+cu124", "cuda": "12.4"}, os=LINUX, python={"executable": "/c/bin/python"},
                   packages={"installed": {"torch": {"version": "2.5.1+cu124", "location": "/c/lib/python3.11/site-packages",
                                                     "installer": "pip"},
                                           "conda:pytorch": {"version": "2.5.1", "build": "py3.11_cuda12.4_cudnn9.1.0_0"}}})
    cmds = run("torch-duplicate-install", f)[0].fix.commands
    assert cmds[0] == "conda remove --force pytorch"
    assert cmds[-1].startswith("/c/bin/python -m pip install torch==2.5.1")
    assert "/c/bin/python -m pip uninstall -y torch" in cmds[1:-1]


# -- CUDA_VISIBLE_DEVICES -----------------------------------------------------------------
def _two_gpus():
    return driver(gpus=(("NVIDIA A100-SXM4-80GB", [8, 0]), ("NVIDIA A100-SXM4-80GB", [8, 0])))


def test_an_invalid_first_index_hides_every_gpu():
    # CUDA stops at the first invalid entry: "5,0" leaves torch no GPU at all. Before: quiet,
    # or an info "deliberate masking" note.
    f = make_facts(torch={"version": "2.4.1+cu124", "cuda": "12.4"}, driver=_two_gpus(), os=LINUX,
                   env={"CUDA_VISIBLE_DEVICES": "5,0"}, cuda={"is_available": False, "device_count": 0})
    out = run("gpu-hidden", f)
    assert [x.severity for x in out] == ["error"] and "do not exist" in out[0].title


def test_a_later_invalid_index_only_truncates_the_list():
    f = make_facts(torch={"version": "2.4.1+cu124", "cuda": "12.4"}, driver=_two_gpus(), os=LINUX,
                   env={"CUDA_VISIBLE_DEVICES": "0,5"}, cuda={"is_available": True, "device_count": 1})
    assert [x.severity for x in run("gpu-hidden", f)] == ["info"]


def test_cuda_visible_devices_commands_fit_the_shell_of_windows():
    f = make_facts(torch={"version": "2.5.1+cu121", "cuda": "12.1"}, driver=driver("566.36", "12.7"), os=WINDOWS,
                   env={"CUDA_VISIBLE_DEVICES": "-1"}, cuda={"is_available": False, "device_count": 0})
    cmds = run("gpu-hidden", f)[0].fix.commands
    assert cmds == ["set CUDA_VISIBLE_DEVICES=", "set CUDA_VISIBLE_DEVICES=0"]


# -- commands that must work in the user's shell -------------------------------------------
def _probe_died(**kw):
    p = {"python": "C:\\Program Files\\Python312\\python.exe", "completed": False, "returncode": 1, "signal": None,
         "timed_out": False, "last_stage": "python", "stderr_tail": "Fatal Python error: init_fs_encoding"}
    p.update(kw)
    return p


def test_probe_failed_check_command_prints_something_in_cmd_exe():
    # `python -c 'print(1)'` in cmd.exe evaluates the string literal 'print(1)': no output.
    f = make_facts(probe=_probe_died(), os=WINDOWS, python={"_failed": "probe exited with 1"})
    cmds = run("probe-failed", f)[0].fix.commands
    assert cmds == ['"C:\\Program Files\\Python312\\python.exe" -c "print(1)"']


def test_import_crash_commands_on_windows_use_no_posix_tools():
    f = make_facts(probe=_probe_died(last_stage="import_torch", returncode=3221225477,
                                     signal="ACCESS_VIOLATION", stderr_tail="(nothing)"),
                   os=WINDOWS, python={"executable": "C:\\venv\\Scripts\\python.exe", "version": "3.12.1"},
                   packages={"installed": {"torch": {"version": "2.5.1+cu121"}}})
    cmds = run("torch-import-crash", f)[0].fix.commands
    assert cmds[0] == 'C:\\venv\\Scripts\\python.exe -c "import torch"'
    assert not any(c.startswith("env -u") or "'import torch'" in c for c in cmds), cmds


def test_shadowing_folder_rename_is_quoted_and_fits_the_os():
    cands = {"candidates": [{"path": "/home/me/my project/torch", "kind": "namespace-dir", "sys_path_entry": ""},
                            {"path": "/v/lib/python3.11/site-packages/torch", "kind": "package",
                             "sys_path_entry": "/v/lib/python3.11/site-packages"}]}
    f = make_facts(torch_location=cands, os=LINUX, python={"sys_path": ["", "/v/lib/python3.11/site-packages"]})
    # the rename, and the __pycache__ beside it (the explain hook always said so; the check now too)
    assert run("torch-shadowed", f)[0].fix.commands == ["mv '/home/me/my project/torch' '/home/me/my project/my_torch'",
                                                         "rm -rf '/home/me/my project/__pycache__'"]
    cands["candidates"][0]["path"] = "C:\\Users\\me\\my project\\torch.py"
    cands["candidates"][0]["kind"] = "module"
    f = make_facts(torch_location=cands, os=WINDOWS, python={"sys_path": ["", "/v/lib/python3.11/site-packages"]})
    out = run("torch-shadowed", f)[0]
    assert out.fix.commands == ['ren "C:\\Users\\me\\my project\\torch.py" "my_torch.py"',
                                'rmdir /s /q "C:\\Users\\me\\my project\\__pycache__"']
    assert "Rename or remove torch.py " in out.fix.summary


def test_posix_interpreter_path_with_shell_characters_is_quoted():
    f = make_facts(torch_import={"ok": False, "error_type": "ModuleNotFoundError", "error": "No module named 'torch'"},
                   os=LINUX, python={"version": "3.11.7", "executable": "/opt/$HOME;x/bin/python"},
                   driver={"present": False, "driver_version": {"_absent": "none"}})
    cmds = run("torch-not-installed", f)[0].fix.commands
    assert cmds and all(c.startswith("'/opt/$HOME;x/bin/python' -m pip ") for c in cmds), cmds


def test_toolkit_mismatch_on_windows_sets_cuda_home_the_windows_way():
    f = make_facts(torch={"version": "2.5.1+cu121", "cuda": "12.1"}, os=WINDOWS,
                   toolkit={"nvcc": "11.8", "nvcc_path": "C:\\CUDA\\v11.8\\bin\\nvcc.exe"})
    cmds = run("cuda-toolkit-mismatch", f)[0].fix.commands
    assert cmds[0] == "set CUDA_HOME=C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.1"
    assert cmds[1:] == ["python -m pip install --force-reinstall --no-cache-dir torch==2.5.1 --index-url "
                        "https://download.pytorch.org/whl/cu118"]  # the variant matching nvcc 11.8


def test_driver_too_old_warning_with_a_new_enough_driver_does_not_reinstall_the_same_build():
    # NVML says 550 (CUDA 12.4), torch's CUDA init says "found version 11040": an old libcuda
    # is loaded. Before: "install the cu124 build of torch 2.4.1" -- the build already installed.
    w = ["UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)."]
    f = make_facts(torch={"version": "2.4.1+cu124", "cuda": "12.4"}, driver=driver("550.54.15", "12.4"), os=LINUX,
                   python={"executable": "/v/bin/python"}, cuda={"warnings": w})
    out = run("driver-too-old", f)[0]
    assert not any("pip install" in c for c in out.fix.commands), out.fix.commands
    assert "libcuda" in out.fix.summary and "11.4" in out.detail


def test_backends_mps_missing_on_an_intel_mac_points_to_a_release_that_installs_there():
    # torch 1.11 on an Intel Mac: the newest torch for Python 3.11 has no x86_64 macOS wheel.
    f = make_facts(python={"version": "3.11.7", "executable": "/Users/u/.venv/bin/python", "machine": "x86_64"},
                   os={"system": "Darwin", "machine": "x86_64", "macos_version": "13.6", "apple_silicon": False},
                   torch_import={"ok": True}, torch={"version": "1.11.0", "cuda": {"_absent": "not built with it"}},
                   backends={"mps": {"_absent": "torch.backends.mps does not exist in this torch version"}})
    out = run("backends-mps-missing", f)[0]
    assert out.fix.commands[-1] == "/Users/u/.venv/bin/python -m pip install torch==2.2.2", out.fix.commands


@pytest.mark.parametrize("build,selector", [("py3.11_cpu_0", "cpuonly -c pytorch"),
                                            ("py3.11_cuda11.8_cudnn9.1.0_0", "pytorch-cuda=11.8 -c pytorch -c nvidia")])
def test_conda_companion_fix_keeps_the_flavour_of_condas_pytorch(build, selector):
    # conda's pytorch has no +tag; the command used to pin the channel default (pytorch-cuda=12.4),
    # turning a CPU or CUDA 11.8 environment into a CUDA 12.4 one to fix torchvision.
    f = make_facts(torch={"version": "2.5.1", "cuda": "11.8" if "cuda" in build else {"_absent": "not built with it"}},
                   torch_import={"ok": True}, os=LINUX, python={"executable": "/c/bin/python"},
                   packages={"installed": {"torch": {"version": "2.5.1", "installer": "conda"},
                                           "torchvision": {"version": "0.19.1"},
                                           "conda:pytorch": {"version": "2.5.1", "build": build}}})
    cmds = run("torchvision-mismatch", f)[0].fix.commands
    assert cmds == ["conda install pytorch==2.5.1 torchvision==0.20.1 " + selector], cmds


def test_numpy2_on_an_intel_mac_does_not_suggest_a_torch_that_has_no_wheel_there():
    # torch 2.2.2 is the last x86_64 macOS wheel; NumPy 2 support starts with 2.3.0.
    f = make_facts(torch={"version": "2.2.2", "cuda": {"_absent": "not built with it"}}, torch_import={"ok": True},
                   os={"system": "Darwin", "machine": "x86_64", "apple_silicon": False},
                   python={"version": "3.11.7", "executable": "/Users/u/v/bin/python", "machine": "x86_64"},
                   packages={"installed": {"torch": {"version": "2.2.2"}, "numpy": {"version": "2.1.3"}}})
    out = run("numpy-abi", f)[0]
    assert "2.3.0" not in out.fix.summary and out.fix.commands == ['/Users/u/v/bin/python -m pip install "numpy<2"']


def test_shadowing_check_and_hook_give_one_remedy():
    """One condition, one remedy: the check (facts) and the explain hook (an error text)
    name the same file and the same commands."""
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    cands = {"candidates": [{"path": "/home/me/proj/torch.py", "kind": "module", "sys_path_entry": ""},
                            {"path": "/v/lib/python3.11/site-packages/torch", "kind": "package",
                             "sys_path_entry": "/v/lib/python3.11/site-packages"}]}
    f = make_facts(torch_location=cands, os=LINUX,
                   python={"executable": "/v/bin/python", "sys_path": ["", "/v/lib/python3.11/site-packages"]})
    check = run("torch-shadowed", f)[0]
    m = match_text("AttributeError: module 'torch' has no attribute 'Tensor'")[0]
    hook = explain_match(m, f)
    assert check.fix.commands == hook.fix.commands == ["mv /home/me/proj/torch.py /home/me/proj/my_torch.py",
                                                       "rm -rf /home/me/proj/__pycache__"]
    assert check.fix.summary == hook.fix.summary


def test_leftover_torch_folder_in_site_packages_is_found_by_the_check_too():
    site = "/v/lib/python3.11/site-packages"
    f = make_facts(torch_location={"candidates": [{"path": site + "/torch", "kind": "namespace-dir",
                                                   "sys_path_entry": site}]}, os=LINUX,
                   python={"executable": "/v/bin/python", "sys_path": ["", site]},
                   packages={"installed": {"torch": {"version": "2.13.0+cpu", "location": site}}})
    out = run("torch-shadowed", f)[0]
    assert out.fix.commands[0] == "rm -rf %s/torch" % site
    assert "--force-reinstall" in out.fix.commands[1] and "torch==2.13.0" in out.fix.commands[1]
