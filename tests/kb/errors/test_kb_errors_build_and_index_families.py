"""Build and wheel-index families: PyG's wheel pages without a build for this torch, nvcc 12.5's
missing float.h, cpp_extension refusing ROCm on Windows, MSVC without the Universal CRT's C
headers, torchao's newer wording of its skipped kernels. The lines are built for the test in the
formats those tools print; none is an evaluation text."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

from hook_facts import top

TORCH_FRAME = '  File "/venv/lib/python3.11/site-packages/torch/utils/cpp_extension.py", line 2104, in _run_ninja_build\n'


def ids(text):
    return [m.id for m in match_text(text)]


# -- PyG's wheel pages ------------------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "ERROR: Could not find a version that satisfies the requirement pyg_lib (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement pyg-lib (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement pyg-lib==0.4.0 (from versions: 0.3.1)",
    "ERROR: No matching distribution found for pyg_lib",
])
def test_pyg_lib_missing_from_its_wheel_page(line):
    m = top("Looking in links: https://data.pyg.org/whl/torch-2.2.0+cpu.html\n" + line)
    assert m.id == "pyg-wheel-index-lacks-build" and m.confidence == HIGH
    assert m.groups["pkg"].replace("-", "_") == "pyg_lib"


def test_pygs_own_build_of_an_extension_is_its_wheel_page():
    # +pt21cu121 is PyG's build, served only by its pages
    m = top("ERROR: Could not find a version that satisfies the requirement torch-scatter==2.1.2+pt21cu121 "
            "(from versions: 2.1.2)")
    assert m.id == "pyg-wheel-index-lacks-build"


def test_torch_itself_or_the_extensions_with_source_releases_are_not_pyg_libs_page():
    # torch_scatter and the others have sdists on PyPI: "from versions: none" for them is PyPI
    # out of reach, not a missing wheel page.
    for pkg in ("torch==2.1.0", "torch_scatter", "pyg_lib_extra", "pyg-libx"):
        assert "pyg-wheel-index-lacks-build" not in ids(
            "ERROR: Could not find a version that satisfies the requirement %s (from versions: none)" % pkg), pkg


# -- nvcc 12.5 and float.h ----------------------------------------------------------------------
def test_flt_max_undefined_is_possible_alone_and_a_diagnosis_in_a_torch_build():
    line = 'simple_knn.cu(90): error: identifier "FLT_MAX" is undefined'
    m = top(line)
    assert m.id == "cuda-12-5-flt-max-undefined" and m.confidence == POSSIBLE
    assert m.neutral is not None and m.neutral.by.startswith("nvcc 12.5")
    m = top(TORCH_FRAME + line)
    assert m.id == "cuda-12-5-flt-max-undefined" and m.confidence == HIGH and m.neutral is None


def test_another_undefined_identifier_is_not_float_h():
    assert "cuda-12-5-flt-max-undefined" not in ids('kernel.cu(12): error: identifier "MY_MAX" is undefined')
    assert "cuda-12-5-flt-max-undefined" not in ids('kernel.cu(12): error: identifier "FLT_MAX_EXP2" is undefined')


# -- cpp_extension, ROCm and Windows ------------------------------------------------------------
@pytest.mark.parametrize("text", [
    "OSError: Building PyTorch extensions using ROCm and Windows is not supported.",
    "No ROCm runtime is found, using ROCM_HOME='C:\\Program Files\\AMD\\ROCm\\5.7\\'\n"
    "!!! Exception during processing !!! Building PyTorch extensions using ROCm and Windows is not supported.",
])
def test_cpp_extension_refusing_rocm_on_windows(text):
    m = top(text)
    assert m.id == "cpp-extension-rocm-windows-unsupported" and m.confidence == HIGH


# -- MSVC without the Universal CRT -------------------------------------------------------------
@pytest.mark.parametrize("line", [
    "C:\\Program Files\\Microsoft Visual Studio\\2022\\Community\\VC\\Tools\\MSVC\\14.39.33519\\include\\cstddef(11): "
    "fatal error C1083: Cannot open include file: 'stddef.h': No such file or directory",
    "fatal error C1083: Cannot open include file: 'stdio.h': No such file or directory",
    "fatal error C1083: Cannot open include file: 'corecrt_math.h': No such file or directory",
    "fatal error C1083: \u65e0\u6cd5\u6253\u5f00\u5305\u62ec\u6587\u4ef6: \u201cstdlib.h\u201d: No such file or directory",
])
def test_a_universal_crt_header_not_found_is_the_windows_sdk(line):
    # possible alone (MSVC prints it for any C/C++ build), a diagnosis in torch's extension build
    m = top(line)
    assert m.id == "msvc-windows-sdk-headers-missing" and m.confidence == POSSIBLE
    m = top(TORCH_FRAME + line)
    assert m.id == "msvc-windows-sdk-headers-missing"
    # the Chinese form's short span weighs less: still "possibly" beside torch
    assert m.confidence == (HIGH if "Cannot open" in line else POSSIBLE)


def test_a_universal_crt_header_that_cannot_be_read_is_not_a_missing_sdk():
    assert "msvc-windows-sdk-headers-missing" not in ids(
        "fatal error C1083: Cannot open include file: 'stdio.h': Permission denied")


@pytest.mark.parametrize("header", ["Python.h", "cuda_runtime.h", "torch/extension.h", "stdafx.h", "mystring.h"])
def test_other_headers_are_not_the_windows_sdk(header):
    line = "fatal error C1083: Cannot open include file: '%s': No such file or directory" % header
    assert "msvc-windows-sdk-headers-missing" not in ids(line)


# -- torchao's kernels skipped, in torchao 0.17's wording -------------------------------------
@pytest.mark.parametrize("text", [
    "Skipping import of cpp extensions due to incompatible torch version. Please upgrade to torch >= 2.11.0 "
    "(found 2.9.1+cu128).",
    # printed over two lines
    "Skipping import of cpp extensions due to incompatible torch version.\n"
    "Please upgrade to torch >= 2.11.0 (found 2.10.0+cu130).",
])
def test_torchaos_newer_wording(text):
    m = top(text)
    assert m.id == "torchao-cpp-extensions-skipped"
    assert m.groups["need"] == "2.11.0" and m.groups["torch"].startswith("2.")


def test_another_packages_upgrade_request_is_not_torchaos():
    assert "torchao-cpp-extensions-skipped" not in ids("Please upgrade to torch >= 2.4.0 (found 2.1.0)")


@pytest.mark.parametrize("text, command", [
    ("Skipping import of cpp extensions due to incompatible torch version. Please upgrade to torch >= 2.11.0 "
     "(found 2.9.1+cu128).", 'python -m pip install "torchao==0.15.0"'),
    ("Skipping import of cpp extensions due to incompatible torch version 2.7.1+cu128 for torchao version 0.15.0",
     'python -m pip install "torchao==0.12.0"'),
    ("Skipping import of cpp extensions due to incompatible torch version 2.11.0+cu130 for torchao version 0.16.0",
     'python -m pip install "torchao>=0.17.0"'),
])
def test_torchaos_hook_names_the_release_built_for_that_torch(text, command):
    from torchdoctor.areas.registry import all_hooks
    from hook_facts import facts
    m = top(text)
    t = all_hooks()[m.entry.tailor](m, facts())
    assert t.commands == [command], t.commands


def test_torchaos_hook_says_so_when_no_release_fits():
    from torchdoctor.areas.registry import all_hooks
    from hook_facts import facts
    m = top("Skipping import of cpp extensions due to incompatible torch version 2.4.1 for torchao version 0.13.0")
    t = all_hooks()[m.entry.tailor](m, facts())
    assert not t.commands and "No torchao release is built for torch 2.4.1" in t.summary
