"""A start method Windows does not have ('fork', 'forkserver'), asked for by name."""

import multiprocessing

import pytest

from hook_facts import top
from torchdoctor.match.matcher import HIGH

ENTRY = "multiprocessing-start-method-unavailable"


def test_pythons_own_words_for_an_unknown_method_are_read():
    # Python raises the same ValueError on every platform for a method it lacks; here, one no
    # platform has, so the words are Python's own
    with pytest.raises(ValueError) as e:
        multiprocessing.get_context("fork" + "-none")
    assert str(e.value) == "cannot find context for 'fork-none'"
    m = top("ValueError: " + str(e.value).replace("fork-none", "fork"))
    assert (m.id, m.confidence) == (ENTRY, HIGH)


@pytest.mark.parametrize("text", [
    "ValueError: cannot find context for 'spawn'",
    "RuntimeError: context has already been set",
])
def test_other_start_method_errors_are_not_this_one(text):
    m = top(text)
    assert m is None or m.id != ENTRY
