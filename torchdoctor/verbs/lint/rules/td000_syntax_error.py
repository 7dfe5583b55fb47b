"""The file does not parse; the rest of the scan goes on.

## What it finds
A Python file, or a notebook's code cell (after IPython's own syntax: magics, shell escapes,
help), that the Python running `torchdoctor lint` cannot parse.

## Why it matters
Nothing in that file (or cell) was checked: every other rule needs the syntax tree. The
other cells of a notebook are checked all the same.

## Fix
Fix the syntax error, or run lint under the Python the code is written for (a file using
`match` needs 3.10+ to be parsed).
"""

import sys

from ....model.findings import ERROR
from ....model.rules import rule
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("def f(:\n    pass\n"),)
QUIET = (Example("def f():\n    pass\n"),)


@rule("lint", "TD000", severity=ERROR, category="lint", name="syntax-error", on="parse", fixable=False)
def syntax_error(error):
    line = getattr(error, "lineno", None) or 1
    col = getattr(error, "offset", None) or 1
    msg = getattr(error, "msg", None) or str(error)
    return hit(Pos(line, max(int(col), 1)), "syntax error for Python %d.%d: %s; the file was not checked"
               % (sys.version_info[0], sys.version_info[1], msg))
