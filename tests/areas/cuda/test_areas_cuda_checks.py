"""CUDA build vs driver vs GPU, on facts that prove each diagnosis and on
facts that must not trigger it; plus fake nvidia-smi/fake torch end to end."""

import pytest

from conftest import make_facts
from fakes import fake_nvidia_smi, fake_torch
from torchdoctor.areas.checks import all_checks, run_check
from torchdoctor.gather.probe import gather
from torchdoctor.diagnose import diagnose

CHECKS = {c.id: c for c in all_checks()}
LINUX = {"system": "Linux"}


def run(cid, facts):
    return run_check(CHECKS[cid], facts)


def driver(version="550.54.15", cuda="12.4", gpus=(("NVIDIA A100-SXM4-80GB", [8, 0]),)):
    return {"present": True, "driver_version": version, "cuda_driver_version": cuda,
            "gpus": [{"index": i, "name": n, "capability": c} for i, (n, c) in enumerate(gpus)],
            "pci_gpus": [{"slot": "0000:%02d:00.0" % i} for i in range(len(gpus))]}


NO_DRIVER = {"present": False, "driver_version": {"_absent": "no NVIDIA driver found"},
             "cuda_driver_version": {"_absent": "no NVIDIA driver found"},
             "gpus": {"_absent": "none"}, "pci_gpus": []}


def cuda_torch(version="2.4.1+cu124", cuda="12.4"):
    return {"version": version, "cuda": cuda, "local_tag": version.split("+")[1]}


def cpu_torch(version="2.13.0+cpu"):
    return {"version": version, "cuda": {"_absent": "not built with it"}, "local_tag": "cpu"}


def py(exe="/venv/bin/python"):
    return {"version": "3.11.7", "executable": exe}


# ------------------------------------------------------------- cpu-only ----
def test_cpu_build_with_gpu_is_an_error_with_the_right_command():
    out = run("cpu-only-build", make_facts(torch=cpu_torch(), driver=driver("580.65.06", "13.0"), os=LINUX, python=py()))
    assert len(out) == 1 and out[0].severity == "error"
    f = out[0]
    assert "NVIDIA GPU" in f.title
    # the same release in another build: one --force-reinstall (pip keeps the old files until
    # the new ones are in place), never an uninstall that a failing install would leave behind
    assert f.fix.commands[0].startswith("/venv/bin/python -m pip install --force-reinstall torch==2.13.0")
    assert not any(" uninstall " in c for c in f.fix.commands), f.fix.commands


def test_cpu_build_with_old_driver_picks_a_variant_the_driver_runs():
    # driver 535 (CUDA 12.2): 2.4.1's cu124 runs through minor-version compatibility
    f = run("cpu-only-build", make_facts(torch=cpu_torch("2.4.1+cpu"), driver=driver("535.104.05", "12.2"), os=LINUX, python=py()))[0]
    assert any("whl/cu124" in c for c in f.fix.commands), f.fix.commands


def test_cpu_build_beside_toolkit_without_any_gpu_is_only_a_note():
    # No driver, no GPU on the PCI bus: the CPU build is the right one, as the install advice
    # for a torch-less environment says too. Before: a warning that suggested uninstalling it.
    f = run("cpu-only-build", make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX, python=py(),
                                         toolkit={"nvcc": "13.0", "nvcc_path": "/usr/local/cuda/bin/nvcc"}))[0]
    assert f.severity == "info"
    assert "13.0" in f.title and "cu130" in f.fix.summary
    assert f.fix.commands == []  # nothing to run on this machine now


def test_cpu_build_beside_toolkit_and_a_gpu_without_driver_is_an_error():
    drv = dict(NO_DRIVER, pci_gpus=[{"slot": "0000:01:00.0", "vendor": "10de"}])
    f = run("cpu-only-build", make_facts(torch=cpu_torch(), driver=drv, os=LINUX, python=py(),
                                         toolkit={"nvcc": "13.0", "nvcc_path": "/usr/local/cuda/bin/nvcc"}))[0]
    assert f.severity == "error" and "PCI" in f.detail
    assert not any(c.startswith("nvidia-smi") for c in f.fix.commands)


