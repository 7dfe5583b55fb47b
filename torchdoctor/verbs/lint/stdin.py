"""`lint -`: one source read from standard input, as editors send the buffer being edited.

The name given with --stdin-filename (default "-") stands for the file: it is the path in
the messages, where the project whose pins and ``[tool.torchdoctor.lint]`` apply is looked
for, what per-file-ignores match, and what says the kind (a requirements file, a Dockerfile
...; anything else is Python, as ruff reads stdin). With --fix the fixed source is the
output, as ruff writes it, so an editor can replace its buffer with it.

Refused in one line: bytes that do not decode (an editor sends text; a guess would put the
findings at the wrong columns) and a notebook, whose cells need the file itself: its lines
are what SARIF and the editor point at.
"""

import json
import os
from typing import List, Optional, Tuple

from . import envfiles as E
from . import pysource

STDIN = "-"


class Refused(ValueError):
    """Standard input lint cannot read: one line to say."""


def kind_of(name: Optional[str]) -> str:
    """python, or the environment-file kind of the name (setup.py is Python that is also one)."""
    kind = E.kind_of(os.path.basename(name)) if name else None
    return "python" if kind in (None, "setuppy") else kind


def check(data: bytes, name: Optional[str]) -> str:
    """The kind to lint `data` as; Refused for a notebook or bytes that are not text."""
    shown = name or STDIN
    if (name or "").lower().endswith(".ipynb") or _is_notebook(data):
        raise Refused("%s: a notebook cannot be linted from standard input; give its path (lint %s)"
                      % (shown, name if name and name.lower().endswith(".ipynb") else "NOTEBOOK.ipynb"))
    kind = kind_of(name)
    _, exact = pysource.decode(data)
    if kind != "python":
        try:
            data.decode("utf-8")
            exact = True
        except UnicodeDecodeError:
            exact = False
    if not exact:
        raise Refused("%s: standard input is not text in UTF-8 (or the encoding its coding line names)%s"
                      % (shown, _first_bad_byte(data)))
    return kind


def _is_notebook(data: bytes) -> bool:
    if not data.lstrip()[:1] == b"{":
        return False
    try:
        doc = json.loads(data.decode("utf-8", "replace"))
    except ValueError:
        return False
    return isinstance(doc, dict) and isinstance(doc.get("cells"), list)


def _first_bad_byte(data: bytes) -> str:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ": byte 0x%02x at offset %d" % (data[e.start], e.start)
    return ""


def lint(data: bytes, name: Optional[str], kind: str, settings):
    """The lintfile.FileResult of `data` read as the file `name` of that kind."""
    from .lintfile import lint_env, lint_python
    path = name or STDIN
    if kind == "python":
        return lint_python(path, settings, data)
    res, _ = lint_env(path, kind, settings, None, data)
    return res


def fix(data: bytes, name: Optional[str], found) -> Tuple[bytes, int, List[str]]:
    """(the source with the findings' rewrites applied, how many, notes)."""
    from .fix import apply
    edits = [f.edit for f in found if f.edit]
    if not edits:
        return data, 0, []
    new, count, notes = apply(data, edits)
    return new, count, ["%s: %s" % (name or STDIN, n) for n in notes]
