"""Tailoring hooks of explain/hooks/companions.py: real error text in, this machine's
facts (built by hand) in, the exact command out; and the generic fix when facts say nothing."""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts
from torchdoctor.kb.errors import get_entry

PY = "/envs/work/bin/python"


def facts(system="Linux", python="3.12.3", machine="x86_64", os_extra=None, py_extra=None, **pkgs):
    """Facts as `explain` reads them; package keyword args: torch="2.13.0+cpu", numpy=None..."""
    installed = {name.replace("_", "-"): {"version": v} for name, v in pkgs.items() if v is not None}
    os_ = {"system": system, "machine": machine}
    os_.update(os_extra or {})
    py = {"version": python, "executable": PY, "machine": machine}
    py.update(py_extra or {})
    return Facts({"packages": {"installed": installed}, "os": os_, "python": py})


def explain(text, f, expect_id=None):
    found = match_text(text)
    assert found, "no known error matched %r" % text
    m = found[0]
    if expect_id:
        assert m.id == expect_id
    ex = explain_match(m, f)
    assert ex.hook_error is None, ex.hook_error
    return ex


def cmds(ex):
    return "\n".join(ex.fix.commands)


def on_target(commands, exe):
    """The entry's generic commands as run by the interpreter the facts name."""
    return [exe + (" -m pip " + c[4:] if c.startswith("pip ") else c[c.index(" "):])
            if c.startswith(("pip ", "python ", "python3 ")) else c for c in commands]


def assert_generic(ex, entry_id):
    entry = get_entry(entry_id)
    assert not ex.tailored
    assert ex.fix.commands == on_target(entry.fix["commands"], PY)
    assert ex.fix.summary == entry.fix["summary"]


NMS = "RuntimeError: operator torchvision::nms does not exist"


# -- torchvision ---------------------------------------------------------------------
def test_torchvision_newer_than_torch_gets_the_paired_release_from_torchs_index():
    ex = explain(NMS, facts(torch="2.13.0+cpu", torchvision="0.29.1"), "torchvision-operator-does-not-exist")
    assert ex.tailored
    first = ex.fix.commands[0]
    assert first == ("%s -m pip install --no-deps --force-reinstall torchvision==0.28.0 "
                     "--index-url https://download.pytorch.org/whl/cpu" % PY)
    # the alternative: keep torchvision 0.29.1 and move torch up to the release it was built for
    assert "torch==2.14.1 torchvision==0.29.1" in cmds(ex)
    assert "--index-url https://download.pytorch.org/whl/cpu" in ex.fix.commands[1]
    assert "installed torch: 2.13.0+cpu" in ex.notes
    assert "installed torchvision: 0.29.1" in ex.notes


def test_torchvision_cpu_build_next_to_a_pypi_cuda_torch_comes_from_pypi():
    ex = explain(NMS, facts(torch="2.5.1", torchvision="0.19.1"))
    assert ex.fix.commands[0] == "%s -m pip install --no-deps --force-reinstall torchvision==0.20.1" % PY
    assert "--index-url" not in ex.fix.commands[0]


def test_torchvision_right_version_wrong_variant_is_reinstalled_from_torchs_index():
    ex = explain("RuntimeError: Couldn't load custom C++ ops. This can happen if your PyTorch and torchvision "
                 "versions are incompatible", facts(system="Windows", torch="2.5.1+cu121", torchvision="0.20.1"))
    assert "builds differ" in ex.fix.summary
    assert ex.fix.commands[0].endswith("torchvision==0.20.1 --index-url https://download.pytorch.org/whl/cu121")


def test_torchvision_pair_that_matches_points_at_another_environment():
    ex = explain(NMS, facts(torch="2.13.0+cpu", torchvision="0.28.0+cpu"))
    assert ex.tailored
    assert "another environment" in ex.cause
    assert all("pip install" not in c for c in ex.fix.commands)


def test_torchvision_not_installed_gets_an_install_command():
    ex = explain("Could not run 'torchvision::nms' with arguments from the 'CUDA' backend.",
                 facts(torch="2.4.1+cu121"), "torchvision-op-missing-cuda-backend")
    assert "not installed" in ex.fix.summary
    assert ex.fix.commands[0].endswith("torchvision==0.19.1 --index-url https://download.pytorch.org/whl/cu121")


