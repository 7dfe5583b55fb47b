"""The torch API history, as data: when each API was added, deprecated and removed.

``data/api_history.json`` holds the history of torch APIs outside ``torch.backends`` and the
sources every rule and entry cites; the ``torch.backends`` history comes from
``kb/data/compat.json`` (the knowledge base's copy of the shared reference), read through
``torchdoctor.kb.compat``. Versions are compared as (major, minor): every release the
tables know is a minor release line.
"""

import functools
import json
import os
import re
from typing import Any, Dict, List, Optional, Tuple

from ...model import versions as V

_DATA = os.path.join(os.path.dirname(__file__), "data", "api_history.json")


@functools.lru_cache(maxsize=None)
def data() -> Dict[str, Any]:
    with open(_DATA, encoding="utf-8") as f:
        d = json.load(f)
    # a torchvision fact, kept in torchvision's own numbers, also as the torch it pairs with
    for e in list(d["apis"].values()) + [d["torchvision_legacy_weights"]]:
        for field, tv in (e.get("torchvision") or {}).items():
            e[field] = torch_for_torchvision(tv)
    return d


def torch_for_torchvision(tv: str) -> str:
    """The torch minor a torchvision series pairs with (0.13 -> 1.12), by kb/data/compat.json:
    a torchvision fact is kept in torchvision's own numbers, and the torch target decides."""
    from ...kb import compat
    torch = compat.torch_for_torchvision(tv)
    if not torch:
        raise ValueError("torchvision %s pairs with no torch release of kb/data/compat.json" % tv)
    return torch


def release_words(e: Dict[str, Any], field: str) -> str:
    """'torch 2.3', or 'torchvision 0.15 (torch 2.0)' for a torchvision fact."""
    tv = (e.get("torchvision") or {}).get(field)
    return "torchvision %s (torch %s)" % (tv, e[field]) if tv else "torch %s" % e[field]


def source_text(key: Optional[str]) -> Optional[str]:
    """Citation of a 'KEY+KEY' source (api_history.json's sources; compat keys are cited by compat.source)."""
    if not key:
        return None
    sources = data()["_meta"]["sources"]
    parts = [p for p in key.split("+") if p]
    if all(p in sources for p in parts):
        return "; ".join(sources[p] for p in parts)
    from ...kb import compat
    return compat.source(key) or key


def mt(version: Any) -> Optional[Tuple[int, int]]:
    """(major, minor) of '2.13', '2.13.0+cpu', '<=1.11 (...)'; None when it does not parse."""
    if version is None:
        return None
    text = str(version).strip().lstrip("<=").split()[0] if str(version).strip() else ""
    return V.minor_tuple(text)


def fmt(t: Tuple[int, int]) -> str:
    return "%d.%d" % t


def span(ts: List[Tuple[int, int]]) -> str:
    """'2.1' or '2.1 ... 2.5' for a list of release lines."""
    if not ts:
        return "(none)"
    return fmt(ts[0]) if len(ts) == 1 else "%s ... %s" % (fmt(ts[0]), fmt(ts[-1]))


@functools.lru_cache(maxsize=None)
def _history() -> Dict[str, Dict[str, Any]]:
    """dotted path -> {added, added_or_earlier, deprecated, removed, replacement, fix, ...}."""
    from ...kb import compat
    out: Dict[str, Dict[str, Any]] = {}
    for path in compat.backend_paths():
        e = compat.backend_api(path) or {}
        out[path] = {"added": e.get("added"), "added_or_earlier": bool(e.get("added_or_earlier")),
                     "deprecated": e.get("deprecated"), "removed": e.get("removed"),
                     "replacement": e.get("replacement"), "note": e.get("note"),
                     "source": e.get("source"), "origin": "compat"}
    for path, e in data()["apis"].items():
        merged = dict(out.get(path, {}))
        merged.update(e)
        merged.setdefault("origin", "rules")
        out[path] = merged
    # Soft deprecations of the legacy TF32 flags (2.9) are TD202/TD203's business, not
    # TD201's: the flags still work in every release, without a warning.
    for path in ("torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32"):
        if path in out:
            out[path] = dict(out[path], deprecated=None)
    return out


def history(path: str) -> Optional[Dict[str, Any]]:
    return _history().get(path)


def known_paths() -> List[str]:
    return list(_history())


@functools.lru_cache(maxsize=None)
def roots() -> frozenset:
    """The top-level packages the history names (torch, functorch): the imports the walker follows."""
    return frozenset(p.split(".", 1)[0] for p in _history())


def tracked(module: str) -> bool:
    """Whether `module` (a dotted import name) lies under one of the history's packages."""
    return module.split(".", 1)[0] in roots()


@functools.lru_cache(maxsize=None)
def leaf_names() -> frozenset:
    """Last components of every known path: a cheap pre-filter for attribute chains."""
    return frozenset([p.rsplit(".", 1)[-1] for p in _history()] + list(legacy_weights()["builders"]))


def legacy_weights() -> Dict[str, Any]:
    """torchvision's model builders that take the legacy pretrained= / pretrained_backbone=
    (deprecated in favour of weights= / weights_backbone=), with the torch the deprecation
    pairs with in "deprecated"."""
    return data()["torchvision_legacy_weights"]


def imported_by_torch_from(module: str) -> Tuple[bool, Optional[Tuple[int, int]]]:
    """(listed, first release whose `import torch` imports it; None = never)."""
    e = data()["imported_by_torch"]
    if module in e["from"]:
        v = e["from"][module]
        return True, (mt(v) if v else None)
    if module in data()["apis"] and data()["apis"][module].get("imported_by_torch_from"):
        return True, mt(data()["apis"][module]["imported_by_torch_from"])
    return False, None


