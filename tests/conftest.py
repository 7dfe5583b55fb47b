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
import os
import subprocess
import sys

import pytest

from torchdoctor.model.facts import Facts, absent, failed  # noqa: F401 - re-exported for tests


def make_facts(**sections):
    data = {k: copy.deepcopy(v) for k, v in sections.items() if "." not in k}
    # dotted paths after whole sections
    return Facts(data).with_values({k: copy.deepcopy(v) for k, v in sections.items() if "." in k})


@pytest.fixture
def facts_factory():
    return make_facts


# The repository's neighbour ../shared/reference holds the compatibility facts the KB was
# built from; every clone here (CI too) has it beside the checkout.
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REFERENCE = os.path.join(os.path.dirname(ROOT), "shared", "reference")



def has_torch(python):
    """Whether `python` imports the real torch (cached: one child per interpreter)."""
    if python not in _TORCH_OK:
        try:
            r = subprocess.run([python, "-c", "import torch"], capture_output=True, timeout=120)
            _TORCH_OK[python] = r.returncode == 0
        except (OSError, subprocess.SubprocessError):
            _TORCH_OK[python] = False
    return _TORCH_OK[python]


_TORCH_OK = {}

# A real interpreter with the real (CPU) torch: the test venv itself, where README's test
# command installs torch==2.13.0 through the `test` extra. Never a venv made by hand.
TORCH_PYTHON = sys.executable
needs_torch = pytest.mark.skipif(
    not has_torch(TORCH_PYTHON),
    reason="torch is not importable in %s; README's test command (pip install -e \".[test]\") installs it"
           % TORCH_PYTHON)
