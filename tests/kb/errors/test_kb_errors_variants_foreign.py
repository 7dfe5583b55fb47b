"""Known errors where the decision rests on a fact in the pattern
(which CUDA variants a release was built for) or on another program's markers. The lines here
are built for the test, in the formats pip, GNU make, OpenCV and darknet print; none is an
evaluation text."""

import pytest

from torchdoctor.match.matcher import match_text
from torchdoctor.areas.registry import all_hooks as hooks

from hook_facts import facts


def top(text):
    found = match_text(text)
    return found[0].id if found else None


def req(spec, versions=None):
    line = "ERROR: Could not find a version that satisfies the requirement torch==%s" % spec
    return line + (" (from versions: %s)" % versions if versions is not None else "")


@pytest.mark.parametrize("spec", ["1.13.1+cu121", "2.3.0+cu124", "2.0.0+cu113", "2.5.1+cu126", "2.8.0+cu124"])
def test_a_pair_never_built_is_an_index_problem_whatever_the_python(spec):
    assert top(req(spec)) == "pip-torch-variant-never-built"
    assert top(req(spec, "none")) == "pip-torch-variant-never-built"


@pytest.mark.parametrize("spec", ["2.2.0+cu121", "1.12.1+cu116", "2.6.0+cu126", "2.7.1+cu118"])
def test_a_published_pair_is_left_to_the_other_entries(spec):
    assert top(req(spec)) != "pip-torch-variant-never-built"
    # a PyPI list without the release: the Python has no wheel of it
    assert match_text(req(spec, "2.9.0, 2.9.1, 2.10.0"))[0].entry.category == "python-unsupported"


def test_a_variant_index_that_ends_before_the_release():
    cu121 = "2.1.0+cu121, 2.2.2+cu121, 2.5.0+cu121, 2.5.1+cu121"
    assert top(req("2.6.0", cu121)) == "pip-torch-variant-never-built"
    # the release is on that index, but not for this Python: not an index problem
    assert match_text(req("2.5.1", "2.1.0+cu121, 2.4.1+cu121"))[0].entry.category == "python-unsupported"
    # a merged list (PyPI and the index): the plain versions say nothing about the variant's range
    assert top(req("2.6.0", "2.4.1, 2.4.1+cu121, 2.5.1, 2.5.1+cu121")) != "pip-torch-variant-never-built"


def test_the_hook_names_the_variants_the_release_has():
    m = next(m for m in match_text(req("2.0.1+cu121")) if m.id == "pip-torch-variant-never-built")
    t = hooks()[m.entry.tailor](m, facts(py="3.10.12"))
    assert "never built for cu121" in t.cause and "cu117" in t.cause and "cu118" in t.cause


def test_a_patch_never_released_of_a_release_built_for_the_variant_names_its_last_patch():
    # 2.0.2 never came; 2.0.1 was built for cu118: only the patch is wrong
    m = match_text(req("2.0.2+cu118"))[0]
    t = hooks()[m.entry.tailor](m, facts(py="3.10.12"))
    assert "was never released" in t.cause and "never built for" not in t.cause
    assert "2.0.1, the last patch of 2.0" in t.summary and t.commands and "torch==2.0.1" in t.commands[0]
    assert "cu118" in t.commands[0]


# The rocm5.6 index as a Python 3.10 interpreter's pip lists it (2.1.x and 2.2.x).
ROCM56 = "2.1.0+rocm5.6, 2.1.1+rocm5.6, 2.1.2+rocm5.6, 2.2.0+rocm5.6, 2.2.1+rocm5.6, 2.2.2+rocm5.6"
LOOK56 = "/home/u/venv/bin/python -m pip index versions torch --index-url https://download.pytorch.org/whl/rocm5.6"


def rocm_reading(spec, versions, **kw):
    m = next((m for m in match_text(req(spec, versions)) if m.id == "pip-torch-variant-never-built"), None)
    return m, (hooks()[m.entry.tailor](m, facts(**dict({"py": "3.10.12"}, **kw))) if m else None)


def test_a_rocm_index_that_ends_before_the_release_names_the_releases_rocm():
    assert top(req("2.4.1", ROCM56)) == "pip-torch-variant-never-built"
    m, t = rocm_reading("2.4.1", ROCM56)
    assert m.groups["variant"] == "rocm5.6"
    assert "rocm5.6 index carries torch 2.1.0 to 2.2.2 only" in t.cause and "ROCm 6.1" in t.cause
    assert t.commands[0].endswith("pip install torch==2.4.1 --index-url https://download.pytorch.org/whl/rocm6.1")
    assert t.commands[-1] == LOOK56


