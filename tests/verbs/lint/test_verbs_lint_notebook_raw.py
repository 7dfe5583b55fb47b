"""Findings in a notebook point at the raw .ipynb file in SARIF and GitHub's annotations (what
code scanning and a pull request open): the JSON line that holds the flagged code, with the
cell in the message and properties. Checked by reading the raw file at the reported line."""

import json
import os
import subprocess
import sys

import pytest

PY = sys.executable
FLAGGED = "torch.backends.mps.is_available()"


def lint(*args, cwd):
    p = subprocess.run([PY, "-m", "torchdoctor", "lint"] + list(args), capture_output=True, text=True, cwd=str(cwd),
                       timeout=120, stdin=subprocess.DEVNULL)
    return p.returncode, p.stdout, p.stderr


NOTEBOOK = {"cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["# Training\n", "Some text with torch.backends.mps in it\n"]},
    {"cell_type": "code", "execution_count": 1, "metadata": {},
     "outputs": [{"output_type": "display_data", "data": {"image/png": "iVBORw0KGgo" * 200, "text/plain": ["<Figure>"]},
                  "metadata": {}}],
     "source": ["%matplotlib inline\n", "import torch\n", "\n", "label = \"caf\u00e9\\t\u2603\"  # \u00e9\u00e9\n",
                "ok = " + FLAGGED + "\n"]},
    # a source written as one string: every line of it is on one JSON line
    {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
     "source": "x = 1\nif " + FLAGGED.replace("()", "") + ":\n    device = 'mps'\n"},
    {"cell_type": "code", "metadata": {}, "outputs": [], "source": ["!pip install torch==2.1.0 torchvision==0.17.0\n"]},
], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["escaped", "utf8"])
def test_sarif_regions_are_lines_of_the_raw_notebook(tmp_path, ensure_ascii):
    raw = json.dumps(NOTEBOOK, indent=1, ensure_ascii=ensure_ascii) + "\n"   # nbformat's layout
    (tmp_path / "train.ipynb").write_text(raw, encoding="utf-8")
    rc, out, err = lint("--torch", "1.11", "--format", "sarif", "train.ipynb", cwd=tmp_path)
    assert rc == 1, err
    results = json.loads(out)["runs"][0]["results"]
    lines = raw.splitlines()
    got = {}
    for r in results:
        region = r["locations"][0]["physicalLocation"]["region"]
        text = lines[region["startLine"] - 1]
        got.setdefault(r["ruleId"], []).append((r["properties"], text[region["startColumn"] - 1:], r["message"]["text"]))
    # TD101 at the call in cell 2 (line 5 of it, after escapes and non-ASCII on the lines before),
    # and at cell 3's `if`, whose own test reads torch.backends.mps (absent in 1.11): a test is no
    # guard of itself
    (props, at, message), (props3, at3, _) = got["TD101"]
    assert props == {"cell": 2, "cellLine": 5, "cellColumn": 6}
    assert at.startswith(FLAGGED) and message.endswith("(cell 2, line 5)")
    assert props3["cell"] == 3 and props3["cellLine"] == 2 and at3.startswith("torch.backends.mps.is_available:")
    # TD106, the uncalled function of cell 3, whose lines all lie on one JSON line: at its column
    ((props, at, message),) = got["TD106"]
    assert props["cell"] == 3 and props["cellLine"] == 2 and at.startswith("torch.backends.mps.is_available:")
    # the pin of a `!pip install` line: that JSON line
    ((props, at, message),) = got["TD401"]
    assert props["cell"] == 4 and at.startswith("!pip install torch==2.1.0 torchvision==0.17.0")
    # the markdown cell's text is not code: nothing points at it
    assert not any("Some text" in lines[r["locations"][0]["physicalLocation"]["region"]["startLine"] - 1]
                   for r in results)


def test_github_annotations_use_the_raw_line(tmp_path):
    raw = json.dumps(NOTEBOOK, indent=1) + "\n"
    (tmp_path / "train.ipynb").write_text(raw, encoding="utf-8")
    rc, out, err = lint("--torch", "1.11", "--format", "github", "train.ipynb", cwd=tmp_path)
    first = out.splitlines()[0]
    assert first.startswith("::error file=train.ipynb,line=") and "title=TD101 api-not-yet-added (cell 2%2C line 5)" in first
    line = int(first.split("line=")[1].split(",")[0])
    col = int(first.split("col=")[1].split(",")[0])
    assert raw.splitlines()[line - 1][col - 1:].startswith(FLAGGED)
    # the text format keeps the cell's own place
    rc, out, err = lint("--torch", "1.11", "train.ipynb", cwd=tmp_path)
    assert "train.ipynb:cell 2:5:6: TD101" in out
    assert not os.path.exists(str(tmp_path / "train.ipynb.bak"))


@pytest.mark.parametrize("ensure_ascii", [True, False], ids=["escaped", "utf8"])
def test_a_column_after_escapes_and_astral_characters_on_its_own_line(ensure_ascii):
    from torchdoctor.verbs.lint.nbraw import RawNotebook
    line = 'pair = ("\U0001F600\\t\\"\u00e9", ' + FLAGGED + ")\n"
    nb = {"cells": [{"cell_type": "code", "source": ["import torch\n", line]}]}
    raw = json.dumps(nb, indent=1, ensure_ascii=ensure_ascii)
    col = line.index(FLAGGED) + 1
    raw_line, raw_col = RawNotebook(raw).place(1, 2, col)
    assert raw.splitlines()[raw_line - 1][raw_col - 1:].startswith(FLAGGED)
    assert RawNotebook(raw).place(1, 3, 1) is None and RawNotebook("not json").place(1, 1, 1) is None


def test_a_noqa_comment_in_the_notebook_leaves_the_raw_positions_right(tmp_path):
    nb = {"cells": [{"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
                     "source": ["import torch\n", "x = 1  # noqa: TD301\n", "ok = " + FLAGGED + "\n"]}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    raw = json.dumps(nb, indent=1) + "\n"
    (tmp_path / "nb.ipynb").write_text(raw, encoding="utf-8")
    rc, out, err = lint("--torch", "1.11", "--format", "sarif", "nb.ipynb", cwd=tmp_path)
    [r] = json.loads(out)["runs"][0]["results"]
    region = r["locations"][0]["physicalLocation"]["region"]
    assert raw.splitlines()[region["startLine"] - 1][region["startColumn"] - 1:].startswith(FLAGGED), (region, raw)