def test_torchvision_for_a_torch_without_known_pairing_says_so():
    ex = explain(NMS, facts(torch="2.15.0", torchvision="0.29.2"))
    assert "No torchvision release is recorded" in ex.fix.summary


def test_pip_resolver_line_is_tailored_from_the_error_text_when_facts_lack_torch():
    text = ("torchvision 0.19.1 requires torch==2.4.1, but you have torch 2.5.1 which is incompatible.")
    ex = explain(text, Facts({"python": {"executable": PY}}), "torchvision-requires-other-torch")
    assert ex.tailored
    assert "torchvision==0.20.1" in ex.fix.commands[0]
    assert "torch 2.5.1 (from the error text)" in ex.notes


def test_torchvision_hook_falls_back_without_torch():
    ex = explain(NMS, facts(torchvision="0.29.1"))
    assert_generic(ex, "torchvision-operator-does-not-exist")


def test_functional_tensor_removed_points_at_the_import_and_the_last_release_with_it():
    ex = explain("ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
                 facts(torch="2.13.0+cpu", torchvision="0.28.0+cpu"))
    assert "removed in 0.17" in ex.fix.summary
    assert "torch==2.1.2 torchvision==0.16.2" in cmds(ex)
    assert "--index-url https://download.pytorch.org/whl/cpu" in cmds(ex)


def test_functional_tensor_with_old_torchvision_means_another_environment():
    ex = explain("ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'",
                 facts(torch="2.1.2", torchvision="0.16.2"))
    assert "another environment" in ex.cause


# -- torchaudio ----------------------------------------------------------------------
def test_torchaudio_for_torch_without_its_own_release_is_the_stable_abi_series():
    ex = explain("OSError: /x/site-packages/torchaudio/lib/libtorchaudio.so: undefined symbol: _ZNK3c107SymBool10guard_boolEPKcl",
                 facts(torch="2.13.0+cpu", torchaudio="2.10.0+cpu"), "torchaudio-undefined-symbol")
    assert ex.fix.commands[0] == ("%s -m pip install --no-deps --force-reinstall \"torchaudio==2.11.*\" "
                                  "--index-url https://download.pytorch.org/whl/cpu" % PY)


def test_torchaudio_same_release_era_pins_the_exact_pair():
    ex = explain("torchaudio 2.4.0+cu121 requires torch==2.4.0, but you have torch 2.4.1+cu121 which is incompatible.",
                 facts(torch="2.4.1+cu121", torchaudio="2.4.0+cu121"), "torchaudio-requires-other-torch")
    assert ex.fix.commands[0].endswith("torchaudio==2.4.1 --index-url https://download.pytorch.org/whl/cu121")


def test_torchaudio_stable_abi_only_objects_to_another_cuda_major():
    text = ("RuntimeError: Detected that PyTorch and TorchAudio were compiled with different CUDA versions. "
            "PyTorch has CUDA version 13.0 whereas TorchAudio has CUDA version 12.8.")
    ex = explain(text, facts(torch="2.13.0+cu130", torchaudio="2.11.0+cu128"), "torchaudio-cuda-version-mismatch")
    assert "builds differ" in ex.fix.summary
    assert ex.fix.commands[0].endswith('"torchaudio==2.11.*" --index-url https://download.pytorch.org/whl/cu130')
    same_major = explain(text, facts(torch="2.13.0+cu130", torchaudio="2.11.0+cu132"))
    assert "another environment" in same_major.cause


def test_torchaudio_29_load_needs_torchcodec():
    ex = explain("ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
                 facts(torch="2.9.1", torchaudio="2.9.1"), "torchaudio-torchcodec-required")
    assert ex.fix.commands[0] == "%s -m pip install torchcodec" % PY
    assert "sudo apt-get install -y ffmpeg" in ex.fix.commands


def test_torchaudio_28_explicit_load_with_torchcodec_still_needs_torchcodec():
    ex = explain("ImportError: TorchCodec is required for load_with_torchcodec. Please install torchcodec to use this function.",
                 facts(torch="2.8.0", torchaudio="2.8.0"))
    assert ex.fix.commands[0] == "%s -m pip install torchcodec" % PY


def test_torchaudio_old_dispatcher_without_soundfile_installs_it():
    ex = explain("RuntimeError: Couldn't find appropriate backend to handle uri a.wav and format None.",
                 facts(system="Windows", torch="2.5.1", torchaudio="2.5.1"), "torchaudio-no-backend-for-uri")
    assert ex.fix.commands[0] == "%s -m pip install soundfile" % PY
    assert "conda install -c conda-forge ffmpeg" in ex.fix.commands


