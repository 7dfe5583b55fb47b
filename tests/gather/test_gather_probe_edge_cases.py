"""The probe against what real machines print: nvidia-smi of several driver
generations, and a target interpreter started somewhere odd."""

import os
import subprocess
import sys

from fakes import fake_bin
from torchdoctor.gather.probe import LAUNCHER, TARGET_SCRIPT, read_sections
from torchdoctor.gather import system

OLD_DRIVER_SMI = """\
case "$1" in
  --query-gpu=*compute_cap*) echo 'Field "compute_cap" is not a valid field to query.'; exit 2 ;;
  --query-gpu=*) echo '0, Tesla K80, 470.256.02, 11441, GPU-6c7f3b8e-1d2a-4c5b-9e8f-0a1b2c3d4e5f'
                 echo '1, Tesla K80, 470.256.02, 11441, GPU-7c7f3b8e-1d2a-4c5b-9e8f-0a1b2c3d4e5f' ;;
  *) echo '| NVIDIA-SMI 470.256.02   Driver Version: 470.256.02   CUDA Version: 11.4     |' ;;
esac
"""


def _with_smi(tmp_path, monkeypatch, script):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake_bin(bindir, "nvidia-smi", script)
    monkeypatch.setenv("PATH", str(bindir) + os.pathsep + os.environ.get("PATH", ""))


def test_driver_without_compute_cap_still_lists_its_gpus(tmp_path, monkeypatch):
    # R470 (the last branch for Kepler) rejects the whole query for `compute_cap`;
    # before, the GPU list became a failure and the GPUs were lost.
    _with_smi(tmp_path, monkeypatch, OLD_DRIVER_SMI)
    out = system.nvidia_smi_facts(timeout=10)
    assert [g["name"] for g in out["gpus"]] == ["Tesla K80", "Tesla K80"]
    assert out["gpus"][0]["total_memory"] == 11441 * 1024 * 1024 and "capability" not in out["gpus"][0]
    assert out["driver_version"] == "470.256.02"


def test_na_values_are_left_out():
    gpus = system.parse_smi_query("0, NVIDIA A100-SXM4-40GB MIG 1g.5gb, [N/A], [N/A], [Not Supported], [N/A]")
    assert gpus == [{"index": 0, "name": "NVIDIA A100-SXM4-40GB MIG 1g.5gb"}]


def _run_target(python, cwd, out, env=None):
    subprocess.run([python, "-c", LAUNCHER, TARGET_SCRIPT, str(out)], cwd=str(cwd), env=env, timeout=120,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return read_sections(str(out))[0]


def test_probe_started_in_a_deleted_directory_keeps_the_python_section(tmp_path):
    # os.getcwd() raises FileNotFoundError there; it used to take the whole python and
    # torch_location sections with it (no executable, no version: most checks went blind).
    gone = tmp_path / "gone"
    gone.mkdir()
    code = ("import os, subprocess, sys; os.chdir(%r); os.rmdir(%r); "
            "subprocess.run([sys.executable, '-c', sys.argv[1], sys.argv[2], sys.argv[3]])" % (str(gone), str(gone)))
    out = tmp_path / "out.jsonl"
    subprocess.run([sys.executable, "-c", code, LAUNCHER, TARGET_SCRIPT, str(out)], timeout=120)
    sections = read_sections(str(out))[0]
    assert sections["python"]["version"] == "%d.%d.%d" % sys.version_info[:3]
    assert "_failed" in sections["python"]["cwd"]
    assert isinstance(sections["torch_location"]["candidates"], list)


def _python38():
    import glob
    import shutil
    cands = [shutil.which("python3.8")] + sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.8*/bin/python3.8")))
    for c in cands:
        if not c:
            continue
        try:
            r = subprocess.run([c, "-c", "import sys; print(sys.version_info[:2] == (3, 8))"], capture_output=True,
                               text=True, timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if r.stdout.strip() == "True":
            return c
    return None


def test_probe_runs_every_stage_under_python_3_8(tmp_path):
    import pytest
    from fakes import fake_torch
    py38 = _python38()
    if not py38:
        pytest.skip("no Python 3.8 interpreter here")
    root = fake_torch(tmp_path / "site")
    env = dict(os.environ, PYTHONPATH=root)
    sections = _run_target(py38, tmp_path, tmp_path / "out.jsonl", env=env)
    assert sections["python"]["version"].startswith("3.8.")
    for name in ("torch_location", "packages", "torch_import", "torch", "backends", "accelerators", "cuda"):
        assert not (isinstance(sections.get(name), dict) and "_failed" in sections[name]), (name, sections.get(name))
    assert sections["torch"]["version"] == "2.4.1+cu124"
