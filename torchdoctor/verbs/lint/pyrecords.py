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
from typing import Any, Dict, FrozenSet, List, Optional, Tuple

from .pysource import lines_containing

DET_WORDS = ("seed", "determinis", "reproduc")
DET_CONTEXT = re.compile("(?i)" + "|".join(DET_WORDS))


def mentions_determinism(text: str) -> bool:
    """Whether DET_CONTEXT can match anywhere in `text`: plain substring tests of the casefolded
    text (a case-insensitive regex has no literal fast path over a whole file)."""
    folded = text.casefold()
    return any(w in folded for w in DET_WORDS)


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
    """The literal arguments; a `**mapping` argument is kept as the keyword "**" (its keys are unknown)."""
    return CallArgs(tuple(const(a) for a in call.args[:first]),
                    {kw.arg if kw.arg is not None else "**": const(kw.value) for kw in call.keywords})


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
    claimed: bool = False   # under an if whose test names determinism (`if cfg.deterministic:`)


@record
class Func:
    name: str
    doc: str
    is_def: bool                  # False for the module's own code
    events: List[Event] = field(default_factory=list)

    def claims_determinism(self) -> bool:
        return bool(DET_CONTEXT.search(self.name) or DET_CONTEXT.search(self.doc or ""))


def names_determinism(test: ast.AST) -> bool:
    """Whether an if-test names determinism, seeding or reproducibility: a name, an attribute
    or a string key (`args.deterministic`, `cfg["reproducible"]`, `seed is not None`)."""
    for n in ast.walk(test):
        word = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else \
            n.value if isinstance(n, ast.Constant) and isinstance(n.value, str) else None
        if word and DET_CONTEXT.search(word):
            return True
    return False


def comment_claims(text: str) -> FrozenSet[int]:
    """The lines (1-based) whose comment names determinism, seeding or reproducibility."""
    return frozenset(n for n, line in lines_containing(text, ("#",))
                     if DET_CONTEXT.search(line, line.index("#")))


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
