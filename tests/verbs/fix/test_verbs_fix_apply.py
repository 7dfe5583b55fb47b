"""`torchdoctor fix` on real virtual environments with a real pip (tiny wheels: a fake torch and
companions, from find-links of the test's own): it shows what it will run, runs nothing without
--yes, snapshots first, checks again, rolls back unless healed, and `--undo` restores the exact
`pip freeze --all`. The slow tests (tests/verbs/fix/test_verbs_fix_realenvs.py) do the same with
the real torch.
"""

import os
import shutil
import subprocess
import sys

import pytest

import wheelkit
from torchdoctor.model.findings import Finding, Fix
from torchdoctor.verbs.fix import apply as A
from torchdoctor.verbs.fix import plan as P
from torchdoctor.verbs.fix import store
from torchdoctor.verbs.fix.verb import examine

from conftest import make_facts


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    """A venv with torch 2.13.0+cpu beside torchvision 0.27.1 (the release of torch 2.12): the
    mismatch torchvision-mismatch finds; find-links hold the torchvision that pairs, and a
    package the tests install when they need a step that works."""
    base = tmp_path_factory.mktemp("fixverb")
    links, work = base / "links", base / "work"
    wheelkit.fake_torch_wheel(links, work, "2.13.0+cpu")
    wheelkit.companion_wheel(links, "torchvision", "0.27.1", built_as="0.27.1+cpu")
    wheelkit.companion_wheel(links, "torchvision", "0.28.0+cpu")
    wheelkit.build_wheel(links, "harmless", "1.0", {"harmless.py": "X = 1\n"})
    py = wheelkit.pip_venv(base / "venv")
    wheelkit.install(py, wheelkit.hermetic_env(links, no_index=True), "torch==2.13.0+cpu", "torchvision==0.27.1")
    return {"venv": str(base / "venv"), "links": str(links)}