def test_advice_for_a_torchless_env_and_the_cpu_note_agree():
    from torchdoctor.advice import install_advice
    tk = {"nvcc": "13.0", "nvcc_path": "/usr/local/cuda/bin/nvcc"}
    adv = install_advice(make_facts(driver=NO_DRIVER, os=LINUX, python=py(), toolkit=tk), version="2.13.0")
    assert adv.variant == "cpu"
    note = run("cpu-only-build", make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX, python=py(), toolkit=tk))
    assert note[0].severity == "info"


def test_toolkit_path_unknown_is_not_printed_as_a_question_mark():
    f = run("cpu-only-build", make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX, python=py(),
                                         toolkit={"nvcc": "13.0"}))[0]
    assert "(?)" not in f.detail


@pytest.mark.parametrize("facts", [
    make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX, toolkit={"nvcc": {"_absent": "not found"}}),
    make_facts(torch=cuda_torch(), driver=driver(), os=LINUX),
    make_facts(torch=cpu_torch("2.5.1"), driver=NO_DRIVER, os={"system": "Darwin"}, toolkit={"nvcc": "12.4"}),
    make_facts(torch={"version": "6.0.0+rocm6.2", "cuda": {"_absent": "x"}, "hip": "6.2.0", "local_tag": "rocm6.2"},
               driver=NO_DRIVER, os=LINUX, toolkit={"nvcc": "12.4"}),
])
def test_cpu_only_stays_quiet(facts):
    assert run("cpu-only-build", facts) == []


def rocm_torch(version="2.5.1+rocm6.2"):
    return {"version": version, "cuda": {"_absent": "not built with it"}, "hip": "6.2.41133",
            "local_tag": version.split("+")[1]}


def test_rocm_build_where_only_an_nvidia_gpu_is_there_is_an_error_with_the_cuda_build():
    # A webui installer read an AMD integrated GPU in lspci and installed the ROCm build beside an
    # NVIDIA card: torch sees no GPU, the NVIDIA driver sees one.
    f = run("cpu-only-build", make_facts(torch=rocm_torch(), driver=driver("580.65.06", "13.0"), os=LINUX, python=py(),
                                         cuda={"is_available": False},
                                         packages={"installed": {"pytorch-triton-rocm": {"version": "3.1.0"}}}))[0]
    assert f.severity == "error" and "ROCm" in f.title and "NVIDIA" in f.title
    # the ROCm build's triton stays behind a reinstall of torch alone, and goes first (both write triton/)
    uninstall, *install = f.fix.commands
    assert uninstall == "/venv/bin/python -m pip uninstall -y pytorch-triton-rocm", f.fix.commands
    # PyPI's 2.5.1 for Linux is its CUDA 12.4 build, which driver 580 runs: no ROCm index in the command
    assert install[0].startswith("/venv/bin/python -m pip install --force-reinstall torch==2.5.1")
    assert not any("rocm" in c for c in install), f.fix.commands


@pytest.mark.parametrize("facts", [
    # torch's ROCm build sees the AMD GPU beside the NVIDIA one: it is the build that machine wants
    make_facts(torch=rocm_torch(), driver=driver(), os=LINUX,
               cuda={"is_available": True, "devices": [{"index": 0, "name": "AMD Radeon RX 7900 XTX"}]}),
    # no NVIDIA driver at all: an AMD machine whose GPU torch does not see is not this finding
    make_facts(torch=rocm_torch(), driver=NO_DRIVER, os=LINUX, cuda={"is_available": False}),
    # the AMD GPUs are hidden on purpose
    make_facts(torch=rocm_torch(), driver=driver(), os=LINUX, cuda={"is_available": False},
               env={"HIP_VISIBLE_DEVICES": ""}),
    # torch did not import: nothing says what it sees
    make_facts(torch={"version": "2.5.1+rocm6.2", "local_tag": "rocm6.2"}, driver=driver(), os=LINUX),
])
def test_rocm_build_stays_quiet_where_it_is_the_right_one(facts):
    assert run("cpu-only-build", facts) == []


