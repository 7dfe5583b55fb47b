"""The Python rules, on the standard library's ``ast``.

One pass over a module resolves the names bound to torch (``import torch as th``,
``import torch.backends.cudnn as cudnn``, ``from torch.backends import cuda``,
``tbc = torch.backends.cuda``), checks every attribute chain, import and literal
``getattr`` against the API history for the target releases (TD101/TD102/TD103/TD201), and
records the settings it sees (cudnn flags, deterministic algorithms, TF32 flags) with their
place (function, loop, if-branch, guard) for the file-level rules (TD202-TD203, TD301-TD305).

Guarded code is not flagged for API existence or deprecation: the body and the else-branch
of an ``if``/``while``/conditional expression whose test uses ``hasattr``, a 3-argument
``getattr``, ``dir()``, a torch version (``torch.__version__``, ``packaging.version.parse(
torch.__version__)``, names assigned from it, names or calls that say "version" or
``TORCH_GREATER_EQUAL...``) or ``TYPE_CHECKING``; the rest of a block after
``if not hasattr(...): return``; a ``try`` whose handlers catch AttributeError, ImportError
or ModuleNotFoundError (body, handlers and else); ``with contextlib.suppress(...)`` of those.
"""

import ast
import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from . import rules as R

_GUARD_EXC = {"AttributeError", "ImportError", "ModuleNotFoundError"}
_VERSION_NAME = re.compile(r"(?i)version|(?:^|_)(?:pt|torch|th)_?(?:ver|v)(?:$|_|\d)|"
                           r"torch_?(?:greater|less|newer|older|at_?least|before|after|ge|gt|le|lt|eq)(?:$|_|\d)|"
                           r"(?:greater|less)_?(?:than_?|equal_?|or_?equal_?)*(?:_?to)?_?(?:torch|pt)|is_torch_")
_DET_CONTEXT = re.compile(r"(?i)seed|determinis|reproduc")
_PER_BATCH = re.compile(r"(?i)^(forward|training_step|train_step|validation_step|test_step|predict_step|step|"
                        r"__call__|train_one_epoch|train_epoch|run_epoch|run_batch|on_train_batch_start)$|_step$|batch")
_SEEDING_CALLS = ("manual_seed", "manual_seed_all", "seed", "use_deterministic_algorithms", "set_deterministic",
                  "seed_everything", "set_seed")

LEGACY_TF32 = ("torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32", "torch.backends.mkldnn.allow_tf32")
NEW_TF32 = ("torch.backends.fp32_precision", "torch.backends.cuda.matmul.fp32_precision",
            "torch.backends.cudnn.fp32_precision", "torch.backends.cudnn.conv.fp32_precision",
            "torch.backends.cudnn.rnn.fp32_precision", "torch.backends.mkldnn.fp32_precision",
            "torch.backends.mkldnn.matmul.fp32_precision", "torch.backends.mkldnn.conv.fp32_precision",
            "torch.backends.mkldnn.rnn.fp32_precision")
_GUARD_WORDS = (b"hasattr", b"getattr", b"dir(", b"ersion", b"ERSION", b"TYPE_CHECKING", b"TORCH_", b"torch_",
                b"_pt_", b"PT_", b"is_torch", b"has_", b"HAS_", b"vailable", b"VAILABLE", b"use_", b"is_",
                b"supports", b"can_")
# Flags that say a feature is there: `_HAS_FUSED_ATTN = hasattr(...)`, `has_dynamo`, `*_available`
_CAPABILITY_NAME = re.compile(r"^_?(?:has|HAS)_|(?:available|AVAILABLE)$")
_CAPABILITY_CALL = re.compile(r"^_?(?:use|has|is|supports?|can)_")
_SDP_FLAGS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")
_SDP_BACKEND = {"enable_flash": "FLASH_ATTENTION", "enable_mem_efficient": "EFFICIENT_ATTENTION",
                "enable_math": "MATH", "enable_cudnn": "CUDNN_ATTENTION"}
_SDP_ORDER = ("enable_flash", "enable_mem_efficient", "enable_math", "enable_cudnn")  # sdp_kernel's own order


@dataclass
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


@dataclass
class Event:
    kind: str          # store | call | load
    path: str
    value: Any
    node: ast.AST
    func: Optional["Func"]
    loop: int
    branch: Tuple[Tuple[int, str], ...]
    guarded: bool


@dataclass
class Func:
    name: str
    doc: str
    node: Optional[ast.AST]
    events: List[Event] = field(default_factory=list)

    def claims_determinism(self) -> bool:
        return bool(_DET_CONTEXT.search(self.name) or _DET_CONTEXT.search(self.doc or ""))


