"""A torch pin with no wheel for the Python the project declares.

## What it finds
A torch pin whose releases have no wheel for the lowest Python the project declares
(`requires-python`, `python_requires`, a conda `python=` dependency, a `python:3.X` base
image).

## Why it matters
pip on that Python finds no matching torch wheel and fails (or resolves another release).

## Fix
Raise the lowest declared Python, or pin a torch release with wheels for it (the message
lists the Pythons the newest pinned release supports).
"""

from ....kb import compat
from ....model.findings import ERROR
from ....model.rules import rule
from ..envcheck import lowest_python, short
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example('[project]\nname = "demo"\nrequires-python = ">=3.8"\ndependencies = ["torch==2.6.0"]\n',
                 file="pyproject.toml"),)
QUIET = (Example('[project]\nname = "demo"\nrequires-python = ">=3.10"\ndependencies = ["torch==2.6.0"]\n',
                 file="pyproject.toml"),)


@rule("lint", "TD403", severity=ERROR, category="lint", name="no-wheel-for-python", on="env", fixable=False,
      source="kb/data/compat.json (PYPI, PROBE)",
      links=("https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix",))
def no_wheel_for_python(case):
    patches = case.patches
    py = case.group.python or case.python
    if not (patches and py and py.spec):
        return None
    lowest = lowest_python(py.spec)
    if not lowest:
        return None
    ok = [compat.python_supported(p, lowest) for p in patches]
    if not ok or not all(a is False for a in ok):
        return None
    tp = case.torch_pins[0] if case.torch_pins else None
    sup = compat.supported_pythons(patches[-1]) or []
    return hit(Pos(tp.line if tp else py.line, tp.col if tp else 1),
               "%s has no wheel for Python %s, which %s admits (%s: Python %s)" % (
                   short(patches), lowest, "%s %s" % (py.where, py.spec), short(patches[-1:]), ", ".join(sup)))
