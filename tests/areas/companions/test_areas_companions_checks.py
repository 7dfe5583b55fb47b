"""Companion checks: torchvision / torchaudio pairing, NumPy ABI, triton, duplicate torch installs."""

import pytest
from conftest import make_facts

from torchdoctor.areas.checks import run_checks
from torchdoctor.advice.commands import companion_command
from torchdoctor.model.facts import absent
from torchdoctor.kb import compat

SITE = "/venv/lib/python3.11/site-packages"
PIP = "/venv/bin/python -m pip"


def env_facts(torch="2.13.0+cpu", system="Linux", packages=None, **over):
    cuda_variant = torch.split("+", 1)[1] if "+" in torch else None
    installed = {"torch": {"version": torch, "location": SITE, "installer": "pip"},
                 "numpy": {"version": "1.26.4", "location": SITE}}
    installed.update(packages or {})
    sections = dict(
        python={"version": "3.11.7", "executable": "/venv/bin/python", "machine": "x86_64",
                "platform": {"Linux": "linux", "Windows": "win32", "Darwin": "darwin"}[system],
                "implementation": "CPython"},
        os={"system": system, "machine": "x86_64"},
        torch_import={"ok": True, "warnings": []},
        torch={"version": torch, "file": SITE + "/torch/__init__.py",
               "cuda": compat.cuda_of_variant(cuda_variant) or absent("not built with it") if cuda_variant
               else absent("not built with it"),
               "hip": absent("not built with it")},
        packages={"installed": installed},
        env={},
    )
    sections.update(over)
    return make_facts(**sections)


def run(facts, *ids):
    return run_checks(facts, only=list(ids))


# ----------------------------------------------------------- torchvision ----
def test_matching_torchvision_is_fine():
    tv = compat.matching_torchvision("2.13.0")
    f = env_facts(packages={"torchvision": {"version": tv + "+cpu", "location": SITE}})
    assert run(f, "torchvision-mismatch") == []


def test_torchvision_for_another_torch_release():
    assert compat.torchvision_compatible("2.13.0", "0.27.0") is False  # premise from the KB
    f = env_facts(packages={"torchvision": {"version": "0.27.0+cpu", "location": SITE}})
    (x,) = run(f, "torchvision-mismatch")
    assert (x.id, x.category, x.severity) == ("torchvision-mismatch", "torchvision-mismatch", "error")
    assert "0.27.0" in x.title and "2.13.0" in x.title
    assert compat.torch_for_torchvision("0.27.0") in x.detail
    want = compat.matching_torchvision("2.13.0")
    # one command for check and explain alike: the paired release from torch's index, nothing else touched
    (cmd,) = x.fix.commands
    assert cmd == PIP + " install --no-deps --force-reinstall torchvision==%s --index-url https://download.pytorch.org/whl/cpu" % want
    assert "torchaudio" not in cmd  # never adds a package the user does not have


def test_torchvision_fix_uses_the_cuda_index_of_torch():
    f = env_facts(torch="2.13.0+cu126", packages={"torchvision": {"version": "0.27.0", "location": SITE}})
    (x,) = run(f, "torchvision-mismatch")
    assert x.fix.commands[0].endswith("/whl/cu126")


def test_torchvision_cuda_build_beside_cpu_torch():
    tv = compat.matching_torchvision("2.13.0")
    f = env_facts(packages={"torchvision": {"version": tv + "+cu126", "location": SITE}})
    (x,) = run(f, "torchvision-mismatch")
    assert "different platforms" in x.title and "cuda12" in x.title and "cpu" in x.title
    # --force-reinstall replaces the same version of another build (no separate uninstall needed)
    assert x.fix.commands == [PIP + " install --no-deps --force-reinstall torchvision==%s --index-url "
                                    "https://download.pytorch.org/whl/cpu" % tv]


def test_torchvision_differing_only_in_cuda_minor_is_fine():
    tv = compat.matching_torchvision("2.13.0")
    f = env_facts(torch="2.13.0+cu126", packages={"torchvision": {"version": tv + "+cu128", "location": SITE}})
    assert run(f, "torchvision-mismatch") == []


def test_unknown_pairing_is_not_reported():
    f = env_facts(torch="2.99.0+cpu", packages={"torchvision": {"version": "0.99.0", "location": SITE}})
    assert run(f, "torchvision-mismatch") == []


# ------------------------------------------------------------ torchaudio ----
def test_torchaudio_for_another_torch_release():
    assert compat.torchaudio_compatible("2.13.0", "2.9.0") is False
    f = env_facts(packages={"torchaudio": {"version": "2.9.0+cpu", "location": SITE}})
    (x,) = run(f, "torchaudio-mismatch")
    assert (x.category, x.severity) == ("torchaudio-mismatch", "error")
    (cmd,) = x.fix.commands
    assert '"torchaudio==2.11.*"' in cmd and "torchvision" not in cmd and cmd.endswith("/whl/cpu")


