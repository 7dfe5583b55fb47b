"""Tailoring hooks for API errors (explain/hooks/api.py): each error is matched
through the real knowledge base, then explained against hand-built facts for a
given torch version; the tailored text must follow the version, and without a
torch version the entry's generic fix must come back unchanged."""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts
from torchdoctor.kb.errors import get_entry


def facts(torch_version=None, system="Linux", **extra):
    data = {"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"},
            "os": {"system": system},
            "packages": {"installed": {}}}
    if torch_version:
        data["packages"]["installed"]["torch"] = {"version": torch_version}
    for name, version in extra.items():
        data["packages"]["installed"][name] = {"version": version}
    return Facts(data)


def explain(text, entry_id, torch_version=None, **kw):
    found = match_text(text)
    assert found, "nothing matched %r" % text
    m = next((x for x in found if x.id == entry_id), None)
    assert m is not None, "%s did not match %r (got %s)" % (entry_id, text, [x.id for x in found])
    e = explain_match(m, facts(torch_version, **kw))
    assert e.hook_error is None, e.hook_error
    return e


def blob(e):
    return "\n".join([e.cause, e.fix.summary] + list(e.fix.commands) + list(e.notes))


def on_target(commands, exe):
    """The entry's generic commands as run by the interpreter the facts name."""
    return [exe + (" -m pip " + c[4:] if c.startswith("pip ") else c[c.index(" "):])
            if c.startswith(("pip ", "python ", "python3 ")) else c for c in commands]


def assert_generic(text, entry_id):
    e = explain(text, entry_id, None)
    entry = get_entry(entry_id)
    assert not e.tailored
    assert e.fix.summary == entry.fix["summary"]
    assert e.fix.commands == on_target(entry.fix.get("commands", []), "/opt/env/bin/python")


# -- SDPA -------------------------------------------------------------------------
SDP = "AttributeError: module 'torch.backends.cuda' has no attribute 'sdp_kernel'"


def test_sdp_kernel_before_it_existed_says_upgrade():
    e = explain(SDP, "sdp-kernel-missing", "1.12.1")
    assert e.tailored
    assert "older than torch.backends.cuda.sdp_kernel (first in 1.13" in e.fix.summary
    assert "sdpa_kernel" in e.fix.summary
    assert any("install" in c and "torch==" in c for c in e.fix.commands), e.fix.commands
    assert any(c.startswith("/opt/env/bin/python -m pip install torch==") for c in e.fix.commands), e.fix.commands


def test_sdp_kernel_present_means_another_torch():
    e = explain(SDP, "sdp-kernel-missing", "2.1.2")
    assert "different, older torch" in e.cause
    assert "torch.__file__" in e.fix.commands[0]
    assert "no upgrade needed" in e.fix.summary.lower()


def test_sdp_kernel_deprecated_era_shows_replacement_code():
    e = explain(SDP, "sdp-kernel-missing", "2.13.0+cpu")
    assert "deprecated since 2.3" in e.fix.summary
    assert "from torch.nn.attention import SDPBackend, sdpa_kernel" in e.fix.summary
    assert "with sdpa_kernel([SDPBackend.FLASH_ATTENTION" in e.fix.summary


def test_sdp_kernel_without_facts_is_generic():
    assert_generic(SDP, "sdp-kernel-missing")


def test_sdp_kernel_keyword_follows_the_version_that_added_it():
    text = "TypeError: sdp_kernel() got an unexpected keyword argument 'enable_mem_efficient'"
    old = explain(text, "sdp-kernel-unexpected-keyword", "1.13.1")
    assert "does not take `enable_mem_efficient` (accepted from torch 2.0" in old.fix.summary
    assert "SDPBackend.EFFICIENT_ATTENTION" in old.fix.summary
    new = explain(text, "sdp-kernel-unexpected-keyword", "2.0.1")
    assert "different, older torch" in new.cause
    cudnn = explain("TypeError: sdp_kernel() got an unexpected keyword argument 'enable_cudnn'",
                    "sdp-kernel-unexpected-keyword", "2.2.2")
    assert "accepted from torch 2.3" in cudnn.fix.summary


def test_sdp_kernel_futurewarning():
    text = ("FutureWarning: `torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
            "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated signature.")
    new = explain(text, "sdp-kernel-deprecated", "2.4.1")
    assert "sdpa_kernel([SDPBackend" in new.fix.summary and "enable_mem_efficient -> EFFICIENT_ATTENTION" in new.fix.summary
    old = explain(text, "sdp-kernel-deprecated", "2.2.2")
    assert "only raised by torch 2.3 and newer" in old.cause
    assert_generic(text, "sdp-kernel-deprecated")