def test_torchaudio_backend_hook_falls_back_without_torchaudio():
    ex = explain("UserWarning: No audio backend is available.", facts(torch="2.0.1"), "torchaudio-no-audio-backend")
    assert_generic(ex, "torchaudio-no-audio-backend")


# -- NumPy ---------------------------------------------------------------------------
NUMPY1 = "A module that was compiled using NumPy 1.x cannot be run in\nNumPy 2.1.0 as it may crash."


def test_numpy2_with_old_torch_offers_numpy_below_2_or_torch_23_same_variant():
    ex = explain(NUMPY1, facts(torch="2.2.1+cpu", numpy="2.1.0"), "numpy2-module-compiled-with-numpy1")
    assert ex.fix.commands[0] == '%s -m pip install "numpy<2"' % PY
    assert ex.fix.commands[1] == ("%s -m pip install torch==2.3.1 "
                                  "--index-url https://download.pytorch.org/whl/cpu" % PY)


def test_numpy2_on_windows_needs_torch_241():
    ex = explain("UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at ..\\torch\\csrc\\utils\\tensor_numpy.cpp:84.)",
                 facts(system="Windows", torch="2.4.0+cu121", numpy="2.1.0"), "numpy-array-api-not-found")
    assert "2.4.1" in ex.fix.summary
    assert "torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121" in cmds(ex)


def test_numpy2_with_new_torch_blames_the_other_module():
    ex = explain(NUMPY1, facts(torch="2.13.0+cpu", numpy="2.4.6"))
    assert "another one" in ex.fix.summary
    assert '"numpy<2"' in ex.fix.commands[-1]
    assert not any("torch==" in c for c in ex.fix.commands)


def test_numpy_missing_is_installed_and_kept_below_2_for_old_torch():
    ex = explain("RuntimeError: Numpy is not available", facts(torch="2.1.2"), "numpy-not-available")
    assert ex.fix.commands == ['%s -m pip install "numpy<2"' % PY]
    ex = explain("UserWarning: Failed to initialize NumPy: No module named 'numpy' (Triggered internally at x)",
                 facts(torch="2.13.0+cpu"), "torch-numpy-missing")
    assert ex.fix.commands == ["%s -m pip install numpy" % PY]


def test_numpy_too_old_is_upgraded_within_1x_for_old_torch():
    ex = explain("UserWarning: Failed to initialize NumPy: module compiled against API version 0xf but this version of numpy is 0xe",
                 facts(torch="2.1.2", numpy="1.21.6"), "numpy-too-old-for-torch")
    assert ex.fix.commands == ['%s -m pip install --upgrade "numpy<2"' % PY]


def test_numpy_hook_falls_back_without_torch():
    ex = explain(NUMPY1, facts(numpy="2.1.0"))
    assert_generic(ex, "numpy2-module-compiled-with-numpy1")


# -- triton / torch.compile ----------------------------------------------------------
TRITON = "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not installed or it is too old."


def test_triton_missing_on_linux_installs_the_pin_of_the_installed_torch():
    ex = explain(TRITON, facts(torch="2.13.0"), "triton-not-found")
    assert ex.fix.commands == ['%s -m pip install "triton==3.7.1"' % PY]
    ex = explain(TRITON, facts(torch="2.14.1+cu130"))
    assert ex.fix.commands == ['%s -m pip install "triton~=3.8.0"' % PY]


def test_triton_from_another_release_is_replaced_by_the_pin():
    ex = explain("ModuleNotFoundError: No module named 'triton.common'",
                 facts(python="3.11.9", torch="2.3.1", triton="3.1.0"), "triton-version-mismatch")
    assert "triton 3.1.0 is installed" in ex.fix.summary
    assert ex.fix.commands == ['%s -m pip install "triton==2.3.1"' % PY]


def test_triton_not_pinned_for_this_python_suggests_a_newer_torch():
    ex = explain(TRITON, facts(python="3.12.3", torch="2.3.1"))
    assert "python_version" in ex.fix.summary
    assert "torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1" in cmds(ex)


def test_triton_on_windows_points_to_the_matching_triton_windows_series():
    ex = explain(TRITON, facts(system="Windows", python="3.12.3", torch="2.6.0+cu126", triton="3.1.0"))
    assert ex.fix.commands[0] == "%s -m pip uninstall -y triton" % PY
    assert ex.fix.commands[1] == '%s -m pip install -U "triton-windows>=3.2,<3.3"' % PY
    assert "aot_eager" in ex.fix.summary


