"""The Python rules, on the standard library's ``ast``.

One pass over a module resolves the names bound to torch (``import torch as th``,
``import torch.backends.cudnn as cudnn``, ``from torch.backends import cuda``,
``tbc = torch.backends.cuda``), hands every attribute chain, import and literal ``getattr``
of a torch path to the rules called on a use (rules/: the API-history rules, TD1xx and
TD201), and records the settings it sees (cudnn flags, deterministic algorithms, TF32 flags)
with their place (function, loop, if-branch, guard) for the rules called on the whole file
afterwards (the settings rules, TD2xx-TD3xx).

A guard hides the findings it is about (pyguards says which tests are guards and what each
hides). Where they hold: the body of an ``if``/``while``/conditional expression (what its test
says when true), its else-branch (when false), the operands of and/or after the one tested,
the rest of a block after ``if not hasattr(...): return`` (or ``raise``, ``pytest.skip()``)
and after ``assert <test>``, a function or class under ``@pytest.mark.skipif(not <test>)``
(``unittest.skipIf``/``skipUnless``), a ``try`` whose handlers catch AttributeError or
ImportError (its body and handlers), ``with contextlib.suppress(...)`` of those. What a guard
hid is kept, with the guard, for ``--show-suppressed``.

This module is the walker: the Analyzer (names bound to torch, scopes, blocks, branches,
loops, imports, assignments, the settings events) and its entry points, `analyze_text` (a
file's text, its top-level statements parsed and walked a chunk at a time: see pysource)
and `analyze` (a tree already parsed); both return the rules' results (located.Located).
What a guard is: pyguards; the names bound to torch paths and the imports that bind them:
pynames; what a rule is handed: uses.Use (one use) and pyevents.FileScan (the file); what the
walker records (Pos, Event, Func): pyrecords.
"""

import ast
import itertools
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple, Union

from . import api_kinds as K
from . import history as H
from . import pysource
from .located import Located, Place, call
from .pyevents import FileScan, reads as reads_event
from .pyguards import GUARD_WORDS, NOTHING, Guard, Guards, exits, other_side_of_flag
from .pynames import Names
from .pyrecords import Event, Func, Pos, call_args, comment_claims, const, mentions_determinism, names_determinism
from .rules import on
from .uses import Use

USE_RULES = on("use")
# Misusing an API (calling a flag, testing an uncalled function) is wrong under a guard too.
UNGUARDED_USE_RULES = tuple(r for r in USE_RULES if r.options.get("despite_guards"))
FILE_RULES = on("file")