@pytest.mark.parametrize("version,expect", [
    ("2.1.2", "torch.backends.cuda.sdp_kernel(enable_flash=True"),  # 2.0-2.2: old API as a fallback
    ("1.12.1", "predates torch.nn.attention"),
    ("2.3.0", "different, older torch"),
])
def test_nn_attention_missing(version, expect):
    e = explain("ModuleNotFoundError: No module named 'torch.nn.attention'", "torch-nn-attention-missing", version)
    assert expect in blob(e)
    if version == "1.12.1":
        assert "sdp_kernel(enable_flash" not in e.fix.summary


# -- torch.backends ----------------------------------------------------------------
MPS = "AttributeError: module 'torch.backends' has no attribute 'mps'"


def test_backends_mps_missing_on_old_torch_upgrades():
    e = explain(MPS, "torch-backends-mps-missing", "1.11.0")
    assert "predates torch.backends.mps (first in torch 1.12)" in e.fix.summary
    assert "returns False" in e.fix.summary  # Linux: explain why upgrading is still right
    assert any("pip install" in c for c in e.fix.commands)
    mac = explain(MPS, "torch-backends-mps-missing", "1.11.0", system="Darwin")
    assert "returns False" not in mac.fix.summary


def test_backends_mps_present_means_another_torch():
    e = explain(MPS, "torch-backends-mps-missing", "1.13.1")
    assert "different, older torch" in e.cause
    assert_generic(MPS, "torch-backends-mps-missing")


@pytest.mark.parametrize("version,expect", [
    ("2.0.1", "import torch.mps"),
    ("1.13.1", "predates a torch.mps module"),
    ("2.1.0", "different, older torch"),
])
def test_torch_mps_module(version, expect):
    e = explain("AttributeError: module 'torch' has no attribute 'mps'", "torch-mps-module-not-loaded", version)
    assert expect in blob(e)


@pytest.mark.parametrize("sub,version,expect", [
    ("opt_einsum", "2.7.1", "import torch.backends.opt_einsum"),   # exists, not auto-imported before 2.9
    ("opt_einsum", "2.9.0", "different, older torch"),             # auto-imported from 2.9
    ("opt_einsum", "1.12.1", "first in torch 1.13"),                 # does not exist yet
    ("xnnpack", "2.13.0", "import torch.backends.xnnpack"),          # never auto-imported
    ("mkldnn", "2.1.0", "different, older torch"),
    ("cpu", "2.0.1", "first in torch 2.1"),                         # torch.backends.cpu is 2.1+
    ("nnpack", "2.2.2", "first in torch 2.3"),
])
def test_backends_submodule(sub, version, expect):
    text = "AttributeError: module 'torch.backends' has no attribute '%s'" % sub
    e = explain(text, "torch-backends-submodule-not-imported", version)
    assert expect in blob(e)


def test_backends_submodule_older_than_sampled_releases_is_not_guessed():
    e = explain("AttributeError: module 'torch.backends' has no attribute 'mkldnn'",
                "torch-backends-submodule-not-imported", "1.4.0")
    assert not e.tailored


def test_backends_attribute_that_never_existed_suggests_the_real_name():
    e = explain("AttributeError: module 'torch.backends.cudnn' has no attribute 'ver'",
                "torch-backends-attribute-missing", "2.5.1")
    assert "never had an attribute `ver`" in e.fix.summary
    assert "torch.backends.cudnn.version" in e.fix.summary
    assert "torch.backends.cudnn.version()" in e.fix.commands[0]


@pytest.mark.parametrize("text,version,expect", [
    ("module 'torch.backends.cuda' has no attribute 'enable_cudnn_sdp'", "2.2.2", "first in torch 2.3"),
    ("module 'torch.backends.cuda' has no attribute 'enable_cudnn_sdp'", "2.4.0", "different, older torch"),
    ("module 'torch.backends.mps' has no attribute 'is_macos13_or_newer'", "1.13.1", "first in torch 2.0"),
    ("module 'torch.backends.cuda.matmul' has no attribute 'fp32_precision'", "2.8.0", "first in torch 2.9"),
])
def test_backends_attribute_newer_than_torch(text, version, expect):
    e = explain("AttributeError: " + text, "torch-backends-attribute-missing", version)
    assert expect in blob(e)


