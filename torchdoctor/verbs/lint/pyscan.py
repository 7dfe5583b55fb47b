"""The Python rules, on the standard library's ``ast``.

One pass over a module resolves the names bound to torch (``import torch as th``,
``import torch.backends.cudnn as cudnn``, ``from torch.backends import cuda``,
``tbc = torch.backends.cuda``), hands every attribute chain, import and literal ``getattr``
of a torch path to the rules called on a use (rules/: the API-history rules, TD1xx and
TD201), and records the settings it sees (cudnn flags, deterministic algorithms, TF32 flags)
with their place (function, loop, if-branch, guard) for the rules called on the whole file
afterwards (the settings rules, TD2xx-TD3xx).

Guarded code is not flagged for API existence or deprecation: the body and the else-branch
of an ``if``/``while``/conditional expression whose test uses ``hasattr``, a 3-argument
``getattr``, ``dir()``, a torch version (``torch.__version__``, ``packaging.version.parse(
torch.__version__)``, names assigned from it, names or calls that say "version" or
``TORCH_GREATER_EQUAL...``) or ``TYPE_CHECKING``; the rest of a block after
``if not hasattr(...): return``; a ``try`` whose handlers catch AttributeError, ImportError
or ModuleNotFoundError (body, handlers and else); ``with contextlib.suppress(...)`` of those.

This module is the walker: the Analyzer (names bound to torch, scopes, blocks, branches,
loops, imports, assignments, the settings events) and its entry points, `analyze_text` (a
file's text, its top-level statements parsed and walked a chunk at a time: see pysource)
and `analyze` (a tree already parsed); both return the rules' results (located.Located).
What a guard is: pyguards; what a rule is handed: uses.Use (one use) and pyevents.FileScan
(the file); what the walker records (Pos, Event, Func): pyrecords.
"""

import ast
import itertools
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from . import history as H
from . import pysource
from .located import Located, Place, call
from .pyevents import FileScan, reads as reads_event
from .pyguards import GUARD_WORDS, Guards
from .pyrecords import Event, Func, Pos, call_args, const
from .rules import on
from .uses import Use

USE_RULES = on("use")
# Misusing an API (calling a flag, testing an uncalled function) is wrong under a guard too.
UNGUARDED_USE_RULES = tuple(r for r in USE_RULES if r.options.get("despite_guards"))
FILE_RULES = on("file")


