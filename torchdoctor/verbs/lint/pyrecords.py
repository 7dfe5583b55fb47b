"""What the Python walker (pyscan) records: a Pos (a place in the file), an Event (a torch
setting stored, called or read, with its function, loop depth, branch and guard), CallArgs
(the literal arguments of a call), a Func (a function and its events); and the reading of
literal values (const, truthy) the rules share.

Events and functions hold positions and literal values, never syntax tree nodes: the walker
drops each top-level statement's tree once it has walked it (see pysource).
"""

import ast
import re
from ...model.records import field, record
from typing import Any, Dict, List, Optional, Tuple

_DET_CONTEXT = re.compile(r"(?i)seed|determinis|reproduc")


@record
class Pos:
    """A node's place: file lines and 1-based character columns (the end may be unknown)."""
    line: int
    col: int
    end_line: Optional[int] = None
    end_col: Optional[int] = None


@record
class CallArgs:
    """The literal values (or ...) of a call's first positional and its keyword arguments."""
    args: Tuple[Any, ...]
    keywords: Dict[str, Any]

    def flag(self, index: int, name: str) -> Any:
        if name in self.keywords:
            return self.keywords[name]
        return self.args[index] if len(self.args) > index else ...


def call_args(call: ast.Call, first: int = 3) -> CallArgs:
    return CallArgs(tuple(const(a) for a in call.args[:first]),
                    {kw.arg: const(kw.value) for kw in call.keywords if kw.arg is not None})


@record
class Event:
    kind: str          # store | call | load
    path: str
    value: Any         # store: the literal stored (or ...); call: its CallArgs; load: ...
    pos: Pos
    func: Optional["Func"]
    loop: int
    branch: Tuple[Tuple[int, str], ...]
    guarded: bool


@record
class Func:
    name: str
    doc: str
    is_def: bool                  # False for the module's own code
    events: List[Event] = field(default_factory=list)

    def claims_determinism(self) -> bool:
        return bool(_DET_CONTEXT.search(self.name) or _DET_CONTEXT.search(self.doc or ""))


def const(node) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
        return not node.operand.value
    return ...


def truthy(v) -> Optional[bool]:
    if v is ...:
        return None
    if isinstance(v, (bool, int)):
        return bool(v)
    return None
