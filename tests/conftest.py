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
import importlib.util
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



def load_tool(name):
    """A maintainer script of tools/ (not a package) as a module: tools/<name>.py."""
    path = os.path.join(ROOT, "tools", name + ".py")
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def write_file(root, name, text, mode="w"):
    """`text` (a str dedented, or bytes with mode "wb") as the file root/name, its folders
    made; its path."""
    import textwrap
    path = os.path.join(str(root), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(textwrap.dedent(text) if isinstance(text, str) else text)
    return path


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


@pytest.fixture(scope="session")
def doctor_without_torch(tmp_path_factory):
    """(python, env) that run torchdoctor in an interpreter that cannot import torch, as a
    pipx or `uv tool` install does: a real venv without torch whose only imports beyond the
    standard library are torchdoctor and its dependencies, linked from the test venv onto its
    PYTHONPATH. Give env VIRTUAL_ENV to say which environment the user has active."""
    import click
    import packaging
    import psutil
    base = tmp_path_factory.mktemp("doctor")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    deps = base / "deps"
    deps.mkdir()
    for mod in (click, packaging, psutil):
        src = os.path.dirname(mod.__file__)
        os.symlink(src, str(deps / os.path.basename(src)))
    os.symlink(os.path.join(ROOT, "torchdoctor"), str(deps / "torchdoctor"))
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONHOME")}
    env["PYTHONPATH"] = str(deps)
    return str(venv / "bin" / "python"), env


def run_notebook(cells, tmp_path, monkeypatch, timeout=180):
    """Execute code cells in a real Jupyter kernel (nbclient, ipykernel: the test extra) and return
    the notebook; skips where no kernel can start. Nothing is written to $HOME."""
    for var in ("IPYTHONDIR", "JUPYTER_RUNTIME_DIR", "JUPYTER_CONFIG_DIR"):
        monkeypatch.setenv(var, str(tmp_path / var.lower()))
    nbformat = pytest.importorskip("nbformat", reason="nbformat is in the test extra")
    nbclient = pytest.importorskip("nbclient", reason="nbclient is in the test extra")
    pytest.importorskip("ipykernel", reason="ipykernel is in the test extra")
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    client = nbclient.NotebookClient(nb, timeout=timeout, kernel_name="python3", allow_errors=True,
                                     resources={"metadata": {"path": str(tmp_path)}})
    try:
        client.execute()
    except Exception as e:  # noqa: BLE001 - no kernel here is a skip, not a failure
        if "kernel" in type(e).__name__.lower() or "Kernel" in str(e):
            pytest.skip("a Jupyter kernel could not start here: %s" % e)
        raise
    return nb
