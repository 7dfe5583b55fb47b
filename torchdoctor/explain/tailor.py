"""Tailoring hooks: a known error plus this machine's facts -> the exact fix.

A knowledge-base entry names its hook in "tailor"; the hook, a function in
one of the explain/hooks/*.py modules decorated with @hook("name"), returns a
Tailored (any field left None keeps the entry's text) or None when the facts
say nothing useful. Hooks never raise into the user's face: explain() catches
and falls back to the entry's generic fix.
"""

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional

from ..checks import _facts as F
from ..facts import Facts

HOOKS: Dict[str, Callable] = {}


@dataclass
class Tailored:
    summary: Optional[str] = None
    commands: Optional[List[str]] = None
    cause: Optional[str] = None  # appended to the entry's cause
    notes: List[str] = field(default_factory=list)  # the facts used, for "why we think so"


def hook(name: str):
    def deco(fn):
        if name in HOOKS and HOOKS[name] is not fn:
            raise ValueError("tailoring hook %r is defined twice (%s and %s)" % (name, HOOKS[name].__module__, fn.__module__))
        HOOKS[name] = fn
        return fn
    return deco


def installed_torch_note(facts: Facts) -> List[str]:
    v = F.torch_version_str(facts)
    if not v:
        return ["torch is not installed in %s" % facts.value("python.executable", "this Python")]
    loc = facts.value("packages.installed.torch.location")
    return ["installed torch: %s%s" % (v, " (%s)" % loc if loc else "")]


_loaded = False


def hooks() -> Dict[str, Callable]:
    global _loaded
    if not _loaded:
        from . import hooks as pkg
        for mod in pkgutil.iter_modules(pkg.__path__):
            importlib.import_module(pkg.__name__ + "." + mod.name)
        _loaded = True
    return HOOKS
