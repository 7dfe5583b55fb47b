"""advice.install_advice: the one place that picks the torch build and command for a
machine. Every command it gives must install something that exists for this Python,
OS, driver and accelerator (a wrong command is worse than none)."""

from conftest import make_facts
from torchdoctor.advice import install_advice
from torchdoctor.areas.checks import all_checks, run_check

CHECKS = {c.id: c for c in all_checks()}
LINUX = {"system": "Linux", "release": "6.8.0-45-generic"}
NO_DRIVER = {"present": False, "driver_version": {"_absent": "no NVIDIA driver found"},
             "cuda_driver_version": {"_absent": "no NVIDIA driver found"}, "gpus": {"_absent": "none"}, "pci_gpus": []}
NOT_INSTALLED = {"ok": False, "error_type": "ModuleNotFoundError", "error": "No module named 'torch'"}


def driver(version, cuda, gpus=(("NVIDIA A100-SXM4-80GB", [8, 0]),)):
    return {"present": True, "driver_version": version, "cuda_driver_version": cuda,
            "gpus": [{"index": i, "name": n, "capability": c} for i, (n, c) in enumerate(gpus)], "pci_gpus": []}


def py(version="3.11.7", exe="/venv/bin/python", machine="x86_64"):
    return {"version": version, "executable": exe, "machine": machine}


def run(cid, facts):
    return run_check(CHECKS[cid], facts)


# -- torch missing: the newest release that installs *and runs* here ---------------
def test_missing_torch_on_an_older_driver_gets_the_newest_release_the_driver_runs():
    # torch 2.15 ships only cu132, which driver 535 (CUDA 12.2) cannot run; 2.14.1's cu126 runs
    # through minor-version compatibility. Before: "Install torch 2.15.0" with no command at all.
    f = make_facts(torch_import=NOT_INSTALLED, driver=driver("535.104.05", "12.2"), os=LINUX, python=py("3.12.1"))
    adv = install_advice(f)
    assert adv.torch_version == "2.14.1" and adv.variant == "cu126"
    assert adv.commands == ["/venv/bin/python -m pip install torch==2.14.1 --index-url https://download.pytorch.org/whl/cu126"]
    out = run("torch-not-installed", f)[0]
    assert out.fix.commands == adv.commands and "2.14.1" in out.fix.summary


def test_missing_torch_on_a_python_no_release_supports_gets_no_command():
    # Before: `pip install torch==2.15.0` for Python 3.16 -- "No matching distribution found".
    f = make_facts(torch_import=NOT_INSTALLED, driver=NO_DRIVER, os=LINUX, python=py("3.16.0"))
    adv = install_advice(f)
    assert adv.commands == [] and "3.16" in adv.why
    # no dead `pip install torch` into 3.16: a new environment with a Python torch supports
    cmds = run("torch-not-installed", f)[0].fix.commands
    assert not any("install torch==" in c and "3.16" in c for c in cmds) and cmds[0].endswith("-m venv .venv"), cmds
    assert "3.16" in run("torch-not-installed", f)[0].fix.summary


def test_missing_torch_on_an_intel_mac_is_capped_at_the_last_x86_64_release():
    # torch 2.3+ has no macOS x86_64 wheel (pytorch/pytorch#114602).
    f = make_facts(torch_import=NOT_INSTALLED, driver=NO_DRIVER, python=py("3.12.1"),
                   os={"system": "Darwin", "machine": "x86_64", "apple_silicon": False})
    adv = install_advice(f)
    assert adv.commands == ["/venv/bin/python -m pip install torch==2.2.2"]


def test_apple_silicon_mac_is_not_capped():
    f = make_facts(torch_import=NOT_INSTALLED, driver=NO_DRIVER, python=py("3.12.1", machine="arm64"),
                   os={"system": "Darwin", "machine": "arm64", "apple_silicon": True})
    assert install_advice(f).commands[0].endswith("torch==2.15.0")


# -- a named version the Python has no wheel for -----------------------------------
def test_explicit_version_without_a_wheel_for_this_python_gives_no_command():
    f = make_facts(torch={"version": "2.9.1+cu128", "cuda": "12.8"}, driver=driver("580.65.06", "13.0"),
                   os=LINUX, python=py("3.14.0"))
    adv = install_advice(f, version="2.5", variant="cu118")
    assert adv.commands == [] and "Python 3.14" in adv.why


