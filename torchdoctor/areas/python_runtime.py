"""The Python interpreter's own changes that break code written for an older Python: the
known errors of kb/errors/python_runtime.json that read which Python this is."""

from typing import Optional

from ..advice.commands import on_interpreter
from ..model.facts import Facts
from ..model import derived as F
from ..model.versions import minor_tuple
from .install.common import venv_commands
from .registry import Tailored, hook


def _broken_from_311(facts: Facts, older: str, older_summary: str, newer_summary: str,
                     upgrade_first: bool = False) -> Optional[Tailored]:
    """What breaks from Python 3.11 on: on an older interpreter the failure ran on another Python
    (`older`, `older_summary`); on 3.11+ the Python 3.10 environment for the package. Each text
    takes this Python's version as %s."""
    py = F.python_minor(facts)
    if not py:
        return None
    notes = ["this Python is %s" % py]
    if minor_tuple(py) < (3, 11):
        return Tailored(cause=older % py, summary=older_summary % py, notes=notes)
    commands = venv_commands(facts, "3.10", "<package>")
    if upgrade_first:
        commands = [on_interpreter("pip install --upgrade <package>", facts)] + commands
    return Tailored(summary=newer_summary % py, commands=commands, notes=notes)


@hook("dataclass-default-python311")
def dataclass_default_python311(match, facts: Facts) -> Optional[Tailored]:
    """Python 3.11 refuses every unhashable dataclass default: on 3.11+ the 3.10 environment that
    still imports the package. The class in the message is the default value's type, not the
    package to upgrade, which only the traceback's frame above dataclasses.py names."""
    where = "the package whose file the traceback shows just above dataclasses.py"
    return _broken_from_311(
        facts, "This interpreter is Python %s, where such defaults are still accepted: the failing program ran on "
               "another Python, 3.11 or newer.",
        "Run it with this Python %%s, or upgrade %s in the interpreter that failed." % where,
        "Upgrade %s to a release made for Python 3.11, or create a Python 3.10 environment for it (this Python is "
        "%%s)." % where)


@hook("cython-header-python311")
def cython_header_python311(match, facts: Facts) -> Optional[Tailored]:
    """Old Cython output does not compile on 3.11+: on such a Python the 3.10 environment that
    still builds it, beside the upgrade; on an older one the build ran on another Python."""
    return _broken_from_311(
        facts, "This interpreter is Python %s, whose headers still include longintrepr.h: the failing build ran on "
               "another Python, 3.11 or newer.",
        "Build it with this Python %s, or upgrade the package in the interpreter that failed.",
        "Upgrade the package to a release built for Python 3.11+, or create a Python 3.10 environment for it (this "
        "Python is %s).", upgrade_first=True)
