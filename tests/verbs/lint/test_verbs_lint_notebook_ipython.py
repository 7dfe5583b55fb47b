"""Notebook cells with IPython's own syntax (magics, shell escapes, help): the rest of the cell is
linted at its own line numbers, as IPython would run it."""

import json

from torchdoctor.verbs.lint.lintfile import Settings, lint_notebook
from torchdoctor.verbs.lint.rules import default_codes
from torchdoctor.verbs.lint.target import from_option

MPS = "torch.backends.mps.is_available()"


def lint_cells(tmp_path, *cells):
    nb = {"cells": [{"cell_type": "code", "source": c} for c in cells], "metadata": {}, "nbformat": 4,
          "nbformat_minor": 5}
    path = tmp_path / "nb.ipynb"
    path.write_text(json.dumps(nb))
    t = from_option("1.11")
    res = lint_notebook(str(path), Settings(targets=list(t.versions), cuda=t.cuda, select=frozenset(default_codes())))
    return sorted((f.cell, f.line, f.col, f.code) for f in res.findings)


def test_ipython_syntax_leaves_the_rest_of_the_cell_linted(tmp_path):
    cell = ("import torch\n"
            "files = !ls -la\n"
            "torch?\n"
            "??torch.backends\n"
            "torch.backends.mps.is_available??\n"
            "%pip install numpy\n"
            "!nvidia-smi \\\n"
            "  --query-gpu=name\n"
            "rows = %sql SELECT 1\n"
            "for i in range(2):\n"
            "    %time x = " + MPS + "\n"
            "    !echo (unbalanced [ quote '\n"
            "    y = " + MPS + "\n"
            ",print a b\n"
            "/print 1\n"
            "z = " + MPS + "\n")
    assert lint_cells(tmp_path, cell) == [(1, 13, 9, "TD101"), (1, 16, 5, "TD101")]
    # a cell magic whose body is Python is linted; one whose body is another language is not
    assert lint_cells(tmp_path, "%%time\nimport torch\n" + MPS + "\n",
                      "%%bash\nif [ -d x ]; then echo (; fi\n",
                      "%%writefile setup.py\nimport torch\n" + MPS + "\n") == [(1, 3, 1, "TD101")]


def test_python_that_looks_like_ipython_stays_python():
    from torchdoctor.verbs.lint import ipython
    src = ("x = (1\n"
           "     % 2)\n"
           "y = [3,\n"
           "     !4]\n"              # not valid Python either way: left for the parser to report
           's = """\n'
           "%not a magic\n"
           '"""\n'
           "d = {'a': 1}  # what?\n"
           "e = 'text?'\n"
           "z = a if b else c\n")
    out = ipython.to_python(src)
    assert out.splitlines() == src.splitlines()  # nothing here starts a logical line with IPython syntax
    assert len(out.splitlines()) == len(src.splitlines())


def test_each_form_becomes_python_on_its_own_line():
    from torchdoctor.verbs.lint import ipython
    lines = ipython.to_python("a = !ls\n  %matplotlib inline\nb, c = %who_ls\nobj?\n!cmd \\\n more\nok = 1\n").split("\n")
    assert lines[:7] == ["a = get_ipython()", "  get_ipython()", "b, c = get_ipython()", "get_ipython()",
                         "get_ipython()", "", "ok = 1"]


def test_a_branch_of_only_pip_magics_keeps_the_notebook_checked(tmp_path):
    """yolov5's tutorial.ipynb: an `if/elif` whose bodies are `%pip install` and other magics
    stays valid Python at the same lines, and the other cells are still checked."""
    logger = ("logger = 'Comet'\n"
              "if logger == 'Comet':\n"
              "  %pip install -q comet_ml\n"
              "elif logger == 'ClearML':\n"
              "  %pip install -q clearml\n"
              "elif logger == 'TensorBoard':\n"
              "  %load_ext tensorboard\n"
              "  %tensorboard --logdir runs/train\n"
              "z = " + MPS + "\n")
    assert lint_cells(tmp_path, "import torch\n", logger, "x = " + MPS + "\n") == [
        (2, 9, 5, "TD101"), (3, 1, 5, "TD101")]
