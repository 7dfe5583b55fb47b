"""Known errors of pins and toolchains: a +cuXXX pin pip could not find with no version
list to tell index from Python, triton-windows without the embedded Python's headers, and two
more programs whose output repeats torch's messages. The lines are built for the test in the
formats pip, TinyCC, MSVC and darknet print; none is an evaluation text."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text

from hook_facts import facts


def top(text):
    found = match_text(text)
    return found[0].id if found else None


PIN = "ERROR: Could not find a version that satisfies the requirement torch==%s"


@pytest.mark.parametrize("spec", ["1.13.1+cu117", "2.4.1+cu121", "2.7.0+cpu"])
def test_a_local_tag_pin_without_a_version_list_is_the_index(spec):
    m = match_text(PIN % spec)[0]
    assert m.id == "pip-torch-local-version-pin-not-found" and m.entry.category == "torch-index-mismatch"
    # index or Python: the text does not say, so it is worded "possibly" (the hook decides with facts)
    assert m.confidence == "possible"
    # the generic "no wheel for this Python" entry is not listed beside it
    assert "pip-no-matching-distribution-torch" not in [x.id for x in match_text(PIN % spec)]
    # a Chinese full stop after the pin, as pasted from a Chinese system, is still the end of it
    assert top(PIN % spec + "\u3002") == "pip-torch-local-version-pin-not-found"


def test_the_version_list_still_decides_where_there_is_one():
    assert top(PIN % "1.13.1+cu117" + " (from versions: 1.11.0, 1.12.0, 1.13.1, 2.0.0)") == \
        "pip-torch-local-version-not-on-index"
    assert match_text(PIN % "1.13.1+cu117" + " (from versions: none)")[0].entry.category == "python-unsupported"
    # a pair that was never built stays that entry's, list or not
    assert top(PIN % "2.0.1+cu121") == "pip-torch-variant-never-built"


def test_the_pytorch_index_named_without_a_list_is_the_python():
    text = "Looking in links: https://download.pytorch.org/whl/torch_stable.html\n" + PIN % "1.8.1+cu102"
    assert top(text) == "pip-torch-pytorch-index-has-no-wheel-for-python"


def test_the_hook_tells_index_from_python_with_this_machines_python():
    m = match_text(PIN % "2.4.1+cu118")[0]
    on_index = hooks()[m.entry.tailor](m, facts(py="3.10.12"))
    assert "download.pytorch.org/whl/cu118" in " ".join(on_index.commands)
    # PyPI's Linux wheel of 1.13.1 is the cu117 build: the tag is what pip could not find
    m = match_text(PIN % "1.13.1+cu117")[0]
    assert "without the +cu117 tag" in hooks()[m.entry.tailor](m, facts(py="3.10.12")).summary
    too_new = hooks()[m.entry.tailor](m, facts(py="3.12.3"))
    assert "Python 3.12" in too_new.cause and "1.13.1" in too_new.cause


TCC = "C:/Users/u/AppData/Local/Temp/tmpab12cd34/cuda_utils.c:13: error: include file 'Python.h' not found"
WARN = ("E:\\ComfyUI_windows_portable\\python_embeded\\Lib\\site-packages\\triton\\windows_utils.py:323: "
        "UserWarning: Failed to find Python libs.")
MSVC = ("C:\\Users\\u\\AppData\\Local\\Temp\\tmpab12cd34\\cuda_utils.c(12): fatal error C1083: "
        "Kann Includedatei nicht \u00f6ffnen: \"Python.h\": No such file or directory")


@pytest.mark.parametrize("text", [TCC, WARN, MSVC, WARN + "\n" + TCC,
                                  "E:/p/python_embeded/Include/Python.h:12: error: include file 'pyconfig.h' not found"])
def test_triton_windows_without_the_embedded_pythons_headers(text):
    m = match_text(text)[0]
    assert m.id == "triton-windows-python-headers-missing" and m.entry.category == "torch-compile-windows"
    assert "triton-python-headers-missing" not in [x.id for x in match_text(text)]


def test_the_linux_launcher_build_stays_the_generic_entry():
    gcc = "/tmp/tmpab12cd34/main.c:5:10: fatal error: Python.h: No such file or directory"
    assert top(gcc) == "triton-python-headers-missing"


def test_the_hook_gives_the_windows_fix_on_windows():
    m = match_text(WARN + "\n" + TCC)[0]
    t = hooks()[m.entry.tailor](m, facts(system="Windows", exe="E:\\p\\python_embeded\\python.exe"))
    assert "include/ and libs/" in t.summary


DARKNET = (" CUDA-version: 11050 (11050), cuDNN: 8.3.0, CUDNN_HALF=1, GPU count: 1\n"
           " 0 : compute_capability = 860, cudnn_half = 1, GPU: NVIDIA GeForce RTX 3060\n"
           "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
           "Please make sure cudnn_cnn_infer64_8.dll is in your library path!")
ND4J = ("14:02:44.676 [main] DEBUG org.nd4j.linalg.factory.Nd4jBackend - Loaded [CpuBackend] backend\n"
        "Intel MKL FATAL ERROR: Cannot load mkl_intel_thread.dll.")


@pytest.mark.parametrize("text", [DARKNET, ND4J])
def test_darknet_and_deeplearning4j_output_is_not_torchs(text):
    tail = text.splitlines()[-1] if text is ND4J else "\n".join(text.splitlines()[2:])
    assert match_text(tail), "the message alone is torch's too"
    assert match_text(text) == []
    assert match_text(text + '\n  File "train.py", line 1, in <module>\n    import torch')


@pytest.mark.parametrize("spec,cause,release,keep", [
    # 1.11.1 never existed; cu111 ended with 1.10 (a README's typo for 1.10.1+cu111)
    ("1.11.1+cu111", "torch 1.11.1 was never released (1.11's releases: 1.11.0)", "1.11.0", "1.10.2+cu111"),
    # on Python 3.8: 2.5 left 3.8 behind, so cu121's newest for it is 2.4.1
    ("2.0.1+cu121", "torch 2.0.1 was never built for cu121; its CUDA variants are cu117, cu118", "2.0.1", "2.4.1"),
    ("1.12.1+cu111", "torch 1.12.1 was never built for cu111; its CUDA variants are cu102, cu113, cu116", "1.12.1",
     "1.10.2+cu111"),
])
def test_a_pair_never_built_keeps_the_release_or_the_variant(spec, cause, release, keep):
    m = match_text(PIN % spec)[0]
    assert m.id == "pip-torch-variant-never-built"
    t = hooks()[m.entry.tailor](m, facts(py="3.8.10"))
    assert cause in t.cause and t.summary.startswith("Install torch %s as one of its variants" % release)
    assert "torch==%s" % keep in t.commands[0]


@pytest.mark.parametrize("spec", ["1.10.1+cu111", "1.8.1+cu101", "1.7.1+cu110", "1.12.1+cu102", "2.13.0+cu132"])
def test_pairs_that_were_built_are_not_never_built(spec):
    assert top(PIN % spec) != "pip-torch-variant-never-built"


def test_neither_pair_is_offered_where_this_python_has_no_wheel_of_it():
    m = match_text(PIN % "1.11.1+cu111")[0]
    t = hooks()[m.entry.tailor](m, facts(py="3.11.7"))
    assert t.summary.startswith("torch 1.11.0 has no wheel for Python 3.11 either (it has 3.7, 3.8, 3.9, 3.10)")
    assert "no release built for cu111 has wheels for Python 3.11" in t.summary and not t.commands