class Analyzer(Guards, Names, ast.NodeVisitor):
    def __init__(self, targets: List[Tuple[int, int]], target_cuda: Optional[bool], want_suppressed: bool = False):
        self.chunk: Optional[pysource.Chunk] = None   # the piece of the file being walked
        self.targets = targets
        self.target_cuda = target_cuda
        self.found: List[Located] = []
        self.scopes: List[Dict[str, Optional[str]]] = [{}]
        self.imported: set = set()
        # what names and attributes assigned from a guard or the torch version hold (pyguards)
        self.meanings: List[Dict[str, Optional[tuple]]] = [{}]
        self.attr_meanings: Dict[str, Optional[tuple]] = {}
        self.guards: List[Guard] = []   # the guards that hold here, outermost first
        self.try_depth = 0              # inside the body of a try that catches ImportError/AttributeError
        self.want_suppressed = want_suppressed
        self.suppressed: List[Located] = []   # what guards hid, each with its guard (--show-suppressed)
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
        self.leaves = H.leaf_names() | K.leaf_names()
        self.guard_words = True  # False when the source has none of the words a guard needs
        # ids of the expressions whose truth an if/while/assert tests, while they are walked
        # (removed after: a freed node's id is reused, and the set stays small)
        self.truth_tested: set = set()
        self.claimed = 0          # depth of if-branches whose test names determinism
        self.det_words = True     # False when the source names no determinism at all
        # ids of the calls that are whole expression statements (their value is dropped), while walked
        self.discarded: set = set()

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
        """Hand one use of `path` to the rules; what a guard hides goes to `suppressed`."""
        parts = path.split(".")
        if not H.tracked(path):
            return
        known = via_import or any(p in self.leaves for p in parts[start - 1:])
        if not known and not H.below_lazy_module(parts):
            return
        if not self.guards:
            use = Use(path, node, start, call, via_import, known, self, self.targets)
            for r in USE_RULES:
                self.found.extend(call_rule(r, use, self))
            return
        if not self.want_suppressed and any(g.kind == "all" for g in self.guards):
            rules = UNGUARDED_USE_RULES   # everything else is hidden here: not worth asking
        else:
            rules = USE_RULES
        bounds = [g for g in self.guards if g.spans is not None]
        reach = [t for t in self.targets if all(g.allows(t) for g in bounds)] if bounds else self.targets
        use = Use(path, node, start, call, via_import, known, self, reach)
        seen = set()
        for r in rules:
            for loc in call_rule(r, use, self):
                seen.add((loc.code, loc.line, loc.col))
                g = None if r.options.get("despite_guards") else next(
                    (g for g in reversed(self.guards) if g.hides(r.options.get("about_absence", False), use.at_issue())), None)
                if g is None:
                    self.found.append(loc)
                elif self.want_suppressed:
                    loc.suppressed = g.why()
                    self.suppressed.append(loc)
        if self.want_suppressed and len(reach) < len(self.targets):
            # what the releases a version bound keeps out would have got
            full = Use(path, node, start, call, via_import, known, self, self.targets)
            why = [g for g in bounds if not all(g.allows(t) for t in self.targets)][-1].why()   # the innermost
            for r in USE_RULES:
                for loc in call_rule(r, full, self):
                    if (loc.code, loc.line, loc.col) not in seen and not r.options.get("despite_guards"):
                        loc.suppressed = why
                        self.suppressed.append(loc)

    # -- guards -----------------------------------------------------------------------------
    def meaning(self, node) -> Optional[tuple]:
        """What a name or attribute was assigned (pyguards.meaning_of); NOTHING when it was
        assigned something else or is a parameter; None when the file does not say."""
        if isinstance(node, ast.Name):
            for scope in reversed(self.meanings):
                if node.id in scope:
                    return scope[node.id] or NOTHING
            return None
        if isinstance(node, ast.Attribute) and self.resolve(node) is None and node.attr in self.attr_meanings:
            return self.attr_meanings[node.attr] or NOTHING
        return None

    def push(self, guards: List[Guard]) -> int:
        self.guards.extend(guards)
        return len(guards)

    def pop(self, n: int) -> None:
        if n:
            del self.guards[-n:]

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
        """The statements in order; after `if not hasattr(...): return` and `assert hasattr(...)`
        the rest is guarded. `stmts` may be a stream (the module's, chunk after chunk)."""
        pushed = 0
        for s in stmts:
            self.visit(s)
            if isinstance(s, ast.If) and not s.orelse and s.body and exits(s.body[-1]):
                pushed += self.push(self.facts(s.test, False))
            elif isinstance(s, ast.Assert):
                pushed += self.push(self.facts(s.test, True))
        self.pop(pushed)

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
        self.truth_tested.add(id(test))
        self.visit(test)
        self.truth_tested.discard(id(test))
        bid = next(self.branch_ids)
        claiming = None
        if test is not None and self.det_words and names_determinism(test):
            claiming = "orelse" if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) else "body"
        for label, body in parts:
            self.branch.append((bid, label))
            n = self.push(self.facts(test, label == "body"))
            self.claimed += label == claiming
            if isinstance(body, list):
                self.block(body)
            else:
                self.visit(body)
            self.pop(n)
            self.claimed -= label == claiming
            self.branch.pop()

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
        g = any(self.catches(h) for h in node.handlers)
        line = self.pos(node).line
        n = self.push([Guard("absent", line, "try/except")] if g else [])
        self.try_depth += g
        self.block(node.body)
        self.try_depth -= g
        self.pop(n)
        bid = next(self.branch_ids)
        # a handler of AttributeError/ImportError is the fallback for releases without what the body used
        n = self.push([Guard("all", line, "except")] if g else [])
        for h in node.handlers:
            self.branch.append((bid, "handler"))
            self.visit(h)
            self.branch.pop()
        self.pop(n)
        self.block(node.orelse)
        self.block(node.finalbody)

    visit_TryStar = visit_Try

    def visit_Expr(self, node):
        self.discarded.add(id(node.value))
        self.generic_visit(node)
        self.discarded.discard(id(node.value))

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
        n = 0
        tested = [id(v) for v in node.values] if id(node) in self.truth_tested else []
        self.truth_tested.update(tested)
        # and: the later operands run where the earlier are true; or: where they are false
        positive = isinstance(node.op, ast.And)
        for v in node.values:
            self.visit(v)
            n += self.push(self.facts(v, positive))
        self.pop(n)
        self.truth_tested.difference_update(tested)

    def visit_With(self, node):
        g = any(self.is_suppress(item.context_expr) for item in node.items)
        for item in node.items:
            self.visit(item)
        n = self.push([Guard("absent", self.pos(node).line, "contextlib.suppress")] if g else [])
        self.block(node.body)
        self.pop(n)

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
        f = Func(node.name, ast.get_docstring(node, clean=False) or "", True)
        self.funcs.append(f)
        self.func_stack.append(f)
        self.enter_scope(node.args)
        n = self.push(self.decorator_facts(node.decorator_list))
        saved_loop, saved_branch, saved_try = self.loop, self.branch, self.try_depth
        self.loop, self.branch, self.try_depth = 0, [], 0
        self.block(node.body)
        self.loop, self.branch, self.try_depth = saved_loop, saved_branch, saved_try
        self.pop(n)
        self.exit_scope()
        self.func_stack.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Lambda(self, node):
        self.visit(node.args)
        self.enter_scope(node.args)
        self.visit(node.body)
        self.exit_scope()

    def visit_ClassDef(self, node):
        for d in node.decorator_list + node.bases + node.keywords:
            self.visit(d)
        n = self.push(self.decorator_facts(node.decorator_list))
        self.block(node.body)
        self.pop(n)

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
                elif not other_side_of_flag(value, self.attr_meanings.get(t.attr)):   # self.fused_attn = use_fused_attn()
                    self.attr_meanings[t.attr] = self.meaning_of(value) if value is not None else None
            elif isinstance(t, ast.Name):
                p = self.resolve(value) if value is not None else None
                self.bind(t.id, p)
                if not other_side_of_flag(value, self.meanings[-1].get(t.id)):
                    self.meanings[-1][t.id] = self.meaning_of(value) if p is None and value is not None else None

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
        guarded = any(g.kind != "capability" for g in self.guards)
        e = Event(kind, path, value, self.pos(node), self.func_stack[-1], self.loop, tuple(self.branch), guarded,
                  self.claimed > 0)
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