def test_backends_attribute_unknown_to_old_sampling_is_not_guessed():
    # is_built is "present in 1.11 or earlier": for 1.5 nothing is known, so no tailoring.
    e = explain("AttributeError: module 'torch.backends.cuda' has no attribute 'is_built'",
                "torch-backends-attribute-missing", "1.5.0")
    assert not e.tailored


def test_backends_module_not_found_reinstalls_the_same_torch():
    e = explain("ModuleNotFoundError: No module named 'torch.backends.cudnn'", "torch-backends-module-not-found", "2.3.1")
    assert not any(" uninstall " in c for c in e.fix.commands), e.fix.commands  # never uninstall first
    assert any("install --force-reinstall --no-cache-dir torch==2.3.1" in c for c in e.fix.commands), e.fix.commands
    cpu = explain("ModuleNotFoundError: No module named 'torch.backends.cudnn'", "torch-backends-module-not-found", "2.3.1+cpu")
    assert any("torch==2.3.1" in c and "whl/cpu" in c for c in cpu.fix.commands), cpu.fix.commands
    assert_generic("ModuleNotFoundError: No module named 'torch.backends.cudnn'", "torch-backends-module-not-found")


# -- config ------------------------------------------------------------------------
TF32 = ("RuntimeError: PyTorch is checking whether allow_tf32 is enabled for cuDNN without a specific operator "
        "name,but the current flag(s) indicate that cuDNN conv and cuDNN RNN have different TF32 flags.This "
        "combination indicates that you have used a mix of the legacy and new APIs to set the TF32 flags.")


def test_tf32_mixed_api():
    new = explain(TF32, "tf32-legacy-and-new-api-mixed", "2.9.1")
    assert 'torch.backends.cudnn.conv.fp32_precision = "ieee"' in new.fix.summary
    old = explain(TF32, "tf32-legacy-and-new-api-mixed", "2.8.0")
    assert "arrived in torch 2.9" in old.cause


SNIPPET = "torch.backends.cudnn.deterministic = True\ntorch.backends.cudnn.benchmark = False"


def test_reproducibility_snippet_tailors_cublas_by_version():
    e = explain(SNIPPET, "cudnn-reproducibility-flags", "2.9.1+cu128")
    assert "CUBLAS_WORKSPACE_CONFIG=:4096:8" in e.cause
    assert "not guaranteed" in e.cause or "do not make everything deterministic" in e.cause
    new = explain(SNIPPET, "cudnn-reproducibility-flags", "2.10.0+cu128")
    assert "no longer demands CUBLAS_WORKSPACE_CONFIG" in new.cause
    cpu = explain(SNIPPET, "cudnn-reproducibility-flags", "2.13.0+cpu")
    assert "both cudnn flags do nothing here" in cpu.cause
    assert "no longer demands" not in cpu.cause
    assert_generic(SNIPPET, "cudnn-reproducibility-flags")


def test_reproducibility_snippet_ranks_below_a_real_error():
    found = match_text(SNIPPET + "\nRuntimeError: running_mean should contain 64 elements not 128")
    assert found[0].id == "batchnorm-running-mean-size"


def test_batchnorm_channels_from_the_message():
    e = explain("RuntimeError: running_mean should contain 64 elements not 128", "batchnorm-running-mean-size", "2.1.0")
    assert "num_features=64" in e.cause and "128" in e.cause


# -- other APIs ----------------------------------------------------------------------
@pytest.mark.parametrize("text,version,expect", [
    ("AttributeError: module 'torch' has no attribute 'frombuffer'", "1.9.1", "first in torch 1.10"),
    ("AttributeError: module 'torch' has no attribute 'frombuffer'", "2.0.1", "different, older torch"),
    ("AttributeError: module 'torch.compiler' has no attribute 'is_compiling'", "2.2.2", "first in torch 2.3"),
    ("AttributeError: module 'torch.linalg' has no attribute 'lstsq'", "1.8.1", "first in torch 1.9"),
    ("ModuleNotFoundError: No module named 'torch.ao.quantization'", "1.9.1", "first in torch 1.10"),
])
def test_newer_api(text, version, expect):
    entry = "torch-ao-quantization-missing" if "torch.ao" in text else "torch-api-newer-than-installed"
    assert expect in blob(explain(text, entry, version))


