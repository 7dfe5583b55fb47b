"""Fix commands are actions for this machine: the target interpreter instead of a bare
python/pip, no step that cannot run here, no step printed twice, sizes as measured."""

import os
import subprocess
import sys

from conftest import make_facts, run_notebook

from torchdoctor.advice import reinstall_same_build
from torchdoctor.advice.commands import runnable_here
from torchdoctor.diagnose import explain
from torchdoctor.match.matcher import match_text

PY = {"version": "3.11.7", "executable": "/venv/bin/python", "machine": "x86_64"}
NO_SMI = {"sources": {"nvidia_smi": {"_absent": "nvidia-smi not on PATH"}}, "present": False}
TORCH_CPU = {"torch": {"version": "2.13.0+cpu", "cuda": {"_absent": "not built with it"}},
             "packages": {"installed": {"torch": {"version": "2.13.0+cpu", "location": "/venv/lib/site"}}}}


def test_bare_python_and_pip_become_the_target_interpreter():
    f = make_facts(python=PY)
    assert runnable_here(['python -c "import torch"', "pip install numpy", "python3 -m venv x", "conda list"], f) == [
        '/venv/bin/python -c "import torch"', "/venv/bin/python -m pip install numpy",
        "/venv/bin/python -m venv x", "conda list"]


def test_nvidia_smi_is_no_fix_step_where_it_is_not_on_path():
    assert runnable_here(["nvidia-smi", "lsmod | grep nvidia"], make_facts(python=PY, driver=NO_SMI)) == [
        "lsmod | grep nvidia"]
    assert runnable_here(["nvidia-smi"], make_facts(python=PY)) == ["nvidia-smi"]  # unknown: keep


def test_generic_without_facts_stays_generic():
    assert runnable_here(['python -c "import torch"'], None) == ['python -c "import torch"']


def _explain(text, facts):
    return explain(text, facts=facts)[0][0]


def test_known_error_commands_use_the_target_interpreter():
    x = _explain("AssertionError: Torch not compiled with CUDA enabled", make_facts(python=PY, **TORCH_CPU))
    assert x.fix.commands and not any(c.startswith(("python ", "pip ")) for c in x.fix.commands), x.fix.commands


def test_backends_module_missing_reinstalls_in_one_step_never_uninstall_first():
    # An uninstall before an install that then fails would leave no torch at all.
    x = _explain("ModuleNotFoundError: No module named 'torch.backends.cudnn'", make_facts(
        python=PY, os={"system": "Linux"}, torch_import={"ok": True}, **TORCH_CPU))
    assert not [c for c in x.fix.commands if "uninstall" in c], x.fix.commands
    installs = [c for c in x.fix.commands if " install " in c]
    assert len(installs) == 1 and "--force-reinstall" in installs[0], x.fix.commands


def test_reinstall_same_build_keeps_version_and_variant():
    f = make_facts(python=PY, os={"system": "Linux"}, **TORCH_CPU)
    assert reinstall_same_build(f).commands == [
        "/venv/bin/python -m pip install --force-reinstall --no-deps --no-cache-dir torch==2.13.0 "
        "--index-url https://download.pytorch.org/whl/cpu"]


SHM_TEXT = ("RuntimeError: DataLoader worker (pid 123) is killed by signal: Bus error. It is possible that "
            "dataloader's workers are out of shared memory. Please try to raise your shared memory limit.")


def test_shm_advice_uses_the_measured_size():
    big = make_facts(python=PY, os={"system": "Linux", "container": "docker"}, memory={"shm_bytes": 25276502016})
    x = _explain(SHM_TEXT, big)
    assert "64 MB" not in x.fix.summary and "24 GiB" in x.fix.summary
    small = make_facts(python=PY, os={"system": "Linux", "container": "docker"}, memory={"shm_bytes": 64 << 20})
    x = _explain(SHM_TEXT, small)
    assert "/dev/shm is 0.06 GiB" in x.fix.summary and "defaults to 64 MB" not in x.fix.summary
    assert "--shm-size" in " ".join(x.fix.commands)