def test_triton_with_a_cpu_torch_explains_that_gpus_need_a_cuda_build():
    ex = explain(TRITON, facts(torch="2.13.0+cpu"))
    assert "cpu build" in ex.fix.summary


def test_triton_with_the_cpu_only_windows_pypi_wheel():
    ex = explain(TRITON, facts(system="Windows", torch="2.6.0"))
    assert "CPU-only on Windows" in ex.fix.summary
    assert not any("triton-windows" in c for c in ex.fix.commands)


def test_triton_hook_leaves_rocm_builds_to_the_generic_fix():
    assert_generic(explain(TRITON, facts(torch="2.6.0+rocm6.2.4")), "triton-not-found")


def test_triton_hook_falls_back_for_unknown_torch():
    ex = explain(TRITON, facts(torch="1.0.0"))
    assert_generic(ex, "triton-not-found")


def test_dynamo_python_suggests_the_first_torch_that_compiles_on_this_python():
    ex = explain("RuntimeError: Dynamo is not supported on Python 3.12+", facts(python="3.12.3", torch="2.2.2+cu121"),
                 "dynamo-python-version-unsupported")
    # cu121 is PyPI's default CUDA build of 2.4.1 on Linux, so no index is needed
    assert ex.fix.commands == ["%s -m pip install torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1" % PY]
    win = explain("RuntimeError: Dynamo is not supported on Python 3.12+",
                  facts(system="Windows", python="3.12.3", torch="2.2.2+cu121"))
    assert win.fix.commands == ["%s -m pip install torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1 "
                                "--index-url https://download.pytorch.org/whl/cu121" % PY]
    ok = explain("RuntimeError: Dynamo is not supported on Python 3.12+", facts(python="3.12.3", torch="2.5.1"))
    assert "another" in ok.cause


def test_cxx_compiler_per_distro_and_os():
    text = "torch._inductor.exc.InvalidCxxCompiler: No working C++ compiler found in torch._inductor.config.cpp.cxx: (None, 'g++')"
    assert explain(text, facts(torch="2.13.0", os_extra={"distro": "Ubuntu 24.04 LTS"})).fix.commands[0] == \
        "sudo apt-get install -y g++"
    assert explain(text, facts(torch="2.13.0", os_extra={"distro": "Fedora Linux 41"})).fix.commands[0] == \
        "sudo dnf install -y gcc-c++"
    old_win = explain(text, facts(system="Windows", torch="2.3.1"))
    assert "torch==2.5.1" in cmds(old_win)
    win = explain("RuntimeError: Compiler: cl is not found.", facts(system="Windows", torch="2.6.0+cu126"),
                  "inductor-msvc-not-found")
    assert any(c.endswith('vcvars64.bat"') for c in win.fix.commands)


def test_python_headers_names_the_dev_package_of_this_python():
    ex = explain("/tmp/tmp8rlaiy4j/main.c:5:10: fatal error: Python.h: No such file or directory",
                 facts(python="3.11.4", os_extra={"distro": "Ubuntu 22.04.4 LTS"}), "triton-python-headers-missing")
    assert ex.fix.commands == ["sudo apt-get install -y python3.11-dev"]


def test_compile_windows_upgrades_old_torch_keeping_its_cuda_variant():
    ex = explain("RuntimeError: Windows not yet supported for torch.compile", facts(system="Windows", torch="2.1.2+cu121"),
                 "torch-compile-windows-unsupported")
    assert ex.fix.commands == ["%s -m pip install torch==2.5.1 torchvision==0.20.1 torchaudio==2.5.1 "
                               "--index-url https://download.pytorch.org/whl/cu121" % PY]
    assert "another environment" in explain("RuntimeError: Windows not yet supported for torch.compile",
                                            facts(system="Windows", torch="2.6.0")).cause


# -- MPS -----------------------------------------------------------------------------
def mac(version, machine="arm64", **pkgs):
    return facts(system="Darwin", machine=machine, os_extra={"macos_version": version, "rosetta": False}, **pkgs)


