"""Companion libraries whose versions must fit the code, torch and each other: transformers'
torch gate, mmcv 2, Lightning and torchmetrics, accelerate, pip's build isolation, torchdata's
DataPipes, PyG's sampler, spconv/cumm, kaolin, the PyPI apex, DeepSpeed's cpu_adam, tiny-cuda-nn.
Each held-out text comes from another report than the entry's examples."""

import pytest

from torchdoctor.match.matcher import match_text


def top(text):
    found = match_text(text)
    assert found, text
    return found[0]


@pytest.mark.parametrize("text,want,confidence", [
    # transformers' import-time torch minimum, and its notice that no torch is usable
    ("[transformers] Disabling PyTorch because PyTorch >= 2.5 is required but found 2.4.0",
     "transformers-disables-too-old-torch", "high"),
    ("None of PyTorch, TensorFlow >= 2.0, or Flax have been found. Models won't be available and only tokenizers, "
     "configuration and file/data utilities can be used.这是怎么回事", "transformers-no-torch-backend", "possible"),
    # mmcv 2 removed mmcv.runner and mmcv.Config
    ("from mmcv.runner import load_checkpoint\nModuleNotFoundError: No module named 'mmcv.runner'",
     "mmcv2-removed-1x-api", "high"),
    ("AttributeError: module 'mmcv' has no attribute 'Config'", "mmcv2-removed-1x-api", "high"),
    # Lightning's moved modules and removed Trainer arguments; torchmetrics 1.0's moved helper
    ("ModuleNotFoundError: No module named 'pytorch_lightning.utilities.distributed'",
     "lightning-removed-module-newer-version", "high"),
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'gpus'",
     "lightning2-trainer-removed-argument", "high"),
    ("ImportError: cannot import name '_compare_version' from 'torchmetrics.utilities.imports' "
     "(C:\\Users\\NINGMEI\\.conda\\envs\\sc_depth_env\\lib\\site-packages\\torchmetrics\\utilities\\imports.py)",
     "lightning-torchmetrics-version-mismatch", "high"),
    # transformers' Trainer and accelerate 1.x
    ("  File \"/home/wanghw/workspace/MLLM/LLaVA-NeXT/llava/train/llava_trainer.py\", line 251, in "
     "create_accelerator_and_postprocess\n    self.accelerator = Accelerator(\n"
     "TypeError: Accelerator.__init__() got an unexpected keyword argument 'dispatch_batches'",
     "accelerate-transformers-version-mismatch", "high"),
    # pip's isolated build environment has no torch
    ("  File \"<string>\", line 33, in get_extensions\nModuleNotFoundError: No module named 'torch'\n---\n"
     "  Caused by: This error likely indicates that git+https://github.com/nerfstudio-project/gsplat depends on torch, "
     "but doesn't declare it as a build dependency.", "pip-build-isolation-hides-torch", "high"),
    # an editable install says so in its own words
    ("  ModuleNotFoundError: No module named 'torch'\n\n  ERROR: Failed to build 'file:///root/SageAttention' when "
     "getting requirements to build editable", "pip-build-isolation-hides-torch", "high"),
    # torchdata's DataPipes against torch internals
    ("ImportError: cannot import name 'DILL_AVAILABLE' from 'torch.utils.data.datapipes.utils.common' "
     "(/workspace/pytorch/torch/utils/data/datapipes/utils/common.py)",
     "torch-datapipes-private-api-mismatch", "high"),
    # PyG, spconv/cumm, kaolin, the PyPI apex
    ("ImportError: 'NeighborSampler' requires either 'pyg-lib' or 'torch-sparse'", "pyg-sampler-backend-missing", "high"),
    ("ImportError: cannot import name 'CUDAEvent' from 'cumm.core_cc.tensorview_bind' (unknown location)",
     "spconv-cumm-version-mismatch", "high"),
    ("ImportError: arg(): could not convert default argument 'indice_pair_mask: tv::Tensor' in function "
     "'generate_subm_conv_inds' into a Python object (type not registered yet?)", "spconv-cumm-version-mismatch", "high"),
    ("ImportError: Kaolin requires PyTorch >= 1.6.0, <= 2.8.0, but found version 2.9.1+cu128",
     "kaolin-setup-torch-version-gate", "high"),
    ("Looking in links: https://nvidia-kaolin.s3.us-east-2.amazonaws.com/torch-2.7.0_cu128.html\n"
     "ERROR: Could not find a version that satisfies the requirement kaolin==0.17.0 (from versions: 0.1)\n"
     "ERROR: No matching distribution found for kaolin==0.17.0", "kaolin-no-wheel-for-torch-combo", "high"),
    ("ImportError: cannot import name 'UnencryptedCookieSessionFactoryConfig' from 'pyramid.session' (unknown location)",
     "pypi-apex-name-clash", "high"),
    # NVIDIA apex built without --cuda_ext: its fused optimizers refuse at construction
    ('  File "/env/lib/python3.10/site-packages/apex/optimizers/fused_adam.py", line 80, in __init__\n'
     "    raise RuntimeError('apex.optimizers.FusedAdam requires cuda extensions')\n"
     "RuntimeError: apex.optimizers.FusedAdam requires cuda extensions", "apex-cuda-extensions-missing", "high"),
    ("RuntimeError: apex.optimizers.FusedLAMB requires cuda extensions", "apex-cuda-extensions-missing", "high"),
    # DeepSpeed's cpu_adam op, tiny-cuda-nn's per-architecture modules, torchao built for torch 2.10
    ("AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'",
     "deepspeed-cpu-adam-op-build-failed", "high"),
    ("OSError: Could not find compatible tinycudann extension for compute capability 87.",
     "tinycudann-no-extension-for-compute-capability", "high"),
    ("OSError: Unknown compute capability. Ensure PyTorch with CUDA support is installed.",
     "tinycudann-unknown-compute-capability", "high"),
    ("[2026-03-04 10:26:25] WARNING __init__.py:108: Skipping import of cpp extensions due to incompatible torch "
     "version 2.9.1+cu129 for torchao version 0.16.0             Please see https://github.com/pytorch/ao/issues/2919 "
     "for more info", "torchao-cpp-extensions-skipped", "high"),
])
def test_family_and_confidence(text, want, confidence):
    m = top(text)
    assert (m.id, m.confidence) == (want, confidence)


