"""How a probe that did not finish is worded: the stage it was in, or that the
target did not behave like a Python interpreter; never "probe exited with 0 during None".
Real children: non-Python programs as --python, and a real interpreter whose (fake) torch
dies at import."""

import json
import os
import subprocess
import sys

import pytest

from fakes import fake_bin, fake_torch

from torchdoctor.gather.probe import STAGES, failure_reason, run_target
from torchdoctor.children.timed import ProcResult

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _check_json(*args, env=None):
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.update(env or {})
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "check", "--json"] + list(args), capture_output=True,
                       env=e, timeout=300, cwd=ROOT)
    assert p.returncode in (0, 1) and b"Traceback" not in p.stderr, p.stderr[-2000:]
    return json.loads(p.stdout)


NOT_PYTHON = {
    "/bin/true": ("/bin/true", "exited with status 0 without running the probe (it printed nothing)"),
    "/bin/false": ("/bin/false", "exited with status 1 without running the probe"),
    "a program that prints": ("echo 'hello from a shell script'\n", "(it printed: hello from a shell script)"),
    "a program that segfaults": ("kill -SEGV $$\n", "killed by SIGSEGV before the probe's first step"),
    "a program that hangs": ("sleep 600\n", "ran for 3 s without starting the probe"),
}


@pytest.mark.parametrize("case", sorted(NOT_PYTHON))
def test_a_non_python_target_is_said_to_be_one(tmp_path, case):
    script, words = NOT_PYTHON[case]
    exe = script if script.startswith("/") else fake_bin(tmp_path, "notpython", script)
    doc = _check_json("--python", exe, "--timeout", "3")
    err = doc["facts"]["probe"]["error"]
    assert "None" not in err and "did not behave like a Python interpreter" in err and words in err, err
    finding = [f for f in doc["findings"] if f["id"] == "probe-failed"]
    assert finding and "None" not in finding[0]["detail"], doc["findings"]
    assert "did not behave like a Python interpreter" in finding[0]["detail"] or case in (
        "a program that segfaults", "a program that hangs")  # those have findings of their own wording


def test_a_real_interpreter_that_dies_in_import_torch_names_the_stage(tmp_path):
    site = fake_torch(tmp_path / "site", import_code="import os; os._exit(7)")
    doc = _check_json("--python", sys.executable, env={"PYTHONPATH": "%s%s%s" % (site, os.pathsep, ROOT)})
    err = doc["facts"]["probe"]["error"]
    assert err == "the probe exited with status 7 while running `import torch`", err


def test_every_stage_of_the_probe_has_words():
    src = open(os.path.join(ROOT, "torchdoctor", "gather", "target.py")).read()
    import re
    stages = set(re.findall(r'w\.stage\("(\w+)"\)', src)) | {"python", "torch_location", "packages", "torch",
                                                              "backends", "accelerators"}
    assert stages - {"done"} <= set(STAGES), stages - set(STAGES)


@pytest.mark.parametrize("result, last, words", [
    (ProcResult(argv=[], returncode=None, timed_out=True), "cuda", "timed out after 9 s while initialising CUDA"),
    (ProcResult(argv=[], returncode=-11, signal="SIGSEGV"), "backends", "killed by SIGSEGV while querying"),
    (ProcResult(argv=[], returncode=0), "import_torch", "exited (status 0, without an error) while running `import"),
    (ProcResult(argv=[], returncode=3), "some_new_stage", "while in its 'some_new_stage' stage"),
])
def test_failure_reason_names_the_stage(result, last, words):
    assert words in failure_reason("/py", result, last, 9.0)


def test_run_target_of_bin_true_in_process():
    sections = run_target("/bin/true", 10)
    assert sections["probe"]["last_stage"] is None
    assert sections["python"]["_failed"].startswith("/bin/true did not behave like a Python interpreter")
