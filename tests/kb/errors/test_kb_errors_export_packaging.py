"""Model files, export, packaging and containers: each family answered on a report that is
not one of its entry's examples, and near misses (the same words about something else, or
another program's output) left to other entries or to nothing."""

import pytest

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    assert found, text
    return found[0]


@pytest.mark.parametrize("text,want,confidence", [
    # ONNX IR version newer than the reader: onnxruntime's wording (a jax2onnx report's title)
    ("Unsupported model IR version: 11, max supported IR version: 10", "onnx-model-ir-newer-than-consumer", "high"),
    # safetensors and tied weights, wrapped over two lines (github.com/safetensors/safetensors/issues/304)
    ("Some tensors share memory, this will lead to duplicate memory on disk and potential differences when \n"
     "loading them again: [{'model.layers.1.self_attn.q_proj.weight', 'model.layers.11.mlp.up_proj.weight', ",
     "safetensors-shared-tensors", "high"),
    # the image's CUDA newer than the host driver, quoted inside an old runc error
    # (github.com/nodefluxio/vortex/issues/106)
    ("OCI runtime create failed: container_linux.go:349: starting container process caused \"process_linux.go:449: "
     "container init caused \\\"process_linux.go:432: running prestart hook 1 caused \\\\\\\"error running hook: exit "
     "status 1, stdout: , stderr: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=10.2, please "
     "update your driver to a newer version, or use an earlier cuda container\\\\\\\\n\\\\\\\"\\\"\": unknown",
     "container-cuda-newer-than-host-driver", "high"),
    # no container toolkit: Docker's words say what happened, any program may print them
    # (github.com/sair-lab/AirSLAM/issues/113, github.com/jianchang512/ChatTTS-ui/issues/212)
    ("docker: Error response from daemon: unknown or invalid runtime name: nvidia.",
     "docker-nvidia-container-toolkit-missing", "possible"),
    ("Error response from daemon: could not select device driver \"nvidia\" with capabilities: [[gpu]]",
     "docker-nvidia-container-toolkit-missing", "possible"),
    # the container hook cannot load the host's NVML (github.com/NVIDIA/nvidia-container-toolkit/issues/154)
    ("@elezar nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared "
     "object file: no such file or directory: unknown.", "container-toolkit-host-driver-library-missing", "possible"),
    # a frozen app without the sources TorchScript reads (github.com/pyinstaller/pyinstaller/issues/4926)
    ("OSError: Can't get source for <function _rejection_sample at 0x0000000018402D08>. TorchScript requires source "
     "access in order to carry out compilation, make sure original .py files are available. Original error: could "
     "not get source code", "torchscript-needs-source-in-frozen-app", "high"),
    # ONNX export over 2 GiB to a buffer, the message wrapped mid-word
    # (github.com/open-edge-platform/anomalib/issues/2591)
    ("RuntimeError: The serialized model is larger than the 2GiB limit imposed by the protobuf library. Therefore "
     "the output file must be a file path, so that the ONN\nX external data can be written to the same directory. "
     "Please specify the output file name.", "onnx-export-over-2gb-needs-file-path", "high"),
    # a relative Chinese folder name (github.com/pytorch/pytorch/issues/90040)
    ("    super().__init__(torch._C.PyTorchFileWriter(str(name)))\nRuntimeError: Parent directory 已训练的模型 does not "
     "exist.", "torch-serialization-non-ascii-windows-path", "high"),
    # Poetry installing torch 2.5.1 (github.com/drmingler/docling-api/issues/10), and Poetry 2's
    # wording (github.com/syssec-utd/pylingual/issues/129)
    ("  RuntimeError\n\n  Unable to find installation candidates for torch (2.5.1)\n\n  at ~/.local/pipx/venvs/poetry/"
     "lib/python3.13/site-packages/poetry/installation/chooser.py:74 in choose_for",
     "poetry-torch-no-installation-candidates", "high"),
    ("  - Installing torch (2.7.1): Failed\n\n    | Unable to find installation candidates for torch (2.7.1)\n    | \n"
     "    | This is likely not a Poetry issue.\n    | \n    |   - 24 candidate(s) were identified for the package\n"
     "    |   - 24 wheel(s) were skipped as your project's environment does not support the identified abi tags",
     "poetry-torch-no-installation-candidates", "high"),
    # torch 2.9's default ONNX exporter without onnxscript, inside the exporter's own traceback
    ("  File \"/usr/lib/python3.12/site-packages/torch/onnx/_internal/exporter/_core.py\", line 18, in <module>\n"
     "    import onnxscript\nModuleNotFoundError: No module named 'onnxscript'", "onnx-export-onnxscript-missing", "high"),
    # a torch dependency taken from the PyTorch CPU index (an astral-sh/uv issue thread, 2025)
    ("uv add -r requirements.txt --index https://download.pytorch.org/whl/cpu\nResolved 118 packages in 3.48s\n"
     "error: Distribution `markupsafe==3.0.2 @ registry+https://download.pytorch.org/whl/cpu` can't be installed because "
     "it doesn't have a source distribution or wheel for the current platform", "uv-dependency-resolved-from-pytorch-index",
     "high"),
    # torchvision's plain version from the CPU index has macOS wheels only (an astral-sh/uv issue thread, 2025)
    ("error: Distribution `torchvision==0.24.1 @ registry+https://download.pytorch.org/whl/cpu` can't be installed "
     "because it doesn't have a source distribution or wheel for the current platform", "uv-torch-no-wheel-for-platform",
     "high"),
    # an opset newer than torch 1.7's exporter, through a YOLO exporter (github.com/ultralytics/ultralytics/issues/625)
    ("PyTorch: starting from yolov8n.pt with output shape (1, 84, 8400) (6.2 MB)\n\nONNX: starting export with onnx "
     "1.13.0...\nONNX: export failure  0.1s: Unsupported ONNX opset version: 17", "onnx-export-opset-newer-than-torch",
     "high"),
    # an arbitrary UID with HOME=/ writing Triton's cache
    ("torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: '/.triton/cache'",
     "container-home-cache-not-writable", "high"),
])
def test_family_and_confidence(text, want, confidence):
    m = top(text)
    assert (m.id, m.confidence) == (want, confidence)


