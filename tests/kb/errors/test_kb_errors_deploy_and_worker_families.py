"""Known errors met around a PyTorch project rather than in torch: DETR-style code whose torchvision
version check reads 0.10+ as 0.1 (healed in a test by the entry's own command, run by a real
interpreter), TensorRT's removed builder and engine APIs, an lmdb handle pickled for a spawned
worker, a Rust package built from source and a download that timed out.
The texts are written for the test in the programs' formats; none is an evaluation text."""

import os
import subprocess
import sys

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH, POSSIBLE

CHECK = "torchvision-version-check-reads-0-1"


def _detr_checkout(root, torchvision_version):
    """A project whose util/misc.py carries DETR's form of the version check, beside a torchvision
    that has only what the check needs: its version, and ops modules without the old helpers."""
    tv = os.path.join(root, "torchvision")
    os.makedirs(os.path.join(tv, "ops"))
    os.makedirs(os.path.join(root, "util"))
    with open(os.path.join(tv, "__init__.py"), "w") as fh:
        fh.write("__version__ = %r\n" % torchvision_version)
    for name in ("ops/__init__.py", "ops/misc.py"):
        open(os.path.join(tv, name), "w").close()
    open(os.path.join(root, "util", "__init__.py"), "w").close()
    with open(os.path.join(root, "util", "misc.py"), "w") as fh:
        fh.write("import torchvision\n"
                 "if float(torchvision.__version__[:3]) < 0.7:\n"
                 "    from torchvision.ops import _new_empty_tensor\n"
                 "    from torchvision.ops.misc import _output_size\n"
                 "if float(torchvision.__version__[:3]) < 0.5:\n"
                 "    from torchvision.ops.misc import _NewEmptyTensorOp\n"
                 "OLD_TORCHVISION = float(torchvision.__version__[:3]) < 0.7\n")


def _fix(root, entry):
    """The entry's rewrite command, run as printed by a shell in the checkout (its `python` is this one)."""
    cmd = [c for c in entry.fix["commands"] if c.startswith("python -c ")]
    assert len(cmd) == 1
    subprocess.run(cmd[0].replace("python", '"%s"' % sys.executable, 1), shell=True, cwd=str(root), check=True,
                   timeout=60)


def _run(root, code):
    return subprocess.run([sys.executable, "-c", code], cwd=str(root), capture_output=True, text=True, timeout=60)


def test_the_version_check_is_healed_by_the_entrys_command(tmp_path):
    _detr_checkout(tmp_path, "0.28.0+cpu")
    failed = _run(tmp_path, "import util.misc")
    assert failed.returncode != 0
    match = top(failed.stderr)
    assert (match.id, match.confidence) == (CHECK, HIGH)
    _fix(tmp_path, match.entry)
    healed = _run(tmp_path, "import util.misc; print(util.misc.OLD_TORCHVISION)")
    assert healed.returncode == 0, healed.stderr
    assert healed.stdout.strip() == "False"


def test_the_rewritten_check_still_reads_an_old_torchvision_as_old(tmp_path):
    _detr_checkout(tmp_path, "0.6.1")
    _fix(tmp_path, top("ImportError: cannot import name '_new_empty_tensor' from 'torchvision.ops'").entry)
    old = _run(tmp_path, "import util.misc")
    assert "cannot import name '_new_empty_tensor'" in old.stderr  # 0.6 takes the old branch, as before


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name '_NewEmptyTensorOp' from 'torchvision.ops.misc' "
    "(/opt/conda/lib/python3.8/site-packages/torchvision/ops/misc.py)",
    "ImportError: cannot import name '_output_size' from 'torchvision.ops.misc'",
])
def test_the_other_helpers_of_the_old_branch(text):
    assert top(text).id == CHECK


def test_torchvisions_public_names_are_not_the_version_check():
    m = top("ImportError: cannot import name 'nms' from 'torchvision.ops'")
    assert m is None or m.id != CHECK


TRT = "AttributeError: 'tensorrt{}.tensorrt.{}' object has no attribute '{}'"


@pytest.mark.parametrize("cls,attr", [
    ("Builder", "build_engine"), ("ICudaEngine", "get_binding_shape"),
    ("IBuilderConfig", "max_workspace_size"), ("IExecutionContext", "execute_async_v2"),
])
def test_tensorrt_10_removals_pin_below_10_after_removing_its_packages(cls, attr):
    f = facts(packages={"tensorrt": {"version": "10.1.0"}})
    match, t = tailored_as("tensorrt-api-removed", TRT.format("_bindings", cls, attr), f)
    assert match.confidence == HIGH
    uninstall, pin = t.commands
    assert uninstall.startswith("/home/u/venv/bin/python -m pip uninstall -y tensorrt ")
    assert all(p in uninstall.split() for p in ("tensorrt-cu11", "tensorrt-cu12-libs", "tensorrt-cu13-bindings"))
    assert pin == '/home/u/venv/bin/python -m pip install "tensorrt<10"'