def _const(node) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and isinstance(node.operand, ast.Constant):
        return not node.operand.value
    return ...


def _truthy(v) -> Optional[bool]:
    if v is ...:
        return None
    if isinstance(v, (bool, int)):
        return bool(v)
    return None


class Analyzer(ast.NodeVisitor):
    def __init__(self, lines: List[bytes], targets: List[Tuple[int, int]], target_cuda: Optional[bool],
                 select=None):
        self.lines = lines
        self.targets = targets
        self.target_cuda = target_cuda
        self.hits: List[Hit] = []
        self.scopes: List[Dict[str, Optional[str]]] = [{}]
        self.imported: set = set()
        self.version_names: set = set()
        self.guard = 0
        self.loop = 0
        self.branch: List[Tuple[int, str]] = []
        self.module_func = Func("<module>", "", None)
        self.funcs: List[Func] = [self.module_func]
        self.func_stack: List[Func] = [self.module_func]
        self.events: List[Event] = []
        self.leaves = R.leaf_names()
        self.guard_words = True  # False when the source has none of the words a guard needs

    # -- positions ------------------------------------------------------------------------
    def _col(self, lineno: int, col_offset: int) -> int:
        try:
            return len(self.lines[lineno - 1][:col_offset].decode("utf-8", "replace")) + 1
        except IndexError:
            return col_offset + 1

    def _hit(self, code: str, node: ast.AST, message: str, **kw) -> None:
        end_line = getattr(node, "end_lineno", None)
        end_col = self._col(end_line, node.end_col_offset) if end_line and getattr(node, "end_col_offset", None) is not None else None
        self.hits.append(Hit(code, node.lineno, self._col(node.lineno, node.col_offset), message,
                             end_line, end_col, **kw))

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

    # -- API checks ----------------------------------------------------------------------------
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
        fix = self._fix_for(p, call) if call is not None else None
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
            if not listed or mod in self.imported or any(m.startswith(mod + ".") for m in self.imported):
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
            return {"kind": "rename_attr", "line": func.lineno, "col": self._col(func.lineno, func.col_offset),
                    "attr": func.attr, "new": new}
        if path == "torch.backends.cuda.sdp_kernel":
            if any(t < (2, 3) for t in self.targets):
                return None  # torch.nn.attention.sdpa_kernel is 2.3+
            flags = dict.fromkeys(_SDP_FLAGS, True)
            if len(call.args) > 4 or any(isinstance(a, ast.Starred) for a in call.args):
                return None
            for name, arg in zip(_SDP_FLAGS, call.args):
                v = _const(arg)
                if not isinstance(v, bool):
                    return None
                flags[name] = v
            for kw in call.keywords:
                v = _const(kw.value)
                if kw.arg not in _SDP_FLAGS or not isinstance(v, bool):
                    return None
                flags[kw.arg] = v
            backends = [_SDP_BACKEND[f] for f in _SDP_ORDER if flags[f]]
            return {"kind": "sdp_kernel", "line": call.lineno, "col": self._col(call.lineno, call.col_offset),
                    "backends": backends}
        return None

    # -- guards --------------------------------------------------------------------------------
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

    def block(self, stmts) -> None:
        guarded_from = None
        for i, s in enumerate(stmts):
            if guarded_from is not None:
                break
            self.visit(s)
            if isinstance(s, ast.If) and not s.orelse and s.body and \
                    isinstance(s.body[-1], (ast.Return, ast.Raise, ast.Continue, ast.Break)) and self.is_guard(s.test):
                guarded_from = i + 1
        if guarded_from is not None:
            self.guard += 1
            for s in stmts[guarded_from:]:
                self.visit(s)
            self.guard -= 1

    def _branches(self, node, test, parts) -> None:
        g = self.is_guard(test) if test is not None else False
        if g:
            self.guard += 1
        if test is not None:
            self.visit(test)
        for label, body in parts:
            self.branch.append((id(node), label))
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
        for h in node.handlers:
            self.branch.append((id(node), "handler"))
            self.visit(h)
            self.branch.pop()
        self.block(node.orelse)
        if g:
            self.guard -= 1
        self.block(node.finalbody)

    visit_TryStar = visit_Try

    def visit_BoolOp(self, node):
        # `hasattr(x, "y") and x.y.z`: the operands after a guard are guarded
        g = 0
        for v in node.values:
            self.visit(v)
            if not g and self.is_guard(v):
                g = 1
                self.guard += 1
        self.guard -= g

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

    def _is_suppress(self, expr) -> bool:
        if not (isinstance(expr, ast.Call) and getattr(expr.func, "id", getattr(expr.func, "attr", "")) == "suppress"):
            return False
        return any(getattr(a, "id", getattr(a, "attr", None)) in _GUARD_EXC | {"Exception"} for a in expr.args)

    # -- scopes ------------------------------------------------------------------------------------
    def visit_FunctionDef(self, node):
        for d in node.decorator_list:
            if isinstance(d, ast.Attribute):
                d._td_call = d  # type: ignore[attr-defined]  # @torch.cuda.amp.custom_fwd is a use
            self.visit(d)
        self.visit(node.args)
        if node.returns:
            self.visit(node.returns)
        scope: Dict[str, Optional[str]] = {}
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [x for x in (a.vararg, a.kwarg) if x]:
            scope[arg.arg] = None
        f = Func(node.name, ast.get_docstring(node, clean=False) or "", node)
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
            if not (name == "torch" or name.startswith("torch.")):
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
                self.bind("torch", "torch")

    def visit_ImportFrom(self, node):
        mod = node.module or ""
        if node.level or not (mod == "torch" or mod.startswith("torch.")):
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
                before = len(self.hits)
                self.check_path(full, node, start=len(parts) + 1, via_import=True)
                for h in self.hits[before:]:
                    if hasattr(a, "lineno"):  # the imported name's own place (3.10+)
                        h.line, h.col = a.lineno, self._col(a.lineno, a.col_offset)
                        h.end_line, h.end_col = a.end_lineno, self._col(a.end_lineno, a.end_col_offset)
            self.bind(a.asname or a.name, full)

    # -- expressions ---------------------------------------------------------------------------------------
    def visit_Attribute(self, node):
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
        self.check_path(path, node, start=start, call=getattr(node, "_td_call", None))
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
            func._td_call = node  # type: ignore[attr-defined]
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
                    self._event("store", path, _const(value) if value is not None else ..., t)
                elif value is not None and self._capability(value):
                    self.version_names.add(t.attr)   # self.fused_attn = use_fused_attn()
            elif isinstance(t, ast.Name):
                p = self.resolve(value) if value is not None else None
                self.bind(t.id, p)
                if p is None and value is not None and self._capability(value):
                    self.version_names.add(t.id)

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
        if not path.startswith("torch."):
            return
        e = Event(kind, path, value, node, self.func_stack[-1], self.loop, tuple(self.branch), bool(self.guard))
        self.events.append(e)
        self.func_stack[-1].events.append(e)


