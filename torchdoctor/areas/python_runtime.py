"""The Python interpreter's own changes that break code written for an older Python: the
known errors of kb/errors/python_runtime.json that read which Python this is."""

import re
from typing import Optional

from ..advice.commands import on_interpreter, system_install
from ..model.facts import Facts
from ..model import derived as F
from ..model.versions import minor_tuple
from .install.common import venv_commands
from .registry import Tailored, hook, match_groups


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


# name -> (the Python that removed it, what it was, the backport PyPI has for it)
_REMOVED = {
    "getargspec": ((3, 11), "inspect.getargspec", None),
    "formatargspec": ((3, 11), "inspect.formatargspec", None),
    "coroutine": ((3, 11), "the @asyncio.coroutine decorator", None),
    "imp": ((3, 12), "the imp module", None),
    "ImpImporter": ((3, 12), "pkgutil.ImpImporter", None),
    "SafeConfigParser": ((3, 12), "configparser.SafeConfigParser", None),
    "audioop": ((3, 13), "the audioop module", "audioop-lts"),
    "pyaudioop": ((3, 13), "the audioop module", "audioop-lts"),
    "imghdr": ((3, 13), "the imghdr module", "standard-imghdr"),
    "cgi": ((3, 13), "the cgi module", "legacy-cgi"),
    "pipes": ((3, 13), "the pipes module", "standard-pipes"),
    "aifc": ((3, 13), "the aifc module", "standard-aifc"),
    "sunau": ((3, 13), "the sunau module", "standard-sunau"),
    "sndhdr": ((3, 13), "the sndhdr module", "standard-sndhdr"),
    "chunk": ((3, 13), "the chunk module", "standard-chunk"),
    "telnetlib": ((3, 13), "the telnetlib module", "standard-telnetlib"),
    "asynchat": ((3, 12), "the asynchat module", "standard-asynchat"),
    "asyncore": ((3, 12), "the asyncore module", "standard-asyncore"),
    "smtpd": ((3, 12), "the smtpd module", "standard-smtpd"),
}


@hook("python-stdlib-name-removed")
def python_stdlib_name_removed(match, facts: Facts) -> Optional[Tailored]:
    """Which Python removed the name, against this one: older, the failure ran elsewhere; else the
    backport (3.13's modules), the package release for this Python, or an environment on the last
    Python that had it."""
    known = _REMOVED.get(match_groups(match).get("name", ""))
    py = F.python_minor(facts)
    if not known or not py:
        return None
    removed_in, what, backport = known
    gone = "%d.%d" % removed_in
    notes = ["this Python is %s; Python %s removed %s" % (py, gone, what)]
    if minor_tuple(py) < removed_in:
        return Tailored(summary="This interpreter is Python %s, which still has %s: the failing program ran on another "
                                "Python, %s or newer. Run it with this one, or see the fix below for that one."
                                % (py, what, gone), notes=notes)
    last = "%d.%d" % (removed_in[0], removed_in[1] - 1)
    if backport:
        return Tailored(summary="Python %s removed %s; PyPI's %s puts it back under the same name. Install it in this "
                                "environment (or upgrade the package that imports it)." % (gone, what, backport),
                        commands=[on_interpreter("pip install %s" % backport, facts)], notes=notes)
    if removed_in == (3, 12) and what.startswith("pkgutil"):
        # Two places use it: pip building a package whose pinned setuptools predates 3.12 (an old
        # NumPy without a wheel for this Python), or an old setuptools' pkg_resources imported at
        # run time; only the text around it tells which, so both remedies are given.
        return Tailored(summary="An old setuptools (its pkg_resources) runs on Python %s. During `pip install` it is "
                                "a package being built from source, most often an old pinned NumPy with no wheel for "
                                "this Python (1.26 is NumPy's first with wheels for 3.12, 2.1 its first for 3.13): relax "
                                "the pin to a release with wheels for Python %s, or create a Python %s environment. At "
                                "run time it is this environment's setuptools: upgrade it." % (py, py, last),
                        commands=[on_interpreter("pip install --upgrade setuptools", facts),
                                  on_interpreter("pip install --only-binary=:all: <package>", facts)]
                        + venv_commands(facts, last, "-r requirements.txt"), notes=notes)
    return Tailored(summary="Python %s removed %s, which the package in the traceback's last site-packages frame still "
                            "uses: upgrade it to a release made for Python %s, or create a Python %s environment for "
                            "it." % (gone, what, py, last),
                    commands=[on_interpreter("pip install --upgrade <package>", facts)]
                    + venv_commands(facts, last, "<package>"), notes=notes)


# (the pattern's group, the Python the feature needs, its name, whether every Python prints the
# same bare words for other mistakes on such a line); the last row is the entry's remaining pattern.
SYNTAX_FEATURES = (
    ("match", (3, 10), "the match statement", False),
    ("pep585", (3, 9), "builtin generics such as %s...]", False),
    ("fstring", (3, 6), "f-strings", True),
    ("kwonly", (3, 0), "keyword-only parameters (`*,` or a keyword after `*args`)", True),
    ("unpack", (3, 5), "keyword arguments after `**` unpacking", True),
    (None, (3, 10), "`X | None` unions of types", False),
)


