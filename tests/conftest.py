"""Shared test helpers.

``make_facts(**sections)`` builds a ``Facts`` from keyword sections, exactly as
the probe would have written them::

    make_facts(torch={"version": "2.13.0+cpu"}, env={"OMP_NUM_THREADS": "8"})

A keyword with dots sets a nested path (pass it through ``**{...}``), so one
value can be changed without rewriting its whole section::

    make_facts(**{"backends.cudnn.version": 91002})

Import it with ``from conftest import make_facts``, or take the
``facts_factory`` fixture, which returns the same function.
"""

import copy

import pytest

from torchdoctor.facts import Facts, absent, failed  # noqa: F401 - re-exported for tests


def make_facts(**sections):
    data = {k: copy.deepcopy(v) for k, v in sections.items() if "." not in k}
    facts = Facts(data)
    for key, value in sections.items():  # dotted paths after whole sections
        if "." in key:
            facts.set(key, copy.deepcopy(value))
    return facts


@pytest.fixture
def facts_factory():
    return make_facts
