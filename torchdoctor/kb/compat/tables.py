"""Loading ``kb/data/compat.json`` and reading it: the whole document (loaded once,
lazily), the release row of a torch version, the citation of a source key, and the
parsing of OS names and compute capabilities every question starts from.
"""

import functools
import json
import os as _os
import re
from typing import Any, Dict, Optional, Tuple

from ...model import versions as V

DATA_PATH = _os.path.join(_os.path.dirname(_os.path.dirname(__file__)), "data", "compat.json")


@functools.lru_cache(maxsize=None)
def data() -> Dict[str, Any]:
    with open(DATA_PATH, encoding="utf-8") as f:
        return json.load(f)


def release_row(torch_version: Any) -> Optional[Dict[str, Any]]:
    """The row of the torch minor of that version in the releases table; None if unknown."""
    return data()["releases"].get(V.minor(torch_version) or "")


def source(key: Any) -> Optional[str]:
    """Full citation of a source key; "A+B" joins several with "; "."""
    sources = data()["_meta"]["sources"]
    parts = [p for p in str(key or "").split("+") if p]
    if not parts or any(p not in sources for p in parts):
        return None
    return "; ".join(sources[p] for p in parts)


# -- parsing helpers ---------------------------------------------------------------
def os_name(name: Any) -> Optional[str]:
    n = str(name or "").strip().lower()
    if n.startswith("linux"):
        return "linux"
    if n in ("darwin", "macos", "mac", "osx", "macosx"):
        return "macos"
    return "windows" if n in ("windows", "win", "win32", "win64", "nt") else None


def parse_cc(capability: Any) -> Optional[Tuple[int, int]]:
    """(major, minor) from (8, 6), [8, 6], "8.6" or 8.6; None otherwise."""
    if isinstance(capability, (tuple, list)):
        ok = len(capability) == 2 and all(type(x) is int for x in capability)
        return (capability[0], capability[1]) if ok else None
    m = re.fullmatch(r"\s*(\d+)\.(\d)\s*", str(capability)) if capability is not None else None
    return (int(m.group(1)), int(m.group(2))) if m else None
