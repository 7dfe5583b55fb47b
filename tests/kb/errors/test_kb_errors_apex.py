"""NVIDIA apex without amp, parallel and fp16_utils (removed from its source in May 2025): who
imported it decides the answer, and transformers' Trainer is healed by the upgrade printed."""

import subprocess
import sys

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import facts, pyproject, tailored_as, top, venv_with

ENTRY = "apex-amp-removed"
TRAINER_ENTRY = "apex-amp-imported-by-old-trainer"
REMOVED = ("ImportError: cannot import name 'amp' from 'apex' "
           "(/home/u/venv/lib/python3.11/site-packages/apex/__init__.py)")
PINNED = "git+https://github.com/NVIDIA/apex@e13873debc4699d39c6861074b9a3b2a02327f92"


@pytest.mark.parametrize("text", [
    REMOVED,
    "ModuleNotFoundError: No module named 'apex.parallel'",
    "ImportError: cannot import name 'fp16_utils' from 'apex' (/opt/conda/lib/python3.10/site-packages/apex/__init__.py)",
    "AssertionError: AMP impl specified as APEX but APEX is not installed.",
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


TRAINER = ("  File \"/home/u/venv/lib/python3.11/site-packages/transformers/trainer.py\", line 193, in <module>\n"
           "    from apex import amp\n" + REMOVED)
WRAPPED = ("RuntimeError: Failed to import transformers.trainer because of the following error (look up to see its "
           "traceback): cannot import name 'amp' from 'apex'")


@pytest.mark.parametrize("text", [TRAINER, WRAPPED])
def test_an_older_transformers_is_upgraded_past_its_import_time_apex(text):
    m, t = tailored_as(TRAINER_ENTRY, text, facts(torch="2.6.0", packages={"transformers": {"version": "4.52.4"}}))
    assert m.confidence == HIGH
    assert t.summary.startswith("transformers 4.52.4 here imports apex.amp whenever apex is installed")
    assert t.commands == ['/home/u/venv/bin/python -m pip install --upgrade "transformers>=4.53.0,<5"',
                          "/home/u/venv/bin/python -m pip uninstall -y apex"]


def test_an_older_transformers_that_cannot_move_on_keeps_the_pinned_apex():
    # transformers 4.52 and newer disable a torch below 2.1; 4.47 and newer need Python 3.9
    for f in (facts(torch="2.0.1", packages={"transformers": {"version": "4.40.0"}}),
              facts(torch="2.4.0", py="3.8.10", packages={"transformers": {"version": "4.40.0"}})):
        _, t = tailored_as(TRAINER_ENTRY, TRAINER, f)
        assert "build apex from its last commit with amp" in t.summary and PINNED in t.commands[0]


def test_a_projects_own_apex_import_is_not_blamed_on_an_old_transformers():
    text = ("    from apex.parallel import DistributedDataParallel as DDP\n"
            "ModuleNotFoundError: No module named 'apex.parallel'")
    _, t = tailored_as(ENTRY, text, facts(torch="2.6.0", packages={"transformers": {"version": "4.40.0"}}))
    assert "transformers" not in t.summary and "uninstall" not in " ".join(t.commands)
    assert "torch.nn.parallel.DistributedDataParallel" in t.summary and PINNED in t.commands[0]


def test_an_apex_of_before_the_removal_failing_inside_itself_points_at_the_error_above():
    # NVIDIA/apex#724 (2020): apex/__init__.py's own `from . import parallel` failed
    text = ("  File \"/env/lib/python3.7/site-packages/apex/__init__.py\", line 6, in <module>\n"
            "    from . import parallel\nImportError: cannot import name 'parallel' from 'apex' "
            "(/env/lib/python3.7/site-packages/apex/__init__.py)")
    m = top(text)
    assert m.id == "apex-own-subpackage-failed" and m.confidence == HIGH and "error above" in m.entry.fix["summary"]


def test_a_transformers_here_that_imports_apex_lazily_means_another_one_ran():
    _, t = tailored_as(TRAINER_ENTRY, TRAINER, facts(torch="2.6.0", packages={"transformers": {"version": "4.53.0"}}))
    assert "the failing process imported an older transformers" in t.summary and "import transformers" in t.commands[0]


def test_a_program_that_went_on_without_apex_is_checked_first():
    text = ("  File \"/opt/envs/c/lib/python3.7/site-packages/cryodrgn/commands/train_vae.py\", line 379, in main\n"
            "    model, optim = amp.initialize(model, optim, opt_level='O1')\nNameError: name 'amp' is not defined")
    m, t = tailored_as(ENTRY, text, facts(packages={"apex": {"version": "0.1"}}))
    assert m.confidence == POSSIBLE  # a project's own missing import prints it too
    assert 'from apex import amp"' in t.commands[0] and PINNED in t.commands[1]
    # apex listed as absent here: said so, with the build that still has amp
    _, t = tailored_as(ENTRY, text)
    assert t.summary.startswith("apex is not installed in /home/u/venv/bin/python") and PINNED in t.commands[0]


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
    m, t = tailored_as(TRAINER_ENTRY, broken.stderr, light_facts(py))
    assert t.commands[0].endswith('install --upgrade "transformers>=4.53.0,<5"'), t.commands
    healed = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=900, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert run(py, "-c", "import transformers.trainer").returncode == 0
