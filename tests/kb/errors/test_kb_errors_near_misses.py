"""Texts that sit next to an entry's message but have another cause: the entry must not claim
them, and the message's real variants must still land on it."""

import pytest

from torchdoctor.match.matcher import match_text
from torchdoctor.model import derived as F

NOT_THEIRS = [
    # The capability warning shortened to the GPU's name is the GPU's; a driver, a CUDA release
    # or an AMD part "not compatible" is not that warning (torch checks capabilities only on CUDA builds).
    ("NVIDIA driver version 470.82 is not compatible with the current PyTorch build", "gpu-capability-not-compatible"),
    ("NVIDIA CUDA 11.8 is not compatible with the current PyTorch", "gpu-capability-not-compatible"),
    ("AMD Radeon RX 580 is not compatible with the current PyTorch build", "gpu-capability-not-compatible"),
    # UCX's own symbol errors outside HPC-X's folder are not the NGC container's clash.
    ("/usr/lib/x86_64-linux-gnu/libucp.so.0: undefined symbol: ucs_config_doc_nop", "hpcx-ucx-library-conflict"),
    ("mpirun: /usr/lib/libuct.so.0: undefined symbol: ucs_async_poll_missed", "hpcx-ucx-library-conflict"),
]


@pytest.mark.parametrize("text,entry", NOT_THEIRS)
def test_a_neighbouring_text_is_not_claimed(text, entry):
    assert entry not in [m.id for m in match_text(text)]


THEIRS = [
    ("NVIDIA A100 is not compatible with the current PyTorch", "gpu-capability-not-compatible"),
    ("ImportError: /opt/hpcx/ucx/lib/libucs.so.0: undefined symbol: ucm_set_global_opts", "hpcx-ucx-library-conflict"),
    # Python's own C-API names in every spelling: Py..., _Py..., Py_..., _Py_...
    ("ImportError: /env/lib/python3.8/site-packages/torch/lib/libtorch_python.so: undefined symbol: _Py_ZeroStruct",
     "torch-python-c-api-symbol-missing"),
    ("ImportError: /env/site-packages/torch/lib/libtorch_python.so: undefined symbol: Py_BuildValue",
     "torch-python-c-api-symbol-missing"),
    ("LINK : fatal error LNK1104: cannot open file 'python3.lib'", "python-import-library-missing"),
    ("LINK : fatal error LNK1104: cannot open file 'python312_d.lib'", "python-import-library-missing"),
]


@pytest.mark.parametrize("text,entry", THEIRS)
def test_a_variant_of_the_message_lands_on_its_entry(text, entry):
    found = match_text(text)
    assert found and found[0].id == entry, [m.id for m in found]


def test_a_path_is_prepended_without_a_trailing_separator():
    # An empty entry in LD_LIBRARY_PATH is the current directory to the loader.
    assert F.prepend_path_cmd("LD_LIBRARY_PATH", "/usr/lib/wsl/lib") == \
        "export LD_LIBRARY_PATH=/usr/lib/wsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
