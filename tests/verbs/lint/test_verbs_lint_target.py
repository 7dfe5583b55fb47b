"""lint's default target: every torch pin the project declares, the one that decided (file and
line) and the ones that disagree; with none, a documented range that is the same on every
machine; the installed torch only when asked. Real files in tmp_path, the real verb."""

import os
import subprocess
import sys

import pytest

from conftest import write_file as write
from torchdoctor.kb import compat
from torchdoctor.verbs import lint

PY = sys.executable
MPS = "import torch\nprint(torch.backends.mps.is_available())\n"


def target_of(tmp_path, monkeypatch, **options):
    """(target dict, notes) of a lint of m.py in tmp_path."""
    write(tmp_path, "m.py", MPS)
    monkeypatch.chdir(tmp_path)
    r = lint.run(paths=["m.py"], **options)
    return r.summary["target_dict"], r.notes


def decided(t):
    return [(p["file"], p["line"]) for p in t["pins"] if p["decided"]]


def cli(*args, cwd, timeout=120):
    p = subprocess.run([PY, "-m", "torchdoctor", "lint"] + list(args), capture_output=True, text=True, cwd=str(cwd),
                       timeout=timeout, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


def test_no_pin_is_the_documented_range_not_the_machines_torch(tmp_path):
    write(tmp_path, "m.py", MPS)
    os.makedirs(str(tmp_path / ".git"))  # the project ends here: no pin above it counts
    rc, out, err = cli("--format", "json", "m.py", cwd=tmp_path)
    import json
    doc = json.loads(out)
    known = compat.known_releases()
    # every release from the oldest wheel the API scan read (1.11.0) to the newest the tables know
    assert doc["target"]["torch"] == known[known.index("1.11"):]
    assert doc["target"]["spec"] == ">=1.11" and doc["target"]["source"].startswith("the default range")
    assert [f["code"] for f in doc["findings"]] == ["TD101"]   # torch.backends.mps: 1.12 on
    # this interpreter has torch 2.13 installed: used only when asked
    rc, out, err = cli("--torch", "installed", "m.py", cwd=tmp_path)
    assert rc == 0 and "target: torch 2.13 (2.13.0+cpu, from the torch installed in" in out, out + err


def test_torch_installed_where_there_is_none_is_one_line(tmp_path):
    venv = tmp_path / "bare"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    write(tmp_path, "m.py", MPS)
    rc, out, err = cli("--torch", "installed", "--python", str(venv / "bin" / "python"), "m.py", cwd=tmp_path)
    assert rc == 2 and out == "" and "Traceback" not in err
    assert err.strip() == "torchdoctor: error: --torch: no torch is installed in %s (its dist-info metadata names none)" \
        % (venv / "bin" / "python")


def test_requirements_with_includes_and_constraints(tmp_path, monkeypatch):
    write(tmp_path, "requirements.txt", "numpy\n-r requirements/base.txt\n--constraint constraints.txt\n")
    write(tmp_path, "requirements/base.txt", "# the model\ntorch>=2.0\n")
    write(tmp_path, "constraints.txt", "torch<2.3\n")
    t, notes = target_of(tmp_path, monkeypatch)
    assert t["torch"] == ["2.0", "2.1", "2.2"] and t["spec"] == "<2.3,>=2.0"
    assert t["source"] == "constraints.txt:1, requirements/base.txt:2"
    assert notes == []


def test_a_requirements_folder_without_a_top_level_file(tmp_path, monkeypatch):
    # generative-models' layout: the pins live in requirements/pt2.txt, nothing at the top names them
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\n')
    write(tmp_path, "requirements/pt2.txt", "numpy\ntorch>=2.0.1\n")
    write(tmp_path, "requirements/notes.md", "torch==1.0\n")   # not a requirements file
    t, notes = target_of(tmp_path, monkeypatch)
    assert t["spec"] == ">=2.0.1" and t["torch"][0] == "2.0"
    assert t["source"] == "requirements/pt2.txt:2"


def test_each_sub_project_is_linted_against_its_own_pins(tmp_path):
    # pytorch/examples' layout: one requirements.txt per example, none of them the top's
    os.makedirs(str(tmp_path / ".git"))
    write(tmp_path, "requirements.txt", "torch>=1.11\n")
    write(tmp_path, "top.py", "import torch\nf = torch.compile(g)\n")
    write(tmp_path, "ddp/requirements.txt", "torch>=2.7\n")
    write(tmp_path, "ddp/main.py", "import torch\nf = torch.compile(g)\n")
    write(tmp_path, "plain/requirements.txt", "numpy\n")     # pins no torch: the run's target
    write(tmp_path, "plain/old.py", "import torch\nf = torch.compile(g)\n")
    rc, out, err = cli("--select", "TD101", ".", cwd=tmp_path)
    assert [l.split(":")[0] for l in out.splitlines()[:-1]] == ["plain/old.py", "top.py"], out
    assert "1 sub-project linted against its own torch pins (--torch names one target for all): " \
           "ddp (torch>=2.7, requirements.txt:1)" in err
    rc, out, err = cli("--select", "TD101", "--torch", ">=1.11", ".", cwd=tmp_path)
    assert [l.split(":")[0] for l in out.splitlines()[:-1]] == ["ddp/main.py", "plain/old.py", "top.py"], out
    assert "sub-project" not in err


@pytest.mark.parametrize("sub_pins", ["torch>=2.1,<2.5\n", "torch>=1.12,<2.0\n"])
def test_a_setting_anywhere_in_the_scan_counts_for_every_sub_project(tmp_path, sub_pins):
    # the whole scan is one project-wide view, whichever pins each file is checked against
    os.makedirs(str(tmp_path / ".git"))
    write(tmp_path, "requirements.txt", "torch>=2.1,<2.5\n")
    write(tmp_path, "launch.py", 'import os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n')
    write(tmp_path, "sub/requirements.txt", sub_pins)
    write(tmp_path, "sub/train.py", "import torch\ntorch.use_deterministic_algorithms(True)\n")
    rc, out, err = cli("--select", "TD303", ".", cwd=tmp_path)
    assert rc == 0 and "TD303" not in out, out + err


@pytest.mark.parametrize("name, text, line, versions", [
    ("pyproject.toml", '[project]\nname = "x"\ndependencies = ["numpy", "torch>=2.4,<2.6"]\n', 3, ["2.4", "2.5"]),
    ("pyproject.toml", '[project]\nname = "x"\n[project.optional-dependencies]\ngpu = [\n  "torch==2.2.1",\n]\n', 5,
     ["2.2"]),
    ("pyproject.toml", '[tool.poetry.dependencies]\npython = "^3.10"\ntorch = "~2.3.0"\n', 3, ["2.3"]),
    ("pyproject.toml", '[tool.poetry.dependencies]\ntorch = {version = "^1.12", source = "pytorch"}\n', 2,
     ["1.12", "1.13"]),
    ("pyproject.toml", '[tool.poetry.group.train.dependencies]\n"torch" = "2.1.*"\n', 2, ["2.1"]),
    ("pyproject.toml", '[tool.pdm.dev-dependencies]\ntest = ["torch==2.5.1"]\n', 2, ["2.5"]),
    ("pyproject.toml", '[tool.uv]\nconstraint-dependencies = ["torch<1.10"]\n', 2, ["1.8", "1.9"]),
    ("environment.yml", "name: x\ndependencies:\n  - python=3.9\n  - pytorch=1.11.0\n", 4, ["1.11"]),
    ("environment.yml", "name: x\nchannels: [pytorch]\ndependencies:\n  - pytorch::pytorch>=2.14\n", 4, ">=2.14"),
    ("environment.yml", "dependencies:\n  - pip\n  - pip:\n    - torch==2.3.1\n", 4, ["2.3"]),
])
def test_declaration_forms(tmp_path, monkeypatch, name, text, line, versions):
    write(tmp_path, name, text)
    t, _ = target_of(tmp_path, monkeypatch)
    if versions == ">=2.14":  # open above: up to the newest release the tables know
        known = compat.known_releases()
        versions = known[known.index("2.14"):]
    assert t["torch"] == versions and t["source"] == "%s:%d" % (name, line)


def test_setup_cfg_and_literal_setup_py(tmp_path, monkeypatch):
    write(tmp_path, "setup.cfg", "[options]\ninstall_requires =\n    click\n    torch>=2.12\n")
    t, _ = target_of(tmp_path, monkeypatch)
    assert t["source"] == "setup.cfg:4" and t["torch"][0] == "2.12"
    os.remove(str(tmp_path / "setup.cfg"))
    write(tmp_path, "setup.py", "from setuptools import setup\nsetup(name='x',\n      install_requires=['torch==1.13.1'])\n")
    t, _ = target_of(tmp_path, monkeypatch)
    assert t["source"] == "setup.py:3" and t["torch"] == ["1.13"]


def test_dockerfiles(tmp_path, monkeypatch):
    write(tmp_path, "Dockerfile", "FROM python:3.11-slim\nRUN pip install --no-cache-dir \\\n    torch==2.4.1 numpy\n")
    t, _ = target_of(tmp_path, monkeypatch)
    assert t["torch"] == ["2.4"] and t["source"] == "Dockerfile:2"
    write(tmp_path, "Dockerfile", "FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime\n")
    t, _ = target_of(tmp_path, monkeypatch)
    assert t["torch"] == ["2.1"] and t["source"] == "Dockerfile:1"
    # NGC's tag is a month: the tables do not say which torch it ships, and lint says so
    write(tmp_path, "Dockerfile", "FROM nvcr.io/nvidia/pytorch:24.01-py3\nRUN pip install -r requirements-docker.txt\n")
    t, notes = target_of(tmp_path, monkeypatch)
    assert t["source"].startswith("the default range")
    assert notes == ["Dockerfile:1: which torch nvcr.io/nvidia/pytorch:24.01-py3 ships is not in the tables; "
                     "it does not set the target"]


def test_what_decides_and_the_pins_that_disagree(tmp_path, monkeypatch):
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch>=2.1"]\n')
    write(tmp_path, "requirements.txt", "torch==2.4.0\n")   # inside the package's range: agrees
    write(tmp_path, "environment.yml", "dependencies:\n  - pytorch=1.11\n")
    write(tmp_path, "Dockerfile", "FROM nvcr.io/nvidia/pytorch:24.01-py3\n")
    t, notes = target_of(tmp_path, monkeypatch)
    # the package's declared range decides over an install, a conda env and an image
    assert t["source"] == "pyproject.toml:3" and t["torch"][0] == "2.1" and t["torch"][-1] == compat.latest_release()
    assert decided(t) == [("pyproject.toml", 3)]
    assert sorted((p["file"], p["spec"]) for p in t["pins"]) == [
        ("environment.yml", "==1.11.*"), ("pyproject.toml", ">=2.1"), ("requirements.txt", "==2.4.0")]
    assert notes == ["torch pins disagree: the target is 2.1 ... %s from pyproject.toml:3; also pinned, with releases "
                     "outside it: environment.yml:2 torch==1.11.* (1.11)" % compat.latest_release()]
    # the command line says it too, on stderr, and the summary names the deciding line
    rc, out, err = cli("m.py", cwd=tmp_path)
    assert "from pyproject.toml:3)." in out and "torchdoctor: note: torch pins disagree" in err


def test_pins_of_one_kind_that_exclude_each_other(tmp_path, monkeypatch):
    write(tmp_path, "requirements.txt", "torch==2.1.0\n")
    write(tmp_path, "requirements-gpu.txt", "torch==2.4.0\n")
    t, notes = target_of(tmp_path, monkeypatch)
    assert t["source"] == "requirements-gpu.txt:1" and t["torch"] == ["2.4"]
    assert notes[0] == ("the torch pins requirements-gpu.txt:1 (==2.4.0), requirements.txt:1 (==2.1.0) admit no "
                        "release together; requirements-gpu.txt:1 decides")


def test_the_option_and_the_config_win_over_files(tmp_path, monkeypatch):
    write(tmp_path, "requirements.txt", "torch==1.11.0\n")
    t, _ = target_of(tmp_path, monkeypatch, torch="2.4")
    assert t["torch"] == ["2.4"] and t["source"] == "--torch"
    write(tmp_path, "pyproject.toml", '[project]\nname = "x"\ndependencies = ["torch==2.2.0"]\n'
                                      '[tool.torchdoctor.lint]\ntorch = ">=2.5,<2.7"\n')
    t, _ = target_of(tmp_path, monkeypatch)
    assert t["torch"] == ["2.5", "2.6"] and t["source"] == "pyproject.toml [tool.torchdoctor.lint] torch"
    t, _ = target_of(tmp_path, monkeypatch, torch="2.3")
    assert t["torch"] == ["2.3"] and t["source"] == "--torch"
