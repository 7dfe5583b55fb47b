"""What kind of value a torch API is beyond its name (data/api_kinds.json, asked of torch
itself by tools/lint_api_kinds.py): the type a torch.backends setting takes and the strings
it accepts, the calls that are context managers doing nothing unless entered, the other
names of a replacement's object, and the defaults that changed across releases. What TD107,
TD108, TD201 and TD204 read.
"""

import functools
import json
import os
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

_DATA = os.path.join(os.path.dirname(__file__), "data", "api_kinds.json")


@functools.lru_cache(maxsize=None)
def _data() -> Dict[str, Any]:
    with open(_DATA, encoding="utf-8") as f:
        d = json.load(f)
    # the strings releases accept beyond those read from the wheels, merged once
    for path, extra in d["extra_values"].items():
        e = d["settings"].get(path)
        if e is not None:
            e["values"] = sorted(set(e.get("values", [])) | set(extra["values"]))
    return d


def setting(path: str) -> Optional[Dict[str, Any]]:
    """{"type": "bool"|"int"|"str", "values": [...] (str: every string some release accepts)}."""
    return _data()["settings"].get(path)


def wrong_value(path: str, value: Any) -> Optional[str]:
    """Why the literal `value` is refused by the setting `path` (torch raises), or None when it
    is accepted or unknown (`...`: not a literal)."""
    e = setting(path)
    if e is None or value is ...:
        return None
    want = e["type"]
    if want == "bool":
        return None if isinstance(value, bool) else "takes a bool (True/False), not %s" % _what(value)
    if want == "int":
        return None if isinstance(value, int) and not isinstance(value, bool) else \
            "takes an int, not %s" % _what(value)
    if not isinstance(value, str):
        return "takes a string (%s), not %s" % (_choices(e), _what(value))
    if e.get("values") and value not in e["values"]:
        return "takes %s, not %r" % (_choices(e), value)
    return None


def _choices(e: Dict[str, Any]) -> str:
    return " / ".join(repr(v) for v in e.get("values", [])) or "a string"


def _what(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return "the string %r" % value
    return "%s %r" % (type(value).__name__, value)


def context_manager(path: str) -> Optional[str]:
    """"generator" (a @contextmanager function) or "object" (its object acts when entered) when
    calling `path` without `with` does nothing; None otherwise."""
    return _data()["context_managers"].get(path)


@functools.lru_cache(maxsize=None)
def leaf_names() -> FrozenSet[str]:
    """Last components of the context managers: the walker's cheap pre-filter."""
    return frozenset(p.rsplit(".", 1)[-1] for p in _data()["context_managers"])


def aliases(path: str) -> List[str]:
    """The other names of the same torch object (torch.autocast for torch.amp.autocast)."""
    return list(_data()["aliases"].get(path, []))


def default_changes(path: str) -> List[Tuple[str, Any]]:
    """[(release, default from it), ...] of a setting whose default changed, oldest first."""
    e = _data()["defaults"].get(path)
    return [(v, d) for v, d in e["changes"]] if e else []
