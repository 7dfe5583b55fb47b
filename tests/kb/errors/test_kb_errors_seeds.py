"""The seed errors `torchdoctor explain` was first built to recognise: the most common
PyTorch environment errors, each of which must keep ranking first.

The texts below are test inputs written for this suite (the bare messages and
realistic traceback forms), not claimed as real examples: the real, sourced
examples live on the entries in torchdoctor/kb/errors/*.json and are checked by
tests/kb/errors/test_kb_errors_entries.py. Each seed must rank the expected entry first, with the
expected category.
"""

import pytest

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts


def first(text):
    found = match_text(text)
    assert found, "nothing matched %r" % text
    return found[0]


def tb(*lines):
    """A traceback in the shape CPython prints (3.10 style: no caret lines)."""
    return "\n".join(["Traceback (most recent call last):"] + list(lines))


SEEDS = [
    # 1. torch's own backends package/submodules cannot be imported
    ("No module named 'torch.backends.cudnn'", "torch-backends-module-not-found", "backends-submodule-not-imported"),
    ("No module named 'torch.backends.mkl'", "torch-backends-module-not-found", "backends-submodule-not-imported"),
    ("No module named 'torch.backends'", "torch-backends-module-not-found", "backends-submodule-not-imported"),
    (tb('  File "train.py", line 3, in <module>',
        "    import torch.backends.cudnn as cudnn",
        "ModuleNotFoundError: No module named 'torch.backends.cudnn'"),
     "torch-backends-module-not-found", "backends-submodule-not-imported"),
    (tb('  File "C:\\app\\main.py", line 2, in <module>',
        "    import torch.backends.mkl",
        "ModuleNotFoundError: No module named 'torch.backends.mkl'"),
     "torch-backends-module-not-found", "backends-submodule-not-imported"),
    ("ModuleNotFoundError: No module named 'torch.backends'; 'torch' is not a package",
     "torch-backends-module-not-found", "backends-submodule-not-imported"),
    # torch.backends.mps is missing because torch predates 1.12: the MPS entry, not "files broken"
    ("No module named 'torch.backends.mps'", "torch-backends-mps-missing", "backends-mps-missing"),
    (tb('  File "app.py", line 1, in <module>',
        "    import torch.backends.mps",
        "ModuleNotFoundError: No module named 'torch.backends.mps'"),
     "torch-backends-mps-missing", "backends-mps-missing"),
    # 2.
    ("module 'torch.backends' has no attribute 'mps'", "torch-backends-mps-missing", "backends-mps-missing"),
    (tb('  File "main.py", line 12, in get_device',
        "    if torch.backends.mps.is_available():",
        "AttributeError: module 'torch.backends' has no attribute 'mps'"),
     "torch-backends-mps-missing", "backends-mps-missing"),
    # 3.
    ("module 'torch.backends.cudnn' has no attribute 'ver'", "torch-backends-attribute-missing", "api-renamed"),
    (tb('  File "env_check.py", line 4, in <module>',
        "    print(torch.backends.cudnn.ver)",
        "AttributeError: module 'torch.backends.cudnn' has no attribute 'ver'"),
     "torch-backends-attribute-missing", "api-renamed"),
    # 4.
    ("module 'torch.backends.cuda' has no attribute 'sdp_kernel'", "sdp-kernel-missing", "sdp-api-missing"),
    (tb('  File "modeling_baichuan.py", line 97, in forward',
        "    with torch.backends.cuda.sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True):",
        "AttributeError: module 'torch.backends.cuda' has no attribute 'sdp_kernel'"),
     "sdp-kernel-missing", "sdp-api-missing"),
    # 5.
    ("module 'torch.nn' has no attribute 'backends'", "torch-nn-backends-removed", "torch-nn-backends-removed"),
    (tb('  File "/usr/lib/python3.7/site-packages/apex/amp/utils.py", line 132, in has_func',
        "    if isinstance(mod, torch.nn.backends.backend.FunctionBackend):",
        "AttributeError: module 'torch.nn' has no attribute 'backends'"),
     "torch-nn-backends-removed", "torch-nn-backends-removed"),
    # 7.
    ("running_mean should contain 3 elements not 1", "batchnorm-running-mean-size", "batchnorm-shape"),
    (tb('  File "model.py", line 20, in forward',
        "    x = self.bn(x)",
        '  File "/usr/lib/python3.11/site-packages/torch/nn/functional.py", line 2509, in batch_norm',
        "    return torch.batch_norm(",
        "RuntimeError: running_mean should contain 3 elements not 1"),
     "batchnorm-running-mean-size", "batchnorm-shape"),
    # 8. a flag called like a function: the line that calls it names the flag
    (tb('  File "train.py", line 8, in <module>',
        "    torch.backends.cudnn.benchmark()",
        "TypeError: 'bool' object is not callable"),
     "torch-flag-called-like-function", "config"),
    (">>> torch.backends.cudnn.benchmark()\n" + tb('  File "<stdin>", line 1, in <module>',
                                                 "TypeError: 'bool' object is not callable"),
     "torch-flag-called-like-function", "config"),
    (tb('  File "main.py", line 40, in <module>',
        "    cudnn.benchmark(True)",
        "TypeError: 'bool' object is not callable"),
     "torch-flag-called-like-function", "config"),
    # 9. the reproducibility snippet
    ("torch.backends.cudnn.benchmark = False\ntorch.backends.cudnn.deterministic = True",
     "cudnn-reproducibility-flags", "config"),
    ("random.seed(0)\nnp.random.seed(0)\ntorch.manual_seed(0)\ntorch.cuda.manual_seed_all(0)\n"
     "torch.backends.cudnn.benchmark = False\ntorch.backends.cudnn.deterministic = True",
     "cudnn-reproducibility-flags", "config"),
]


