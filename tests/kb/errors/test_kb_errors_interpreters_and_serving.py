"""Interpreters and serving stacks that have no torch or no compiled kernels: pip's conflict report
over a bare `depends on torch`, vLLM without its compiled extension, a library's own attention
table behind a newer transformers, OpenVINO's API modules; each on its real wording and near misses."""

import pytest

from hook_facts import top

BARE = ("ERROR: Cannot install llm-embed-jina==0.1, llm-embed-jina==0.1.1 and llm-embed-jina==0.1.2 because these "
        "package versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
        "    llm-embed-jina 0.1.2 depends on torch\n    llm-embed-jina 0.1.1 depends on torch\n")


def test_a_bare_dependency_on_torch_that_cannot_be_met_is_no_torch_for_this_python():
    assert top(BARE).id == "pip-no-matching-distribution-torch"


@pytest.mark.parametrize("text", [
    # a pin on another release is a different conflict
    "The conflict is caused by:\n    somepkg 1.0 depends on torch==2.1.0",
    # a sentence in prose, not pip's line
    "Our package depends on torch and numpy.",
    "    somepkg 1.0 depends on torchmetrics",
])
def test_other_dependency_lines_are_not_read_as_no_torch(text):
    m = top(text)
    assert m is None or m.id != "pip-no-matching-distribution-torch"


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'vllm._C'",
    "WARNING 03-21 17:22:05 [_custom_ops.py:21] Failed to import from vllm._C with ModuleNotFoundError(\"No module named "
    "'vllm._C'\")",
])
def test_vllm_without_its_compiled_extension(text):
    assert top(text).id == "vllm-compiled-extension-missing"


def test_vllm_built_for_another_torch_stays_its_own_entry():
    text = "ImportError: /home/u/vllm/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb"
    assert top(text).id == "vllm-built-for-other-torch"


def test_a_librarys_own_attention_table_behind_a_newer_transformers():
    text = ("KeyError: 'sdpa'\n  File \"surya\\model\\ordering\\decoder.py\", line 209, in __init__\n"
            "    self.self_attn = MBART_ATTENTION_CLASSES[config._attn_implementation]")
    assert top(text).id == "hf-library-version-mismatch"


@pytest.mark.parametrize("text", ["ModuleNotFoundError: No module named 'openvino.runtime'",
                                  "No module named 'openvino.inference_engine'"])
def test_openvinos_api_modules_are_its_release(text):
    assert top(text).id == "hf-library-version-mismatch"


@pytest.mark.parametrize("text", [
    # micropip's wording, one requirement and keep_going's list
    "ValueError: Can't find a pure Python 3 wheel for 'torch'.\nSee: https://pyodide.org/en/stable/usage/faq.html",
    "ValueError: Can't find a pure Python 3 wheel for: 'uuid', 'torch', 'tokenizers<0.15,>=0.14'",
])
def test_pyodide_has_no_torch(text):
    assert top(text).id == "pip-no-matching-distribution-torch"


def test_pyodide_missing_another_package_is_not_ours():
    assert top("ValueError: Can't find a pure Python 3 wheel for 'qiskit-terra==0.46.1'.") is None


GRAAL = ("org.graalvm.polyglot.PolyglotException: OSError: /graalpy_vfs/venv/lib/python3.12/site-packages/torch/lib/"
         "libtorch_global_deps.so: cannot open shared object file: No such file or directory")


def test_graalpys_virtual_filesystem_cannot_hand_torchs_library_to_the_loader():
    assert top(GRAAL).id == "graalpy-torch-native-library-not-loaded"


def test_the_same_library_missing_under_cpython_stays_torchs_own_entry():
    text = ("OSError: /home/u/venv/lib/python3.12/site-packages/torch/lib/libtorch_global_deps.so: cannot open shared "
            "object file: No such file or directory")
    m = top(text)
    assert m is None or m.id != "graalpy-torch-native-library-not-loaded"
