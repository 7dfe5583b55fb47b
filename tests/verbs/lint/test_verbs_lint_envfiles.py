"""The environment-file rules (TD401-TD406) and their readers, on files written for the test."""

import textwrap

from torchdoctor.verbs.lint import envfiles as E
from torchdoctor.verbs.lint import envreaders
from torchdoctor.verbs.lint.lintfile import env_results


def check(kind, text, name=None, python=None):
    text = textwrap.dedent(text)
    g = envreaders.read(kind, text, name or {"requirements": "requirements.txt", "docker": "Dockerfile",
                                    "conda": "environment.yml", "pyproject": "pyproject.toml",
                                    "setupcfg": "setup.cfg", "setuppy": "setup.py"}[kind])
    return [(h.code, h.line) for h in env_results(g, python)], g


def test_kinds():
    assert E.kind_of("requirements-dev.txt") == "requirements"
    assert E.kind_of("dev-requirements.txt") == "requirements"
    assert E.kind_of("environment.yaml") == "conda"
    assert E.kind_of("Dockerfile.gpu") == "docker" and E.kind_of("train.dockerfile") == "docker"
    assert E.kind_of("README.txt") is None and E.kind_of("notes.yml") is None


def test_unpaired_torchvision_fires_and_the_real_pair_is_quiet():
    got, _ = check("requirements", "torch==2.1.0\ntorchvision==0.17.0\n")
    assert got == [("TD401", 2)]
    assert check("requirements", "torch==2.1.0\ntorchvision==0.16.0\ntorchaudio==2.1.0\n")[0] == []
    assert check("requirements", "torch==2.1.0\ntorchaudio==2.2.0\n")[0] == [("TD401", 2)]
    # a stable-ABI torchvision declares a range: 0.29.1 wants torch >= 2.14
    assert check("requirements", "torch==2.13.0\ntorchvision==0.29.1\n")[0] == [("TD401", 2)]
    assert check("requirements", "torch>=2.14\ntorchvision==0.29.1\n")[0] == []
    # a torch range with one release that pairs is fine
    assert check("requirements", "torch>=2.0,<2.3\ntorchvision==0.16.0\n")[0] == []


def test_index_url_variant():
    got, g = check("requirements", """\
        --index-url https://download.pytorch.org/whl/cu124
        torch==2.1.0
    """)
    assert got == [("TD402", 1)]
    assert check("requirements", "--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.1.0\n")[0] == []
    assert check("requirements", "--index-url https://download.pytorch.org/whl/cu999\ntorch\n")[0] == [("TD402", 1)]
    assert check("requirements", "torch==2.1.0+cu124\n")[0] == [("TD402", 1)]
    assert check("requirements", "torch==2.1.0+cu118\n")[0] == []
    assert check("requirements", "--index-url https://download.pytorch.org/whl/cpu\ntorch==2.1.0\n")[0] == []


def test_no_wheel_for_the_declared_python():
    got, _ = check("pyproject", """\
        [project]
        name = "x"
        requires-python = ">=3.8"
        dependencies = ["torch==2.5.1"]
    """)
    assert got == [("TD403", 4)]
    assert check("pyproject", '[project]\nname = "x"\nrequires-python = ">=3.9"\ndependencies = ["torch==2.5.1"]\n')[0] == []
    got, _ = check("docker", "FROM python:3.13-slim\nRUN pip install torch==2.1.2\n")
    assert got == [("TD403", 2)]
    assert check("docker", "FROM python:3.11-slim\nRUN pip install torch==2.1.2\n")[0] == []


def test_cuda_base_image_against_the_wheel():
    got, _ = check("docker", """\
        FROM nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04
        RUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121
    """)
    assert got == [("TD404", 1)]
    assert check("docker", "FROM nvidia/cuda:12.1.0-runtime-ubuntu22.04\n"
                           "RUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu121\n")[0] == []
    got, _ = check("docker", "FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\n"
                             "RUN pip install torch==2.1.0 --index-url https://download.pytorch.org/whl/cu118\n")
    assert got == [("TD406", 1)]


def test_unpinned_torch_beside_pinned_torchvision():
    got, _ = check("docker", "FROM python:3.10\nRUN pip install torchvision==0.16.0\nRUN pip install torch\n")
    assert got == [("TD405", 3)]
    assert check("docker", "FROM python:3.10\nRUN pip install torch==2.1.0 torchvision==0.16.0\n")[0] == []
    assert check("requirements", "torch\ntorchvision\n")[0] == []
    # one resolution: pip installs the torch the pinned torchvision requires
    assert check("requirements", "torch\ntorchvision==0.20.0\n")[0] == []
    assert check("docker", "FROM python:3.10\nRUN pip install torch torchvision==0.16.0\n")[0] == []


def test_readers():
    _, g = check("requirements", """\
        # comment
        torch==2.1.0 \\
            --hash=sha256:abc
        torchvision>=0.16 ; python_version >= "3.8"
        -r other.txt
        numpy
    """)
    assert [(p.name, p.spec, p.line) for p in g.pins] == [("torch", "==2.1.0", 2), ("torchvision", ">=0.16", 4)]
    _, g = check("setupcfg", "[options]\npython_requires = >=3.9\ninstall_requires =\n    torch>=2.0\n    numpy\n")
    assert [(p.name, p.spec) for p in g.pins] == [("torch", ">=2.0")] and g.python.spec == ">=3.9"
    _, g = check("setuppy", "from setuptools import setup\nsetup(name='x', install_requires=['torch==2.2.0'],"
                            " extras_require={'v': ['torchvision==0.17.0']}, python_requires='>=3.9')\n")
    assert [(p.name, p.spec) for p in g.pins] == [("torch", "==2.2.0"), ("torchvision", "==0.17.0")]
    _, g = check("conda", """\
        name: env
        channels: [pytorch, nvidia]
        dependencies:
          - python=3.10
          - pytorch=2.1.0
          - pytorch-cuda=12.1
          - pip:
            - torchvision==0.16.0
        prefix: /x
    """)
    assert [(p.name, p.spec) for p in g.pins] == [("torch", "==2.1.0.*"), ("pytorch-cuda", "==12.1.*"),
                                                  ("torchvision", "==0.16.0")]
    assert g.python.spec == "==3.10.*"
    _, g = check("docker", """\
        FROM pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime AS base
        RUN apt-get update && \\
            python -m pip install --no-cache-dir "torchvision==0.16.0" -i https://download.pytorch.org/whl/cu121
        RUN ["pip", "install", "torchaudio==2.1.0"]
    """)
    assert [(p.name, p.spec, p.local) for p in g.pins] == [("torch", "==2.1.0", "cu121"), ("torchvision", "==0.16.0", None),
                                                          ("torchaudio", "==2.1.0", None)]
    assert g.indexes == [("cu121", "https://download.pytorch.org/whl/cu121", 2)]


def test_bad_toml_is_a_note_not_a_crash():
    _, g = check("pyproject", "[project\nname=")
    assert g.pins == [] and g.notes and "not valid TOML" in g.notes[0]


def test_project_files_stop_at_site_packages(tmp_path):
    sp = tmp_path / "lib" / "site-packages" / "pkg"
    sp.mkdir(parents=True)
    (tmp_path / "requirements.txt").write_text("torch==2.1.0\n")
    assert E.find_project_files(str(sp)) == []
    assert E.find_project_files(str(tmp_path)) == [str(tmp_path / "requirements.txt")]
