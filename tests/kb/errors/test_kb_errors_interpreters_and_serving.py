"""Interpreters and serving stacks that have no torch or no compiled kernels: pip's conflict report
over a bare `depends on torch`, vLLM without its compiled extension, a library's own attention
table behind a newer transformers, OpenVINO's API modules; each on its real wording and near misses."""

import pytest

from hook_facts import top

BARE = ("ERROR: Cannot install llm-embed-jina==0.1, llm-embed-jina==0.1.1 and llm-embed-jina==0.1.2 because these "
        "package versions have conflicting dependencies.\n\nThe conflict is caused by:\n"
        "    llm-embed-jina 0.1.2 depends on torch\n    llm-embed-jina 0.1.1 depends on torch\n")


def test_a_bare_dependency_on_torch_that_cannot_be_met_is_no_torch_for_this_python():
    m = top(BARE)
    # said as "possibly": pip lists unpinned dependents in pin conflicts too
    assert m.id == "pip-no-matching-distribution-torch" and m.confidence == "possible"


def test_a_pin_conflict_that_also_lists_unpinned_dependents_stays_the_pin_conflict():
    text = ("The conflict is caused by:\n    The user requested torch==2.0.1\n    xformers 0.0.28 depends on "
            "torch==2.5.0\n    accelerate 0.30.0 depends on torch\n")
    assert top(text).id != "pip-no-matching-distribution-torch"


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


def test_vllms_optional_flashmla_kernels_are_not_the_missing_extension():
    m = top("WARNING [_custom_ops.py:21] Failed to import from vllm._flashmla_C with ModuleNotFoundError(\"No module "
            "named 'vllm._flashmla_C'\")")
    assert m is None or m.id != "vllm-compiled-extension-missing"


def test_vllm_built_for_another_torch_stays_its_own_entry():
    text = "ImportError: /home/u/vllm/vllm/_C.abi3.so: undefined symbol: _ZN5torch3jit17parseSchemaOrNameERKSsb"
    assert top(text).id == "vllm-built-for-other-torch"


def test_a_librarys_own_attention_table_behind_a_newer_transformers():
    text = ("KeyError: 'sdpa'\n  File \"surya\\model\\ordering\\decoder.py\", line 209, in __init__\n"
            "    self.self_attn = MBART_ATTENTION_CLASSES[config._attn_implementation]")
    m = top(text)
    assert m.id == "hf-library-version-mismatch" and m.confidence == "possible"


def test_transformers_own_attention_frame_alone_is_not_a_mismatch():
    text = ("  File \"/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py\", line 706\n"
            "    self.self_attn = LLAMA_ATTENTION_CLASSES[config._attn_implementation](config=config, layer_idx=layer_idx)")
    m = top(text)
    assert m is None or m.id != "hf-library-version-mismatch"


@pytest.mark.parametrize("text", ["ModuleNotFoundError: No module named 'openvino.runtime'",
                                  "No module named 'openvino.inference_engine'"])
def test_openvinos_api_modules_are_its_release(text):
    assert top(text).id == "hf-library-version-mismatch"


@pytest.mark.parametrize("text", ["ModuleNotFoundError: No module named 'openvino._pyopenvino'",
                                  "ModuleNotFoundError: No module named 'openvino.tools.mo'"])
def test_openvinos_native_binding_and_dev_tools_are_not_a_release_mismatch(text):
    # at most the generic reading of any package's missing submodule, said as "possibly"
    m = top(text)
    assert m is None or m.id != "hf-library-version-mismatch" or m.confidence == "possible"


@pytest.mark.parametrize("text", [
    # micropip's wording, one requirement and keep_going's list
    "ValueError: Can't find a pure Python 3 wheel for 'torch'.\nSee: https://pyodide.org/en/stable/usage/faq.html",
    "ValueError: Can't find a pure Python 3 wheel for: 'uuid', 'torch', 'tokenizers<0.15,>=0.14'",
])
def test_pyodide_has_no_torch(text):
    assert top(text).id == "pip-no-matching-distribution-torch"


def test_pyodides_older_wording_and_its_answer_ignore_this_machine():
    from hook_facts import explain, facts
    text = "ValueError: Couldn't find a pure Python 3 wheel for 'torch'"
    e = explain(text, "pip-no-matching-distribution-torch", facts(bits=32))
    assert "WebAssembly" in e.fix.summary and e.fix.commands == []


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


def test_coremltools_untested_torch_beside_a_conversion_failure():
    text = ("WARNING:root:Torch version 1.13.0 has not been tested with coremltools. You may run into unexpected errors. "
            "Torch 1.12.1 is the most recent version that has been tested.\nValueError: node input.21 (gelu) got 2 "
            "input(s), expected [1]")
    assert top(text).id == "coremltools-torch-version-untested"


@pytest.mark.parametrize("text", ["Exception: Unable to load libmodelpackage. Cannot make save spec.",
                                  "Failed to load _MLModelProxy: No module named 'coremltools.libcoremlpython'",
                                  "no module named coremltools.libcoremlpython"])
def test_coremltools_native_parts_missing(text):
    assert top(text).id == "coremltools-native-libs-missing"


@pytest.mark.parametrize("text", [
    "TypeError: no_grad.__init__() takes 1 positional argument but 2 were given",
    "!!! Warning !!!: CUDA kernel not found, please check CUDA and VPTQ installation.",
    "AssertionError: AWQ kernels could not be loaded.",
    "  Imported target \"torch\" includes non-existent path\n\n    \"C:\\Program Files\\NVIDIA Corporation\\NvToolsExt\\/include\"",
])
def test_release_and_build_readings_of_2025_tools(text):
    want = {"no_grad": "torch-api-newer-than-installed", "VPTQ": "package-c-extension-not-built",
            "AWQ": "package-c-extension-not-built", "NvToolsExt": "torch-cmake-nvtoolsext-not-found"}
    assert top(text).id == next(v for k, v in want.items() if k in text)