def test_the_probe_reports_tensorrts_packages_by_name():
    from torchdoctor.gather.target import COLLECT_ENV_PATTERNS, reported
    assert all(reported(n, COLLECT_ENV_PATTERNS) for n in ("tensorrt", "tensorrt-cu12", "tensorrt-cu12-bindings"))


@pytest.mark.parametrize("attr", ["build_cuda_engine", "max_workspace_size", "fp16_mode", "int8_calibrator"])
def test_tensorrt_8_removals_have_no_pin_on_pypi(attr):
    _, t = tailored_as("tensorrt-api-removed", TRT.format("", "Builder", attr), facts(packages={"tensorrt": {"version": "8.6.1"}}))
    assert t.commands == [] and "TensorRT 8.0" in t.summary and "port" in t.summary


def test_tensorrt_8_on_python_312_has_no_wheel_to_go_back_to():
    _, t = tailored_as("tensorrt-api-removed", TRT.format("", "Builder", "build_engine"),
                       facts(py="3.12.4", packages={"tensorrt": {"version": "10.3.0"}}))
    assert t.commands == [] and "3.12" in t.summary


def test_an_installed_tensorrt_that_still_has_the_call_points_at_another_environment():
    _, t = tailored_as("tensorrt-api-removed", TRT.format("", "Builder", "build_engine"),
                       facts(packages={"tensorrt": {"version": "8.6.1"}}))
    assert "another environment" in t.summary and "8.6.1" in t.summary


@pytest.mark.parametrize("cls,attr", [
    # names newer TensorRT added, missing from an older one: the opposite direction, not this entry
    ("ICudaEngine", "num_io_tensors"), ("IExecutionContext", "execute_async_v3"),
    ("IBuilderConfig", "set_memory_pool_limit"), ("Builder", "build_serialized_network"),
])
def test_new_tensorrt_names_on_an_old_tensorrt_are_not_removals(cls, attr):
    m = top(TRT.format("", cls, attr))
    assert m is None or m.id != "tensorrt-api-removed"


@pytest.mark.parametrize("text", [
    "TypeError: can't pickle Environment objects",
    "TypeError: cannot pickle 'Environment' object",
])
def test_an_lmdb_handle_pickled_for_a_spawned_worker(text):
    m = top(text)
    assert (m.id, m.confidence) == ("multiprocessing-cannot-pickle-local-object", HIGH)


def test_another_unpicklable_object_alone_is_not_claimed():
    m = top("TypeError: cannot pickle '_io.BufferedReader' object")
    assert m is None or m.id != "multiprocessing-cannot-pickle-local-object"


@pytest.mark.parametrize("text", [
    "      running build_rust\n      error: can't find Rust compiler",
    "      Cargo, the Rust package manager, is not installed or is not on PATH.",
])
def test_a_rust_package_built_for_want_of_a_wheel(text):
    _, t = tailored_as("scientific-package-built-from-source", text, facts(py="3.12.1"))
    assert "Rust" in t.summary and "3.12" in t.summary
    assert t.commands[-1].endswith("--only-binary=:all: <package>")


@pytest.mark.parametrize("text", [
    "TimeoutError: [WinError 10060] A connection attempt failed because the connected party did not properly respond",
    "urllib.error.URLError: <urlopen error [Errno 110] Connection timed out>",
    "Downloading: \"https://github.com/org/repo/releases/download/v1/weights.pth\"\n"
    "TimeoutError: [Errno 110] Connection timed out",
])
def test_a_download_that_timed_out_is_possibly_the_network(text):
    m = top(text)
    assert (m.id, m.confidence) == ("download-connection-timed-out", POSSIBLE)


@pytest.mark.parametrize("text", [
    "psycopg2.OperationalError: could not connect: TimeoutError: [Errno 110] Connection timed out",
    "wandb: Network error (ConnectionError), entering retry loop. urllib3 TimeoutError: [Errno 110] Connection timed "
    "out",
])
def test_a_timeout_with_nothing_downloading_is_not_claimed(text):
    m = top(text)
    assert m is None or m.id != "download-connection-timed-out"
