"""Which torch releases the scanned code must work with.

In order: ``--torch`` (a version, a PEP 440 range: every release in it must work, or
``installed``: the torch installed in ``--python`` or the interpreter every verb picks, read
from its dist-info metadata, never by importing torch), ``torch`` of
``[tool.torchdoctor.lint]``, the torch pins the project declares (declared.py), the torch
installed in ``--python`` when it is given, and last the default range: every release from
the oldest the API scan read to the newest the tables know. Without a pin or an option the
result does not depend on the machine lint runs on.
"""

import os
import subprocess
import sys
from ...model.records import field, record
from typing import List, Optional, Tuple

from ...model import versions as V
from ...kb import compat
from . import history as R


@record
class Target:
    versions: List[Tuple[int, int]]   # release lines (major, minor), oldest first
    spec: str                         # what was asked: "2.13.0+cpu", ">=2.1,<2.6"
    origin: str                       # where it came from, for the output
    cuda: Optional[bool] = None       # False: a CPU-only build is the target
    pins: List[dict] = field(default_factory=list)   # the project's torch pins: file, line, spec, decided

    def describe(self) -> str:
        if not self.versions:
            return "torch (none)"
        lo, hi = R.fmt(self.versions[0]), R.fmt(self.versions[-1])
        span = lo if lo == hi else "%s ... %s" % (lo, hi)
        return "torch %s (%s, from %s)" % (span, self.spec, self.origin)

    def to_dict(self) -> dict:
        out = {"torch": [R.fmt(t) for t in self.versions], "spec": self.spec, "source": self.origin,
               "cuda": self.cuda}
        if self.pins:
            out["pins"] = list(self.pins)
        return out


def _known() -> List[Tuple[int, int]]:
    return [R.mt(m) for m in compat.known_releases()]


def _patches(minor: Tuple[int, int]) -> List[str]:
    r = compat.release(R.fmt(minor)) or {}
    return list(r.get("patches") or []) or [R.fmt(minor) + ".0"]


def versions_in(spec_text: str) -> List[Tuple[int, int]]:
    """Release lines with a patch inside the specifier set (raises ValueError if it is not one)."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        spec = SpecifierSet(spec_text)
    except InvalidSpecifier as e:
        raise ValueError(str(e))
    return [m for m in _known() if any(spec.contains(p, prereleases=True) for p in _patches(m))]


def from_option(text: str) -> Target:
    """--torch: '2.4', '2.4.1', '2.13.0+cpu' or a range '>=2.1,<2.6'."""
    t = text.strip()
    if not t:
        raise ValueError("empty --torch")
    if t[0].isdigit():
        v = V.parse(t)
        if v is None or len(V.release(t)) < 2:
            raise ValueError("not a torch version or range: %r" % text)
        cuda = None if V.local_tag(t) is None else V.local_tag(t).startswith("cu")
        return Target([V.minor_tuple(t)], t, "--torch", cuda=False if V.local_tag(t) == "cpu" else cuda)
    vs = versions_in(t)
    if not vs:
        raise ValueError("no torch release the tables know (%s ... %s) is in %r"
                         % (compat.known_releases()[0], compat.latest_release(), text))
    return Target(vs, t, "--torch")


_READ_VERSION = ("import sys\ntry:\n    import importlib.metadata as m\nexcept ImportError:\n    sys.exit(3)\n"
                 "try:\n    print(m.version('torch'))\nexcept Exception:\n    sys.exit(4)\n")


def installed_torch(python: Optional[str], timeout: float = 20.0) -> Optional[str]:
    """torch's version from the dist-info of `python` (default: this interpreter); no import of torch."""
    # By the path itself, not realpath: a venv's python links to its base interpreter, whose
    # torch is not the venv's.
    if not python or os.path.abspath(python) == os.path.abspath(sys.executable):
        try:
            import importlib.metadata as md
            return md.version("torch")
        except Exception:
            return None
    try:
        out = subprocess.run([python, "-I", "-c", _READ_VERSION], capture_output=True, text=True,
                             timeout=timeout, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError):
        return None
    text = out.stdout.strip()
    return text if out.returncode == 0 and V.parse(text) else None


def from_installed(python: Optional[str]) -> Optional[Target]:
    ver = installed_torch(python)
    if not ver or V.minor_tuple(ver) is None:
        return None
    where = "the torch installed in %s" % (python or sys.executable)
    tag = V.local_tag(ver)
    return Target([V.minor_tuple(ver)], ver, where, cuda=False if tag == "cpu" else (True if tag and tag.startswith("cu") else None))


INSTALLED = "installed"   # --torch installed: the torch of --python (or the interpreter every verb picks)


def default_range() -> Target:
    """Every release from the oldest wheel the API scan read to the newest the tables know:
    what lint checks when nothing names a target, the same on every machine."""
    from .backends_names import oldest_scanned
    oldest = oldest_scanned()
    versions = [m for m in _known() if m >= oldest]
    return Target(versions, ">=%s" % R.fmt(oldest),
                  "the default range: nothing pins torch (--torch installed lints for the installed torch)")
