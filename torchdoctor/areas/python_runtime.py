"""The Python interpreter's own changes that break code written for an older Python: the
known errors of kb/errors/python_runtime.json that read which Python this is."""

from typing import Optional

from ..advice.commands import on_interpreter
from ..model.facts import Facts
from ..model import derived as F
from ..model.versions import minor_tuple
from .install.common import venv_commands
from .registry import Tailored, hook


@hook("dataclass-default-python311")
def dataclass_default_python311(match, facts: Facts) -> Optional[Tailored]:
    """Python 3.11 refuses every unhashable dataclass default: on 3.11+ the 3.10 environment that
    still imports the package. The class in the message is the default value's type, not the
    package to upgrade, which only the traceback's frame above dataclasses.py names."""
    py = F.python_minor(facts)
    if not py:
        return None
    where = "the package whose file the traceback shows just above dataclasses.py"
    if minor_tuple(py) < (3, 11):
        return Tailored(cause="This interpreter is Python %s, where such defaults are still accepted: the failing "
                              "program ran on another Python, 3.11 or newer." % py,
                        summary="Run it with this Python %s, or upgrade %s in the interpreter that failed." % (py, where),
                        notes=["this Python is %s" % py])
    return Tailored(summary="Upgrade %s to a release made for Python 3.11, or create a Python 3.10 environment for "
                            "it (this Python is %s)." % (where, py),
                    commands=venv_commands(facts, "3.10", "<package>"),
                    notes=["this Python is %s" % py])


@hook("cython-header-python311")
def cython_header_python311(match, facts: Facts) -> Optional[Tailored]:
    """Old Cython output does not compile on 3.11+: on such a Python the 3.10 environment that
    still builds it, beside the upgrade; on an older one the build ran on another Python."""
    py = F.python_minor(facts)
    if not py:
        return None
    if minor_tuple(py) < (3, 11):
        return Tailored(cause="This interpreter is Python %s, whose headers still include longintrepr.h: the failing "
                              "build ran on another Python, 3.11 or newer." % py,
                        summary="Build it with this Python %s, or upgrade the package in the interpreter that failed."
                                % py, notes=["this Python is %s" % py])
    return Tailored(summary="Upgrade the package to a release built for Python 3.11+, or create a Python 3.10 "
                            "environment for it (this Python is %s)." % py,
                    commands=[on_interpreter("pip install --upgrade <package>", facts)] + venv_commands(facts, "3.10", "<package>"),
                    notes=["this Python is %s" % py])
