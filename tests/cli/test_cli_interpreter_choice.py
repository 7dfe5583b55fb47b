"""Which interpreter every verb diagnoses: --python checked before anything runs it, and
with none given, one choice and one stderr line for every verb, from a doctor installed
without torch (as pipx and `uv tool install` install it) into real venvs."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import TORCH_PYTHON, has_torch

# Each verb that takes --python, with what else it needs to get as far as using it.
VERBS = {
    "check": [],
    "explain": ["RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB"],
    "report": [],
    "tune": ["--list-settings"],
    "lint": ["."],
    "dist": ["--nproc-per-node", "1"],
    "run": ["--", "touch", "ran"],
}

NOT_PYTHON = {
    "a program that is not Python": lambda tmp: os.path.realpath(shutil.which("ls")),
    "missing": lambda tmp: str(tmp / "no" / "python3"),
    "a directory": lambda tmp: str(tmp),
    "not executable": lambda tmp: (tmp / "python3").write_text("#!/bin/sh\n") and str(tmp / "python3"),
}


def _doctor(*args, python=sys.executable, env=None, cwd=None, timeout=300):
    return subprocess.run([python, "-m", "torchdoctor"] + list(args), capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("verb", sorted(VERBS))
@pytest.mark.parametrize("case", sorted(NOT_PYTHON))
def test_a_python_that_is_no_python_is_one_line_and_exit_2(tmp_path, verb, case):
    bad = NOT_PYTHON[case](tmp_path)
    r = _doctor(verb, "--python", bad, *VERBS[verb], cwd=str(tmp_path))
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("torchdoctor: error: ") and "not a Python interpreter" in lines[0], \
        r.stderr
    assert not (tmp_path / "ran").exists()  # run refused before it started the command


def test_a_wrapper_script_is_still_a_python_to_try(tmp_path):
    """A script (a pyenv shim, a container wrapper) may run a Python: it is run, and the probe says
    what it did."""
    wrapper = tmp_path / "py-wrapper"
    wrapper.write_text('#!/bin/sh\nexec "%s" "$@"\n' % sys.executable)
    wrapper.chmod(0o755)
    r = _doctor("check", "--json", "--python", str(wrapper), "--only", "python-unsupported")
    assert r.returncode in (0, 1), r.stderr
    assert json.loads(r.stdout)["facts"]["python"]["executable"]


@pytest.fixture
def user_venv_env(doctor_without_torch):
    """The doctor without torch, with the test venv (torch 2.13.0) as the user's active venv."""
    if not has_torch(TORCH_PYTHON):
        pytest.skip("the test venv has no torch")
    doctor, env = doctor_without_torch
    return doctor, dict(env, VIRTUAL_ENV=sys.prefix)


def _said_the_venv(stderr):
    picked = [ln for ln in stderr.splitlines() if "so this diagnoses" in ln]
    assert len(picked) == 1, stderr
    assert os.path.join(sys.prefix, "bin", "python") in picked[0] and "$VIRTUAL_ENV" in picked[0], picked
    return picked[0]


def test_every_verb_picks_the_active_venv_and_says_so_alike(tmp_path, user_venv_env):
    doctor, env = user_venv_env
    (tmp_path / "train.py").write_text("import torch\nx = torch.zeros(2)\n")
    said = set()
    r = _doctor("report", "-o", str(tmp_path / "r.md"), python=doctor, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    assert "2.13.0" in (tmp_path / "r.md").read_text()
    said.add(_said_the_venv(r.stderr))
    r = _doctor("tune", "--list-settings", "--json", "--device", "cpu", python=doctor, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr[-3000:]
    assert "2.13.0" in json.dumps(json.loads(r.stdout)), r.stdout[:2000]
    said.add(_said_the_venv(r.stderr))
    # lint reads a torch only when asked: its default target does not depend on the machine
    r = _doctor("lint", "--torch", "installed", "train.py", python=doctor, env=env, cwd=str(tmp_path))
    assert "the torch installed in %s" % os.path.join(sys.prefix, "bin", "python") in r.stdout + r.stderr, r.stdout
    said.add(_said_the_venv(r.stderr))
    r = _doctor("explain", "RuntimeError: CUDA error: no kernel image is available for execution on the device",
                python=doctor, env=env, cwd=str(tmp_path))
    said.add(_said_the_venv(r.stderr))
    out = tmp_path / "run.json"
    r = _doctor("run", "--json", str(out), "--", "sh", "-c",
                "echo 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB' >&2; exit 1",
                python=doctor, env=env, cwd=str(tmp_path))
    assert r.returncode == 1
    assert json.loads(out.read_text())["python"].startswith(os.path.join(sys.prefix, "bin", "python"))
    said.add(_said_the_venv(r.stderr))
    assert len(said) == 1, said  # the same line, whichever verb


def test_a_fresh_venv_with_only_the_doctor_is_the_one_diagnosed(doctor_without_torch, tmp_path):
    """README's first command right after `python -m venv .venv && pip install .`: that venv, torch
    missing there, and where torch is elsewhere."""
    doctor, env = doctor_without_torch
    venv = os.path.dirname(os.path.dirname(doctor))
    env = dict(env, VIRTUAL_ENV=venv, PATH=os.pathsep.join([os.path.dirname(TORCH_PYTHON), env.get("PATH", "")]))
    r = _doctor("check", "--json", python=doctor, env=env, cwd=str(tmp_path))
    doc = json.loads(r.stdout)
    assert doc["facts"]["python"]["executable"] == doctor
    assert "torch-not-installed" in {f["id"] for f in doc["findings"]}
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("torchdoctor: ")]
    assert len(lines) == 1, r.stderr
    assert "diagnosing %s" % doctor in lines[0] and "torchdoctor itself is installed" in lines[0], lines
    if has_torch(TORCH_PYTHON):
        assert "Pythons with torch: %s" % os.path.join(os.path.dirname(TORCH_PYTHON), "python3") in lines[0], lines


@pytest.mark.parametrize("how", ["--nproc-per-node", "torchrun --no-python"])
def test_dist_runs_its_ranks_where_torch_is(tmp_path, user_venv_env, how):
    doctor, env = user_venv_env
    args = ["dist", "--backend", "gloo", "--no-bandwidth", "--json", "--timeout", "60", "--join-timeout", "60"]
    if how == "--nproc-per-node":
        argv = [doctor, "-m", "torchdoctor"] + args + ["--nproc-per-node", "2"]
    else:  # README's torchrun form with a doctor that has no torch: torchrun from the user's venv
        wrapper = tmp_path / "torchdoctor"
        wrapper.write_text('#!/bin/sh\nexec "%s" -m torchdoctor "$@"\n' % doctor)
        wrapper.chmod(0o755)
        argv = [TORCH_PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2",
                "--no-python", str(wrapper)] + args
    r = subprocess.run(argv, capture_output=True, text=True, env=dict(env, GLOO_SOCKET_IFNAME="lo"), timeout=400,
                       cwd=str(tmp_path), stdin=subprocess.DEVNULL)
    assert "Traceback" not in r.stderr, r.stderr[-4000:]
    assert r.returncode == 0, r.stderr[-4000:]
    job = json.loads(r.stdout)
    assert job["complete"] is True and job["world_size"] == 2 and len(job["ranks"]) == 2, r.stdout[:3000]
    assert "so this diagnoses %s" % os.path.join(sys.prefix, "bin", "python") in r.stderr, r.stderr[-3000:]
