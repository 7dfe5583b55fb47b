"""The API-history rules the Python walker applies to every torch attribute chain, import
and literal getattr: TD101 (not yet in a target release), TD102 (removed), TD103 (a
submodule `import torch` does not import there), TD201 (deprecated); and the exact
rewrites --fix may apply for them (torch.set_deterministic, sdp_kernel).

ApiRules is mixed into the walker (pyscan.Analyzer): it reads the walker's targets, guard
depth, imported modules and leaf names, and reports through its resolve(), pos() and _hit().
"""

import ast
from typing import Any, Dict, List, Optional

from . import rules as R
from .pyrecords import const

_SDP_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
_SDP_BACKEND = {"enable_flash": "FLASH_ATTENTION", "enable_mem_efficient": "EFFICIENT_ATTENTION",
                "enable_math": "MATH", "enable_cudnn": "CUDNN_ATTENTION"}
_SDP_ORDER = ("enable_flash", "enable_mem_efficient", "enable_math", "enable_cudnn")  # sdp_kernel's own order


class ApiRules:
    """TD101, TD102, TD103 and TD201 on the walker's paths; see the module doc."""

    def check_path(self, path: str, node: ast.AST, start: int = 2, call: Optional[ast.Call] = None,
                   via_import: bool = False) -> None:
        parts = path.split(".")
        if parts[0] != "torch":
            return
        if not via_import and not any(p in self.leaves for p in parts[start - 1:]):
            self._submodule(parts, node, start)
            return
        if self.guard:
            return
        for n in range(max(start, 2), len(parts) + 1):
            p = ".".join(parts[:n])
            miss = R.missing_in(p, self.targets)
            if miss:
                self._missing(p, miss, node, call if n == len(parts) else None)
                return
        if not via_import:
            self._submodule(parts, node, start)
            if call is None:
                return  # a deprecated name only referenced (`f is torch.cuda.amp.autocast`) warns nowhere
        for n in range(max(start, 2), len(parts) + 1):
            p = ".".join(parts[:n])
            dep = R.deprecated_in(p, self.targets)
            if dep:
                self._deprecated(p, dep, node, call if (n == len(parts) and isinstance(call, ast.Call)) else None)
                return

    def _missing(self, p: str, miss: Dict[str, Any], node: ast.AST, call: Optional[ast.Call] = None) -> None:
        e = miss["entry"]
        span = R.span(miss["versions"])
        repl = e.get("replacement")
        if miss["kind"] == "added":
            msg = "%s does not exist in torch %s of the target (first in %s)" % (p, span, miss["added"])
            code = "TD101"
        else:
            msg = "%s was removed in torch %s (the target includes %s)" % (p, miss["removed"], span)
            code = "TD102"
        if repl:
            msg += "; use %s" % repl
        # `call` is the decorator itself for `@torch.compile`: a use, with nothing to rewrite
        fix = self._fix_for(p, call) if isinstance(call, ast.Call) else None
        self._hit(code, node if call is None else call, msg, replacement=repl, fix=fix)

    def _deprecated(self, p: str, dep: Dict[str, Any], node: ast.AST, call: Optional[ast.Call]) -> None:
        e = dep["entry"]
        repl = e.get("replacement")
        msg = "%s is deprecated since torch %s" % (p, dep["deprecated"])
        if repl:
            msg += "; use %s" % repl
        fix = self._fix_for(p, call) if call is not None else None
        self._hit("TD201", node if call is None else call, msg, replacement=repl, fix=fix)

    def _submodule(self, parts: List[str], node: ast.AST, start: int) -> None:
        """TD103: torch.backends.opt_einsum.x through `import torch` on a torch that does not import it."""
        for n in range(max(start, 2), len(parts)):
            mod = ".".join(parts[:n])
            listed, since = R.imported_by_torch_from(mod)
            # every dotted prefix of what was imported is in `imported` too (visit_Import*): one lookup
            if not listed or mod in self.imported:
                continue
            if self.guard:
                return
            miss = R.missing_in(mod, self.targets)
            if miss:
                return  # TD101 says more
            early = [t for t in self.targets if since is None or t < since]
            if early:
                when = "any release" if since is None else "torch < %s" % R.fmt(since)
                self._hit("TD103", node, "%s is not imported by `import torch` in %s (the target includes %s): "
                          "add `import %s`" % (mod, when, R.fmt(early[0]), mod))
            return

    def _fix_for(self, path: str, call: ast.Call) -> Optional[Dict[str, Any]]:
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        if path in ("torch.set_deterministic", "torch.is_deterministic"):
            if not R.fix_allowed(path, self.targets) or self.resolve(func.value) != "torch":
                return None
            new = R.history(path)["replacement"].rsplit(".", 1)[1]
            p = self.pos(func)
            return {"kind": "rename_attr", "line": p.line, "col": p.col, "attr": func.attr, "new": new}
        if path == "torch.backends.cuda.sdp_kernel":
            if any(t < (2, 3) for t in self.targets):
                return None  # torch.nn.attention.sdpa_kernel is 2.3+
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
        return None
