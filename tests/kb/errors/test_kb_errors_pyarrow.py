"""pyarrow's serialize API (deprecated in 2.0.0, removed in 12.0.0) under LMDB datasets written with it.
The removal runs for real with pyarrow 12 from this machine's pip, and the entry's `pyarrow<12`, run as
printed, brings deserialize back."""

import sys

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import run_fix_command, top, venv_with

ENTRY = "pyarrow-serialize-removed-or-format-mismatch"


@pytest.mark.parametrize("text, confidence", [
    ("AttributeError: module 'pyarrow' has no attribute 'deserialize'", HIGH),
    ("OSError: Expected IPC message of type sparse tensor but got tensor", HIGH),
    ("pyarrow.lib.ArrowTypeError: Did not pass numpy.dtype object", HIGH),
    ("OSError: Expected IPC message of type unknown but got unknown", POSSIBLE),
    ("FutureWarning: 'pyarrow.deserialize' is deprecated as of 2.0.0 and will be removed in a future version. Use "
     "pickle or the pyarrow IPC functionality instead.", POSSIBLE),
])
def test_each_wording_is_read_with_its_confidence(text, confidence):
    m = top(text)
    assert m.id == ENTRY and m.confidence == confidence


@pytest.mark.parametrize("text", [
    "AttributeError: module 'pyarrow' has no attribute 'PyExtensionType'",
    "AttributeError: module 'pyarrow.lib' has no attribute 'ListViewType'",
    "pyarrow.lib.ArrowInvalid: Tried reading schema message, was null or length 0",
])
def test_other_pyarrow_removals_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="pyarrow 11, the last with deserialize, has no wheels past 3.11")
def test_the_printed_pin_brings_deserialize_back(tmp_path):
    py, run, env = venv_with(tmp_path, "pyarrow==12.0.1", "numpy<2")
    read = "import pyarrow; pyarrow.deserialize"
    broken = run(py, "-c", read)
    assert "has no attribute 'deserialize'" in broken.stderr, broken.stderr[-600:]
    m = top(broken.stderr)
    assert m.id == ENTRY and m.confidence == HIGH
    run_fix_command(m, '"pyarrow<12"', py, env)
    assert run(py, "-W", "ignore", "-c", read).returncode == 0
