"""NumPy 2.0's removed names (np.float_, np.string_...): the failure runs for real with the numpy
this machine's pip installs, and the hook's pin, run as printed, heals it."""

import shlex
import subprocess

import pytest

from hook_facts import facts, failing_in_venv, tailored_as, top
from torchdoctor.match.matcher import HIGH

ENTRY = "numpy2-attribute-removed"
CALL = "import numpy as np\nprint(np.array([1.5], dtype=np.float_).dtype)"


@pytest.mark.slow
def test_np_float_under_numpy_2_is_healed_by_the_printed_pin(tmp_path):
    py, t = failing_in_venv(tmp_path, "numpy>=2", CALL, ENTRY)
    assert t.summary.startswith("NumPy 2.0 removed `np.float_` (numpy 2.")
    assert len(t.commands) == 1 and t.commands[0].endswith('install "numpy<2"')
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", CALL], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "float64"


@pytest.mark.parametrize("text, name", [
    ("AttributeError: `np.string_` was removed in the NumPy 2.0 release. Use `np.bytes_` instead.", "string_"),
    ("ImportError: cannot import name 'NaN' from 'numpy' (/venv/lib/python3.11/site-packages/numpy/__init__.py)",
     "NaN"),
])
def test_the_removed_name_is_named(text, name):
    m, t = tailored_as(ENTRY, text, facts(packages={"numpy": {"version": "2.1.3"}}))
    assert m.confidence == HIGH and "`np.%s`" % name in t.summary and "numpy 2.1.3" in t.summary


def test_a_numpy_1_here_means_another_process_failed():
    _, t = tailored_as(ENTRY, "AttributeError: `np.float_` was removed in the NumPy 2.0 release.",
                       facts(packages={"numpy": {"version": "1.26.4"}}))
    assert "another environment" in t.summary


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name 'float' from 'numpy'",  # NumPy 1.24's alias: its own entry
    "ImportError: cannot import name 'float_' from 'mylib'",
])
def test_other_names_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_no_pin_below_2_where_numpy_1_has_no_wheels():
    _, t = tailored_as(ENTRY, "AttributeError: `np.float_` was removed in the NumPy 2.0 release.",
                       facts(py="3.13.1", packages={"numpy": {"version": "2.2.0"}}))
    assert t.commands == [] and "Python 3.12 or older" in t.summary


def test_a_numpy_folder_without_init_is_not_numpy_2():
    m = top("ImportError: cannot import name 'NaN' from 'numpy' (unknown location)")
    assert m is None or m.id != ENTRY