@pytest.mark.parametrize("text,not_want", [
    # Python's inspect error alone: no sign of TorchScript
    ("OSError: could not get source code", "torchscript-needs-source-in-frozen-app"),
    # an ASCII parent directory that really is missing
    ("RuntimeError: Parent directory /data/ckpt/run1 does not exist.", "torch-serialization-non-ascii-windows-path"),
    # a home directory that exists: not HOME=/
    ("PermissionError: [Errno 13] Permission denied: '/home/user/.cache/torch'", "container-home-cache-not-writable"),
    # a shell's "Killed" with no torch download in sight
    ("$ python train.py\nKilled", "pip-install-torch-oom-killed"),
    # the same words from an engine builder's notes, no torch.onnx in sight
    ("**Error:** `Unsupported ONNX opset version: 17`", "onnx-export-opset-newer-than-torch"),
    # onnx missing with no sign of torch.onnx
    ("ModuleNotFoundError: No module named 'onnx'", "onnx-export-onnxscript-missing"),
    # a package PyPI has no wheel for: not the PyTorch index
    ("error: Distribution `numpy==2.1.0 @ registry+https://pypi.org/simple` can't be installed because it doesn't have "
     "a source distribution or wheel for the current platform", "uv-dependency-resolved-from-pytorch-index"),
    # __cuda missing for another framework's conda package (deepmd-kit documentation)
    ("LibMambaUnsatisfiableError: Encountered problems while solving:\n"
     "  - nothing provides __cuda needed by tensorflow-2.9.0-cuda102py310h7cc18f4_0", "conda-cuda-virtual-package-missing"),
])
def test_near_misses_are_not_claimed(text, not_want):
    assert not_want not in [m.id for m in match_text(text)]


def test_onnxruntime_own_log_is_left_to_onnxruntime():
    # onnxruntime's traceback names no torch: whose.py gives it to ONNX Runtime, not a diagnosis
    text = ("onnxruntime.capi.onnxruntime_pybind11_state.Fail: [ONNXRuntimeError] : 1 : FAIL : Load model from "
            "./sin.onnx failed:/Users/runner/work/1/s/onnxruntime/core/graph/model.cc:182 onnxruntime::Model::Model"
            " Unsupported model IR version: 11, max supported IR version: 10")
    assert match_text(text) == []


def test_the_home_cache_entry_steps_in_for_the_generic_write_failure():
    text = "PermissionError: [Errno 13] Permission denied: '/.cache'"
    ids = [m.id for m in match_text(text)]
    assert ids[:1] == ["container-home-cache-not-writable"]
    assert "torch-output-location-not-writable" not in ids

