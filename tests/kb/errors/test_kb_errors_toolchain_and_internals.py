"""Older torch's compiler lookup, torch's private autograd attributes read by libraries, a
bare missing tensorboard, and Triton kernels written before triton 2.0. The lines are built for
the test in the formats Python, torch and triton print; none is an evaluation text."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text

from hook_facts import facts


def top(text):
    found = match_text(text)
    return found[0] if found else None


@pytest.mark.parametrize("text,cc", [
    ("subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1.", "c++"),
    ("CalledProcessError: Command '['which', 'g++']' returned non-zero exit status 1.", "g++"),
])
def test_older_torchs_which_lookup_of_the_compiler_is_a_missing_compiler(text, cc):
    m = top(text)
    assert m.id == "cpp-extension-compiler-not-found" and m.groups["cc"] == cc
    t = hooks()[m.entry.tailor](m, facts())
    assert t.commands[0] == "sudo apt-get install -y build-essential"


@pytest.mark.parametrize("text", [
    "AttributeError: 'ViewBackward0' object has no attribute '_saved_self_sizes'",
    "'AddmmBackward' object has no attribute '_saved_mat1_sizes'",
])
def test_a_library_reading_an_autograd_nodes_saved_values_is_a_private_api(text):
    assert top(text).id == "torch-private-module-missing"


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'tensorboard'",
    "INFO:root:mylib.logging: No module named 'tensorboard'",
])
def test_a_missing_tensorboard_is_installed(text):
    assert top(text).id == "torch-tensorboard-import-failed"


@pytest.mark.parametrize("text", [
    "TypeError: dot() got an unexpected keyword argument 'trans_b'",
    "    qk += tl.dot(q, k, trans_b=True)\nTypeError(\"dot() got an unexpected keyword argument 'trans_a'\")",
])
def test_triton_kernels_written_before_triton_2_are_named(text):
    m = top(text)
    assert m.id == "triton-dot-trans-args-removed" and m.confidence == "high"


@pytest.mark.parametrize("text,entry", [
    # another program looked up with which: no compiler
    ("CalledProcessError: Command '['which', 'nvidia-smi']' returned non-zero exit status 1.",
     "cpp-extension-compiler-not-found"),
    # another missing attribute of a backward node: no saved value
    ("AttributeError: 'ViewBackward0' object has no attribute 'next_function'", "torch-private-module-missing"),
    # tensorboard's namesakes and plugins are other packages
    ("No module named 'tensorboardX'", "torch-tensorboard-import-failed"),
    ("No module named 'tensorboard_plugin_profile'", "torch-tensorboard-import-failed"),
    # another function's unexpected argument: not triton's tl.dot
    ("TypeError: forward() got an unexpected keyword argument 'trans_b'", "triton-dot-trans-args-removed"),
])
def test_lookalikes_are_not_read_as_the_entry(text, entry):
    m = top(text)
    assert m is None or m.id != entry
