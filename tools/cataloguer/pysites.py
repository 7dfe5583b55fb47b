"""Messages raised or warned in Python source, read with `ast` (never imported or run).

A site is ``raise X(msg)``, ``assert cond, msg``, ``warnings.warn(msg)`` (and ``warn``,
``warn_once``...), ``log.warning/error/critical(msg)`` and ``torch._check*(cond, lambda: msg)``.
``msg`` becomes a *pattern* in ``str.format`` syntax: the literal text with ``{`` and ``}``
doubled, and ``{}`` wherever a value is filled in at run time (an f-string field, a ``%s``, a
``.format`` field, a name or call the source does not spell out). A name is followed to its last
assignment before the site in the same function (``msg = f"..."; raise RuntimeError(msg)``), with
the ``msg += ...`` that come after it.
"""

import ast
import re
import string
from typing import Dict, Iterator, List, Optional, Tuple

from .text import is_message, tidy

PLACEHOLDER = "{}"
_PERCENT = re.compile(r"%(?:\([^)]{0,40}\))?[-#0 +]{0,4}(?:\*|\d{1,3})?(?:\.(?:\*|\d{1,3}))?[diouxXeEfFgGcrsa%]")
# Calls that warn: the attribute or name called, and the kind of message.
_WARN_CALLS = {"warn": "warning", "warn_explicit": "warning", "warn_once": "warning", "_warn_once": "warning",
               "warning_once": "warning", "warn_deprecated": "warning"}
# Logger methods that print a problem; only on receivers that are loggers by name.
_LOG_METHODS = {"warning": "warning", "warn": "warning", "error": "error", "critical": "error",
                "exception": "error", "fatal": "error"}
_LOGGERS = re.compile(r"^_?(?:log|logger|LOG|LOGGER|logging|_logger|log_)$|_log(?:ger)?$")
_CHECKS = {"_check": 1, "_check_is_size": 1, "_check_index": 1, "_check_value": 1, "_check_type": 1,
           "_check_not_implemented": 1, "_check_with": 2}


def escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


def _percent_pattern(fmt: str) -> str:
    out, pos = [], 0
    for m in _PERCENT.finditer(fmt):
        out.append(escape(fmt[pos:m.start()]))
        out.append("%" if m.group() == "%%" else PLACEHOLDER)
        pos = m.end()
    out.append(escape(fmt[pos:]))
    return "".join(out)


def _format_pattern(fmt: str) -> str:
    try:
        parts = list(string.Formatter().parse(fmt))
    except ValueError:
        return escape(fmt)
    return "".join(escape(lit) + (PLACEHOLDER if field is not None else "") for lit, field, _, _ in parts)


class _Scope:
    """Assignments to plain names in one function (or the module body), in source order."""

    def __init__(self, body_owner: ast.AST):
        self.assigns: Dict[str, List[Tuple[int, ast.AST, bool]]] = {}
        for node in _walk_own(body_owner):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                self.assigns.setdefault(node.targets[0].id, []).append((node.lineno, node.value, False))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                self.assigns.setdefault(node.target.id, []).append((node.lineno, node.value, False))
            elif (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
                  and isinstance(node.op, ast.Add)):
                self.assigns.setdefault(node.target.id, []).append((node.lineno, node.value, True))

    def value_of(self, name: str, before: int) -> Optional[List[ast.AST]]:
        """The expressions that make `name` at line `before`: its last plain assignment
        and the `+=` after it; None when the function assigns none before that line."""
        seq = sorted((a for a in self.assigns.get(name, ()) if a[0] < before), key=lambda a: a[0])
        start = max((i for i, a in enumerate(seq) if not a[2]), default=None)
        if start is None:
            return None
        return [a[1] for a in seq[start:]]