@pytest.mark.parametrize("text,entry_id,category", SEEDS)
def test_seed_ranks_its_entry_first(text, entry_id, category):
    m = first(text)
    assert (m.id, m.entry.category) == (entry_id, category), [x.id for x in match_text(text)[:3]]


# 6. `from opt_einsum.backends import torch` (an IDE auto-import) binds the name torch to
# opt_einsum's torch backend module, which has no utils/nn/cuda. No public report of the
# exact message exists; its entry carries an example reproduced with the public package.
OPT_EINSUM = [
    "module 'opt_einsum.backends.torch' has no attribute 'utils'",
    tb('  File "dataset.py", line 14, in <module>',
       "    class MyDataset(torch.utils.data.Dataset):",
       "AttributeError: module 'opt_einsum.backends.torch' has no attribute 'utils'"),
]


@pytest.mark.parametrize("text", OPT_EINSUM)
def test_opt_einsum_torch_seed(text):
    m = first(text)
    assert (m.id, m.entry.category) == ("opt-einsum-torch-imported-as-torch", "torch-shadowed")
    assert "import torch" in m.entry.fix["summary"]


def test_bare_bool_not_callable_is_not_claimed():
    # Without the line that made the call nothing says a torch flag was involved.
    assert [m.id for m in match_text("TypeError: 'bool' object is not callable")] == []


def test_flag_entry_names_the_flag():
    m = first(tb('  File "train.py", line 8, in <module>', "    torch.backends.cudnn.deterministic(True)",
                 "TypeError: 'bool' object is not callable"))
    assert m.id == "torch-flag-called-like-function" and m.groups.get("flag") == "deterministic"
    e = explain_match(m, None)
    assert "torch.backends.cudnn.benchmark = True" in e.fix.summary
    assert "enabled=True" in e.fix.summary  # flags() defaults to enabled=False


def test_batchnorm_numbers_read_the_right_way_round():
    # ATen: "<name> should contain <input.size(1)> elements not <buffer.numel()>"; BatchNorm2d(1) on 3 channels.
    m = first("RuntimeError: running_mean should contain 3 elements not 1")
    e = explain_match(m, Facts({"python": {"version": "3.11.7"}, "packages": {"installed": {}}}))
    assert "has 3 channels" in e.cause and "num_features=1" in e.cause
    assert "first number is the channel count" in m.entry.cause


def test_reproducibility_snippet_says_what_it_does_not_guarantee():
    text = "torch.backends.cudnn.benchmark = False\ntorch.backends.cudnn.deterministic = True"
    m = first(text)
    e = explain_match(m, None)
    cause = e.cause
    assert "do not make everything deterministic" in cause
    assert "not guaranteed to match across PyTorch releases" in cause
    assert "use_deterministic_algorithms" in cause
    assert "DataLoader" in cause
    assert "CUBLAS_WORKSPACE_CONFIG" in cause + e.fix.summary