def test_explaining_the_webui_gpu_assert_on_a_rocm_build_beside_an_nvidia_gpu_names_the_build():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    text = ("AssertionError: Torch is not able to use GPU; add --skip-torch-cuda-test to COMMANDLINE_ARGS variable "
            "to disable this check")
    (m,) = [m for m in match_text(text) if m.id == "cuda-not-available"]
    facts = make_facts(torch=rocm_torch(), driver=driver("580.65.06", "13.0"), os=LINUX, python=py(),
                       cuda={"is_available": False})
    ex = explain_match(m, facts)
    assert "is a ROCm build" in ex.cause, ex.cause
    assert ex.fix.commands and not any("rocm" in c for c in ex.fix.commands), ex.fix.commands
    # ROCm's own words for the same state get the same answer
    (hip,) = [m for m in match_text("RuntimeError: No HIP GPUs are available") if m.id == "no-hip-gpus-available"]
    hx = explain_match(hip, facts)
    assert "is a ROCm build" in hx.cause and hx.fix.commands == ex.fix.commands
    cpu = explain_match(m, make_facts(torch=cpu_torch(), driver=driver("580.65.06", "13.0"), os=LINUX, python=py()))
    assert "is a ROCm build" not in (cpu.cause or "")


# ------------------------------------------------------------ no driver ----
def test_cuda_build_without_driver_or_gpu_is_a_warning_naming_the_driver_floor():
    f = run("no-gpu-driver", make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), driver=NO_DRIVER, os=LINUX,
                                        cuda={"is_available": False}, python=py()))[0]
    assert f.severity == "warning" and "no NVIDIA driver" in f.title
    assert "580" in f.fix.summary
    assert any("whl/cpu" in c for c in f.fix.commands)


def test_gpu_on_pci_bus_without_driver_is_an_error():
    d = dict(NO_DRIVER, pci_gpus=[{"slot": "0000:3b:00.0"}])
    f = run("no-gpu-driver", make_facts(torch=cuda_torch(), driver=d, os=LINUX, cuda={"is_available": False}))[0]
    assert f.severity == "error" and "0000:3b:00.0" in f.detail


def test_no_driver_quiet_when_cuda_works_or_cpu_build():
    assert run("no-gpu-driver", make_facts(torch=cuda_torch(), driver=NO_DRIVER, os=LINUX, cuda={"is_available": True})) == []
    assert run("no-gpu-driver", make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX)) == []
    assert run("no-gpu-driver", make_facts(torch=cuda_torch(), driver=driver(), os=LINUX)) == []


# -------------------------------------------------------- driver too old ----
def test_driver_too_old_names_minimum_and_newest_runnable_variant():
    f = run("driver-too-old", make_facts(torch=cuda_torch("2.7.1+cu128", "12.8"), driver=driver("470.82.01", "11.4"),
                                         os=LINUX, python=py()))[0]
    assert "470.82.01" in f.title and "12.8" in f.title
    assert "525.60.13" in f.detail  # the 12.x minor-version-compatibility floor
    assert "cu118" in f.fix.summary
    assert any("whl/cu118" in c for c in f.fix.commands)


def test_driver_new_enough_is_quiet():
    # 535 runs 12.4 wheels through minor-version compatibility
    assert run("driver-too-old", make_facts(torch=cuda_torch(), driver=driver("535.104.05", "12.2"), os=LINUX)) == []
    assert run("driver-too-old", make_facts(torch=cpu_torch(), driver=driver("470.82.01", "11.4"), os=LINUX)) == []


def test_driver_too_old_from_torch_warning_even_when_tables_say_ok():
    w = ["UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)."]
    out = run("driver-too-old", make_facts(torch=cuda_torch(), driver=driver("550.54.15", "12.4"), os=LINUX,
                                           cuda={"warnings": w}))
    assert out and "found version 11040" in out[0].detail


# -------------------------------------------------------- arch unsupported --
def test_new_gpu_on_old_build():
    f = run("arch-unsupported", make_facts(torch=cuda_torch("2.6.0+cu124"), driver=driver("575.57.08", "12.9",
                                           gpus=(("NVIDIA GeForce RTX 5090", [12, 0]),)), os=LINUX, python=py(),
                                           cuda={"arch_list": ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]}))
    assert len(out := f) == 1
    assert "RTX 5090" in out[0].title and "sm_120" in out[0].title
    assert "cu12" in out[0].fix.summary or "torch 2." in out[0].fix.summary


