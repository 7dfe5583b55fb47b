"""Families the blind16 rounds found missing, each by the wording its public reports show:
the entry chosen, and whether the text alone says it is torch's (high) or any program's
(possible)."""

import pytest

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    assert found, text
    return found[0]


@pytest.mark.parametrize("text,want,confidence", [
    # torch.onnx.export's default exporter since 2.9
    ("torch.onnx._internal.exporter._errors.TorchExportError: Failed to export the model with torch.export. "
     "This is step 1/3 of exporting the model to ONNX. Next steps:", "onnx-export-dynamo-default", "high"),
    # a container user without a passwd entry, under torch's cache path: the user ID is the cause,
    # even inside torch.onnx.export's summary
    ("  File \"/usr/lib/python3.11/site-packages/torch/_inductor/runtime/cache_dir_utils.py\", line 23, in default_cache_dir\n"
     "KeyError: 'getpwuid(): uid not found: 1001'", "container-uid-without-passwd", "high"),
    ("TorchExportError: Failed to export the model with torch.export. This is step 1/3 of exporting the model to "
     "ONNX. Next steps:\n## Exception summary\n<class 'KeyError'>: 'getpwuid(): uid not found: 1001'",
     "container-uid-without-passwd", "high"),
    ("KeyError: 'getpwuid(): uid not found: 1001'", "container-uid-without-passwd", "possible"),
    # pip's damaged or malformed wheel, for a torch package and for any package
    ("ERROR: torchaudio has an invalid wheel, .dist-info directory not found", "pip-invalid-wheel", "high"),
    ("ERROR: requests has an invalid wheel, could not read 'requests-2.0.dist-info/WHEEL' file: KeyError('x')",
     "pip-invalid-wheel", "possible"),
    # fbgemm_gpu built for another torch, in its three wordings
    ("ERROR:root:Could not load the library 'fbgemm_gpu_py.so': /env/lib/python3.12/site-packages/fbgemm_gpu/"
     "fbgemm_gpu_py.so: undefined symbol: _ZN3c1010Dispatcher9singletonEv", "fbgemm-gpu-built-for-other-torch", "high"),
    ("AttributeError: '_OpNamespace' 'fbgemm' object has no attribute 'jagged_2d_to_dense'",
     "fbgemm-gpu-built-for-other-torch", "high"),
    # an older libcublas than a library needs
    ("OSError: /env/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: cublasGemmGroupedBatchedEx, "
     "version libcublas.so.12", "cublas-symbol-missing-older-cublas", "high"),
    # a private torch name an old library imports
    ("ImportError: cannot import name '_get_device_index' from 'torch._utils' (/env/lib/python3.10/site-packages/"
     "torch/_utils.py)", "torch-attribute-missing", "high"),
    # the legacy numbered form of no-kernel-image, with a CJK input method's parentheses
    ("RuntimeError: cuda runtime error\uff08209\uff09: no kernel image is available", "cuda-no-kernel-image", "high"),
    # a script's own check that CUDA is there, and nvcc failing under setuptools: both entries
    # name what happened, not why, so they stay "possible" wherever the text comes from
    ("  File \"train.py\", line 12, in main\n    assert torch.cuda.is_available(), 'need a GPU'\nAssertionError: need a GPU",
     "cuda-not-available", "possible"),
    ("error: command '/usr/local/cuda-11.8/bin/nvcc' failed with exit code 1", "cpp-extension-build-failed", "possible"),
    # probed from a training collection: a torch.save file given to torch.jit.load (not a damaged
    # file), a TorchScript file from a newer torch, an ONNX opset below the operator's, and glibc
    # 2.41 refusing an executable-stack library
    ("RuntimeError: PytorchStreamReader failed locating file constants.pkl: file not found",
     "jit-load-not-torchscript", "high"),
    ("RuntimeError: Unknown builtin op: aten::scaled_dot_product_attention.", "torchscript-op-newer-than-runtime", "high"),
    ("torch.onnx.errors.UnsupportedOperatorError: Exporting the operator 'aten::unflatten' to ONNX opset version 11 "
     "is not supported. Support for this operator was added in version 13, try exporting with this version.",
     "onnx-export-opset-too-low", "high"),
    ("ImportError: libc10.so: cannot enable executable stack as shared object requires: Invalid argument",
     "glibc-execstack-dlopen-refused", "high"),
    # MPS's refused 3D convolutions, and a model's FlashAttention fallback notice
    ("RuntimeError: ConvTranspose 3D is not supported on MPS", "mps-conv3d-unsupported", "high"),
    ("FlashAttention is not available on this device. Using scaled_dot_product_attention instead.",
     "flash-attn-fallback-notice", "high"),
])
def test_family_and_confidence(text, want, confidence):
    m = top(text)
    assert (m.id, m.confidence) == (want, confidence)


def test_the_onnx_answer_steps_aside_for_the_user_id():
    text = ("TorchExportError: Failed to export the model with torch.export. This is step 1/3 of exporting the model to "
            "ONNX. Next steps:\n<class 'KeyError'>: 'getpwuid(): uid not found: 501'")
    assert [m.id for m in match_text(text)] == ["container-uid-without-passwd"]


def test_transformers_remote_code_check_names_the_package_and_its_distribution():
    from torchdoctor.diagnose import explain_match
    from torchdoctor.model.facts import Facts
    text = ("ImportError: This modeling file requires the following packages that were not found in your environment: "
            "flash_attn. Run `pip install flash_attn`")
    m = top(text)
    assert m.id == "python-package-missing" and m.groups["pkg"] == "flash_attn"
    f = Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
               "packages": {"installed": {"torch": {"version": "2.5.1"}}}})
    cmds = " ".join(explain_match(m, f).fix.commands)
    assert "install flash-attn" in cmds and " run" not in cmds.lower().replace("python", "")


@pytest.mark.parametrize("text,not_this", [
    # pip's neutral wording must not take torch's own messages that end in "is invalid."
    ("environment variable `OMP_PREFIX` is invalid.", "pip-invalid-wheel"),
    # a library file fbgemm_gpu cannot open is a missing library, not a build for another torch
    ("ERROR:root:Could not load the library 'fbgemm_gpu_py.so': libcudart.so.12: cannot open shared object file: "
     "No such file or directory", "fbgemm-gpu-built-for-other-torch"),
    # '(unknown location)': torch resolved to a folder, not an older torch
    ("ImportError: cannot import name 'Tensor' from 'torch' (unknown location)", "torch-attribute-missing"),
])
def test_lookalikes_go_elsewhere(text, not_this):
    found = match_text(text)
    assert not found or found[0].id != not_this


def test_a_missing_member_other_than_constants_pkl_is_still_a_damaged_file():
    m = top("RuntimeError: PytorchStreamReader failed locating file data.pkl: file not found")
    assert m.id == "checkpoint-truncated"