class Analyzer(Guards, ast.NodeVisitor):
    def __init__(self, targets: List[Tuple[int, int]], target_cuda: Optional[bool]):
        self.chunk: Optional[pysource.Chunk] = None   # the piece of the file being walked
        self.targets = targets
        self.target_cuda = target_cuda
        self.found: List[Located] = []
        self.scopes: List[Dict[str, Optional[str]]] = [{}]
        self.imported: set = set()
        self.version_names: set = set()
        self.guard = 0
        self.loop = 0
        self.branch: List[Tuple[int, str]] = []
        # A branch is named by a number, not id(node): the trees of walked chunks are freed
        # and a later node may get the same id.
        self.branch_ids = itertools.count()
        self.calls: Dict[int, ast.AST] = {}   # id(func node) -> its call, from visit_Call to visit_Attribute
        self.module_func = Func("<module>", "", False)
        self.funcs: List[Func] = [self.module_func]
        self.func_stack: List[Func] = [self.module_func]
        self.events: List[Event] = []
        self.leaves = H.leaf_names()
        self.guard_words = True  # False when the source has none of the words a guard needs
        # ids of the expressions whose truth an if/while/assert tests, while they are walked
        # (removed after: a freed node's id is reused, and the set stays small)
        self.truth_tested: set = set()

    # -- positions ------------------------------------------------------------------------
    def pos(self, node) -> Pos:
        """The node's place in the file (its chunk's lines are counted from the chunk)."""
        chunk = self.chunk
        line = node.lineno + chunk.line0
        end_line = getattr(node, "end_lineno", None)
        end_col = getattr(node, "end_col_offset", None)
        if end_line is None or end_col is None:
            return Pos(line, chunk.col(line, node.col_offset))
        end_line += chunk.line0
        return Pos(line, chunk.col(line, node.col_offset), end_line, chunk.col(end_line, end_col))

    # -- uses: what the rules called on a use are handed ---------------------------------------
    def check_path(self, path: str, node: ast.AST, start: int = 2, call: Optional[ast.AST] = None,
                   via_import: bool = False) -> None:
        """Hand one use of `path` to the rules (nothing under a guard: see pyguards)."""
        parts = path.split(".")
        if not H.tracked(path) or (self.guard and not UNGUARDED_USE_RULES):
            return
        known = via_import or any(p in self.leaves for p in parts[start - 1:])
        if not known and not H.below_lazy_module(parts):
            return
        use = Use(path, node, start, call, via_import, known, self)
        for r in (UNGUARDED_USE_RULES if self.guard else USE_RULES):
            self.found.extend(call_rule(r, use, self))

    # -- names ------------------------------------------------------------------------------
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

    # -- blocks ----------------------------------------------------------------------------------
    def visit(self, node):
        cls = node.__class__
        method = _DISPATCH.get(cls)
        if method is None:
            method = getattr(type(self), "visit_" + cls.__name__, None)
            method = _DISPATCH[cls] = method if method is not None else (
                _skip if issubclass(cls, _LEAVES) else type(self).generic_visit)
        return method(self, node)

    def generic_visit(self, node):
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None:
                continue
            if value.__class__ is list:
                if value and isinstance(value[0], ast.stmt):
                    self.block(value)
                else:
                    for item in value:
                        if isinstance(item, ast.AST):
                            self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def block(self, stmts: Iterable[ast.stmt]) -> None:
        """The statements in order; after `if not hasattr(...): return` the rest is guarded.
        `stmts` may be a stream (the module's, chunk after chunk)."""
        guarded = False
        for s in stmts:
            self.visit(s)
            if not guarded and isinstance(s, ast.If) and not s.orelse and s.body and \
                    isinstance(s.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)) and self.is_guard(s.test):
                guarded = True
                self.guard += 1
        if guarded:
            self.guard -= 1

    def module(self, chunks: Iterable[pysource.Chunk]) -> None:
        self.block(self._statements(chunks))

    def _statements(self, chunks: Iterable[pysource.Chunk]) -> Iterator[ast.stmt]:
        for chunk in chunks:
            self.chunk = chunk
            body, chunk.body = chunk.body, []
            body.reverse()
            while body:  # each statement's tree is freed once walked
                yield body.pop()

    def _branches(self, node, test, parts) -> None:
        g = self.is_guard(test) if test is not None else False
        if g:
            self.guard += 1
        if test is not None:
            self.truth_tested.add(id(test))
            self.visit(test)
            self.truth_tested.discard(id(test))
        bid = next(self.branch_ids)
        for label, body in parts:
            self.branch.append((bid, label))
            if isinstance(body, list):
                self.block(body)
            else:
                self.visit(body)
            self.branch.pop()
        if g:
            self.guard -= 1

    def visit_If(self, node):
        self._branches(node, node.test, [("body", node.body), ("orelse", node.orelse)])

    def visit_IfExp(self, node):
        self._branches(node, node.test, [("body", node.body), ("orelse", node.orelse)])

    def visit_While(self, node):
        self.loop += 1
        self._branches(node, node.test, [("body", node.body)])
        self.loop -= 1
        self.block(node.orelse)

    def visit_For(self, node):
        self.visit(node.target)
        self.visit(node.iter)
        self.loop += 1
        self.block(node.body)
        self.loop -= 1
        self.block(node.orelse)

    visit_AsyncFor = visit_For

    def visit_comprehension(self, node):
        self.loop += 1
        self.generic_visit(node)
        self.loop -= 1

    def visit_Try(self, node):
        g = any(self._catches(h) for h in node.handlers)
        if g:
            self.guard += 1
        self.block(node.body)
        bid = next(self.branch_ids)
        for h in node.handlers:
            self.branch.append((bid, "handler"))
            self.visit(h)
            self.branch.pop()
        self.block(node.orelse)
        if g:
            self.guard -= 1
        self.block(node.finalbody)

    visit_TryStar = visit_Try

    def visit_Assert(self, node):
        self.truth_tested.add(id(node.test))
        self.generic_visit(node)
        self.truth_tested.discard(id(node.test))

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not) and id(node) in self.truth_tested:
            self.truth_tested.add(id(node.operand))
            self.generic_visit(node)
            self.truth_tested.discard(id(node.operand))
        else:
            self.generic_visit(node)

    def visit_BoolOp(self, node):
        # `hasattr(x, "y") and x.y.z`: the operands after a guard are guarded
        g = 0
        tested = [id(v) for v in node.values] if id(node) in self.truth_tested else []
        self.truth_tested.update(tested)
        for v in node.values:
            self.visit(v)
            if not g and self.is_guard(v):
                g = 1
                self.guard += 1
        self.guard -= g
        self.truth_tested.difference_update(tested)

    def visit_With(self, node):
        g = any(self._is_suppress(item.context_expr) for item in node.items)
        for item in node.items:
            self.visit(item)
        if g:
            self.guard += 1
        self.block(node.body)
        if g:
            self.guard -= 1

    visit_AsyncWith = visit_With

    # -- scopes ------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            if isinstance(d, ast.Attribute):
                self.calls[id(d)] = d  # @torch.cuda.amp.custom_fwd is a use
            self.visit(d)
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        scope: Dict[str, Optional[str]] = {}
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
            scope[arg.arg] = None
        f = Func(node.name, ast.get_docstring(node, clean=False) or "", True)
        self.funcs.append(f)
        self.func_stack.append(f)
        self.scopes.append(scope)
        saved_loop, saved_branch = self.loop, self.branch
        self.loop, self.branch = 0, []
        self.block(node.body)
        self.loop, self.branch = saved_loop, saved_branch
        self.scopes.pop()
        self.func_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.visit(node.args)
        self.scopes.append({a.arg: None for a in node.args.args})
        self.visit(node.body)
        self.scopes.pop()

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases + node.keywords:
            self.visit(d)
        self.block(node.body)

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
            if not self.guard:
                before = len(self.found)
                self.check_path(full, node, start=len(parts) + 1, via_import=True)
                if hasattr(a, "lineno"):  # the imported name's own place (3.10+)
                    p = self.pos(a)
                    for loc in self.found[before:]:
                        loc.place = Place("", p.line, p.col, p.end_line, p.end_col)
            self.bind(a.asname or a.name, full)

    # -- expressions ---------------------------------------------------------------------------------------
    def visit_Attribute(self, node):
        call = self.calls.pop(id(node), None) if self.calls else None
        path = self.resolve(node)
        if path is None:
            self.generic_visit(node)
            return
        base = node
        while isinstance(base, ast.Attribute):
            base = base.value
        if isinstance(base, ast.Call):  # getattr(torch.backends, "mps").is_available
            for arg in base.args:
                self.visit(arg)
            start = self._base_len(base.args[0]) + 1 if base.args else 2
        else:
            start = self._base_len(node) + 1
        self.check_path(path, node, start=start, call=call)
        if isinstance(node.ctx, ast.Load):
            self._event("load", path, ..., node)

    def visit_Call(self, node):
        func = node.func
        if isinstance(func, ast.Name) and func.id in ("hasattr", "getattr") and node.args:
            if func.id == "getattr" and len(node.args) == 2 and self.resolve(node) is not None:
                path = self.resolve(node)
                self.visit(node.args[0])
                self.check_path(path, node, start=self._base_len(node.args[0]) + 1)
                return
            for a in node.args:
                self.visit(a)
            return
        path = self.resolve(func)
        if path is not None:
            if isinstance(func, ast.Attribute):
                self.calls[id(func)] = node  # visited next, by generic_visit: the attribute is called
            elif path.count(".") > 0:  # `from torch import qr; qr(a)`: each call is a use, as the import was
                self.check_path(path, func, start=path.count(".") + 1, call=node)
            self._event("call", path, node, node)
        self.generic_visit(node)

    def _targets(self, targets, value):
        for t in targets:
            if isinstance(t, (ast.Tuple, ast.List)):
                same = isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(t.elts)
                for i, elt in enumerate(t.elts):
                    self._targets([elt], value.elts[i] if same else None)
            elif isinstance(t, ast.Starred):
                self._targets([t.value], None)
            elif isinstance(t, ast.Attribute):
                path = self.resolve(t)
                if path:
                    self._event("store", path, const(value) if value is not None else ..., t)
                elif value is not None and self._capability(value):
                    self.version_names.add(t.attr)   # self.fused_attn = use_fused_attn()
            elif isinstance(t, ast.Name):
                p = self.resolve(value) if value is not None else None
                self.bind(t.id, p)
                if p is None and value is not None and self._capability(value):
                    self.version_names.add(t.id)

    def visit_Assign(self, node):
        self.visit(node.value)
        for t in node.targets:
            self.visit(t)
        self._targets(node.targets, node.value)

    def visit_AnnAssign(self, node):
        if node.value is not None:
            self.visit(node.value)
        self.visit(node.target)
        if node.value is not None:
            self._targets([node.target], node.value)

    def visit_AugAssign(self, node):
        self.visit(node.value)
        self.visit(node.target)

    # -- events ----------------------------------------------------------------------------------------------
    def _event(self, kind, path, value, node):
        if not path.startswith("torch.") or not reads_event(kind, path):
            return
        if kind == "call":
            value = call_args(value)
        e = Event(kind, path, value, self.pos(node), self.func_stack[-1], self.loop, tuple(self.branch), bool(self.guard))
        self.events.append(e)
        self.func_stack[-1].events.append(e)


