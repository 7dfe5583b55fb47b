"""The names a Python file binds to torch paths, for the walker (pyscan.Analyzer): its scopes
(a stack of dicts, name -> dotted torch path or None), and the resolution of an attribute
chain or a literal getattr to the torch path it stands for (`cudnn.benchmark` after
`import torch.backends.cudnn as cudnn` -> torch.backends.cudnn.benchmark).

Names is mixed into the walker: it reads and writes the walker's `scopes`.
"""

import ast
from typing import Optional


class Names:
    """Scopes and resolution; see the module doc."""

    def lookup(self, name: str) -> Optional[str]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def bind(self, name: str, path: Optional[str]) -> None:
        scope = self.scopes[-1]
        if path is None and len(self.scopes) == 1 and scope.get(name):
            return  # `except ImportError: torch = None` must not unbind torch at module level
        scope[name] = path

    def resolve(self, node) -> Optional[str]:
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name):
            base = self.lookup(node.id)
            if base is None:
                return None
            return ".".join([base] + parts[::-1])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr" \
                and len(node.args) == 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
            base = self.resolve(node.args[0])
            return ".".join([base, node.args[1].value] + parts[::-1]) if base else None
        return None

    def _base_len(self, node) -> int:
        """Number of dotted parts the chain's root name already stands for."""
        while isinstance(node, ast.Attribute):
            node = node.value
        if isinstance(node, ast.Name):
            b = self.lookup(node.id)
            return len(b.split(".")) if b else 0
        return 0