def test_stable_abi_torchaudio_is_fine_with_newer_torch():
    assert compat.torchaudio_compatible("2.13.0", "2.11.1") is True
    f = env_facts(packages={"torchaudio": {"version": "2.11.1+cpu", "location": SITE}})
    assert run(f, "torchaudio-mismatch") == []


def test_companion_command_for_both():
    f = env_facts(torch="2.13.0+cu126")
    (cmd,) = companion_command(f, ("torchvision", "torchaudio"))
    assert "torchvision==" in cmd and "torchaudio==" in cmd and cmd.startswith(PIP)


# ----------------------------------------------------------------- numpy ----
def test_numpy2_with_torch_built_for_numpy1():
    assert compat.numpy2_supported("2.2.2", "linux") is False
    f = env_facts(torch="2.2.2+cpu", packages={"numpy": {"version": "2.1.3", "location": SITE}})
    (x,) = run(f, "numpy-abi")
    assert (x.category, x.severity) == ("numpy-abi", "error")
    # pin NumPy below 2 first (quickest), then the torch upgrade that check and explain both offer
    assert x.fix.commands[0] == PIP + ' install "numpy<2"'
    assert x.fix.commands[1:] == [PIP + " install torch==2.3.1 --index-url https://download.pytorch.org/whl/cpu"]
    assert "Numpy is not available" in x.detail


def test_numpy1_with_old_torch_is_fine():
    f = env_facts(torch="2.2.2+cpu")
    assert run(f, "numpy-abi") == []


def test_numpy2_with_new_torch_is_fine():
    f = env_facts(torch="2.13.0+cpu", packages={"numpy": {"version": "2.4.6", "location": SITE}})
    assert run(f, "numpy-abi") == []


def test_windows_needs_torch_2_4_1_for_numpy2():
    f = env_facts(torch="2.4.0+cpu", system="Windows", packages={"numpy": {"version": "2.0.1", "location": SITE}})
    (x,) = run(f, "numpy-abi")
    assert "2.4.1" in x.fix.summary
    f = env_facts(torch="2.4.1+cpu", system="Windows", packages={"numpy": {"version": "2.0.1", "location": SITE}})
    assert run(f, "numpy-abi") == []


@pytest.mark.parametrize("text", [
    "UserWarning: Failed to initialize NumPy: _ARRAY_API not found (Triggered internally at "
    "../torch/csrc/utils/tensor_numpy.cpp:84.)",
    "UserWarning: A module that was compiled using NumPy 1.x cannot be run in NumPy 2.0.0 as it may crash.",
])
def test_numpy_abi_warning_at_import(text):
    f = env_facts(torch="2.13.0+cpu", **{"torch_import.warnings": [text]})
    (x,) = run(f, "numpy-abi")
    assert text[:40] in x.detail


# ---------------------------------------------------------------- triton ----
def test_triton_missing_on_linux_cuda_build():
    req = compat.triton_requirement("2.13.0+cu126")
    f = env_facts(torch="2.13.0+cu126")
    (x,) = run(f, "triton-missing")
    assert (x.category, x.severity) == ("triton-missing", "warning")
    assert x.fix.commands == ['%s install "triton%s"' % (PIP, req)]


def test_matching_triton_is_fine():
    pin = compat.triton_requirement("2.13.0+cu126").lstrip("=")
    f = env_facts(torch="2.13.0+cu126", packages={"triton": {"version": pin, "location": SITE}})
    assert run(f, "triton-missing") == []
    f = env_facts(torch="2.13.0+cu126", packages={"pytorch-triton": {"version": pin + "+git1234abcd", "location": SITE}})
    assert run(f, "triton-missing") == []


def test_wrong_triton_version():
    f = env_facts(torch="2.13.0+cu126", packages={"pytorch-triton": {"version": "3.0.0+45fff310c8", "location": SITE}})
    (x,) = run(f, "triton-missing")
    assert "pytorch-triton 3.0.0" in x.title
    assert x.fix.commands[0] == PIP + " uninstall -y pytorch-triton"


@pytest.mark.parametrize("torch,system", [("2.13.0+cpu", "Linux"), ("2.13.0+cu126", "Windows"), ("2.13.0", "Darwin")])
def test_triton_not_needed(torch, system):
    assert run(env_facts(torch=torch, system=system), "triton-missing") == []


def test_triton_marker_excludes_this_python():
    marker = (compat.release("2.13.0") or {}).get("triton_marker") or ""
    assert "python_version" in marker  # premise: the 2.13 pin has a Python bound
    f = env_facts(torch="2.13.0+cu126", **{"python.version": "3.15.0"})
    assert run(f, "triton-missing") == []


# ------------------------------------------------------------ duplicates ----
def test_torch_installed_twice():
    f = env_facts(torch="2.13.0+cpu", **{"packages.duplicates": {"torch": [
        {"version": "2.1.0", "location": "/home/u/.local/lib/python3.11/site-packages"}]}})
    (x,) = run(f, "torch-duplicate-install")
    assert (x.category, x.severity) == ("torch-shadowed", "warning")
    assert "2 times" in x.title and "/home/u/.local" in x.detail
    assert x.fix.commands[:2] == [PIP + " uninstall -y torch"] * 2
    assert x.fix.commands[2].startswith(PIP + " install torch==2.13.0")