@functools.lru_cache(maxsize=None)
def _lazy_roots() -> frozenset:
    mods = list(data()["imported_by_torch"]["from"]) + [p for p, e in data()["apis"].items()
                                                         if e.get("imported_by_torch_from")]
    return frozenset(m.split(".")[1] for m in mods)


def below_lazy_module(parts: List[str]) -> bool:
    """Whether a torch path may pass through a module that `import torch` does not import
    in every release (torch.backends.*, torch.mps): the walker's cheap test before it hands
    a path the API history does not name to the rules."""
    return len(parts) > 2 and parts[1] in _lazy_roots()


def missing_in(path: str, targets: List[Tuple[int, int]]) -> Optional[Dict[str, Any]]:
    """Why `path` does not exist in some of `targets` (minor tuples), or None.

    {"kind": "added"|"removed", "versions": [...], "added": "2.3", "removed": ..., "last": ...}.
    An entry marked added_or_earlier is never "not yet added": older releases are unknown.
    """
    m = _missing(path, targets)
    return dict(m, entry=_advised(path, m["entry"], targets)) if m else None


def lifetime(e: Dict[str, Any]) -> Tuple[Optional[Tuple[int, int]], Optional[Tuple[int, int]]]:
    """(first release that has it, first release without it again) of a history entry; None
    where unknown, or for "added" when older releases were not sampled (added_or_earlier)."""
    added = mt(e.get("added")) if e.get("added") and not e.get("added_or_earlier") else None
    removed = mt(e.get("removed")) if e.get("removed") and "not removed" not in str(e.get("removed")) else None
    return added, removed


def _missing(path: str, targets: List[Tuple[int, int]]) -> Optional[Dict[str, Any]]:
    e = _history().get(path)
    if not e or not targets:
        return None
    added, removed = lifetime(e)
    if removed:
        gone = [t for t in targets if t >= removed]
        if gone:
            return {"kind": "removed", "versions": gone, "removed": fmt(removed), "entry": e}
    if added:
        early = [t for t in targets if t < added]
        if early:
            return {"kind": "added", "versions": early, "added": fmt(added), "entry": e}
    return None


def deprecated_in(path: str, targets: List[Tuple[int, int]]) -> Optional[Dict[str, Any]]:
    """The deprecation of `path` if some target release already warns (and still has it)."""
    e = _history().get(path)
    dep = mt(e.get("deprecated")) if e and e.get("deprecated") else None
    if not dep:
        return None
    removed = lifetime(e)[1]
    hit = [t for t in targets if t >= dep and (removed is None or t < removed)]
    if not hit:
        return None
    # "or earlier": the oldest release sampled already warns (torch.range, torch.ger)
    words = release_words(e, "deprecated") + (" or earlier" if e.get("deprecated_or_earlier") else "")
    # the entry as it is: TD201 words a replacement some target lacks itself (with an alias
    # valid everywhere, when there is one)
    return {"since": words, "versions": hit, "entry": e}


_LEADING_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")


def _advised(path: str, e: Dict[str, Any], targets: List[Tuple[int, int]]) -> Dict[str, Any]:
    """The entry, its replacement advice made valid for every target: a replacement some
    target release lacks (torch.linalg.lu_factor before 1.11, torch.func before 2.0) is
    named with the releases where the old spelling must stay."""
    gap = replacement_missing(path, targets)
    if not gap:
        return e
    return dict(e, replacement="%s (torch %s+; the target includes %s: keep %s there)" % (
        e.get("replacement"), gap[1]["added"], span(gap[1]["versions"]), path))


def replacement_missing(path: str, targets: List[Tuple[int, int]]) -> Optional[Tuple[str, Dict[str, Any]]]:
    """(the replacement's own path, why it is missing) when the replacement the entry of `path`
    names is not yet in some of `targets`, else None. The youngest part of its path decides:
    torch.amp is 1.12, torch.amp.GradScaler 2.3; torch.func.vmap is torch.func's 2.0."""
    new = replacement_path(path)
    if not new:
        return None
    parts = new.split(".")
    gaps = [g for g in (_missing(".".join(parts[:n]), targets) for n in range(2, len(parts) + 1))
            if g and g["kind"] == "added"]
    return (new, max(gaps, key=lambda g: mt(g["added"]))) if gaps else None


def replacement_path(path: str) -> Optional[str]:
    """The dotted path the replacement of `path` starts with (torch.amp.GradScaler of
    'torch.amp.GradScaler("cuda", ...)'), or None."""
    m = _LEADING_PATH.match((_history().get(path) or {}).get("replacement") or "")
    return m.group(0) if m else None


def fix_allowed(path: str, targets: List[Tuple[int, int]]) -> bool:
    """Whether the entry's rewrite is valid for every target (its replacement exists there)."""
    e = _history().get(path) or {}
    floor = mt(e.get("fix_min"))
    return bool(e.get("fix")) and (floor is None or all(t >= floor for t in targets))


def versions_named() -> List[Tuple[str, str, str]]:
    """(where, field, version) of every version the API history names: for the cross-check test."""
    out = []
    for path, e in data()["apis"].items():
        for f in ("added", "deprecated", "removed", "fix_min", "imported_by_torch_from"):
            if e.get(f):
                out.append((path, f, e[f]))
    for mod, v in data()["imported_by_torch"]["from"].items():
        if v:
            out.append((mod, "imported_by_torch_from", v))
    return out
