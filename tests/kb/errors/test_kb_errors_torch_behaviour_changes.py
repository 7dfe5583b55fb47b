"""torch's own behaviour changes that break code or checkpoints made for an older torch: the
messages come from the installed torch here, and the entries' facts are checked against it."""

import subprocess
import sys

import pytest

from torchdoctor.match.matcher import match_text


def test_stft_without_return_complex_is_the_installed_torchs_error_and_the_entrys():
    pytest.importorskip("torch")
    code = "import torch; torch.stft(torch.rand(1024), 128)"
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "return_complex" in r.stderr
    assert match_text(r.stderr)[0].id == "stft-return-complex-required"


def test_a_module_pickled_without_non_persistent_buffers_loads_on_this_torch():
    # What the entry says of torch 1.7 and later: unpickling fills the attribute a torch 1.5
    # pickle lacks (only 1.6.0 failed), so here the old file loads and state_dict works.
    pytest.importorskip("torch")
    code = ("import pickle, torch\n"
            "m = torch.nn.Conv1d(2, 2, 1)\n"
            "state = m.__dict__.copy(); del state['_non_persistent_buffers_set']\n"
            "old = torch.nn.Conv1d.__new__(torch.nn.Conv1d); old.__setstate__(state)\n"
            "print(sorted(old.state_dict()))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-600:]
    assert "'weight'" in r.stdout


@pytest.mark.parametrize("text", [
    "torch.nn.modules.module.ModuleAttributeError: 'BatchNorm2d' object has no attribute '_non_persistent_buffers_set'",
    "'Conv1d' object has no attribute '_ non_persistent buffers set'",  # a retyped paste's spaces
])
def test_the_torch_1_6_pickle_reading(text):
    assert match_text(text)[0].id == "module-pickled-before-torch-1-6"


@pytest.mark.parametrize("torch, says", [("1.5.1", "predates the attribute"), ("1.6.0", "cannot unpickle"),
                                          ("2.5.1", "fills the attribute in")])
def test_the_installed_torch_says_whether_it_is_the_one_that_fails(torch, says):
    from hook_facts import facts, tailored_as
    _, t = tailored_as("module-pickled-before-torch-1-6",
                       "AttributeError: 'Conv2d' object has no attribute '_non_persistent_buffers_set'", facts(torch=torch))
    assert says in t.summary