def test_old_gpu_on_new_build_points_to_cu126():
    f = run("arch-unsupported", make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), os=LINUX, python=py(),
                                           driver=driver("580.65.06", "13.0", gpus=(("NVIDIA GeForce GTX 1080", [6, 1]),)),
                                           cuda={"arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]}))[0]
    assert "sm_61" in f.title and "Pascal" in f.title
    assert "cu126" in f.fix.summary
    assert any("whl/cu126" in c for c in f.fix.commands)


def test_supported_gpus_are_quiet():
    arch = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    for name, cap in (("NVIDIA H100", [9, 0]), ("NVIDIA L4", [8, 9]), ("Tesla T4", [7, 5])):
        facts = make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), os=LINUX, cuda={"arch_list": arch},
                           driver=driver("580.65.06", "13.0", gpus=((name, cap),)))
        assert run("arch-unsupported", facts) == [], name


# ------------------------------------------------------------ gpu hidden ----
@pytest.mark.parametrize("value", ["", "-1", " "])
def test_cuda_visible_devices_hiding_everything(value):
    f = run("gpu-hidden", make_facts(torch=cuda_torch(), driver=driver(), os=LINUX, env={"CUDA_VISIBLE_DEVICES": value},
                                     cuda={"is_available": False, "device_count": 0}))[0]
    assert f.severity == "error" and "hides all 1 GPU" in f.title


def test_cuda_visible_devices_out_of_range():
    f = run("gpu-hidden", make_facts(torch=cuda_torch(), driver=driver(), os=LINUX, env={"CUDA_VISIBLE_DEVICES": "3"}))[0]
    assert "do not exist" in f.title


def test_cuda_visible_devices_normal_masking_is_info_or_quiet():
    two = driver(gpus=(("A", [8, 0]), ("B", [8, 0])))
    out = run("gpu-hidden", make_facts(torch=cuda_torch(), driver=two, os=LINUX, env={"CUDA_VISIBLE_DEVICES": "1"},
                                       cuda={"device_count": 1}))
    assert [f.severity for f in out] == ["info"]
    assert run("gpu-hidden", make_facts(torch=cuda_torch(), driver=two, os=LINUX, env={})) == []


def test_cuda_visible_devices_uuids_are_valid_and_words_are_not():
    # CUDA accepts indices and GPU-/MIG- UUIDs; any other first entry ends the list at once.
    two = driver(gpus=(("A", [8, 0]), ("B", [8, 0])))
    uuid = run("gpu-hidden", make_facts(torch=cuda_torch(), driver=two, os=LINUX,
                                        env={"CUDA_VISIBLE_DEVICES": "GPU-5c3a2b1e-0000-1111-2222-333344445555"},
                                        cuda={"device_count": 1}))
    assert [f.severity for f in uuid] == ["info"]
    word = run("gpu-hidden", make_facts(torch=cuda_torch(), driver=two, os=LINUX, env={"CUDA_VISIBLE_DEVICES": "gpu0"},
                                        cuda={"is_available": False, "device_count": 0}))
    assert [f.severity for f in word] == ["error"] and "do not exist" in word[0].title
    assert "export CUDA_VISIBLE_DEVICES=0,1" in word[0].fix.commands


def test_cuda_visible_devices_check_and_explain_give_one_remedy():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    two = driver(gpus=(("A", [8, 0]), ("B", [8, 0])))
    for value in ("7", "-1", ""):
        facts = make_facts(torch=cuda_torch(), driver=two, os=LINUX, env={"CUDA_VISIBLE_DEVICES": value},
                           cuda={"is_available": False, "device_count": 0})
        found = run("gpu-hidden", facts)[0]
        ex = explain_match(match_text("RuntimeError: No CUDA GPUs are available")[0], facts)
        assert ex.fix.commands == found.fix.commands, value
        assert ex.fix.summary in found.detail, value


