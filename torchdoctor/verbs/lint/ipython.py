"""IPython's own syntax in a notebook cell, turned into Python with the same line numbers, as
IPython's input transformers (IPython.core.inputtransformer2) would before running the cell.

What IPython transforms, and what it becomes here (each on its own line, indentation kept):
- a cell magic on the cell's first line (``%%time``): for the magics that run their body as
  Python in the kernel (PYTHON_CELL_MAGICS) the line goes and the body is linted; any other
  (``%%bash``, ``%%writefile``, ``%%html``) makes the whole cell a string for IPython, so
  nothing of it is linted;
- at the start of a logical line, the escapes ``!cmd``, ``!!cmd``, ``%magic``, ``%%magic``,
  ``?obj``, ``??obj``, ``,f a b``, ``;f a b`` and ``/f a``: a call, ``get_ipython()``
  (a trailing ``\\`` continues the command on the next line, which becomes blank);
- ``x = !cmd`` and ``x = %magic``: ``x = get_ipython()``;
- help at the end, ``obj?``, ``obj.attr??``, ``%magic?``: ``get_ipython()``.

"Start of a logical line" is tracked through brackets, strings and backslashes, so Python
that only looks like IPython (``% b`` continuing an expression, ``!`` or ``?`` inside a string
or a comment) is left as it is.
"""

import re
from typing import List, Optional, Tuple

CALL = "get_ipython()"
# cell magics whose body IPython runs as Python code in the kernel
PYTHON_CELL_MAGICS = frozenset(("time", "timeit", "prun", "capture", "debug"))

_CELL_MAGIC = re.compile(r"%%(\w+)")
_ESCAPE = re.compile(r"(\s*)(?:!|%|\?|,|;|/)")
_ASSIGN = re.compile(r"(\s*[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)[!%]")
_HELP_END = re.compile(r"(\s*)%{0,2}[\w*]+(?:\.[\w*]+|\[-?\d+\])*\?\??\s*$")
_TOKEN = re.compile(r"\\.|'''|\"\"\"|'|\"|#|[()\[\]{}]|\\$")


def _scan(line: str, depth: int, quote: Optional[str]) -> Tuple[int, Optional[str], bool]:
    """(bracket depth, the open triple quote or None, ends with a backslash) after `line`."""
    single = None
    for m in _TOKEN.finditer(line):
        tok = m.group()
        if tok.startswith("\\"):
            if tok == "\\" and quote is None and single is None:
                return depth, quote, True
            continue
        if quote is not None:
            if tok == quote:
                quote = None
        elif single is not None:
            if tok == single:
                single = None
        elif tok in ("'''", '"""'):
            quote = tok
        elif tok in ("'", '"'):
            single = tok
        elif tok == "#":
            break
        elif tok in "([{":
            depth += 1
        elif tok in ")]}":
            depth = max(depth - 1, 0)
    return depth, quote, False


def to_python_lines(src: str) -> List[str]:
    """The cell's lines (str.splitlines), IPython syntax replaced as the module doc says."""
    lines = src.splitlines()
    first = next((i for i, l in enumerate(lines) if l.strip()), None)
    if first is not None:
        m = _CELL_MAGIC.match(lines[first])
        if m:
            if m.group(1) not in PYTHON_CELL_MAGICS:
                return [""] * len(lines)
            lines[first] = ""
    out: List[str] = []
    depth, quote, continued, in_command = 0, None, False, False
    for line in lines:
        if in_command:  # the rest of a command continued with a backslash
            out.append("")
            in_command = line.rstrip().endswith("\\")
            continue
        if depth == 0 and quote is None and not continued:
            new = _transform(line)
            if new is not None:
                out.append(new)
                in_command = line.rstrip().endswith("\\")
                continue
        out.append(line)
        depth, quote, continued = _scan(line, depth, quote)
    return out


def _transform(line: str) -> Optional[str]:
    m = _ASSIGN.match(line)
    if m:
        return m.group(1) + CALL
    m = _ESCAPE.match(line) or _HELP_END.match(line)
    if m:
        return m.group(1) + CALL
    return None


def to_python(src: str) -> str:
    return "\n".join(to_python_lines(src)) + "\n"