def _walk_own(owner: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function or module body, not those of functions or classes nested in it."""
    stack = list(ast.iter_child_nodes(owner))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))


def pattern_of(node: ast.AST, scope: Optional[_Scope] = None, line: int = 0, depth: int = 0) -> str:
    """The message an expression builds, as a pattern ("{}" for what only run time knows)."""
    if depth > 8:
        return PLACEHOLDER
    again = lambda n: pattern_of(n, scope, line, depth + 1)  # noqa: E731
    if isinstance(node, ast.Constant):
        return escape(node.value) if isinstance(node.value, str) else PLACEHOLDER
    if isinstance(node, ast.JoinedStr):
        return "".join(escape(v.value) if isinstance(v, ast.Constant) else PLACEHOLDER for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return again(node.left) + again(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_str(node.left):
        return _percent_pattern(node.left.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        attr, recv = node.func.attr, node.func.value
        if attr == "format" and _is_str(recv):
            return _format_pattern(recv.value)
        if attr in ("strip", "rstrip", "lstrip", "replace") and not isinstance(recv, ast.Name):
            return again(recv)
        if attr == "join" and _is_str(recv) and node.args and isinstance(node.args[0], (ast.List, ast.Tuple)):
            return escape(recv.value).join(again(e) for e in node.args[0].elts)
        if attr == "dedent" and node.args:
            return again(node.args[0])
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "dedent" and node.args:
        return again(node.args[0])
    if isinstance(node, ast.Name) and scope is not None:
        parts = scope.value_of(node.id, line)
        if parts:
            return "".join(pattern_of(p, scope, getattr(p, "lineno", line), depth + 1) for p in parts)
    return PLACEHOLDER


def _is_str(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _callee(func: ast.AST) -> Tuple[str, str]:
    """(receiver name or "", called name) of a call's function."""
    if isinstance(func, ast.Name):
        return "", func.id
    if isinstance(func, ast.Attribute):
        recv = func.value
        name = recv.id if isinstance(recv, ast.Name) else recv.attr if isinstance(recv, ast.Attribute) else ""
        return name, func.attr
    return "", ""


def _exc_name(node: ast.AST) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    return _callee(target)[1] if isinstance(target, ast.Attribute) else getattr(target, "id", "")


def _site(node: ast.AST) -> Optional[Tuple[str, str, ast.AST]]:
    """(kind, exception or warning class, message expression) when `node` raises or warns.
    A logger's message with arguments after it is a %-format: returned formatted as such."""
    if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
        call = node.exc
        msg = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg in ("msg", "message")),
                                                   None)
        return ("error", _exc_name(call), msg) if msg is not None else None
    if isinstance(node, ast.Assert) and node.msg is not None:
        return "error", "AssertionError", node.msg
    if isinstance(node, ast.Call):
        recv, name = _callee(node.func)
        if name in _WARN_CALLS and node.args and (recv in ("", "warnings") or "warn" in name):
            category = next((_exc_name(a) for a in node.args[1:2]), "") or next(
                (_exc_name(k.value) for k in node.keywords if k.arg == "category"), "") or "UserWarning"
            return _WARN_CALLS[name], category, node.args[0]
        if name in _LOG_METHODS and recv and _LOGGERS.search(recv) and node.args:
            msg = node.args[0]
            if len(node.args) > 1 and _is_str(msg):
                # logging formats it as `msg % args`
                msg = ast.BinOp(left=msg, op=ast.Mod(), right=ast.Tuple(elts=node.args[1:], ctx=ast.Load()))
            return _LOG_METHODS[name], "", msg
        if name in _CHECKS and recv in ("torch", "") and len(node.args) > _CHECKS[name]:
            msg = node.args[_CHECKS[name]]
            if isinstance(msg, ast.Lambda):
                exc = _exc_name(node.args[0]) if name == "_check_with" else "RuntimeError"
                return "error", exc, msg.body
    return None


def sites(source: str, filename: str = "<source>") -> List[Dict[str, object]]:
    """Every message site in one Python source: dicts with text (pattern), line, kind, exc.
    A source that does not parse yields none (a vendored file for another Python)."""
    try:
        tree = ast.parse(source, filename)
    except (SyntaxError, ValueError):
        return []
    out = []
    owners = [tree] + [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for owner in owners:
        scope = _Scope(owner)
        for node in _walk_own(owner):
            found = _site(node)
            if found is None:
                continue
            kind, exc, msg = found
            text = tidy(pattern_of(msg, scope, node.lineno))
            if is_message(text):
                out.append({"text": text, "line": node.lineno, "kind": kind, "exc": exc})
    out.sort(key=lambda s: (s["line"], s["text"]))
    return out