# ----------------------------------------------- verify agrees with the fix ---
# A fix that says "run on the CPU here" must not be verified by CUDA becoming available.
TOOLKIT = {"nvcc": "13.0", "nvcc_path": "/usr/local/cuda/bin/nvcc"}
CUDA_CHECK = "torch's CUDA version and True"


def test_cuda_build_without_any_gpu_is_verified_by_the_cpu_wheel_not_by_cuda():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    facts = make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), driver=NO_DRIVER, os=LINUX,
                       cuda={"is_available": False}, python=py())
    f = run("no-gpu-driver", facts)[0]
    assert f.verify is not None and f.verify.expect == "a +cpu version and None"
    assert f.verify.command.startswith("/venv/bin/python -c ")
    ex = explain_match(match_text("RuntimeError: Found no NVIDIA driver on your system.")[0], facts)
    assert ex.tailored and ex.verify == f.verify


def test_a_gpu_without_driver_is_still_verified_by_cuda():
    d = dict(NO_DRIVER, pci_gpus=[{"slot": "0000:3b:00.0"}])
    f = run("no-gpu-driver", make_facts(torch=cuda_torch(), driver=d, os=LINUX, cuda={"is_available": False}))[0]
    assert f.verify is not None and f.verify.expect == CUDA_CHECK


def test_cpu_build_with_no_gpu_here_has_nothing_to_verify_in_check_and_explain():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    facts = make_facts(torch=cpu_torch(), driver=NO_DRIVER, os=LINUX, python=py(), toolkit=TOOLKIT)
    assert run("cpu-only-build", facts)[0].verify is None
    ex = explain_match(match_text("AssertionError: Torch not compiled with CUDA enabled")[0], facts)
    assert ex.tailored and "CPU build is the right one" in ex.fix.summary
    assert ex.verify is None
    assert "no NVIDIA driver found (no NVIDIA driver found" not in " ".join(ex.notes)
    # With a GPU on the bus the fix is a driver and a CUDA build: CUDA verifies it.
    gpu = make_facts(torch=cpu_torch(), driver=dict(NO_DRIVER, pci_gpus=[{"slot": "0000:01:00.0"}]), os=LINUX,
                     python=py(), toolkit=TOOLKIT)
    assert run("cpu-only-build", gpu)[0].verify.expect == CUDA_CHECK
    assert explain_match(match_text("AssertionError: Torch not compiled with CUDA enabled")[0], gpu).verify.expect == CUDA_CHECK


# ------------------------------------------------------- cuda unavailable ---
def test_cuda_unavailable_uses_torchs_own_warning():
    w = ["UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
         "before calling NumCudaDevices() that might have already set an error? Error 804: forward compatibility was "
         "attempted on non supported HW"]
    f = run("cuda-unavailable", make_facts(torch=cuda_torch(), driver=driver(), os=LINUX,
                                           cuda={"is_available": False, "warnings": w}))[0]
    assert "Error 804" in f.detail


def test_cuda_unavailable_quiet_when_available():
    assert run("cuda-unavailable", make_facts(torch=cuda_torch(), driver=driver(), os=LINUX, cuda={"is_available": True})) == []


def test_toolkit_mismatch():
    f = run("cuda-toolkit-mismatch", make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), toolkit={"nvcc": "12.4", "nvcc_path": "/usr/local/cuda/bin/nvcc"}))[0]
    assert "12.4" in f.title and "13.0" in f.title
    assert run("cuda-toolkit-mismatch", make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), toolkit={"nvcc": "13.1"})) == []


# -------------------------------------------------- end to end with fakes ---
@pytest.fixture
def fake_machine(tmp_path, monkeypatch):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % bindir)
    for k in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES"):
        monkeypatch.delenv(k, raising=False)

    def setup(smi=None, **torch_kw):
        monkeypatch.setenv("PYTHONPATH", fake_torch(tmp_path / "site", **torch_kw))
        if smi is not None:
            fake_nvidia_smi(bindir, **smi)
        return diagnose(gather(timeout=30))
    return setup


