"""Torch releases in the tables and their Pythons: a release's row, the known and the
latest releases and patches, which CPython minors have wheels, the newest torch for a Python.
"""

import copy
import re
from typing import Any, List, Optional

from ...model import versions as V
from .tables import data, release_row


def release(torch_version: Any) -> Optional[dict]:
    r = release_row(torch_version)
    return copy.deepcopy(r) if r else None


def known_releases() -> List[str]:
    return sorted(data()["releases"], key=lambda m: V.parse(m).release)


def latest_release() -> str:
    return known_releases()[-1]


def latest_patch(torch_version: Any) -> Optional[str]:
    """The newest patch release of that minor ('2.4' -> '2.4.1')."""
    r = release_row(torch_version)
    return r["patches"][-1] if r and r.get("patches") else None


def supported_pythons(torch_version: Any) -> Optional[List[str]]:
    """CPython minors with published wheels (incl. those RELEASE.md calls experimental)."""
    r = release_row(torch_version)
    return list(r["python"]) if r else None


def python_supported(torch_version: Any, python_version: Any) -> Optional[bool]:
    r = release_row(torch_version)
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*(t?)\s*", str(python_version or ""))
    if not r or not m:
        return None
    py = "%s.%s%s" % m.groups()  # "3.13t" = free-threaded build
    experimental = r.get("python_experimental_by_patch", {}).get(V.patch(torch_version) or "", r["python_experimental"])
    return py in r["python"] or py in experimental


def macos_x86_64_last_release() -> str:
    """Newest torch minor with macOS x86_64 (Intel Mac, or a Python under Rosetta) wheels."""
    return data()["_meta"]["macos_x86_64_last_release"]["version"]


def newest_torch_for_python(python_version: Any) -> Optional[str]:
    for minor in reversed(known_releases()):
        ok = python_supported(minor, python_version)
        if ok is not False:
            return minor if ok else None
    return None
