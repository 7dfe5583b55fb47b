"""A TorchScript file's operators: another library's namespace (torchvision::nms) is that library missing from the
loading process; torch's own namespaces and aten are not; libtorch's uncaught ErrorReport alone says only possibly.
And top-level `*_cuda` modules: a project's extension never built, except those a PyPI distribution owns."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import top

REPORT = "terminate called after throwing an instance of 'torch::jit::ErrorReport'\n  what():\n"


@pytest.mark.parametrize("text, want, confidence", [
    (REPORT + "Unknown builtin op: torchvision::nms.", "torchscript-op-library-not-loaded", HIGH),
    (REPORT + "Unknown builtin op: my_ops::fused_gelu.", "torchscript-op-library-not-loaded", HIGH),
    (REPORT + "Unknown builtin op: aten::scaled_dot_product_attention.", "torchscript-op-newer-than-runtime", HIGH),
    ("terminate called after throwing an instance of 'torch::jit::ErrorReport'", "torchscript-op-newer-than-runtime",
     POSSIBLE),
])
def test_whose_operator_it_is_decides(text, want, confidence):
    m = top(text)
    assert m.id == want and m.confidence == confidence


@pytest.mark.parametrize("op", ["quantized::linear_dynamic", "_quantized::wrapped_linear_prepack", "prims::convert",
                                "mkldnn::_convolution_pointwise"])
def test_torchs_own_namespaces_are_not_another_library(op):
    m = top("Unknown builtin op: %s." % op)
    assert m is None or m.id != "torchscript-op-library-not-loaded"


@pytest.mark.parametrize("name, built", [
    ("attn_core_inplace_cuda", True), ("Swin3D.sparse_dl.attn_cuda", True),
    ("selective_scan_cuda", False), ("models.selective_scan_cuda", False), ("src.flash_attn_cuda", False),
    ("jax_cuda", False), ("deepspeed.ops.transformer_inference_cuda", False),
])
def test_a_cuda_module_is_an_unbuilt_extension_unless_a_distribution_owns_it(name, built):
    m = top("ModuleNotFoundError: No module named '%s'" % name)
    assert (m.id == "cuda-extension-package-not-built") == built