def test_e2e_driver_too_old(fake_machine):
    rep = fake_machine(smi={"driver": "470.82.01", "cuda": "11.4"}, version="2.7.1+cu128", cuda="12.8", available=False)
    assert "driver-too-old" in {f.id for f in rep.findings}


def test_e2e_arch_unsupported(fake_machine):
    rep = fake_machine(smi={"driver": "570.124.06", "cuda": "12.8", "gpus": (("NVIDIA GeForce RTX 5090", "12.0"),)},
                       version="2.5.1+cu124", cuda="12.4", devices=(("NVIDIA GeForce RTX 5090", (12, 0)),))
    f = next(f for f in rep.findings if f.id == "arch-unsupported")
    assert "sm_120" in f.title


def test_e2e_cpu_build_on_gpu_machine(fake_machine):
    rep = fake_machine(smi={}, version="2.5.1+cpu", cuda=None)
    f = next(f for f in rep.findings if f.id == "cpu-only-build")
    assert f.severity == "error"


def test_e2e_gpu_hidden(fake_machine, monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    rep = fake_machine(smi={}, available=False)
    assert "gpu-hidden" in {f.id for f in rep.findings}


# -- one condition, one remedy: the check and the explain hook answer alike ------------------
def _hook_fix(text, entry_id, facts):
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    m = next(m for m in match_text(text) if m.entry.id == entry_id)
    return explain_match(m, facts).fix


@pytest.mark.parametrize("drv", [dict(NO_DRIVER, pci_gpus=[{"slot": "0000:3b:00.0"}]), dict(NO_DRIVER, pci_gpus=[])])
def test_no_driver_check_and_hook_share_the_remedy(drv):
    facts = make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), driver=drv, os=LINUX, cuda={"is_available": False},
                       python=py(), packages={"installed": {"torch": {"version": "2.14.1+cu130"}}})
    check = run("no-gpu-driver", facts)[0].fix
    hook = _hook_fix("RuntimeError: Found no NVIDIA driver on your system.", "nvidia-driver-not-found", facts)
    assert (check.summary, check.commands) == (hook.summary, hook.commands)


def test_cpu_only_check_and_hook_share_the_remedy():
    facts = make_facts(torch=cpu_torch("2.4.1+cpu"), driver=driver("550.54.15", "12.4"), os=LINUX, python=py(),
                       packages={"installed": {"torch": {"version": "2.4.1+cpu"}}})
    check = run("cpu-only-build", facts)[0].fix
    hook = _hook_fix("AssertionError: Torch not compiled with CUDA enabled", "torch-not-compiled-with-cuda", facts)
    assert (check.summary, check.commands) == (hook.summary, hook.commands)
    assert any("whl/cu124" in c for c in check.commands)


def test_arch_check_and_hook_share_the_remedy():
    facts = make_facts(torch=cuda_torch("2.14.1+cu130", "13.0"), os=LINUX, python=py(),
                       driver=driver("580.65.06", "13.0", gpus=(("NVIDIA GeForce GTX 1080", [6, 1]),)),
                       cuda={"arch_list": ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]},
                       packages={"installed": {"torch": {"version": "2.14.1+cu130"}}})
    check = run("arch-unsupported", facts)[0].fix
    hook = _hook_fix("Found GPU0 NVIDIA GeForce GTX 1080 which is of cuda capability 6.1.", "gpu-too-old-for-torch", facts)
    assert (check.summary, check.commands) == (hook.summary, hook.commands)


AMD_ON_PCI = dict(NO_DRIVER, pci_amd_gpus=[{"slot": "0000:03:00.0", "device_id": "0x744c"}], amd_gfx_targets=["gfx1100"])
X86 = {"version": "3.11.7", "executable": "/venv/bin/python", "machine": "x86_64"}


def test_a_cuda_build_beside_an_amd_gpu_is_told_to_install_the_rocm_build():
    # An installer that pinned the CUDA wheel on a Radeon machine: the ROCm build, not the CPU one.
    f = run("no-gpu-driver", make_facts(torch=cuda_torch("2.4.1+cu124"), driver=AMD_ON_PCI, os=LINUX, python=X86,
                                        packages={"installed": {"triton": {"version": "3.0.0"}}}))[0]
    assert "AMD" in f.title and "gfx1100" in f.detail and f.severity == "warning"
    assert f.fix.commands[0].endswith("pip uninstall -y triton")
    assert any("download.pytorch.org/whl/rocm6.1" in c and "torch==2.4.1" in c for c in f.fix.commands), f.fix.commands
    assert "/dev/kfd" in f.fix.summary and "render and video groups" in f.fix.summary


