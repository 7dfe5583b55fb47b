"""Every public name under torch.backends with its kind (data/backends_names.json, from the
shared reference's scan of the released wheels): what the rules about attribute names,
calls and truth tests read.

Kinds: ``module`` (a namespace whose names are all listed, so an unlisted one is an error),
``setting`` (a flag or a string property: read or assigned, never called), ``function``
(called: uncalled it is a function object, always true), ``class`` and ``value``.
"""

import difflib
import functools
import json
import os
from typing import Dict, List, Optional, Tuple

_DATA = os.path.join(os.path.dirname(__file__), "data", "backends_names.json")


@functools.lru_cache(maxsize=None)
def _data() -> Dict[str, object]:
    with open(_DATA, encoding="utf-8") as f:
        return json.load(f)


def kind(path: str) -> Optional[str]:
    """The kind of a torch.backends path, or None when the scan does not list it."""
    e = _data()["names"].get(path)
    return e[0] if e else None


@functools.lru_cache(maxsize=None)
def _children() -> Dict[str, List[str]]:
    out: Dict[str, List[str]] = {}
    for path in _data()["names"]:
        parent, _, name = path.rpartition(".")
        out.setdefault(parent, []).append(name)
    return out


def unknown(path: str) -> Optional[Tuple[str, List[str]]]:
    """(the first prefix of `path` that no scanned release has, the closest names of its
    module) when one sits directly in a listed module; None otherwise (a name of a class, a
    private name, or a module whose names are not all listed)."""
    parts = path.split(".")
    if parts[:2] != ["torch", "backends"]:
        return None
    for n in range(3, len(parts) + 1):
        parent, name = ".".join(parts[:n - 1]), parts[n - 1]
        if kind(parent) != "module" or parent in _data()["unchecked"] or name.startswith("_"):
            return None
        prefix = parent + "." + name
        if kind(prefix) is None:
            siblings = _children().get(parent, [])
            return prefix, difflib.get_close_matches(name, siblings, n=3, cutoff=0.6)
    return None


def spelled(parent: str, name: str) -> str:
    """A name as the user should write it: a function with its call."""
    return name + ("()" if kind(parent + "." + name) == "function" else "")


@functools.lru_cache(maxsize=None)
def oldest_scanned() -> Tuple[int, int]:
    """The oldest release line whose wheel the scan read: the first release the table knows a name in."""
    from . import history as H
    return min(H.mt(e[1]) for e in _data()["names"].values())