def test_a_rocm_index_that_starts_after_the_release():
    m, t = rocm_reading("2.1.2", "2.4.0+rocm6.1, 2.4.1+rocm6.1, 2.5.0+rocm6.1, 2.5.1+rocm6.1")
    assert "built for other ROCm versions only" in t.cause and "torch 2.4.0 from the rocm6.1 index" in t.summary


def test_a_release_the_index_carries_but_not_for_this_python_is_the_python():
    # pip lists only what this interpreter may install: on Python 3.12 the rocm5.6 index shows 2.2.x
    # only, and torch 2.1.2 (whose ROCm is 5.6) has no wheel for 3.12; the same install would fail again
    m, t = rocm_reading("2.1.2", "2.2.0+rocm5.6, 2.2.1+rocm5.6, 2.2.2+rocm5.6", py="3.12.3")
    assert "is not what lacks torch 2.1.2" in t.cause and "no wheel for Python 3.12" in t.cause
    assert t.commands == [LOOK56] and "--index-url https://download.pytorch.org/whl/rocm5.6" not in t.summary


def test_a_rocm_pin_inside_the_index_range_is_a_filter_of_this_interpreter():
    m, t = rocm_reading("2.2.1", "2.2.0+rocm5.6, 2.2.2+rocm5.6")
    assert m is not None and "pip left it out for this interpreter" in t.cause and t.commands == [LOOK56]


def test_a_merged_rocm_and_pypi_list_says_nothing_about_the_index():
    assert top(req("2.3.1", "2.5.0, 2.5.1, 2.6.0, 2.6.0+rocm6.1, 2.7.0, 2.7.1")) != "pip-torch-variant-never-built"


def test_off_linux_the_rocm_reading_prints_no_cuda_command():
    m, t = rocm_reading("2.4.1", ROCM56, system="Windows")
    assert all("download.pytorch.org/whl/cu" not in c for c in t.commands)
    assert any("Linux only" in n for n in t.notes)


def test_companion_pins_are_resolved_like_torch_and_keep_the_generic_hook_quiet():
    text = ("ERROR: Could not find a version that satisfies the requirement torchvision==0.15.2 "
            "(from versions: 0.19.0, 0.19.1, 0.20.0)")
    m = match_text(text)[0]
    assert m.id == "pip-no-matching-distribution-torch" and m.groups.get("pkg") == "torchvision"
    assert hooks()[m.entry.tailor](m, facts(py="3.12.3")) is None  # 0.15.2 is no torch version


def test_a_plain_make_build_is_another_programs_output():
    log = ("nvcc fatal   : Unsupported gpu architecture 'compute_90'\n"
           "Makefile:12: recipe for target 'kernel.o' failed\nmake: *** [kernel.o] Error 1")
    assert match_text(log) == []
    assert top(log + "\n  File \"setup.py\", line 3, in <module>\n    import torch") == \
        "nvcc-unsupported-gpu-architecture"


def test_a_family_specific_sm_target_is_the_toolkits_architecture_question():
    # CUDA 12.9's family targets (sm_100f), asked for by a JIT library under an older nvcc
    text = ("  File \"/usr/local/lib/python3.12/dist-packages/deep_gemm/__init__.py\", line 9, in <module>\n"
            "    import torch\nNVCC compilation failed: nvcc fatal   : Unsupported gpu architecture 'sm_100f'")
    assert top(text) == "nvcc-unsupported-gpu-architecture"


def test_opencv_and_darknet_failures_are_not_diagnosed_without_torch():
    cv2 = "  File \"app.py\", line 2, in <module>\n    import cv2\nImportError: numpy.core.multiarray failed to import"
    assert match_text(cv2) == []
    assert top(cv2.replace("import cv2", "from torch._C import *")) == "numpy-multiarray-failed-import"
    dn = ("CUDA Error: no kernel image is available for execution on the device\n"
          "Darknet error location: ./src/dark_cuda.c, check_error, line #70")
    assert match_text(dn) == []


def test_windows_extension_modules_without_a_package_name():
    assert top("ImportError: DLL load failed while importing _75_C: The specified module could not be found.") == \
        "windows-extension-module-dll-load-failed"
    # torch's own _C stays with the torch entry unless a package names it
    assert top("ImportError: DLL load failed while importing _C: The specified module could not be found.") == \
        "windows-import-c-dll-load-failed"
