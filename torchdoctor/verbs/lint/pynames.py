"""The names a Python file binds to torch paths, for the walker (pyscan.Analyzer): its scopes
(a stack of dicts, name -> dotted torch path or None), and the resolution of an attribute
chain or a literal getattr to the torch path it stands for (`cudnn.benchmark` after
`import torch.backends.cudnn as cudnn` -> torch.backends.cudnn.benchmark).

The imports are here too, as they are what binds a name to a torch module: each imported torch
path is also a use the walker hands to the rules (`check_path`), and `imported` records the
modules the file imports.

Names is mixed into the walker: it reads and writes the walker's `scopes`, `meanings` (a
parameter's) and `imported`, and calls its `check_path` and `pos`.
"""

import ast
from typing import Optional

from . import history as H
from .located import Place


class Names:
    """Scopes and resolution; see the module doc."""

    def lookup(self, name: str) -> Optional[str]:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def enter_scope(self, a: ast.arguments) -> None:
        """A function's or lambda's parameters: they name nothing imported, and a parameter
        means nothing as a guard (the walker's `meanings`), whatever its name."""
        params = [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]]
        self.scopes.append(dict.fromkeys(params))
        self.meanings.append(dict.fromkeys(params))

    def exit_scope(self) -> None:
        self.meanings.pop()
        self.scopes.pop()

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

    # -- imports --------------------------------------------------------------------------------------
    def visit_Import(self, node):
        for a in node.names:
            name = a.name
            if not H.tracked(name):
                if a.asname:
                    self.bind(a.asname, None)
                continue
            parts = name.split(".")
            for n in range(1, len(parts) + 1):
                self.imported.add(".".join(parts[:n]))
            self.check_path(name, node, via_import=True)
            if a.asname:
                self.bind(a.asname, name)
            else:
                self.bind(parts[0], parts[0])

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or not H.tracked(mod):
            for a in node.names:
                self.bind(a.asname or a.name, None)
            return
        parts = mod.split(".")
        for n in range(1, len(parts) + 1):
            self.imported.add(".".join(parts[:n]))
        self.check_path(mod, node, via_import=True)
        for a in node.names:
            if a.name == "*":
                continue
            full = mod + "." + a.name
            self.imported.add(full)
            before, hidden = len(self.found), len(self.suppressed)
            self.check_path(full, node, start=len(parts) + 1, via_import=True)
            if hasattr(a, "lineno"):  # the imported name's own place (3.10+)
                p = self.pos(a)
                for loc in self.found[before:] + self.suppressed[hidden:]:
                    loc.place = Place("", p.line, p.col, p.end_line, p.end_col)
            name = a.asname or a.name
            prior = self.lookup(name)
            if prior and prior != full and any(g.kind == "all" for g in self.guards):
                # `try: from torch import vmap / except ImportError: from functorch import vmap`:
                # the name is torch's where torch has it and the fallback's elsewhere, so a use
                # of it is neither's for certain
                self.scopes[-1][name] = None
            else:
                self.bind(name, full)
