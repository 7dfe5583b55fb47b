"""NVIDIA apex without amp, parallel and fp16_utils (removed from its source in May 2025): who
imported it decides the answer, and transformers' Trainer is healed by the upgrade printed."""

import subprocess
import sys

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import facts, pyproject, tailored_as, top, venv_with

ENTRY = "apex-amp-removed"
REMOVED = ("ImportError: cannot import name 'amp' from 'apex' "
           "(/home/u/venv/lib/python3.11/site-packages/apex/__init__.py)")
PINNED = "git+https://github.com/NVIDIA/apex@e13873debc4699d39c6861074b9a3b2a02327f92"


@pytest.mark.parametrize("text", [
    REMOVED,
    "ModuleNotFoundError: No module named 'apex.parallel'",
    "ImportError: cannot import name 'fp16_utils' from 'apex' (/opt/conda/lib/python3.10/site-packages/apex/__init__.py)",
    "AssertionError: AMP impl specified as APEX but APEX is not installed.",
    "RuntimeError: Failed to import transformers.trainer because of the following error (look up to see its "
    "traceback): cannot import name 'amp' from 'apex'",
])
def test_each_wording_is_a_diagnosis(text):
    m = top(text)
    assert m.id == ENTRY and m.confidence == HIGH


def test_an_empty_folder_named_apex_is_no_apex_at_all(tmp_path):
    # the real message: a folder without __init__.py imports as an empty namespace package
    (tmp_path / "apex").mkdir()
    done = subprocess.run([sys.executable, "-c", "from apex import amp"], cwd=str(tmp_path), capture_output=True,
                          text=True, timeout=60)
    assert "(unknown location)" in done.stderr
    m, t = tailored_as(ENTRY, done.stderr)
    assert m.confidence == HIGH
    assert t.summary.startswith("No apex package was imported") and PINNED in t.commands[0]


def test_an_older_transformers_is_upgraded_past_its_import_time_apex():
    _, t = tailored_as(ENTRY, REMOVED, facts(torch="2.6.0", packages={"transformers": {"version": "4.52.4"}}))
    assert t.summary.startswith("transformers 4.52.4 here imports apex.amp whenever apex is installed")
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=4.53.0,<5"',
                          "/home/u/venv/bin/python -m pip uninstall -y apex"]


def test_an_older_transformers_that_cannot_move_on_keeps_the_pinned_apex():
    # transformers 4.52 and newer disable a torch below 2.1: no lazy-importing release runs here
    _, t = tailored_as(ENTRY, REMOVED, facts(torch="2.0.1", packages={"transformers": {"version": "4.40.0"}}))
    assert "build apex from its last commit with amp" in t.summary and PINNED in t.commands[0]


def test_a_transformers_that_imports_apex_lazily_leaves_the_entrys_answer():
    m, t = tailored_as(ENTRY, REMOVED, facts(torch="2.6.0", packages={"transformers": {"version": "4.53.0"}}))
    assert t is None and PINNED in m.entry.fix["commands"][0]


def test_a_program_that_went_on_without_apex_is_checked_first():
    text = ("  File \"/opt/envs/c/lib/python3.7/site-packages/cryodrgn/commands/train_vae.py\", line 379, in main\n"
            "    model, optim = amp.initialize(model, optim, opt_level='O1')\nNameError: name 'amp' is not defined")
    m, t = tailored_as(ENTRY, text)
    assert m.confidence == POSSIBLE  # a project's own missing import prints it too
    assert 'from apex import amp"' in t.commands[0] and PINNED in t.commands[1]


@pytest.mark.parametrize("text", [
    "NameError: name 'amp' is not defined",  # no call of apex's amp above it
    "    scaler = amp.GradScaler()\nNameError: name 'amp' is not defined",  # torch.amp's name, not apex's
    "ModuleNotFoundError: No module named 'apex'",
    "ImportError: cannot import name 'FusedAdam' from 'apex.optimizers'",
])
def test_other_failures_are_not_read_as_the_removal(text):
    m = top(text)
    assert m is None or m.id != ENTRY


@pytest.mark.slow
def test_the_printed_transformers_upgrade_lets_the_trainer_import(tmp_path):
    """transformers 4.52.4 and torch 2.13.0 from this machine's pip; apex cannot be built here (its source is on
    GitHub), so a distribution named apex whose __init__.py is the removal's (no amp) stands in for it."""
    from torchdoctor.gather.light import light_facts

    py, run, env = venv_with(tmp_path, "torch==2.13.0", "transformers==4.52.4")
    pkg = tmp_path / "apex-src"
    (pkg / "apex").mkdir(parents=True)
    (pkg / "apex" / "__init__.py").write_text('__all__ = ["optimizers", "normalization", "transformer"]\n')
    (pkg / "pyproject.toml").write_text(pyproject("apex", "0.1", ["apex"]))
    assert run(py, "-m", "pip", "install", "-q", str(pkg), timeout=600).returncode == 0
    broken = run(py, "-c", "import transformers.trainer")
    assert "cannot import name 'amp' from 'apex'" in broken.stderr, broken.stderr[-600:]
    m, t = tailored_as(ENTRY, broken.stderr, light_facts(py))
    assert t.commands[0].endswith('install --upgrade "transformers>=4.53.0,<5"'), t.commands
    healed = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=900, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert run(py, "-c", "import transformers.trainer").returncode == 0