def test_arch_unsupported_points_to_a_release_with_a_wheel_for_this_python():
    # A Kepler K80 under torch 2.9 on Python 3.14: the newest release with sm_37 kernels
    # (2.5, cu118) has no cp314 wheel, so pip would fail. Say so instead of a dead command.
    f = make_facts(torch={"version": "2.9.1+cu128", "cuda": "12.8"}, torch_import={"ok": True},
                   driver=driver("470.256.02", "11.4", (("Tesla K80", [3, 7]),)), os=LINUX, python=py("3.14.0"),
                   cuda={"is_available": False, "arch_list": ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]})
    f1 = run("arch-unsupported", f)[0]
    assert not any("torch==2.5" in c for c in f1.fix.commands), f1.fix.commands
    assert "Python 3.14" in f1.fix.summary
    # on Python 3.12 the same machine gets the 2.5.1 cu118 command
    f = make_facts(**dict(f.data, python=py("3.12.1")))
    f2 = run("arch-unsupported", f)[0]
    assert any("torch==2.5.1" in c and "whl/cu118" in c for c in f2.fix.commands), f2.fix.commands


# -- ROCm stays ROCm ------------------------------------------------------------------
def test_rocm_torch_that_fails_to_import_is_reinstalled_from_the_rocm_index():
    # Before: the CPU wheel (no NVIDIA driver -> "cpu"), which throws away the AMD GPU.
    f = make_facts(torch_import={"ok": False, "error_type": "ImportError", "error": "libamdhip64.so: cannot open shared object file"},
                   packages={"installed": {"torch": {"version": "2.4.1+rocm6.1"}, "torchvision": {"version": "0.19.1+rocm6.1"}}},
                   driver=NO_DRIVER, os=LINUX, python=py())
    adv = install_advice(f)
    assert adv.variant == "rocm6.1"
    assert adv.commands[-1].endswith("torch==2.4.1 torchvision==0.19.1 --index-url https://download.pytorch.org/whl/rocm6.1")
    cmds = run("torch-import-failed", f)[0].fix.commands
    assert not any("whl/cpu" in c for c in cmds), cmds


def test_imported_rocm_torch_keeps_rocm():
    f = make_facts(torch={"version": "2.4.1+rocm6.1", "cuda": {"_absent": "x"}, "hip": "6.1.40091"},
                   driver=NO_DRIVER, os=LINUX, python=py())
    assert install_advice(f).variant == "rocm6.1"


# -- Jetson ------------------------------------------------------------------------------
def test_jetson_never_gets_a_download_pytorch_org_command():
    # download.pytorch.org's aarch64 CUDA wheels are SBSA builds, not JetPack's.
    f = make_facts(torch={"version": "2.5.1", "cuda": {"_absent": "not built with it"}}, torch_import={"ok": True},
                   driver={"present": True, "driver_version": "540.4.0", "cuda_driver_version": "12.6",
                           "gpus": [{"index": 0, "name": "Orin (nvgpu)", "capability": [8, 7]}]},
                   os={"system": "Linux", "release": "5.15.148-tegra", "machine": "aarch64"},
                   python=py("3.10.12", machine="aarch64"))
    adv = install_advice(f)
    assert adv.commands == [] and "Jetson" in adv.why
    out = run("cpu-only-build", f)[0]
    assert out.fix.commands == [] and "Jetson" in out.fix.summary


# -- a driver whose version is not known --------------------------------------------------
def test_cpu_only_build_never_suggests_reinstalling_the_cpu_build():
    # A paste: GPU listed, driver "Could not collect", torch +cpu. Before: "Reinstall torch
    # 2.5.1 as the cpu build" with the CPU index -- a no-op for the problem at hand.
    f = make_facts(torch={"version": "2.5.1+cpu", "cuda": {"_absent": "not built with it"}},
                   driver={"driver_version": {"_absent": "collect_env: Could not collect"},
                           "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090"}]},
                   os=LINUX, python=py())
    out = run("cpu-only-build", f)[0]
    assert not any("whl/cpu" in c for c in out.fix.commands), out.fix.commands
    assert "cpu build" not in out.fix.summary


