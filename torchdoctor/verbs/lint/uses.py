"""What the Python walker hands the API rules (rules/td1xx, td201): one reference to a torch
path, a `Use` (an attribute chain, an import, a literal getattr, a call of a name bound to
a torch path), with what several rules ask of it computed once: the first dotted prefix a
target release lacks (`miss`), and the exact rewrites --fix may apply (`edit_for`).

A Use reads the walker through its public face only: `imported` (the modules the file
imports), `truth_tested` and `discarded` (ids of the expressions an if/while/assert tests and
of the calls that are whole statements), `pos(node)` and `resolve(node)`. Its `targets` are
the releases of the target that can reach it: a torch version guard above it lets only some
through (pyguards).
"""

import ast
from typing import Any, Dict, Iterator, List, Optional, Tuple

from . import history as H
from .pyrecords import Pos, const

_SDP_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
_SDP_BACKEND = {"enable_flash": "FLASH_ATTENTION", "enable_mem_efficient": "EFFICIENT_ATTENTION",
                "enable_math": "MATH", "enable_cudnn": "CUDNN_ATTENTION"}
_SDP_ORDER = ("enable_flash", "enable_mem_efficient", "enable_math", "enable_cudnn")  # sdp_kernel's own order
_UNSET = object()


class Use:
    """One reference to `path` at `node`. `start`: the number of parts the user wrote
    beyond those the root name stands for, counted as in `path.split('.')` (the first part
    the file names itself is parts[start - 1]); `call`: the call of the full path (or the
    decorator it is: a use with nothing to rewrite); `known`: whether the API history names
    any part the file wrote (the rules about API history look no further otherwise);
    `targets`: the target releases that can run it."""

    __slots__ = ("path", "parts", "node", "start", "call", "via_import", "known", "walk", "targets", "_miss")

    def __init__(self, path: str, node: ast.AST, start: int, call: Optional[ast.AST], via_import: bool,
                 known: bool, walk: Any, targets: List[Tuple[int, int]]):
        self.path, self.parts, self.node, self.start = path, path.split("."), node, start
        self.call, self.via_import, self.known, self.walk = call, via_import, known, walk
        self.targets = targets
        self._miss: Any = _UNSET

    def at_issue(self) -> List[str]:
        """The paths a missing-API finding is about: the prefix missing in a target, else
        every prefix the file wrote (a guard that names one of them protects the use)."""
        m = self.miss()
        return [m[0]] if m else [p for p, _ in self.prefixes()]

    @property
    def truth_tested(self) -> bool:
        """Whether an if/while/assert tests this expression's truth (itself, or as an operand
        of and/or/not there)."""
        return id(self.node) in self.walk.truth_tested

    @property
    def discarded(self) -> bool:
        """Whether this use's call is a whole expression statement: its value is dropped."""
        return self.call is not None and id(self.call) in self.walk.discarded

    def pos(self, node: Optional[ast.AST] = None) -> Pos:
        return self.walk.pos(self.node if node is None else node)

    def prefixes(self) -> Iterator[Tuple[str, bool]]:
        """(dotted prefix, whether it is the whole path) from the first the file wrote."""
        n_parts = len(self.parts)
        for n in range(max(self.start, 2), n_parts + 1):
            yield ".".join(self.parts[:n]), n == n_parts

    def miss(self) -> Optional[Tuple[str, bool, Dict[str, Any]]]:
        """(prefix, whole path?, why) of the first prefix some target release does not have
        (history.missing_in), or None; computed once for every rule that asks. Of prefixes
        not yet added, the one missing from the most targets: torch.amp.GradScaler (2.3)
        rather than torch.amp (1.12)."""
        if self._miss is _UNSET:
            self._miss = None
            if self.known:
                for p, whole in self.prefixes():
                    m = H.missing_in(p, self.targets)
                    if not m:
                        continue
                    if self._miss is None:
                        self._miss = (p, whole, m)
                    elif m["kind"] == "added" and len(m["versions"]) > len(self._miss[2]["versions"]):
                        self._miss = (p, whole, m)
                    if self._miss[2]["kind"] == "removed":
                        break
        return self._miss

    def deprecation(self) -> Optional[Tuple[str, bool, Dict[str, Any]]]:
        """(prefix, whole path?, deprecation) of the first deprecated prefix a target warns about."""
        if not self.known:
            return None
        for p, whole in self.prefixes():
            d = H.deprecated_in(p, self.targets)
            if d:
                return p, whole, d
        return None

    def edit_for(self, path: str) -> Optional[Dict[str, Any]]:
        """The exact rewrite of a call of `path` (this use's own call), or None."""
        call = self.call
        if not isinstance(call, ast.Call):
            return None
        func = call.func
        if path == "torch.backends.cuda.sdp_kernel":   # the call is rewritten whole: any callee form
            return self._sdp_edit(call)
        if not isinstance(func, ast.Attribute):
            return None
        if path in ("torch.set_deterministic", "torch.is_deterministic"):
            if not H.fix_allowed(path, self.targets) or self.walk.resolve(func.value) != "torch":
                return None
            new = H.history(path)["replacement"].rsplit(".", 1)[1]
            p = self.pos(func)
            return {"kind": "rename_attr", "line": p.line, "col": p.col, "attr": func.attr, "new": new}
        return None

    def _sdp_edit(self, call: ast.Call) -> Optional[Dict[str, Any]]:
        # torch.nn.attention.sdpa_kernel is 2.3+, and the rewrite imports it at the top of the
        # module, where every release of the target runs it: a version guard around the call
        # does not protect the import
        if H.replacement_missing("torch.backends.cuda.sdp_kernel", self.walk.targets):
            return None
        flags = dict.fromkeys(_SDP_FLAGS, True)
        if len(call.args) > 4 or any(isinstance(a, ast.Starred) for a in call.args):
            return None
        for name, arg in zip(_SDP_FLAGS, call.args):
            v = const(arg)
            if not isinstance(v, bool):
                return None
            flags[name] = v
        for kw in call.keywords:
            v = const(kw.value)
            if kw.arg not in _SDP_FLAGS or not isinstance(v, bool):
                return None
            flags[kw.arg] = v
        backends = [_SDP_BACKEND[f] for f in _SDP_ORDER if flags[f]]
        p = self.pos(call)
        return {"kind": "sdp_kernel", "line": p.line, "col": p.col, "backends": backends}
