"""What counts as a guard for the Python walker (see pyscan's module doc): a test that
checks for an API or a torch version (hasattr, 3-argument getattr, dir(), version names
and calls, capability flags, TYPE_CHECKING), a handler that catches AttributeError or
ImportError, contextlib.suppress of those, and assigned values that say a feature is there.

Guards is mixed into the walker (pyscan.Analyzer): it reads the walker's guard depth,
the names it knows hold versions or capabilities, and its resolve().
"""

import ast
import re

_GUARD_EXC = {"AttributeError", "ImportError", "ModuleNotFoundError"}
_VERSION_NAME = re.compile(r"(?i)version|(?:^|_)(?:pt|torch|th)_?(?:ver|v)(?:$|_|\d)|"
                           r"torch_?(?:greater|less|newer|older|at_?least|before|after|ge|gt|le|lt|eq)(?:$|_|\d)|"
                           r"(?:greater|less)_?(?:than_?|equal_?|or_?equal_?)*(?:_?to)?_?(?:torch|pt)|is_torch_")
# A source without any of these holds no guard: analyze() then skips the guard tests.
GUARD_WORDS = ("hasattr", "getattr", "dir(", "ersion", "ERSION", "TYPE_CHECKING", "TORCH_", "torch_",
               "_pt_", "PT_", "is_torch", "has_", "HAS_", "vailable", "VAILABLE", "use_", "is_",
               "supports", "can_")
# Flags that say a feature is there: `_HAS_FUSED_ATTN = hasattr(...)`, `has_dynamo`, `*_available`
_CAPABILITY_NAME = re.compile(r"^_?(?:has|HAS)_|(?:available|AVAILABLE)$")
_CAPABILITY_CALL = re.compile(r"^_?(?:use|has|is|supports?|can)_")


class Guards:
    """The guard tests of the walker; see the module doc."""

    def _mentions_version(self, node) -> bool:
        if isinstance(node, ast.Attribute):
            if node.attr in ("__version__", "TORCH_VERSION") or node.attr in self.version_names or \
                    _VERSION_NAME.search(node.attr) or _CAPABILITY_NAME.search(node.attr):
                return True
            p = self.resolve(node)
            return bool(p and p.startswith("torch.version"))
        if isinstance(node, ast.Name):
            return node.id in self.version_names or bool(_VERSION_NAME.search(node.id) or _CAPABILITY_NAME.search(node.id))
        return False

    def is_guard(self, test) -> bool:
        """Whether a test expression checks for an API or a version (see the module doc)."""
        if not self.guard_words:
            return False
        stack = [test]
        while stack:
            n = stack.pop()
            c = n.__class__
            if c is ast.Call:
                f = n.func
                if f.__class__ is ast.Name and (f.id in ("hasattr", "dir") or (f.id == "getattr" and len(n.args) == 3)):
                    return True
                stack.append(f)
                stack.extend(n.args)
            elif c is ast.Name:
                if n.id == "TYPE_CHECKING" or self._mentions_version(n):
                    return True
            elif c is ast.Attribute:
                if n.attr == "TYPE_CHECKING" or self._mentions_version(n):
                    return True
                stack.append(n.value)
            elif c is ast.BoolOp:
                stack.extend(n.values)
            elif c is ast.UnaryOp:
                stack.append(n.operand)
            elif c is ast.Compare:
                stack.append(n.left)
                stack.extend(n.comparators)
            elif c is ast.Subscript:
                stack.append(n.value)
        return False

    def _catches(self, handler: ast.ExceptHandler) -> bool:
        t = handler.type
        names = t.elts if isinstance(t, ast.Tuple) else [t] if t is not None else []
        return any(getattr(n, "id", getattr(n, "attr", None)) in _GUARD_EXC for n in names)

    def _is_suppress(self, expr) -> bool:
        if not (isinstance(expr, ast.Call) and getattr(expr.func, "id", getattr(expr.func, "attr", "")) == "suppress"):
            return False
        return any(getattr(a, "id", getattr(a, "attr", None)) in _GUARD_EXC | {"Exception"} for a in expr.args)

    def _capability(self, value) -> bool:
        """Whether an assigned value says whether a feature or version is there."""
        if not self.guard_words:
            return False
        if isinstance(value, ast.Constant) and isinstance(value.value, bool):
            return bool(self.guard)   # `has_dynamo = True` inside try/except ImportError
        if isinstance(value, ast.Call):
            f = value.func
            name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if _CAPABILITY_CALL.search(name):
                return True
        return self.is_guard(value)