def analyze_text(text: str, targets, target_cuda, suppressed: Optional[List[Located]] = None) -> List[Located]:
    """The findings of a file's text, its statements parsed a chunk at a time; raises the
    parse error (SyntaxError and the like) of a text that does not parse. Given a list,
    `suppressed` gets what guards hid (each with its guard in `.suppressed`)."""
    return _run(text, pysource.chunks(text), targets, target_cuda, suppressed)


def analyze(tree: ast.Module, source: Union[bytes, str], targets, target_cuda,
            suppressed: Optional[List[Located]] = None) -> List[Located]:
    """The findings of a module already parsed (`source`: its text)."""
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    return _run(text, [pysource.Chunk(list(tree.body), 0, text)], targets, target_cuda, suppressed)


def _run(text: str, chunks: Iterable[pysource.Chunk], targets, target_cuda,
         suppressed: Optional[List[Located]] = None) -> List[Located]:
    an = Analyzer(targets, target_cuda, want_suppressed=suppressed is not None)
    an.guard_words = any(w in text for w in GUARD_WORDS)
    an.det_words = mentions_determinism(text)
    an.module(chunks)
    scan = FileScan.of(an.events, an.funcs, targets, target_cuda, "CUBLAS_WORKSPACE_CONFIG" in text,
                       comment_claims(text) if an.det_words else frozenset())
    for r in FILE_RULES:
        an.found.extend(call(r, scan))
    for f in an.funcs:  # no reference cycles left: the events go with the last reference
        f.events = []
    an.events, an.funcs, an.func_stack = [], [], []
    scan.events = scan.funcs = scan.stores = scan.calls = []
    if suppressed is not None:
        suppressed.extend(an.suppressed)
    return an.found