def test_pip_torch_over_conda_pytorch():
    f = env_facts(torch="2.5.1+cu124", **{"packages.installed.conda:pytorch": {"version": "2.5.1", "build": "py3.11"}})
    (x,) = run(f, "torch-duplicate-install")
    assert "conda" in x.title
    assert x.fix.commands[0] == "conda remove --force pytorch"
    # pip's dist-info outlives `conda remove`: without `pip uninstall` pip would keep the broken torch
    assert x.fix.commands[1] == PIP + " uninstall -y torch"
    assert x.fix.commands[2].startswith(PIP + " install torch==2.5.1")


def test_single_torch_is_fine():
    f = env_facts(**{"packages.installed.torch.installer": "conda",
                     "packages.installed.conda:pytorch": {"version": "2.5.1", "build": "py3.11"}})
    assert run(f, "torch-duplicate-install") == []
    assert run(env_facts(), "torch-duplicate-install") == []


# -- the build a companion says it is (issue: PyPI torchvision 0.28.0 is +cu130 inside) -----
def test_pypi_torchvision_built_for_cuda_beside_cpu_torch_is_a_variant_mismatch():
    tv = {"version": "0.28.0", "location": SITE, "build_version": "0.28.0+cu130"}
    f = run(env_facts(packages={"torchvision": tv},
                      companion_imports={"torchvision": {"ok": False, "error_type": "RuntimeError",
                                                         "error": "operator torchvision::nms does not exist"}}),
            "torchvision-mismatch")
    assert len(f) == 1 and f[0].severity == "error"
    assert "0.28.0+cu130" in f[0].title and "cuda13 vs cpu" in f[0].title
    assert "operator torchvision::nms does not exist" in f[0].detail
    assert f[0].fix.commands == [PIP + " install --no-deps --force-reinstall torchvision==0.28.0 --index-url "
                                       "https://download.pytorch.org/whl/cpu"]


def test_matching_build_version_stays_quiet():
    tv = {"version": "0.28.0", "location": SITE, "build_version": "0.28.0+cpu"}
    assert run(env_facts(packages={"torchvision": tv}, companion_imports={"torchvision": {"ok": True}}),
               "torchvision-mismatch") == []


def test_matching_pair_that_fails_to_import_is_reported_with_its_error():
    ta = {"version": "2.11.0+cpu", "location": SITE}
    f = run(env_facts(torch="2.11.0+cpu", packages={"torchaudio": ta},
                      companion_imports={"torchaudio": {"ok": False, "error_type": "OSError",
                                                        "error": "libsox.so: cannot open shared object file"}}),
            "torchaudio-mismatch")
    assert len(f) == 1 and "libsox.so" in f[0].detail and "import torchaudio" in f[0].title


# -- NumPy missing or failing to initialise inside torch ------------------------------------
NUMPY_WARNING = ("/venv/lib/python3.11/site-packages/torch/_subclasses/functional_tensor.py:368: UserWarning: "
                 "Failed to initialize NumPy: No module named 'numpy' (Triggered internally at "
                 "/__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)")


def test_numpy_missing_is_a_finding_saying_what_breaks():
    f = env_facts(torch_import={"ok": True, "warnings": [NUMPY_WARNING]})
    f = f.with_values({"packages.installed.numpy": absent("not installed")})
    out = run(f, "numpy-unavailable")
    assert len(out) == 1 and out[0].severity == "warning"
    assert "Numpy is not available" in out[0].detail and "all_gather_object" in out[0].detail
    assert "Failed to initialize NumPy" in out[0].detail
    assert out[0].fix.commands == [PIP + " install numpy"]


def test_numpy_missing_before_numpy2_support_pins_numpy_1():
    f = env_facts(torch="2.2.2+cpu")
    f = f.with_values({"packages.installed.numpy": absent("not installed")})
    assert run(f, "numpy-unavailable")[0].fix.commands == [PIP + ' install "numpy<2"']


def test_numpy_present_and_quiet_import_stays_quiet():
    assert run(env_facts(), "numpy-unavailable") == []


def test_other_import_warnings_become_notes():
    f = env_facts(torch_import={"ok": True, "warnings": ["UserWarning: something torch wanted you to know"]})
    out = run(f, "torch-import-warning")
    assert len(out) == 1 and out[0].severity == "info" and "something torch wanted" in out[0].detail
    assert run(env_facts(torch_import={"ok": True, "warnings": [NUMPY_WARNING]}), "torch-import-warning") == []


def test_companion_check_and_hook_give_one_command():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.match.matcher import match_text
    f = env_facts(packages={"torchvision": {"version": "0.28.0", "location": SITE, "build_version": "0.28.0+cu130"}})
    check = run(f, "torchvision-mismatch")[0]
    m = next(m for m in match_text("RuntimeError: operator torchvision::nms does not exist")
             if m.entry.id == "torchvision-operator-does-not-exist")
    hook = explain_match(m, f)
    assert check.fix.commands[0] == hook.fix.commands[0]
