"""`lint -`: the source on standard input, as editors send it, through the real command line;
--stdin-filename for the messages, the project's pins and config and per-file-ignores; --fix
writes the fixed source to standard output (as ruff does)."""

import os
import subprocess
import sys

import pytest

from conftest import write_file as write

PY = sys.executable
SRC = b"import torch\nprint(torch.backends.mps.is_available())\n"


def lint(stdin, *args, cwd):
    p = subprocess.run([PY, "-m", "torchdoctor", "lint"] + list(args), input=stdin, capture_output=True,
                       cwd=str(cwd), timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def test_stdin_is_linted_under_its_name(tmp_path):
    rc, out, err = lint(SRC, "--torch", "1.11", "-", cwd=tmp_path)
    assert rc == 1 and out.decode().splitlines()[0].startswith("-:2:7: TD101 torch.backends.mps"), out
    rc, out, err = lint(SRC, "--torch", "1.11", "-", "--stdin-filename", "src/app.py", cwd=tmp_path)
    assert rc == 1 and out.decode().startswith("src/app.py:2:7: TD101"), out
    rc, out, err = lint(SRC, "--torch", "2.4", "-", cwd=tmp_path)
    assert rc == 0 and "No findings in 1 file" in out.decode()
    assert not os.listdir(str(tmp_path))   # nothing written


def test_the_stdin_filename_finds_the_projects_pins_config_and_per_file_ignores(tmp_path):
    write(tmp_path, "proj/requirements.txt", "torch==1.11.0\n")
    write(tmp_path, "proj/pyproject.toml", """\
        [tool.torchdoctor.lint]
        per-file-ignores = {"src/gen_*.py" = ["TD101"]}
    """)
    rc, out, err = lint(SRC, "-", "--stdin-filename", "proj/src/model.py", cwd=tmp_path)
    text = out.decode()
    assert rc == 1 and text.startswith("proj/src/model.py:2:7: TD101"), text
    assert "from proj/requirements.txt:1)." in text
    # the same source under a name per-file-ignores names: the code is off there
    rc, out, err = lint(SRC, "-", "--stdin-filename", "proj/src/gen_model.py", cwd=tmp_path)
    assert rc == 0 and "No findings" in out.decode(), out + err.encode()
    # an environment file by its name: the requirement rules, at its lines
    rc, out, err = lint(b"torch==2.1.0\ntorchvision==0.17.0\n", "-", "--stdin-filename", "requirements.txt",
                        cwd=tmp_path)
    assert rc == 1 and out.decode().startswith("requirements.txt:2:1: TD401"), out


def test_fix_writes_the_fixed_source_to_stdout_and_the_report_to_stderr(tmp_path):
    pytest.importorskip("libcst")
    src = b"import torch  # keep\r\ntorch.set_deterministic(True)   # and this\r\nx = torch.backends.mps.is_available()\r\n"
    rc, out, err = lint(src, "--torch", "2.4", "--fix", "-", "--stdin-filename", "train.py", cwd=tmp_path)
    # byte for byte what the editor sent, with only the rewrite: CRLF and comments stay
    assert out == src.replace(b"torch.set_deterministic(True)", b"torch.use_deterministic_algorithms(True)")
    assert rc == 1 and "train.py:2:1: TD303" in err and "Fixed 1 finding in 1 file." in err
    assert not os.path.exists(str(tmp_path / "train.py"))
    # nothing to fix: the source comes back as it was (an editor replaces its buffer with it)
    rc, out, err = lint(SRC, "--torch", "2.4", "--fix", "-", cwd=tmp_path)
    assert rc == 0 and out == SRC and "No findings" in err
    rc, out, err = lint(src, "--torch", "2.4", "--diff", "-", "--stdin-filename", "train.py", cwd=tmp_path)
    assert b"--- train.py\n+++ train.py\n" in out and b"+torch.use_deterministic_algorithms(True)" in out


@pytest.mark.parametrize("data, args, said", [
    (b"x = 1\n\xff\xfe = 2\n", ("-",), "-: standard input is not text in UTF-8 (or the encoding its coding line "
                                      "names): byte 0xff at offset 6"),
    (b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}\n', ("-",),
     "-: a notebook cannot be linted from standard input; give its path (lint NOTEBOOK.ipynb)"),
    (SRC, ("-", "--stdin-filename", "nb.ipynb"),
     "nb.ipynb: a notebook cannot be linted from standard input; give its path (lint nb.ipynb)"),
    (SRC, ("-", "other.py"), "-: standard input is linted alone; give no other path with it"),
    (SRC, ("m.py", "--stdin-filename", "x.py"),
     "--stdin-filename names what is read from standard input: lint it with `-`"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, data, args, said):
    write(tmp_path, "m.py", "import torch\n")
    write(tmp_path, "other.py", "import torch\n")
    rc, out, err = lint(data, *args, cwd=tmp_path)
    assert rc == 2 and out == b"" and err == "torchdoctor: error: %s\n" % said
