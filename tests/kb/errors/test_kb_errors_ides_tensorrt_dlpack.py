"""An IDE's own reading of an import (Spyder's Variable Explorer, VS Code's Pylance), TensorRT's
libraries the loader cannot find, and DLPack exchanges between torch and other array libraries:
each entry on its real wording, its near misses, and the facts that tailor it."""

import subprocess

import pytest

from conftest import TORCH_PYTHON, needs_torch
from hook_facts import SITE, explain, facts, top
from torchdoctor.match.matcher import match_text

SPYDER = ("Exception in comms call get_namespace_view:\n"
          "  File \"C:\\Program Files\\Spyder\\pkgs\\spyder_kernels\\comms\\commbase.py\", line 315, in _comm_message\n"
          "    encoding='latin-1')\nModuleNotFoundError: No module named 'torch'")


def test_spyders_frontend_error_is_spyders_not_a_missing_torch():
    ids = [m.id for m in match_text(SPYDER)]
    assert ids[0] == "spyder-frontend-cannot-load-module" and "torch-module-not-found" not in ids


def test_spyder_6s_dialog_names_the_module_it_lacks():
    m = top("The problem is:   The 'torch' module is required to open this variable. Unfortunately, it's not part of "
            "our installer, which means your variable can't be displayed by Spyder.")
    assert m.id == "spyder-frontend-cannot-load-module" and m.groups["module"] == "torch"


def test_spyder_on_another_module_gives_no_torch_command():
    m = match_text(SPYDER.replace("'torch'", "'pandas'"))[0]
    from torchdoctor.diagnose import explain_match
    from torchdoctor.model.facts import Facts
    e = explain_match(m, Facts({}))
    assert m.id == "spyder-frontend-cannot-load-module" and not any("pytorch" in c for c in e.fix.commands)


def test_spyders_cloudpickle_failure_is_spyders_not_a_checkpoints():
    text = ("Exception in comms call get_namespace_view:\n  File \"C:\\Program Files\\Spyder\\pkgs\\spyder_kernels\\comms\\"
            "commbase.py\", line 314, in _comm_message\nAttributeError: Can't get attribute '_make_function' on <module "
            "'cloudpickle.cloudpickle'>")
    assert top(text).id == "spyder-frontend-cannot-load-module"


def test_a_missing_torch_outside_spyder_stays_the_plain_entry():
    assert top("ModuleNotFoundError: No module named 'torch'").id == "torch-module-not-found"
    assert top("Exception in comms call get_source:\nKeyError: 'x'") is None


@pytest.mark.parametrize("text", ['Import "torch" could not be resolvedPylancereportMissingImports',
                                  'Import "torchvision.transforms" could not be resolved from source Pylance'])
def test_pylances_unresolved_torch_import_is_the_selected_interpreter(text):
    assert top(text).id == "ide-import-unresolved-wrong-interpreter"


def test_pylance_on_another_package_is_not_ours():
    assert top('Import "numpy" could not be resolved Pylance(reportMissingImports)') is None
    assert top('Import "tensorflow" could not be resolved') is None


TRT = "ImportError: libnvinfer.so.8: cannot open shared object file: No such file or directory"


@pytest.mark.parametrize("text", [
    TRT, "OSError: libnvinfer_plugin.so.10: cannot open shared object file: No such file or directory",
    "FileNotFoundError: Could not find: nvinfer_10.dll. Is it on your PATH?"])
def test_tensorrts_libraries_not_found(text):
    assert top(text).id == "tensorrt-libs-not-found"


@pytest.mark.parametrize("text", [
    # TensorFlow's TF-TRT probe and onnxruntime's provider loader: their own stacks' messages
    "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library 'libnvinfer.so.7'; "
    "dlerror: libnvinfer.so.7: cannot open shared object file: No such file or directory",
    "Failed to load library libonnxruntime_providers_tensorrt.so with error: libnvinfer.so.8: cannot open shared "
    "object file: No such file or directory",
    # trtexec's plugin loader on a damaged file
    "Unable to open library: libnvinfer_plugin.so.8 due to /opt/TensorRT-8.6.0.12/lib/libnvinfer_plugin.so.8: file too short"])
def test_other_stacks_tensorrt_messages_are_not_claimed(text):
    assert "tensorrt-libs-not-found" not in [m.id for m in match_text(text)]


def test_a_placeholder_that_cannot_be_filled_in_gets_no_command():
    f = facts(torch="2.4.1+cu121", env={"LD_LIBRARY_PATH": "/opt/TensorRT-${version}/lib"})
    e = explain(TRT, "tensorrt-libs-not-found", f)
    assert "${version}" in e.fix.summary and e.fix.commands == []


def test_torch_tensorrts_own_loader_and_the_parsers():
    for text in ("FileNotFoundError: Could not find libnvinfer.so.10\n  Search paths: ['/usr/lib']",
                 "FileNotFoundError: Could not find: nvonnxparser_10.dll. Is it on your PATH?",
                 "ImportError: libnvonnxparser.so.8: cannot open shared object file: No such file or directory"):
        assert top(text).id == "tensorrt-libs-not-found"