def test_mps_torch25_on_macos12_needs_macos13_or_torch_241():
    ex = explain("RuntimeError: The MPS backend is supported on MacOS 12.3+.\nCurrent OS version can be queried using `sw_vers`.",
                 mac("12.7.6", torch="2.5.1"), "mps-macos-too-old")
    assert "13.0" in ex.fix.summary
    assert "%s -m pip install torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1" % PY in ex.fix.commands


def test_mps_on_new_enough_macos_is_a_false_alarm():
    ex = explain("RuntimeError: The MPS backend is supported on macOS 14.0+. Current OS version can be queried using `sw_vers`",
                 mac("26.3.1", torch="2.10.0"))
    assert "already meets" in ex.cause


def test_mps_x86_python_under_rosetta():
    ex = explain("RuntimeError: The MPS backend is supported on MacOS 13.0+.", mac("14.5", machine="x86_64", torch="2.2.2"))
    assert "x86_64" in ex.fix.summary


def test_mps_on_linux_says_use_cuda_or_cpu():
    ex = explain("RuntimeError: PyTorch is not linked with support for mps devices", facts(torch="2.13.0"),
                 "mps-not-linked")
    assert "only on macOS" in ex.fix.summary


def test_mps_newer_macos_feature():
    ex = explain("RuntimeError: MPS: power op with int64 input is supported natively starting from macOS 13.2.",
                 mac("12.6", torch="2.1.0"), "mps-op-needs-newer-macos")
    assert "needs macOS 13.2 and this Mac runs 12.6" in ex.fix.summary
    assert_generic(explain("RuntimeError: MPS: power op with int64 input is supported natively starting from macOS 13.2.",
                           facts(torch="2.1.0")), "mps-op-needs-newer-macos")


# -- DataLoader ----------------------------------------------------------------------
# With torch's frame: the bare line is PaddlePaddle's wording too, only a possibility (whose.py).
BUS = ('  File "/usr/lib/python3/dist-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler\n'
       "RuntimeError: DataLoader worker (pid 46794) is killed by signal: Bus error. It is possible that dataloader's "
       "workers are out of shared memory. Please try to raise your shared memory limit.")


@pytest.mark.parametrize("container,expect", [
    ("docker", "docker run --shm-size=16g ... <image>"),
    ("podman", "podman run --ipc=host ... <image>"),
    (False, "sudo mount -o remount,size=16G /dev/shm"),
])
def test_shm_fix_depends_on_the_container(container, expect):
    ex = explain(BUS, facts(os_extra={"container": container}), "dataloader-bus-error-shm")
    assert expect in ex.fix.commands


def test_shm_in_kubernetes_mentions_emptydir():
    ex = explain(BUS, facts(os_extra={"container": "kubepods"}))
    assert "emptyDir" in ex.fix.summary


def test_shm_hook_falls_back_off_linux():
    ex = explain(BUS, facts(system="Windows"))
    assert_generic(ex, "dataloader-bus-error-shm")


def test_worker_exit_on_windows_is_about_spawn():
    ex = explain("RuntimeError: DataLoader worker (pid(s) 16732) exited unexpectedly", facts(system="Windows"),
                 "dataloader-worker-exited-unexpectedly")
    assert "__main__" in ex.fix.summary
    docker = explain("RuntimeError: DataLoader worker (pid(s) 16732) exited unexpectedly",
                     facts(os_extra={"container": "docker"}))
    assert "Bus error" in docker.fix.summary and "--shm-size=16g" in cmds(docker)


def test_spawn_bootstrap_on_python314_linux_names_forkserver():
    text = "RuntimeError:\n        An attempt has been made to start a new process before the\n        current process has finished its bootstrapping phase."
    ex = explain(text, facts(python="3.14.0"), "dataloader-spawn-bootstrap")
    assert "forkserver" in ex.cause
    assert "'fork' by default" in explain(text, facts(python="3.12.1")).cause


@pytest.mark.parametrize("sm", ["80", "89", "90"])
def test_sageattention_imports_the_module_of_the_family_the_message_names(sm):
    # SageAttention hides the import error of the module it tried; the command imports that one.
    text = "Error running sage attention: SM%s kernel is not available. Make sure you GPUs with compute capability %s.%s." % (
        sm, sm[0], sm[1])
    ex = explain(text, facts(torch="2.8.0+cu128"), "sageattention-kernel-not-available")
    assert "sageattention._qattn_sm%s'" % sm in cmds(ex)
    others = {"80", "89", "90"} - {sm}
    assert not any("_qattn_sm%s'" % o in cmds(ex) for o in others)
