"""MPS checks (macOS): not built, built but unavailable, backends.mps missing, CPU fallback."""

from conftest import make_facts

from torchdoctor.areas.checks import run_checks
from torchdoctor.model.facts import absent
from torchdoctor.kb import compat

IDS = ["mps-not-built", "mps-unavailable", "backends-mps-missing", "mps-fallback-enabled"]


def mac_facts(machine="arm64", macos="14.5", built=True, available=True, torch="2.13.0", rosetta=False,
              cpu_model="Apple M2 Pro", **over):
    sections = dict(
        python={"version": "3.11.7", "executable": "/Users/u/.venv/bin/python", "machine": machine,
                "platform": "darwin"},
        os={"system": "Darwin", "machine": machine, "macos_version": macos, "rosetta": rosetta,
            "apple_silicon": machine == "arm64" or rosetta},
        cpu={"model": cpu_model},
        torch_import={"ok": True, "warnings": []},
        torch={"version": torch, "cuda": absent("not built with it"), "hip": absent("not built with it")},
        backends={"mps": {"is_built": built, "is_available": available}},
        packages={"installed": {"torch": {"version": torch, "location": "/Users/u/.venv/lib/python3.11/site-packages",
                                          "installer": "pip"}}},
        env={"PYTORCH_ENABLE_MPS_FALLBACK": absent("not set")},
    )
    sections.update(over)
    return make_facts(**sections)


def run(facts, ids=IDS):
    return run_checks(facts, only=ids)


def test_working_mps_has_no_findings():
    assert run(mac_facts()) == []


def test_linux_is_never_checked():
    f = mac_facts(built=False, available=False, **{"os.system": "Linux", "env.PYTORCH_ENABLE_MPS_FALLBACK": "1"})
    assert run(f) == []


def test_x86_64_python_under_rosetta():
    f = mac_facts(machine="x86_64", rosetta=True, built=False, available=False, torch="2.2.2")
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("mps-not-built", "mps-unavailable", "error")
    assert "Rosetta" in x.title
    assert "arch -arm64 python3 -m venv .venv-arm64" in x.fix.commands
    assert x.fix.commands[-1] == ".venv-arm64/bin/python -m pip install torch==2.2.2"


def test_x86_64_target_python_on_apple_silicon_even_if_the_doctor_is_native():
    """The doctor's own process is arm64 (rosetta False), the target Python is x86_64."""
    f = mac_facts(built=False, available=False, torch="2.2.2", **{"python.machine": "x86_64"})
    (x,) = run(f)
    assert "Rosetta" in x.title


def test_arm64_python_with_a_build_without_mps():
    f = mac_facts(built=False, available=False)
    (x,) = run(f)
    assert x.id == "mps-not-built" and "built without MPS" in x.title
    # the same release over the installed one: one --force-reinstall, never an uninstall first
    assert any("pip install --force-reinstall torch==2.13.0" in c for c in x.fix.commands), x.fix.commands
    assert not any(" uninstall " in c for c in x.fix.commands), x.fix.commands


def test_intel_mac_without_mps_is_not_an_error():
    f = mac_facts(machine="x86_64", built=False, available=False, torch="2.2.2", cpu_model="Intel(R) Core(TM) i7")
    assert run(f) == []


def test_macos_too_old_for_mps():
    f = mac_facts(macos="12.1", available=False, torch="2.4.1")
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("mps-unavailable", "mps-unavailable", "warning")
    assert "12.3" in x.title and "12.1" in x.title


def test_macos_12_is_too_old_for_torch_2_5_and_later():
    (x,) = run(mac_facts(macos="12.6", available=False))  # torch 2.13: MPS needs macOS 13
    assert "13.0" in x.title and "12.6" in x.title


def test_macos_vm_has_no_metal_gpu():
    f = mac_facts(available=False, cpu_model="Apple M1 (Virtual)")
    (x,) = run(f)
    assert x.id == "mps-unavailable" and "virtual machine" in x.detail


def test_built_but_unavailable_on_recent_macos_says_how_to_find_out():
    f = mac_facts(macos="13.6.1", available=False)
    (x,) = run(f)
    assert "14.0+" in x.detail
    assert "device='mps'" in x.fix.commands[0]


def test_backends_mps_missing_on_old_torch():
    f = mac_facts(torch="1.11.0", backends={"mps": absent("torch.backends.mps does not exist in this torch version")})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("backends-mps-missing", "backends-mps-missing", "warning")
    assert "added in torch %s" % compat.backend_api("torch.backends.mps")["added"] in x.title
    newest = compat.newest_torch_for_python("3.11")
    assert newest in x.fix.summary and x.fix.commands


def test_mps_fallback_explained_when_set():
    f = mac_facts(**{"env.PYTORCH_ENABLE_MPS_FALLBACK": "1"})
    (x,) = run(f)
    assert (x.id, x.category, x.severity) == ("mps-fallback-enabled", "mps-op-unsupported", "info")
    assert "before `import torch`" in x.detail
    assert x.fix.commands == ["unset PYTORCH_ENABLE_MPS_FALLBACK"]


def test_mps_fallback_with_an_odd_value():
    f = mac_facts(**{"env.PYTORCH_ENABLE_MPS_FALLBACK": "yes"})
    (x,) = run(f)
    assert "documents the value 1" in x.title
    assert x.fix.commands == ["export PYTORCH_ENABLE_MPS_FALLBACK=1"]


def test_x86_64_torch_with_mps_built_under_rosetta_is_still_the_rosetta_problem():
    f = mac_facts(machine="x86_64", rosetta=True, built=True, available=False, torch="2.2.2")
    (x,) = run(f)
    assert (x.id, x.severity) == ("mps-unavailable", "error")
    assert "Rosetta" in x.title and "is_built() is yes" in x.detail