def test_a_placeholder_left_in_ld_library_path_is_named():
    f = facts(torch="2.4.1+cu121", env={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64:</home/ubuntu/TensorRT-8.2.1.8/lib>"})
    e = explain(TRT, "tensorrt-libs-not-found", f)
    assert "</home/ubuntu/TensorRT-8.2.1.8/lib>" in e.fix.summary
    assert e.fix.commands == ["ls /home/ubuntu/TensorRT-8.2.1.8/lib",
                              "export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/home/ubuntu/TensorRT-8.2.1.8/lib"]


def test_another_tensorrt_major_installed_is_the_mismatch():
    f = facts(torch="2.4.1+cu121", packages={"tensorrt-cu12": {"version": "10.3.0", "location": SITE},
                                             "torch-tensorrt": {"version": "2.4.0", "location": SITE}})
    e = explain(TRT, "tensorrt-libs-not-found", f)
    assert "TensorRT 8" in e.fix.summary and "TensorRT 10" in e.fix.summary and "another environment" in e.fix.summary
    # installing TensorRT 8 here would overwrite the 10 that torch-tensorrt 2.4 needs
    assert e.fix.commands == []


def test_the_same_major_from_pip_loads_only_after_import_tensorrt():
    f = facts(torch="2.4.1+cu121", packages={"tensorrt-cu12-libs": {"version": "10.3.0", "location": SITE}})
    e = explain(TRT.replace(".so.8", ".so.10"), "tensorrt-libs-not-found", f)
    assert SITE + "/tensorrt_libs" in e.fix.summary
    # no trailing ':' where the variable is unset (an empty entry is the current directory to the loader)
    assert e.fix.commands[-1] == "export LD_LIBRARY_PATH=%s/tensorrt_libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" % SITE


@pytest.mark.parametrize("major, torch, commands", [
    ("10", "2.6.0+cu126", ['/home/u/venv/bin/python -m pip install "tensorrt-cu12==10.*"']),
    # TensorRT 8.6 on PyPI is an sdist that fetches its wheels from NVIDIA's index
    ("8", "2.1.2+cu121", ['/home/u/venv/bin/python -m pip install "tensorrt==8.6.*" --extra-index-url https://pypi.nvidia.com']),
    ("7", "1.13.1+cu117", []),                     # never on PyPI
    ("9", "2.1.2+cu121", []),                      # TensorRT-LLM's 9.x preview, not a pip TensorRT
    ("11", "2.6.0+cu118", []),                     # tensorrt-cu11 stops at TensorRT 10
])
def test_no_tensorrt_in_a_listed_environment_installs_the_one_asked_for(major, torch, commands):
    from torchdoctor.model.facts import Facts
    f = facts(torch=torch)
    f = Facts(dict(f.data, torch={"cuda": torch.split("+cu")[1][:2] + "." + torch.split("+cu")[1][2:]}))
    e = explain(TRT.replace(".so.8", ".so." + major), "tensorrt-libs-not-found", f)
    assert e.fix.commands == commands


def test_an_unlisted_environment_keeps_the_entrys_words():
    from torchdoctor.model.facts import Facts
    e = explain(TRT, "tensorrt-libs-not-found", Facts({"os": {"system": "Linux"}}))
    assert not e.tailored


@pytest.mark.parametrize("text, entry", [
    ("TypeError: Tensor.__dlpack__() got an unexpected keyword argument 'dl_device'", "torch-dlpack-keywords-unsupported"),
    ("TypeError: Tensor.__dlpack__() got an unexpected keyword argument 'max_version'", "torch-dlpack-keywords-unsupported"),
    ("y = torch.from_dlpack(x, copy=False)  # TypeError: from_dlpack() got an unexpected keyword argument 'copy'",
     "torch-dlpack-keywords-unsupported")])
def test_dlpack_keywords_older_torch_does_not_take(text, entry):
    assert top(text).id == entry


def test_another_librarys_from_dlpack_keyword_error_is_not_torchs():
    assert top("TypeError: from_dlpack() got an unexpected keyword argument 'copy'") is None
    assert top("TypeError: _ndarray_base.__dlpack__() got an unexpected keyword argument 'max_version'") is None
    # without the class: an older array library's method called by a newer torch, the other way round
    assert top("TypeError: __dlpack__() got an unexpected keyword argument 'max_version'") is None


@needs_torch
def test_a_capsule_used_twice_fails_for_real_and_the_object_itself_works():
    code = ("import torch\nfrom torch.utils.dlpack import to_dlpack, from_dlpack\n"
            "t = torch.arange(4.)\nc = to_dlpack(t)\nfrom_dlpack(c)\nfrom_dlpack(c)\n")
    p = subprocess.run([TORCH_PYTHON, "-c", code], capture_output=True, text=True, timeout=300)
    assert p.returncode != 0
    assert top(p.stderr).id == "dlpack-capsule-invalid", p.stderr[-800:]
    fixed = code.replace("from_dlpack(c)\nfrom_dlpack(c)\n", "torch.from_dlpack(t)\ntorch.from_dlpack(t)\n")
    assert subprocess.run([TORCH_PYTHON, "-c", fixed], capture_output=True, timeout=300).returncode == 0
