"""Vendor runtimes beside torch: AWS Neuron's cores and driver, torch_xla with another release's
libtpu or TensorFlow on its TPU VM, DirectML's device and CPU fallbacks, Intel Gaudi's bridge and
IPEX not installed; and a Python under Rosetta that uv finds no torch wheel for."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text

from hook_facts import explain, facts, hits as ids


@pytest.mark.parametrize("text,want", [
    ("2023-Dec-13 16:44:18.626441 190864:229706 ERROR   NRT:nrt_allocate_neuron_cores               NeuronCore(s) "
     "not available - Requested:2 Available:0", "neuron-cores-not-available"),
    ("RuntimeError: Neuron runtime cannot be initialized; cannot determine the number of available NeuronCores",
     "neuron-cores-not-available"),
    ("2022-Mar-29 07:07:29.0082    11:11    ERROR   NRT:nrt_init                                Unable to determine "
     "Neuron Driver version. Please check aws-neuron-dkms package is installed.", "neuron-driver-missing-or-mismatched"),
    ("ERROR   NRT:nrt_init   This Neuron Runtime (compatibility id: 6) is not compatible with the installed "
     "aws-neuron-dkms package.", "neuron-driver-missing-or-mismatched"),
    ("ERROR: Unknown command line flag 'xla_latency_hiding_scheduler_rerun'", "torch-xla-libtpu-flag-unknown"),
    ("2022-07-27 22:22:08.203925: F ./tensorflow/core/tpu/tpu_library_init_fns.inc:100] "
     "TpuEmbeddingEngine_CollateMemory not available in this library.", "tensorflow-loads-torch-xla-libtpu"),
    ("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, msnpu, xla, vulkan device "
     "type at start of device string: dml", "directml-device-string-dml"),
    ("RuntimeError: tensor.device().type() == at::DeviceType::PrivateUse1 INTERNAL ASSERT FAILED at "
     "\"D:\\a\\_work\\1\\s\\pytorch-directml-plugin\\torch_directml\\csrc\\dml\\DMLTensor.cpp\":31, please report a "
     "bug to PyTorch. unbox expects Dml at::Tensor as inputs", "tensors-on-different-devices"),
    ("ModuleNotFoundError: No module named 'habana_frameworks'", "gaudi-pytorch-bridge-not-installed"),
    ("ModuleNotFoundError: No module named 'habana_frameworks.torch'", "gaudi-pytorch-bridge-not-installed"),
    ("ModuleNotFoundError: No module named 'intel_extension_for_pytorch'", "ipex-not-installed"),
    ("ModuleNotFoundError: No module named 'intel_pytorch_extension'", "ipex-not-installed"),
    ("ImportError: cannot import name 'runtime' from 'torch_xla'", "hf-library-version-mismatch"),
])
def test_a_vendor_runtimes_words_are_read_as_its_cause(text, want):
    assert ids(text)[:1] == [(want, HIGH)], ids(text)


def test_directmls_cpu_fallback_is_a_notice_below_a_real_error():
    warn = ("UserWarning: The operator 'aten::_foreach_lerp_.Scalar' is not currently supported on the DML backend "
            "and will fall back to run on the CPU. This may have performance implications.")
    assert [m.id for m in match_text(warn)][:1] == ["directml-op-cpu-fallback"]
    both = warn + "\nRuntimeError: CUDA error: out of memory"
    assert [m.id for m in match_text(both)][0] != "directml-op-cpu-fallback"


@pytest.mark.parametrize("text", [
    # torch_xla's compiled module missing from a bare folder is not a release mismatch
    "ImportError: cannot import name '_XLAC' from 'torch_xla' (unknown location)",
    # TensorFlow's own TPU errors without its loader's line are TensorFlow's
    "tensorflow.python.framework.errors_impl.NotFoundError: TPU initialization failed: No TPU found",
    # the MPS device string on an old torch is not DirectML's
    "RuntimeError: Expected one of cpu, cuda, mkldnn, opengl, opencl, ideep, hip, msnpu, xla device type at start "
    "of device string: mps",
])
def test_near_misses_are_not_these_runtimes(text):
    found = [i for i, _ in ids(text)]
    assert not set(found) & {"gaudi-pytorch-bridge-not-installed", "hf-library-version-mismatch",
                             "tensorflow-loads-torch-xla-libtpu", "directml-device-string-dml"}, found


def test_a_deeper_module_of_an_installed_gaudi_bridge_is_that_bridge_older_than_the_code():
    found = ids("ModuleNotFoundError: No module named 'habana_frameworks.torch.hpu'")
    assert [i for i, _ in found][:1] == ["hf-library-version-mismatch"], found
    assert "gaudi-pytorch-bridge-not-installed" not in [i for i, _ in found]


def test_a_sentencepiece_source_build_on_a_new_python_is_the_missing_wheel():
    text = ("Collecting sentencepiece\n  Using cached sentencepiece-0.2.0.tar.gz (2.6 MB)\n"
            "  Installing build dependencies ... done\n  Getting requirements to build wheel ... error\n"
            "  error: subprocess-exited-with-error")
    assert ids(text)[:1] == [("scientific-package-built-from-source", HIGH)], ids(text)


UV_MAC = ("error: Distribution `torch==2.14.0 @ registry+https://pypi.org/simple` can't be installed because it "
          "doesn't have a source distribution or wheel for the current platform\n\n"
          "hint: You're on macOS (`macosx_26_0_x86_64`), but `torch` (v2.14.0) only has wheels for the following "
          "platforms: `manylinux_2_28_aarch64`, `manylinux_2_28_x86_64`, `macosx_14_0_arm64`, `win_amd64`")


def test_uv_finding_no_intel_mac_wheel_names_rosetta_in_uvs_own_commands():
    from torchdoctor.diagnose import explain_match
    (m,) = [m for m in match_text(UV_MAC) if m.id == "uv-torch-no-wheel-for-platform"]
    e = explain_match(m, facts(system="Darwin", machine="x86_64", py="3.12.4",
                               os={"system": "Darwin", "machine": "x86_64", "rosetta": True, "apple_silicon": True}))
    assert "Rosetta" in e.cause and "arm64" in e.fix.summary
    # uv's lock decides what installs: no pip command that a uv environment lacks or the next sync undoes
    assert "uv python list" in e.fix.commands and not any(" -m pip " in c for c in e.fix.commands), e.fix.commands


def test_neuron_and_ipex_near_misses():
    # an installed IPEX missing a submodule is another release, not IPEX missing
    assert "ipex-not-installed" not in [i for i, _ in ids("ModuleNotFoundError: No module named "
                                                          "'intel_extension_for_pytorch.llm'")]
    assert ids("RuntimeError: Neuron runtime cannot be initialized; cannot determine the number of available "
               "NeuronCores")[:1] == [("neuron-cores-not-available", HIGH)]
    assert ids("ERROR NRT:nrt_allocate_neuron_cores NeuronCore(s) not available - Requested:nc1-nc1 Available:0")[:1] \
        == [("neuron-cores-not-available", HIGH)]
    assert ids("This runtime requires Neuron Driver version 2.0 or greater")[:1] == [
        ("neuron-driver-missing-or-mismatched", HIGH)]


def test_tensorflows_newer_tpu_loader_path_is_tensorflows_and_jaxs_is_not_claimed():
    tf = ("F0000 00:00:1725000000.000000 1234 tpu_initializer_helper.cc] external/local_xla/xla/stream_executor/tpu/"
          "tpu_executor_init_fns.inc:123] TpuExecutor_ExecuteAsync not available in this library.")
    assert ids(tf)[:1] == [("tensorflow-loads-torch-xla-libtpu", HIGH)], ids(tf)
    other = "F0000 external/local_xla/xla/stream_executor/tpu/tpu_x.inc:1] ConfigureDistributedTpuOp_DoWork not available in this library."
    assert ids(other)[:1] == [("tensorflow-loads-torch-xla-libtpu", HIGH)]
    jax = "F external/xla/xla/stream_executor/tpu/tpu_x.inc:1] TpuExecutor_X not available in this library."
    assert ids(jax) == []