def test_the_torch_gate_line_explains_the_no_backend_notice():
    text = ("Disabling PyTorch because PyTorch >= 2.1 is required but found 2.0.1+cu117\n"
            "None of PyTorch, TensorFlow >= 2.0, or Flax have been found. Models won't be\n"
            "available and only tokenizers, configuration and file/data utilities can be used.")
    assert [m.id for m in match_text(text)] == ["transformers-disables-too-old-torch"]


@pytest.mark.parametrize("text,not_want", [
    # mmcv without its ops, and an old broken mmcv, are not the 1.x/2.x split
    ("ModuleNotFoundError: No module named 'mmcv._ext'", "mmcv2-removed-1x-api"),
    ("ImportError: cannot import name 'Config' from 'mmcv' (unknown location)", "mmcv2-removed-1x-api"),
    # a Trainer argument that Lightning never had, and transformers' own TrainingArguments
    ("TypeError: Trainer.__init__() got an unexpected keyword argument 'foo'", "lightning2-trainer-removed-argument"),
    ("TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'dispatch_batches'",
     "accelerate-transformers-version-mismatch"),
    # torch missing from the running interpreter, not from a build environment
    ("ModuleNotFoundError: No module named 'torch'", "pip-build-isolation-hides-torch"),
    # another library's own fused kernels (ColossalAI's), not apex's
    ('RuntimeError: ScaledMaskedSoftmax requires cuda extensions', "apex-cuda-extensions-missing"),
    # a private torch name outside the DataPipes
    ("ImportError: cannot import name '_get_device_index' from 'torch._utils'", "torch-datapipes-private-api-mismatch"),
    # another package's missing wheel
    ("ERROR: Could not find a version that satisfies the requirement kaolin-extras==1.0 (from versions: none)",
     "kaolin-no-wheel-for-torch-combo"),
])
def test_near_misses_are_not_claimed(text, not_want):
    assert not_want not in [m.id for m in match_text(text)]


def test_plain_torch_missing_stays_with_the_interpreter_entry():
    assert top("ModuleNotFoundError: No module named 'torch'").id == "torch-module-not-found"
    assert top("ModuleNotFoundError: No module named 'mmcv._ext'").id == "mmcv-ops-not-installed"


@pytest.mark.parametrize("accelerate,arg,want,not_want", [
    # accelerate 1.x refuses the DataLoader options an older transformers still passes
    ("1.0.1", "dispatch_batches", 'accelerate<1.0', "install --upgrade accelerate"),
    # an accelerate older than the transformers that passes use_seedable_sampler
    ("0.23.0", "use_seedable_sampler", "install --upgrade accelerate", 'accelerate<1.0'),
])
def test_accelerate_hook_picks_the_package_that_is_out_of_step(accelerate, arg, want, not_want):
    from torchdoctor.diagnose import explain_match
    from torchdoctor.model.facts import Facts
    m = top("TypeError: Accelerator.__init__() got an unexpected keyword argument '%s'" % arg)
    assert m.id == "accelerate-transformers-version-mismatch" and m.groups["arg"] == arg
    f = Facts({"python": {"version": "3.10.12", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
               "packages": {"installed": {"torch": {"version": "2.1.0"}, "accelerate": {"version": accelerate},
                                          "transformers": {"version": "4.39.3"}}}})
    ans = explain_match(m, f)
    cmds = " ".join(ans.fix.commands)
    assert want in cmds and not_want not in cmds
    assert accelerate in ans.fix.summary