@hook("python-too-old-for-syntax")
def python_too_old_for_syntax(match, facts: Facts) -> Optional[Tailored]:
    """The Python the feature needs against this one: new enough here means the failing process ran
    another, older interpreter; else an environment on the Python it needs."""
    groups = match_groups(match)
    need, what, bare = next((need, what, bare) for group, need, what, bare in SYNTAX_FEATURES
                            if group is None or groups.get(group))
    if "%s" in what:
        what %= groups["pep585"]
    py = F.python_minor(facts)
    if not py:
        return None
    notes = ["this Python is %s; %s needs Python %d.%d" % ((py, what) + need)]
    if minor_tuple(py) >= need:
        if bare:
            return Tailored(summary="This interpreter is Python %s, which has %s: either the failing program ran an "
                                    "older Python (Python 2 or 3.5 behind `python` on PATH, an old environment), or the "
                                    "line has another mistake (a trailing operator, a missing bracket)." % (py, what),
                            commands=["python -c \"import sys; print(sys.version, sys.executable)\""], notes=notes)
        return Tailored(summary="This interpreter is Python %s, which has %s: the failing program ran an older Python "
                                "(another `python` on PATH, an old environment, a notebook kernel). Run it with this one."
                                % (py, what), commands=["python -c \"import sys; print(sys.version, sys.executable)\""],
                        notes=notes)
    return Tailored(summary="Python %s is older than %s needs (%d.%d): create a Python %d.%d environment for the project "
                            "and install it there." % ((py, what) + need + need),
                    commands=venv_commands(facts, "%d.%d" % need, "<package>"), notes=notes)


# The development package each optional C extension of CPython is built against: apt's names from
# CPython's devguide, dnf's and Homebrew's from pyenv's wiki ("Suggested build environment"), whose
# Homebrew list has no bzip2 or libffi (macOS's SDK brings them). pacman's are not listed there.
_STDLIB_DEV = {
    "_lzma": {"apt": "liblzma-dev", "dnf": "xz-devel", "brew": "xz"},
    "_bz2": {"apt": "libbz2-dev", "dnf": "bzip2-devel"},
    "_ctypes": {"apt": "libffi-dev", "dnf": "libffi-devel"},
    "_sqlite3": {"apt": "libsqlite3-dev", "dnf": "sqlite-devel", "brew": "sqlite"},
}
# Where version managers keep the interpreters they build (any PYENV_ROOT): folder pattern, rebuild.
_MANAGERS = ((re.compile(r"pyenv[^\n]{0,200}?[\\/]versions[\\/](\d+\.\d+\.\d+[\w.]{0,12})(?:[\\/]|$)"),
              ("pyenv install -f {v}",)),
             (re.compile(r"[\\/]\.asdf[\\/]installs[\\/]python[\\/](\d+\.\d+\.\d+)(?:[\\/]|$)"),
              ("asdf uninstall python {v}", "asdf install python {v}")))
# Package managers that build Python by their own recipes: the apt or configure advice would be wrong.
_RECIPES = ("/nix/store/", "/gnu/store/", "/spack/", "/easybuild/", "/software/Python/")


def _stdlib_module(groups) -> Optional[str]:
    name = groups.get("mod") or ("_" + groups["name"] if groups.get("name") else "")
    return name if name in _STDLIB_DEV else None


@hook("python-stdlib-extension")
def python_stdlib_extension(match, facts: Facts) -> Optional[Tailored]:
    """The headers to install for the missing module on this OS, then the rebuild: by the version
    manager that built this interpreter where its folder says so. The interpreter is the one the
    facts read: where the failing program ran another (a job's own Python), its folder is not this."""
    mod = _stdlib_module(match_groups(match))
    base = str(facts.value("python.base_prefix") or facts.value("python.prefix") or "")
    system = F.os_name(facts)
    if not mod or system == "windows" or any(r in base.replace("\\", "/") for r in _RECIPES):
        return None  # Windows' installers ship every module; Nix, Guix, Spack: the recipe's own variants
    family = "brew" if system == "macos" else F.distro_family(facts)
    package = _STDLIB_DEV[mod].get(family)
    commands = []
    if package:
        commands.append("brew install %s" % package if family == "brew" else system_install(facts, package, package))
    found = next(((m.group(1), steps) for rx, steps in _MANAGERS for m in [rx.search(base)] if m), None)
    if found:
        version, steps = found
        commands += [step.format(v=version) for step in steps]
        how = "rebuild it with the same manager (the venvs made from it are then recreated)"
    else:
        how = ("rebuild it from its source tree (`./configure`, `make`, `make altinstall`) or use a Python that "
               "ships the module (your distribution's python3 package, python.org's installers, conda's python, "
               "`uv python install`), then recreate the venv")
    check = on_interpreter("python -c \"import %s\"" % mod.lstrip("_"), facts)
    return Tailored(summary="This Python (%s) was built without %s: its development headers were missing when it was "
                            "compiled, and the build skips the module with only a warning. Installing the headers now "
                            "changes nothing for it: install %s, then %s." % (
                                base or "the one read here", mod, "`%s`" % package if package else "the headers", how),
                    commands=commands + [check], notes=["this Python: %s" % base] if base else [])
