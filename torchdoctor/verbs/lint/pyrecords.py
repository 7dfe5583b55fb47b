"""What the Python walker (pyscan) records: a Hit (one finding at a place, with its fix),
an Event (a torch setting stored, called or read, with its function, loop depth, branch
and guard), a Func (a function and its events); and the reading of literal values
(const, truthy) the rules share.
"""

import ast
import re
from ...model.records import field, record
from typing import Any, Dict, List, Optional, Tuple

_DET_CONTEXT = re.compile(r"(?i)seed|determinis|reproduc")


@record
class Hit:
    code: str
    line: int
    col: int                      # 1-based, in characters
    message: str
    end_line: Optional[int] = None
    end_col: Optional[int] = None
    fix: Optional[Dict[str, Any]] = None
    replacement: Optional[str] = None
    needs_absent: Optional[str] = None   # dropped if any scanned file mentions this text


@record
class Event:
    kind: str          # store | call | load
    path: str
    value: Any
    node: ast.AST
    func: Optional["Func"]
    loop: int
    branch: Tuple[Tuple[int, str], ...]
    guarded: bool


@record
class Func:
    name: str
    doc: str
    node: Optional[ast.AST]
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