def _skip(self, node) -> None:
    return None


# Nodes with nothing inside worth a visit (a bare Name is checked where it was bound).
_LEAVES = (ast.Constant, ast.Name, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.alias)
_DISPATCH: Dict[type, Any] = {}


def call_rule(r, use: Use, an: Analyzer) -> List[Located]:
    """One use rule on one use; a crash is placed at the use."""
    def where() -> Place:
        p = an.pos(use.node)
        return Place("", p.line, p.col)
    return call(r, use, where)


def analyze_text(text: str, targets, target_cuda) -> List[Located]:
    """The findings of a file's text, its statements parsed a chunk at a time; raises the
    parse error (SyntaxError and the like) of a text that does not parse."""
    return _run(text, pysource.chunks(text), targets, target_cuda)


def analyze(tree: ast.Module, source: Union[bytes, str], targets, target_cuda) -> List[Located]:
    """The findings of a module already parsed (`source`: its text)."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    return _run(text, [pysource.Chunk(list(tree.body), 0, text)], targets, target_cuda)


def _run(text: str, chunks: Iterable[pysource.Chunk], targets, target_cuda) -> List[Located]:
    an = Analyzer(targets, target_cuda)
    an.guard_words = any(w in text for w in GUARD_WORDS)
    an.module(chunks)
    scan = FileScan.of(an.events, an.funcs, targets, target_cuda, "CUBLAS_WORKSPACE_CONFIG" in text)
    for r in FILE_RULES:
        an.found.extend(call(r, scan))
    for f in an.funcs:  # no reference cycles left: the events go with the last reference
        f.events = []
    an.events, an.funcs, an.func_stack = [], [], []
    scan.events = scan.funcs = scan.stores = scan.calls = []
    return an.found