def _skip(self, node) -> None:
    return None


# Nodes with nothing inside worth a visit (a bare Name is checked where it was bound).
_LEAVES = (ast.Constant, ast.Name, ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop, ast.alias)
_DISPATCH: Dict[type, Any] = {}


def _exclusive(a: Event, b: Event) -> bool:
    da = dict(a.branch)
    return any(k in da and da[k] != v for k, v in b.branch)


def _call_flag(e: Event, index: int, name: str) -> Any:
    call = e.value
    if not isinstance(call, ast.Call):
        return ...
    for kw in call.keywords:
        if kw.arg == name:
            return _const(kw.value)
    return _const(call.args[index]) if len(call.args) > index else ...


def settings_rules(an: Analyzer, text_has_cublas: bool) -> None:
    """TD202, TD203, TD301-TD305 from the recorded events."""
    ev = an.events
    stores = [e for e in ev if e.kind == "store"]
    calls = [e for e in ev if e.kind == "call"]
    # cudnn.flags(benchmark=..., deterministic=..., enabled=...) counts as setting them
    for e in calls:
        if e.path == "torch.backends.cudnn.flags":
            for i, name in enumerate(("enabled", "benchmark", "deterministic")):
                v = _call_flag(e, i, name)
                if v is not ...:
                    stores.append(Event("store", "torch.backends.cudnn." + name, v, e.node, e.func, e.loop, e.branch, e.guarded))

    def flag(path, value):
        return [s for s in stores if s.path == path and _truthy(s.value) is value]

    bench_on = flag("torch.backends.cudnn.benchmark", True)
    det_on = flag("torch.backends.cudnn.deterministic", True)
    # TD302: benchmark = True beside deterministic = True (same function, not alternatives)
    for b in bench_on:
        for d in det_on:
            if b.func is d.func and not _exclusive(b, d):
                later = b if (b.node.lineno, b.node.col_offset) > (d.node.lineno, d.node.col_offset) else d
                other = d if later is b else b
                an._hit("TD302", later.node, "cudnn.benchmark = True and cudnn.deterministic = True (line %d) in one "
                        "place: benchmark's autotuning picks algorithms by timing, so runs are not repeatable"
                        % other.node.lineno)
                break
        else:
            continue
        break
    # TD304: benchmark = True per batch / in a loop
    for b in bench_on:
        if b.loop or (b.func and b.func.node is not None and _PER_BATCH.search(b.func.name)):
            where = "inside a loop" if b.loop else "in %s(), which runs per batch" % b.func.name
            an._hit("TD304", b.node, "cudnn.benchmark = True set %s: it is a process-wide switch, set it once "
                    "before training" % where)
    # TD305: seeding helper that turns benchmark on
    for b in bench_on:
        f = b.func
        if f is not None and f.node is not None and f.claims_determinism():
            an._hit("TD305", b.node, "%s() is about seeding/determinism but sets cudnn.benchmark = True, which "
                    "makes convolution algorithm choice vary between runs" % f.name)
    # TD301: cudnn.enabled = False used for reproducibility
    for s in flag("torch.backends.cudnn.enabled", False):
        f = s.func
        ctx = f.claims_determinism() if f and f.node is not None else False
        if not ctx and f is not None:
            ctx = any((e.kind == "call" and e.path.rsplit(".", 1)[-1] in _SEEDING_CALLS) or
                      (e.kind == "store" and e.path == "torch.backends.cudnn.deterministic") for e in f.events)
        if ctx:
            an._hit("TD301", s.node, "cudnn.enabled = False does not make runs reproducible, it switches cuDNN off "
                    "(slow fallbacks); set cudnn.deterministic = True, cudnn.benchmark = False and "
                    "torch.use_deterministic_algorithms(True) instead")
    # TD303: deterministic algorithms without CUBLAS_WORKSPACE_CONFIG on a CUDA target <= 2.9
    if an.target_cuda is not False and not text_has_cublas:
        from ..kb import compat
        needs = [t for t in an.targets if compat.cublas_env_required(R.fmt(t))]
        if needs:
            for e in calls:
                if e.path != "torch.use_deterministic_algorithms":
                    continue
                if _truthy(_call_flag(e, 0, "mode")) is not True or _truthy(_call_flag(e, 1, "warn_only")) is True:
                    continue
                an.hits.append(Hit("TD303", e.node.lineno, an._col(e.node.lineno, e.node.col_offset),
                                   "torch.use_deterministic_algorithms(True) with no CUBLAS_WORKSPACE_CONFIG in sight: "
                                   "on CUDA, torch %s raise%s for cuBLAS ops unless it is :4096:8 or :16:8"
                                   % (R.span(needs), "" if len(needs) > 1 else "s"), needs_absent="CUBLAS_WORKSPACE_CONFIG"))
    # TD202 / TD203: TF32 legacy flags and the fp32_precision API
    legacy = [e for e in ev if e.path in LEGACY_TF32 and e.kind in ("store", "load") and not e.guarded]
    new = [e for e in ev if e.path in NEW_TF32 and e.kind == "store" and not e.guarded]
    for n in new:
        mates = [l for l in legacy if not _exclusive(l, n)]
        if mates:
            l = mates[0]
            later = n if n.node.lineno >= l.node.lineno else l
            an._hit("TD202", later.node, "%s (line %d) and %s (line %d) in one file: torch warns or raises about "
                    "'a mix of the legacy and new APIs to set the TF32 flags'; use fp32_precision only"
                    % (l.path, l.node.lineno, n.path, n.node.lineno))
            break
    if an.targets and all(t >= (2, 9) for t in an.targets):
        for l in legacy:
            if l.kind == "store":
                an._hit("TD203", l.node, "%s is the legacy TF32 flag; every target release has %s" % (
                    l.path, "torch.backends.cuda.matmul.fp32_precision" if "matmul" in l.path
                    else "torch.backends.cudnn.conv/rnn.fp32_precision"))


def analyze(tree: ast.AST, source: bytes, targets, target_cuda) -> List[Hit]:
    lines = source.splitlines()
    an = Analyzer(lines, targets, target_cuda)
    an.guard_words = any(w in source for w in _GUARD_WORDS)
    an.visit(tree)
    settings_rules(an, b"CUBLAS_WORKSPACE_CONFIG" in source)
    for f in an.funcs:  # no reference cycles left: the tree goes with the last reference
        f.events = []
    an.events, an.funcs, an.func_stack = [], [], []
    return an.hits
