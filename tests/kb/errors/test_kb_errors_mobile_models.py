"""Models saved for PyTorch Mobile's Lite Interpreter against an app runtime older than the torch
that exported them. No old runtime runs here; the real part is torch 2.13's own export and
backport, run as the hook prints them."""

import functools
import os
import shlex
import subprocess

import pytest

from conftest import TORCH_PYTHON, needs_torch
from hook_facts import tailored_as

ID = "lite-interpreter-model-newer-than-runtime"
tailored = functools.partial(tailored_as, ID)


@pytest.mark.parametrize("text,newest,saved", [
    # torch 1.9's runtime: "verson", and no space before "But"
    ("com.facebook.jni.CppException: Lite Interpreter verson number does not match. The model version must be "
     "between 3 and 5But the model version is 7 ()", "5", "7"),
    ("Error: Lite Interpreter version number does not match. The model version must be between 3 and 7 but the "
     "model version is 8 ()", "7", "8"),
])
def test_the_runtimes_range_and_the_models_version_are_read(text, newest, saved):
    m, t = tailored(text)
    assert (m.groups["max"], m.groups["file"]) == (newest, saved)
    assert m.confidence == "high"
    assert "'model_v%s.ptl', %s" % (newest, newest) in t.commands[0]


def test_the_bare_message_is_the_entry_without_a_backport_command():
    m, t = tailored("Lite Interpreter version number does not match.")
    assert t is None and m.entry.fix["commands"]  # the entry's own commands stand


def test_a_runtime_older_than_any_backport_asks_for_a_newer_runtime():
    _, t = tailored("Lite Interpreter version number does not match. The model version must be between 2 and 3 "
                    "but the model version is 8")
    assert not t.commands and "raise the app's PyTorch Mobile runtime" in t.summary


@needs_torch
def test_the_printed_backport_turns_a_model_into_one_the_old_runtime_reads(tmp_path):
    # torch 2.13 saves bytecode 8; a runtime reading 3-5 refuses it. The hook's command, run as
    # printed in the model's folder, writes version 5, which the Lite Interpreter still runs.
    (tmp_path / "net.py").write_text("import torch\n\nclass Net(torch.nn.Module):\n"
                                     "    def forward(self, x):\n        return x * 2 + 1\n")
    export = ("import sys, torch; sys.path.insert(0, '.'); from net import Net; "
              "torch.jit.script(Net())._save_for_lite_interpreter('model.ptl')")

    def run(argv):
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=str(tmp_path))

    assert run([TORCH_PYTHON, "-W", "ignore", "-c", export]).returncode == 0
    version = "from torch.jit.mobile import _get_model_bytecode_version as v; print(v('%s'))"
    saved = int(run([TORCH_PYTHON, "-c", version % "model.ptl"]).stdout.strip())
    assert saved > 5
    _, t = tailored("Lite Interpreter version number does not match. The model version must be between 3 and 5 "
                    "but the model version is %d" % saved)
    backport, check = (shlex.split(c) for c in t.commands[:2])
    assert backport[0] == "python" and check[0] == "python"
    done = run([TORCH_PYTHON] + backport[1:])
    assert done.stdout.strip() == "True", done.stderr[-1500:]
    assert run([TORCH_PYTHON] + check[1:]).stdout.strip() == "5"
    runs = run([TORCH_PYTHON, "-c", "import torch; from torch.jit.mobile import _load_for_lite_interpreter as load; "
                                    "print(load('model_v5.ptl')(torch.ones(2)).tolist())"])
    assert runs.stdout.strip() == "[3.0, 3.0]", runs.stderr[-1500:]
    assert os.path.getsize(str(tmp_path / "model.ptl")) > 0  # the exported model is kept


def test_a_model_older_than_the_runtime_asks_for_a_new_export():
    _, t = tailored("Lite Interpreter version number does not match. The model version must be between 4 and 9 "
                    "but the model version is 3")
    assert "older than the oldest version this runtime reads" in t.cause and not t.commands
