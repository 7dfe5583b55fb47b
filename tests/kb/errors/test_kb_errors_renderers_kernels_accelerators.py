"""nvdiffrast's OpenGL rasterizer without an EGL context, Triton's compiler failing on a kernel,
CUDA names on an Ascend NPU, torch-neuron's torch gate, a submodule missing from an installed
package, and the extension a loader names (torch_xla's _XLAC, a package folder's _C.so)."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain, hits as ids, pkg_facts as facts




# ------------------------------------------------------------ nvdiffrast's EGL context ----
@pytest.mark.parametrize("text", [
    "[F glutil.cpp:338] eglInitialize() failed\nAborted (core dumped)",
    "[F glutil.cpp:332] eglGetDisplay() failed",
    "[E glutil.cpp:248] eglMakeCurrent() failed when setting GL context",
    "RuntimeError: Cuda error: 219[cudaGraphicsMapResources(2, &s.cudaPosBuffer, stream);]",
    "RuntimeError: Cuda error: 304[cudaGraphicsGLRegisterBuffer(&s.cudaPosBuffer, s.glPosBuffer, 0);]",
])
def test_nvdiffrasts_egl_failures_are_the_egl_context(text):
    found = match_text(text)
    assert found and found[0].id == "nvdiffrast-egl-context-failed" and found[0].confidence == HIGH, ids(text)


@pytest.mark.parametrize("text", [
    "libEGL warning: egl: failed to create dri2 screen",
    "MESA: error: ZINK: failed to choose pdev",
    "eglInitialize() failed",  # another program's own wording, without nvdiffrast's glutil.cpp
])
def test_other_egl_messages_are_not_nvdiffrasts(text):
    assert "nvdiffrast-egl-context-failed" not in [i for i, _ in ids(text)]


def test_the_fix_names_the_cuda_rasterizer_and_the_vendor_file():
    e = explain("[F glutil.cpp:338] eglInitialize() failed", "nvdiffrast-egl-context-failed", facts())
    assert "RasterizeCudaContext" in e.fix.summary and "10_nvidia.json" in e.fix.summary
    assert "graphics" in e.fix.summary


# ------------------------------------------------------------ Triton's compiler ----
@pytest.mark.parametrize("text", [
    "loc(\"/x/fla/ops/gsa/chunk.py\":362:38): error: invalid element type in packLLEElements. Expected 'i16' but got 'bf16'",
    "loc(fused[\"/x/fla/ops/gated_delta_rule/wy_fast.py\":160:16, \"/x/wy_fast.py\":160:29]): error: operand #1 does "
    "not dominate this use",
    "python3: /project/lib/Tools/LinearLayout.cpp:562: mlir::triton::LinearLayout mlir::triton::LinearLayout::"
    "reshapeOuts(llvm::ArrayRef<std::pair<mlir::StringAttr, int> >) const: Assertion `getTotalOutDimSize() == 1' failed.",
    "Pass execution failedLLVM ERROR: Failed to translate TritonGPU to LLVM IR.",
])
def test_tritons_compiler_failures_are_this_entry(text):
    found = match_text(text)
    assert found and found[0].id == "triton-compiler-internal-error", ids(text)


@pytest.mark.parametrize("text", [
    "loc(\"model.mlir\":3:5): error: 'tosa.conv2d' op failed to verify",  # an MLIR file, not a Python kernel
    "python: /src/lib/Tools/Foo.cpp:12: int foo(): Assertion `x > 0' failed.",  # no mlir::triton
])
def test_other_compilers_errors_are_not_tritons(text):
    assert "triton-compiler-internal-error" not in [i for i, _ in ids(text)]


def test_a_triton_other_than_torchs_pin_is_named():
    text = "loc(\"/x/k.py\":1:2): error: invalid element type in packLLEElements. Expected 'i16' but got 'bf16'"
    e = explain(text, "triton-compiler-internal-error", facts(torch="2.6.0+cu124", triton="3.1.0"))
    assert "installed triton: triton 3.1.0" in e.notes
    assert any("triton==3.2.0" in c for c in e.fix.commands), e.fix.commands


# ------------------------------------------------------------ torch_npu ----
def test_cuda_names_on_an_npu_machine_are_the_npu_entry():
    text = (">>> import torch, torch_npu\n>>> torch.ones(2).to(3)\n"
            "    raise AssertionError(\"Torch not compiled with CUDA enabled\")\n"
            "AssertionError: Torch not compiled with CUDA enabled")
    e = explain(text, "torch-npu-device-taken-as-cuda", facts())
    assert "transfer_to_npu" in e.fix.summary and "npu:0" in e.fix.summary


@pytest.mark.parametrize("before", ["", "df.sort_values(ascending=False)\n", "CANNOT open file\n",
                                    "  File \"ascend_sort.py\", line 3\n"])
def test_without_torch_npu_it_stays_the_cpu_only_build(before):
    found = match_text(before + "AssertionError: Torch not compiled with CUDA enabled")
    assert found[0].id == "torch-not-compiled-with-cuda"


def test_a_rocm_or_nightly_torch_gets_no_pypi_triton_pin():
    text = "loc(\"/x/k.py\":1:2): error: invalid element type in packLLEElements. Expected 'i16' but got 'bf16'"
    for torch in ("2.6.0+rocm6.2", "2.7.0.dev20250101+cu124"):
        e = explain(text, "triton-compiler-internal-error", facts(torch=torch, triton="3.1.0"))
        assert not any("install" in c for c in e.fix.commands if "triton==" in c), e.fix.commands


def test_torch_neurons_gate_is_a_companion_built_for_another_torch():
    found = match_text("ImportError Invalid dependency version torch==2.0.1+cu117. Expected torch==1.13.1")
    assert found and found[0].id == "companion-no-build-for-this-torch", ids("")


# ------------------------------------------------------------ dotted modules ----
@pytest.mark.parametrize("name", ["habana_frameworks.torch.hpu", "megatron.core.optimizer",
                                  "allennlp.data.iterators"])
def test_a_third_part_missing_means_the_installed_package_lacks_it(name):
    # Python names the first part it cannot find: 'a.b.c' means a.b imported
    assert ids("ModuleNotFoundError: No module named '%s'" % name)[:1] == [("hf-library-version-mismatch", POSSIBLE)]


@pytest.mark.parametrize("name", ["google.protobuf.internal", "torch2trt.flattener", "models.common.layers",
                                  "basicsr.version", "mmcv.ops.x._ext", "foo.bar._C", "foo.bar.version",
                                  "torch_xla.core.xla_model", "llama_index.llms.openai",
                                  "fairseq.data.data_utils_fast"])
def test_namespaces_two_parts_project_folders_and_built_files_stay_package_missing(name):
    assert ids("ModuleNotFoundError: No module named '%s'" % name)[:1] == [("python-package-missing", POSSIBLE)]


def test_a_module_shadowed_by_a_file_is_not_a_version_mismatch():
    assert ids("ModuleNotFoundError: No module named 'utils.a.b'; 'utils' is not a package")[:1] == [
        ("python-package-missing", POSSIBLE)]
    assert ids("ModuleNotFoundError: No module named 'foo.a.b'; 'foo' is not a package")[:1] == [
        ("python-package-missing", POSSIBLE)]


def test_the_version_mismatch_names_the_package_that_lacks_the_submodule():
    # habana_frameworks is Gaudi's PyTorch bridge, habana-torch-plugin on pip
    e = explain("ModuleNotFoundError: No module named 'habana_frameworks.torch.hpu'", "hf-library-version-mismatch",
                facts(**{"habana-torch-plugin": "1.5.0"}))
    assert "`torch.hpu`" in e.fix.summary and "habana-torch-plugin 1.5.0" in e.fix.summary
    assert "/home/u/venv/bin/python -m pip show habana-torch-plugin" in e.fix.commands


# ------------------------------------------------------------ the extension a loader names ----
XLAC = ("ImportError: /home/u/venv/lib/python3.11/site-packages/_XLAC.cpython-311-x86_64-linux-gnu.so: undefined symbol: "
        "_ZN5torch8autograd10deleteNodeEPNS0_4NodeE")


def test_torch_xla_is_paired_with_the_torch_of_its_release():
    e = explain(XLAC, "extension-undefined-torch-symbol", facts(torch="2.13.0+cpu", **{"torch-xla": "2.9.0"}))
    assert e.fix.commands[-1] == '/home/u/venv/bin/python -m pip install "torch==2.9.*"'
    assert "torch_xla 2.9.0" in e.notes


def test_torch_xla_without_its_version_prints_no_pin():
    e = explain(XLAC, "extension-undefined-torch-symbol", facts(torch="2.13.0+cpu"))
    assert not any("install" in c and "==" in c for c in e.fix.commands), e.fix.commands


def test_a_top_level_module_found_on_the_line_names_its_package():
    # the pattern that reads the whole line wins and carries no `so` group: the line still names it
    text = ("ImportError: /usr/local/lib/python3.10/dist-packages/selective_scan_cuda.cpython-310-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi")
    e = explain(text, "extension-undefined-torch-symbol", facts(torch="2.4.0+cu121"))
    assert e.fix.commands[-1].endswith("--force-reinstall --no-deps mamba-ssm")


def test_a_package_folders_library_names_that_package_where_it_is_installed():
    text = ("ImportError: /home/u/venv/lib/python3.11/site-packages/diff_gaussian_rasterization/_C.cpython-311-x86_64-"
            "linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
    e = explain(text, "extension-undefined-torch-symbol",
                facts(torch="2.4.0+cu121", **{"diff-gaussian-rasterization": "0.0.0"}))
    # pip reads - and _ alike in a project's name
    assert e.fix.commands[-1].endswith("--force-reinstall --no-deps diff_gaussian_rasterization"), e.fix.commands


def test_a_folder_name_is_not_trusted_as_a_pypi_name_when_nothing_installed_it():
    # PyPI's simple_knn is an unrelated kNN classifier: without the facts naming it installed, no name
    text = ("ImportError: /home/u/venv/lib/python3.11/site-packages/simple_knn/_C.cpython-311-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi")
    e = explain(text, "extension-undefined-torch-symbol", facts(torch="2.4.0+cu121"))
    assert e.fix.commands[-1].endswith("<extension-package>"), e.fix.commands


def test_transformer_engines_torch_binding_is_rebuilt_with_its_extra():
    text = ("ImportError: /usr/local/lib/python3.10/dist-packages/transformer_engine_torch.cpython-310-x86_64-linux-"
            "gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi")
    e = explain(text, "extension-undefined-torch-symbol", facts(torch="2.4.0+cu121"))
    assert e.fix.commands[-1].endswith('--force-reinstall --no-deps "transformer_engine[pytorch]"'), e.fix.commands


def test_a_cxx11_symbol_is_not_called_an_abi_mismatch_outright():
    text = ("ImportError: /x/site-packages/_XLAC.cpython-36m-x86_64-linux-gnu.so: undefined symbol: "
            "_ZN2at6native6einsumENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEN3c108ArrayRefINS_6TensorEEE")
    e = explain(text, "extension-undefined-torch-symbol", facts(torch="2.13.0+cpu"))
    assert "if True, the function is simply not in this torch release" in e.cause


def test_ascends_triton_module_is_not_torchs_triton_pin():
    # triton-ascend provides triton.language.extra.ascend for torch_npu's inductor: not the Triton torch pins
    assert "triton-version-mismatch" not in [i for i, _ in ids(
        "ModuleNotFoundError: No module named 'triton.language.extra.ascend'")]
    assert ids("ModuleNotFoundError: No module named 'triton.language.extra.libdevice'")[0][0] == "triton-version-mismatch"


def test_a_gpu_older_than_ampere_is_named_whatever_the_triton():
    text = "loc(\"/x/k.py\":1:2): error: invalid element type in packLLEElements. Expected 'f32' but got 'f16'"
    f = facts(torch="2.6.0+cu124", triton="3.2.0")
    f = Facts(dict(f.data, driver={"gpus": [{"name": "Tesla P100-PCIE-16GB", "capability": [6, 0]}]}))
    e = explain(text, "triton-compiler-internal-error", f)
    assert "GPU: Tesla P100-PCIE-16GB (sm_60)" in e.notes
    assert "older than Ampere" in e.fix.summary


def test_triton_38s_relative_assertion_path_is_read():
    text = ("python: lib/Dialect/TritonGPU/Transforms/OptimizeThreadLocality.cpp:220: LogicalResult "
            "setOptimizedGatherLayout(): Assertion `x' failed.")
    assert ids(text)[0][0] == "triton-compiler-internal-error"