@pytest.fixture
def env(template, tmp_path, monkeypatch):
    """A copy of the template venv (a test may change it), pip configured by the test, the
    user's cache folder in tmp_path."""
    venv = str(tmp_path / "venv")
    shutil.copytree(template["venv"], venv, symlinks=True)
    wheelkit.hermetic_pip(monkeypatch, template["links"], no_index=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("TORCHDOCTOR_CACHE_DIR", raising=False)
    return {"py": os.path.join(venv, "bin", "python"), "links": template["links"], "tmp": tmp_path}


def _td(*args, cwd=None, stdin=None):
    return subprocess.run([sys.executable, "-m", "torchdoctor"] + list(args), capture_output=True, text=True,
                          timeout=600, cwd=cwd, stdin=stdin if stdin is not None else subprocess.DEVNULL)


def test_fix_yes_heals_and_undo_restores_the_exact_freeze(env):
    py = env["py"]
    before = wheelkit.freeze(py)
    r = _td("fix", "--python", py, "--yes")
    assert r.returncode == 0, r.stdout + r.stderr
    assert "will run:      %s -m pip install --no-deps --force-reinstall torchvision==0.28.0+cpu" % py in r.stdout
    assert "checked again: torchvision-mismatch no longer found" in r.stdout
    assert "torchvision==0.28.0+cpu" in wheelkit.freeze(py)
    events = [e["event"] for e in store.journal()]
    assert events == ["applied"]
    u = _td("fix", "--undo", "--yes", "--python", py)
    assert u.returncode == 0, u.stdout + u.stderr
    assert "pip freeze --all is byte for byte the snapshot's" in u.stdout
    assert wheelkit.freeze(py) == before
    assert [e["event"] for e in store.journal()] == ["applied", "undone"]
    again = _td("fix", "--undo", "--yes", "--python", py)
    assert again.returncode == 1 and "no fix to undo" in again.stdout


def test_without_yes_off_a_terminal_nothing_runs(env):
    before = wheelkit.freeze(env["py"])
    r = _td("fix", "--python", env["py"])
    assert r.returncode == 2 and "pass --yes" in r.stderr and "Traceback" not in r.stderr
    assert "will run:" in r.stdout  # shown first, exactly
    assert wheelkit.freeze(env["py"]) == before and store.journal() == []


def test_dry_run_shows_the_plan_and_changes_nothing(env):
    before = wheelkit.freeze(env["py"])
    r = _td("fix", "--python", env["py"], "--dry-run")
    assert r.returncode == 0 and "dry run: nothing was changed" in r.stdout
    assert "snapshot first: torchvision" in r.stdout
    assert wheelkit.freeze(env["py"]) == before


def _item(facts, finding_id, *commands):
    f = Finding(id=finding_id, category="t", severity="error", title="t",
                fix=Fix(summary="s", commands=list(commands), resolved="yes"))
    return P.plan_item(f, facts, [])


def test_a_step_that_fails_midway_rolls_back_to_the_exact_freeze(env):
    py = env["py"]
    facts = make_facts(python={"executable": py}, os={"system": "Linux"})
    pip = "%s -m pip" % py
    before = wheelkit.freeze(py)
    item = _item(facts, "t", "%s install harmless==1.0" % pip, "%s install no-such-package==9" % pip)
    item.replaces = ["torchvision"]
    res = A.apply([item], py, set(), recheck=lambda: None)
    assert res.status == A.ROLLED_BACK
    assert any(line.startswith("step failed: %s install no-such-package==9" % pip) for line in res.lines), res.lines
    assert "  pip freeze --all is byte for byte the snapshot's" in res.lines
    assert wheelkit.freeze(py) == before  # harmless, installed by the first step, is gone again


@pytest.mark.slow
def test_a_fix_that_does_not_heal_is_rolled_back(env):
    py = env["py"]
    facts, report = examine(py, 60)
    assert any(f.id == "torchvision-mismatch" for f in report.findings)
    before = wheelkit.freeze(py)
    item = _item(facts, "torchvision-mismatch", "%s -m pip install harmless==1.0" % py)
    res = A.apply([item], py, {f.id for f in report.findings}, recheck=lambda: examine(py, 60)[1])
    assert res.status == A.ROLLED_BACK and "checked again: still found: torchvision-mismatch" in res.lines
    assert wheelkit.freeze(py) == before


def test_a_stray_torch_folder_moves_aside_only_with_consent_and_undo_moves_it_back(env):
    here = env["tmp"] / "project"
    (here / "torch").mkdir(parents=True)
    (here / "torch" / "__init__.py").write_text("# an old copy\n")
    r = _td("fix", "--python", env["py"], "torch-shadowed", "--yes", cwd=str(here))
    assert r.returncode == 0, r.stdout + r.stderr
    assert "will run:      mv %s %s" % (here / "torch", here / "my_torch") in r.stdout
    assert not (here / "torch").exists() and (here / "my_torch" / "__init__.py").exists()
    u = _td("fix", "--undo", "--yes", cwd=str(here))
    assert u.returncode == 0, u.stdout + u.stderr
    assert (here / "torch" / "__init__.py").exists() and not (here / "my_torch").exists()


def test_a_variable_to_change_is_printed_for_the_shell_not_run(env, monkeypatch):
    stray = env["tmp"] / "stray"
    (stray / "torch").mkdir(parents=True)
    (stray / "torch" / "__init__.py").write_text("")
    monkeypatch.setenv("PYTHONPATH", str(stray))
    before = wheelkit.freeze(env["py"])
    r = _td("fix", "--python", env["py"], "torch-shadowed", "--yes")
    assert r.returncode == 1
    assert "in your shell: unset PYTHONPATH" in r.stdout and "not applied:" in r.stdout
    assert (stray / "torch").exists() and wheelkit.freeze(env["py"]) == before and store.journal() == []


def test_the_cache_folder_follows_the_platform_rules(monkeypatch, tmp_path):
    monkeypatch.delenv("TORCHDOCTOR_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    if sys.platform.startswith("linux"):
        assert store.cache_root() == str(tmp_path / "torchdoctor")
    monkeypatch.setenv("TORCHDOCTOR_CACHE_DIR", str(tmp_path / "own"))
    assert store.journal_path() == str(tmp_path / "own" / "fix" / "journal.jsonl")


def test_bad_usage_is_one_line_and_exit_2():
    r = _td("fix", "--yes", "--dry-run")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "contradict" in r.stderr
    r = _td("fix", "--undo", "some-id")
    assert r.returncode == 2 and "--undo takes no finding ids" in r.stderr