@pytest.mark.parametrize("version,expect", [("1.13.1", "first in torch 2.0"), ("2.1.0", "different, older torch")])
def test_torch_compile(version, expect):
    e = explain("AttributeError: module 'torch' has no attribute 'compile'", "torch-compile-missing-old-torch", version)
    assert expect in blob(e)


def test_pytree_public_name_missing():
    text = "AttributeError: module 'torch.utils._pytree' has no attribute 'register_pytree_node'"
    e = explain(text, "pytree-register-pytree-node-missing", "2.1.2", transformers="4.49.0")
    assert "needs torch 2.2 or newer" in e.fix.summary and "installed transformers: 4.49.0" in e.notes
    assert "different, older torch" in explain(text, "pytree-register-pytree-node-missing", "2.2.0").cause


def test_nn_backends_removed():
    text = "AttributeError: module 'torch.nn' has no attribute 'backends'"
    e = explain(text, "torch-nn-backends-removed", "1.4.0", apex="0.1")
    assert "/opt/env/bin/python -m pip uninstall -y apex" in e.fix.commands
    assert "installed apex: 0.1" in e.notes
    assert "different, older torch" in explain(text, "torch-nn-backends-removed", "1.2.0").cause


def test_torch_six():
    e = explain("ModuleNotFoundError: No module named 'torch._six'", "torch-six-removed", "2.0.1")
    assert "removed in 2.0" in e.cause
    assert not explain("ModuleNotFoundError: No module named 'torch._six'", "torch-six-removed", "1.13.1").tailored


# -- torch.load weights_only -----------------------------------------------------------
WO = ("WeightsUnpickler error: Unsupported global: GLOBAL numpy.core.multiarray._reconstruct was not an allowed "
      "global by default. Please use `torch.serialization.add_safe_globals([_reconstruct])`")


def test_weights_only_failed_on_26_explains_default_flip_and_allowlists_the_global():
    e = explain(WO, "torch-load-weights-only-failed", "2.6.0")
    assert "default flipped in 2.6" in e.fix.summary
    assert "add_safe_globals([(fn, 'numpy.core.multiarray._reconstruct')])" in e.fix.summary
    assert "weights_only=False" in e.fix.summary


def test_weights_only_failed_own_class():
    text = ("WeightsUnpickler error: Unsupported global: GLOBAL utils.HParams was not an allowed global by default.")
    e = explain(text, "torch-load-weights-only-failed", "2.7.1")
    assert "from utils import HParams" in e.fix.summary
    assert "add_safe_globals([HParams])" in e.fix.summary


def test_weights_only_failed_before_26_means_explicit_request():
    e = explain(WO, "torch-load-weights-only-failed", "2.3.1")
    assert "asked for weights_only=True explicitly" in e.fix.summary
    assert "no add_safe_globals" in e.fix.summary
    assert "add_safe_globals([(" not in e.fix.summary
    # Only the first line of a multi-line message: still version-tailored, no global to name.
    first = explain("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded",
                    "torch-load-weights-only-failed", "2.6.0")
    assert "default flipped in 2.6" in first.fix.summary and "add_safe_globals([TheClass])" in first.fix.summary
    assert_generic(WO, "torch-load-weights-only-failed")


@pytest.mark.parametrize("version,expect", [
    ("2.4.1", "default will flip to weights_only=True in 2.6"),
    ("2.6.0", "came from another environment"),
    ("2.1.0", "added in 2.4"),
])
def test_weights_only_futurewarning(version, expect):
    text = "FutureWarning: You are using `torch.load` with `weights_only=False` (the current default value)"
    assert expect in explain(text, "torch-load-weights-only-futurewarning", version).cause


@pytest.mark.parametrize("version,expect", [("1.12.1", "first in torch 1.13"), ("2.0.1", "different, older torch")])
def test_weights_only_keyword_on_old_torch(version, expect):
    e = explain("TypeError: 'weights_only' is an invalid keyword argument for Unpickler()",
                "torch-load-weights-only-unknown-kwarg", version)
    assert expect in blob(e)


@pytest.mark.parametrize("attr,version,expect", [
    ("safe_globals", "2.4.1", "call torch.serialization.add_safe_globals([...]) once"),
    ("safe_globals", "2.6.0", "different, older torch"),
    ("add_safe_globals", "2.3.1", "first in torch 2.4"),
])
def test_safe_globals_missing(attr, version, expect):
    text = "AttributeError: module 'torch.serialization' has no attribute '%s'" % attr
    assert expect in blob(explain(text, "torch-serialization-safe-globals-missing", version))