# -- which interpreter, when the doctor's own has no torch -------------------------------------
def test_doctor_without_torch_diagnoses_the_active_virtualenv(tmp_path, doctor_without_torch):
    doctor, env = doctor_without_torch
    env = dict(env, VIRTUAL_ENV=sys.prefix)
    r = subprocess.run([doctor, "-m", "torchdoctor", "check", "--json"], capture_output=True, text=True,
                       env=env, timeout=180, cwd=str(tmp_path))
    assert "has no torch, so this diagnoses" in r.stderr and "VIRTUAL_ENV" in r.stderr, r.stderr
    import json
    doc = json.loads(r.stdout)
    assert doc["facts"]["torch"]["version"].startswith("2.13.0")
    assert "torch-not-installed" not in {f["id"] for f in doc["findings"]}


def test_resolve_prefers_venv_then_path_and_never_itself(tmp_path, monkeypatch):
    from torchdoctor.gather import interpreter
    monkeypatch.setattr(interpreter, "own_has_torch", lambda: False)
    venv_bin = tmp_path / "venv" / "bin"
    other = tmp_path / "other"
    for d in (venv_bin, other):
        d.mkdir(parents=True)
        exe = d / "python3"
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    own_dir = os.path.dirname(os.path.abspath(sys.executable))
    c = interpreter.resolve(None, {"VIRTUAL_ENV": str(tmp_path / "venv"), "PATH": str(other)})
    assert c.python == str(venv_bin / "python3") and "VIRTUAL_ENV" in c.note()
    c = interpreter.resolve(None, {"PATH": os.pathsep.join([own_dir, str(other)])})
    assert c.python == str(other / "python3") and "first python3 on PATH" in c.why
    c = interpreter.resolve("/given/python", {"PATH": str(other)})
    assert c.python == "/given/python" and c.note() is None


def test_resolve_keeps_its_own_interpreter_when_it_has_torch(monkeypatch):
    from torchdoctor.gather import interpreter
    monkeypatch.setattr(interpreter, "own_has_torch", lambda: True)
    assert interpreter.resolve(None, {"VIRTUAL_ENV": "/elsewhere"}).python == sys.executable


# -- a notebook kernel: an environment variable is set in the kernel, not in a subshell --
NB = make_facts(python=PY, live={"kernel": "ipykernel"})
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
       "15.77 GiB of which 1.02 GiB is free.")


def test_notebook_env_vars_are_set_in_the_kernel_not_in_a_subshell():
    # `!export X=1` runs in a shell that exits at once: the kernel never sees X
    cmds = runnable_here(["export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "unset CUDA_LAUNCH_BLOCKING",
                          "export A=1 B='two words'"], NB)
    assert not any(c.startswith("!") for c in cmds), cmds
    assert cmds[0].startswith('import os; os.environ["PYTORCH_CUDA_ALLOC_CONF"] = "expandable_segments:True"  # ')
    assert "restart the kernel" in cmds[0] and "before" in cmds[0]
    assert cmds[1] == 'import os; os.environ.pop("CUDA_LAUNCH_BLOCKING", None)'
    assert cmds[2].startswith('import os; os.environ["A"] = "1"; os.environ["B"] = "two words"  # ')
    for c in cmds:
        compile(c, "cell", "exec")


def test_the_out_of_memory_fix_in_a_notebook():
    x = _explain(OOM, NB)
    env = [c for c in x.fix.commands if "PYTORCH_CUDA_ALLOC_CONF" in c]
    assert env and env[0].startswith("import os; os.environ[") and "restart the kernel" in env[0], x.fix.commands
    assert not [c for c in x.fix.commands if "export" in c]


def test_the_notebook_env_cell_reaches_a_real_kernel_where_export_does_not(tmp_path, monkeypatch):
    [cell] = runnable_here(["export TD_ALLOC=expandable_segments:True"], NB)
    nb = run_notebook(["!export TD_OLD=1", cell, "import os; print(os.environ.get('TD_OLD'), os.environ.get('TD_ALLOC'))"],
                      tmp_path, monkeypatch, timeout=120)
    assert nb.cells[2].outputs[0]["text"].strip() == "None expandable_segments:True", nb.cells[2].outputs