def amd(targets):
    return dict(AMD_ON_PCI, amd_gfx_targets=targets)


@pytest.mark.parametrize("drv, os_, python, torch", [
    (dict(AMD_ON_PCI, pci_gpus=[{"slot": "0000:01:00.0"}]), LINUX, X86, "2.4.1+cu124"),  # an NVIDIA card's driver is missing
    (NO_DRIVER, LINUX, X86, "2.4.1+cu124"),                                                # no AMD GPU either: the CPU build
    (AMD_ON_PCI, {"system": "Windows"}, X86, "2.4.1+cu124"),                               # no ROCm wheels on Windows
    (AMD_ON_PCI, LINUX, dict(X86, machine="aarch64"), "2.4.1+cu124"),                     # nor for ARM
    # a Ryzen's integrated graphics (gfx1036) and an RX 6700's gfx1031: no kernels in ROCm's wheels
    (amd(["gfx1036"]), LINUX, X86, "2.4.1+cu124"),
    (amd(["gfx1031"]), LINUX, X86, "2.4.1+cu124"),
    # an RX 9070 (gfx1201) with a torch whose newest ROCm (6.1) predates RDNA4
    (amd(["gfx1201"]), LINUX, X86, "2.4.1+cu124"),
    # a torch whose ROCm builds (5.4) predate the targets read here
    (AMD_ON_PCI, LINUX, X86, "2.0.1+cu118"),
    # RX 7800's gfx1101 came into the wheels with torch 2.6, RX 7600's gfx1102 with 2.7
    (amd(["gfx1101"]), LINUX, X86, "2.5.1+cu124"),
    (amd(["gfx1102"]), LINUX, X86, "2.6.0+cu124"),
    # amdgpu's compute driver not loaded: nothing says what the GPU runs
    (dict(NO_DRIVER, pci_amd_gpus=[{"slot": "0000:03:00.0"}]), LINUX, X86, "2.4.1+cu124"),
    (amd([None, 7]), LINUX, X86, "2.4.1+cu124"),
])
def test_the_rocm_build_is_offered_only_for_a_gpu_its_wheels_run(drv, os_, python, torch):
    f = run("no-gpu-driver", make_facts(torch=cuda_torch(torch), driver=drv, os=os_, python=python))[0]
    assert "AMD" not in f.title and not any("rocm" in c for c in f.fix.commands)


def test_an_integrated_gpu_beside_the_card_is_named_to_hide():
    f = run("no-gpu-driver", make_facts(torch=cuda_torch("2.6.0+cu124"), driver=amd(["gfx1036", "gfx1101"]), os=LINUX,
                                        python=X86))[0]
    assert "gfx1101" in f.fix.summary and "gfx1036" in f.fix.summary and "HIP_VISIBLE_DEVICES" in f.fix.summary


def test_rdna4_gets_the_rocm_build_from_a_torch_that_ships_rocm_6_4():
    f = run("no-gpu-driver", make_facts(torch=cuda_torch("2.8.0+cu128", "12.8"), driver=amd(["gfx1201"]), os=LINUX,
                                        python=X86))[0]
    assert "gfx1201" in f.fix.summary and any("whl/rocm6.4" in c for c in f.fix.commands), f.fix.commands


def test_found_no_nvidia_driver_on_an_amd_machine_reads_the_same():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    m = match_text("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and "
                   "installed a driver from http://www.nvidia.com/Download/index.aspx")[0]
    assert m.id == "nvidia-driver-not-found"
    e = explain_match(m, make_facts(torch=cuda_torch("2.4.1+cu124"), driver=AMD_ON_PCI, os=LINUX, python=X86))
    assert "gfx1100" in e.fix.summary and any("whl/rocm6.1" in c for c in e.fix.commands), e.fix.commands