def test_driver_known_only_through_libcuda_picks_a_variant_it_runs():
    # NVML and nvidia-smi missing, libcuda says CUDA 12.4. NVIDIA's minor-version
    # compatibility runs every 12.x build on any 12.x driver (its floor, 525.60.13, is the
    # 12.0 driver), so of 2.7.1's cu118/cu126/cu128 the newest, cu128, runs: the same answer
    # as with the driver's version known (advice and the explain hook agree, see below).
    # Before: the CPU build; then cu118 (minor-version compatibility ignored).
    f = make_facts(torch={"version": "2.7.1+cpu", "cuda": {"_absent": "not built with it"}},
                   driver={"present": True, "driver_version": {"_absent": "no NVML"}, "cuda_driver_version": "12.4",
                           "gpus": {"_absent": "no NVML"}},
                   os=LINUX, python=py())
    adv = install_advice(f)
    assert adv.variant == "cu128" and adv.commands[-1].endswith("--index-url https://download.pytorch.org/whl/cu128")
    with_version = make_facts(**dict(f.data, driver=driver("550.54.15", "12.4")))
    assert install_advice(with_version).variant == "cu128"


def test_minor_version_compatibility_by_driver_cuda_follows_nvidia():
    from torchdoctor.kb import compat
    assert compat.newest_variant_for_driver_cuda("2.7.1", "12.4") == "cu128"  # same major 12: MVC
    assert compat.newest_variant_for_driver_cuda("2.7.1", "11.8") == "cu118"  # 12.x needs a 12.x driver
    assert compat.newest_variant_for_driver_cuda("2.4.1", "11.0") is None     # 11.x MVC floor 450.80.02 > 11.0 GA
    assert compat.newest_variant_for_driver_cuda("2.4.1", "11.1") == "cu118"
    assert compat.newest_variant_for_driver_cuda("2.14.1", "13.0") == "cu132"  # 13.x: any 13.x driver
    assert compat.newest_variant_for_driver_cuda("2.7.1", "12.4", mvc=False) == "cu118"
    assert compat.newest_variant_for_driver_cuda("2.14.1", "garbage") is None


def test_advice_and_the_driver_hook_pick_the_same_variant_from_the_drivers_cuda():
    """The check side (advice, libcuda says CUDA 12.4) and the explain side (the driver hook,
    which only has torch's "found version 12040") answer the same for the same driver."""
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    text = ("RuntimeError: The NVIDIA driver on your system is too old (found version 12040). Please update your GPU "
            "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")
    m = next(m for m in match_text(text) if m.entry.id == "nvidia-driver-too-old")
    # the message came from a 2.7.1 environment elsewhere; here torch 2.7.1 is the CPU build
    here = make_facts(packages={"installed": {"torch": {"version": "2.7.1+cpu"}}}, os=LINUX, python=py(),
                      torch={"version": "2.7.1+cpu", "cuda": {"_absent": "not built with it"}})
    hook_cmds = explain_match(m, here).fix.commands
    libcuda = make_facts(torch={"version": "2.7.1+cpu", "cuda": {"_absent": "not built with it"}}, os=LINUX, python=py(),
                         driver={"present": True, "driver_version": {"_absent": "no NVML"}, "cuda_driver_version": "12.4"})
    assert install_advice(libcuda, version="2.7.1").variant == "cu128"
    assert any("whl/cu128" in c for c in hook_cmds), hook_cmds


def test_a_same_major_build_torch_calls_too_new_is_not_proposed_again():
    # torch 2.7.1+cu128 itself said "found version 12040": minor-version compatibility says
    # cu128 runs there, the observation says it does not, so the hook stays below CUDA 12.4.
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    text = ("RuntimeError: The NVIDIA driver on your system is too old (found version 12040). Please update your GPU "
            "driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")
    m = next(m for m in match_text(text) if m.entry.id == "nvidia-driver-too-old")
    facts = make_facts(packages={"installed": {"torch": {"version": "2.7.1+cu128"}}}, os=LINUX, python=py(),
                       torch={"version": "2.7.1+cu128", "cuda": "12.8"})
    x = explain_match(m, facts)
    assert "cu118 build of torch 2.7.1" in x.fix.summary and any("whl/cu118" in c for c in x.fix.commands)
