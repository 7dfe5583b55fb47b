"""What counts as a guard for the Python walker, and what each one hides.

A guard hides a finding only when it is about that finding: it names the API (or the
finding's releases are outside the torch versions it lets through). An unrelated
``hasattr(m, "x")``, a parameter called ``version`` or ``m.has_cache`` guards nothing.

The walker (pyscan.Analyzer) reads a test (``if``/``while``/``assert``/a conditional
expression, an and/or operand, a ``skipif`` decorator) as the Guards that hold where it is
true, or false (``facts``). The kinds:

- ``has``: ``hasattr(torch.x, "name")``, a 3-argument ``getattr``, ``"name" in dir(torch.x)``:
  hides "this API is missing" findings (TD101-TD104) about that path; where the API history
  knows when the path was added or removed, it also bounds the torch version (the else-branch
  of ``hasattr(torch.nn.attention, "sdpa_kernel")`` runs on torch < 2.3 only);
- ``version``: a comparison of the torch version (``torch.__version__``, ``packaging.version.
  parse(torch.__version__)``, tuples and names assigned from them, ``TORCH_VERSION``-style
  names, ``_TORCH_GREATER_EQUAL_2_3``-style names, ``is_torch_version(">=", "2.0")``,
  ``min_torch_version("2.6")``): the
  uses under it are checked against the target releases it lets through only, so it hides a
  finding only when it excludes every release the finding is about;
- ``capability``: a flag or call that says a feature is there (``use_fused_attn()``,
  ``HAS_SDPA``) and was not assigned from a guard in the file: hides missing-API findings
  whose path shares a word with it (``attn``, ``attention``);
- ``absent``: the body of a ``try`` whose handlers catch AttributeError or ImportError (a bare
  ``except:`` or ``except Exception`` too; and ``with contextlib.suppress`` of those), and a
  flag set True there: hides missing-API findings;
- ``all``: ``TYPE_CHECKING``, and the handlers of such a ``try`` (the fallback for releases
  without what the body used): hides every finding of the API rules.

Flags are followed through simple assignments (``has_compile = hasattr(torch, "compile")``,
``ok = has_compile``, ``self.fused = use_fused_attn()``, ``SDP_OK = True`` under a version
check). Guards is mixed into the walker: it reads its resolve(), pos(), the guards that hold
where it is (``guards``) and the flags it bound (``meaning``).
"""

import ast
import re
from typing import Any, FrozenSet, List, Optional, Tuple

from . import history as H

_GUARD_EXC = {"AttributeError", "ImportError", "ModuleNotFoundError"}
_CATCHES = _GUARD_EXC | {"Exception", "BaseException"}
# A source without any of these holds no guard: analyze() then skips the guard tests.
GUARD_WORDS = ("hasattr", "getattr", "dir(", "ersion", "ERSION", "TYPE_CHECKING", "TORCH_", "torch_",
               "_pt_", "PT_", "is_torch", "has_", "HAS_", "vailable", "VAILABLE", "use_", "is_",
               "supports", "can_", "except", "suppress", "skip")

# What a name assigned something that is neither a guard nor the torch version holds.
NOTHING = ("nothing",)

Version = Tuple[int, int]
Span = Tuple[Optional[Version], Optional[Version]]   # [low, high): None is unbounded

# Names that say they hold torch's version: TORCH_VERSION, torch_ver, _PT_VERSION.
_TORCH_VERSION_NAME = re.compile(r"(?i)^_*(?:torch|pt|th)_?(?:version|ver|v)(?:_?info)?$")
# Names that say the torch version is at least / below a release: _TORCH_GREATER_EQUAL_2_3, torch_lt_1_13
_BOUND_NAME = re.compile(r"(?i)(?:^|_)(?:torch|pt)_?(?:version_?)?(?:is_?)?(greater(?:_?than)?(?:_?or)?(?:_?equal)?(?:_?to)?|"
                         r"ge|gte|geq|gt|at_?least|newer(?:_?than)?|after|less(?:_?than)?(?:_?or)?(?:_?equal)?(?:_?to)?|"
                         r"lt|le|older(?:_?than)?|before|below)_?v?(\d+)_(\d+)$")
_BELOW_WORDS = ("less", "lt", "le", "older", "before", "below")
# Words of a one-argument check of the torch version: min_torch_version("2.6"), torch_older_than("2.0")
_MIN_WORDS = ("min", "least", "greater", "newer", "after", "ge", "above")
_MAX_WORDS = ("max", "less", "older", "before", "below", "lt")
# Flags and calls that say a feature is there: `_HAS_FUSED_ATTN`, `use_fused_attn()`, `*_available`
_CAPABILITY_NAME = re.compile(r"^_?(?:has|HAS)_|(?:available|AVAILABLE)$")
_CAPABILITY_CALL = re.compile(r"^_?(?:use|has|is|supports?|can)_")
_STOP_WORDS = frozenset(("use", "has", "is", "supports", "support", "can", "available", "enabled", "enable",
                         "torch", "pt", "the", "with", "self"))
# Calls after which the rest of a block does not run (besides return/raise/continue/break).
_EXIT_CALLS = ("skip", "skipTest", "exit", "quit", "_exit", "fail")
_CMP = {ast.GtE: ">=", ast.Gt: ">", ast.Lt: "<", ast.LtE: "<=", ast.Eq: "==", ast.NotEq: "!="}
_FLIP = {">=": "<=", ">": "<", "<": ">", "<=": ">=", "==": "==", "!=": "!="}


class Guard:
    """One fact that holds where a test is true (or false); see the module doc for the kinds.
    `path`: the API a `has` guard names (dotted, or a bare name when the object is not a
    torch path); `spans`: the torch releases it lets through (a union of [low, high)), or None;
    `words`: a capability's words; `line`, `text`: where it is and how it reads; `origin`: for
    a flag, what it was assigned."""

    __slots__ = ("kind", "path", "spans", "words", "line", "text", "origin")

    def __init__(self, kind: str, line: int, text: str, path: Optional[str] = None,
                 spans: Optional[List[Span]] = None, words: FrozenSet[str] = frozenset(), origin: str = ""):
        self.kind, self.line, self.text, self.path, self.spans, self.words = kind, line, text, path, spans, words
        self.origin = origin   # a flag's: what it was assigned, and where

    def allows(self, t: Version) -> bool:
        return self.spans is None or any((lo is None or t >= lo) and (hi is None or t < hi) for lo, hi in self.spans)

    def hides(self, about_absence: bool, at_issue: List[str]) -> bool:
        """Whether this guard hides a finding about the paths `at_issue` (the prefix found
        missing, else every prefix of the use) of a rule that is, or is not, about an API's
        absence (its `about_absence` option); version bounds are applied to the targets
        instead (see the module doc)."""
        if self.kind == "all":
            return True
        if not about_absence:
            return False
        if self.kind == "absent":
            return True
        if self.kind == "has" and self.path:
            if "." in self.path:
                return any(self.path == q or self.path.startswith(q + ".") for q in at_issue)
            return any(q.rsplit(".", 1)[-1] == self.path for q in at_issue)
        if self.kind == "capability":
            return any(_word_match(w, u) for q in at_issue for u in _words(q.split(".", 1)[-1]) for w in self.words)
        return False

    def why(self) -> str:
        what = {"has": "names %s" % self.path, "version": "lets through torch %s only" % _spans_text(self.spans),
                "capability": "a capability flag whose name shares a word with the API",
                "absent": "catches AttributeError/ImportError around it",
                "all": "the fallback or type-checking code"}[self.kind]
        if self.kind == "has" and self.spans is not None:
            what += " (torch %s)" % _spans_text(self.spans)
        origin = " (%s)" % self.origin if self.origin else ""
        return "guard at line %d `%s`%s: %s" % (self.line, self.text, origin, what)


def _spans_text(spans: Optional[List[Span]]) -> str:
    if not spans:
        return "none" if spans == [] else "any"
    out = []
    for lo, hi in spans:
        if lo and hi:
            out.append(">=%s,<%s" % (H.fmt(lo), H.fmt(hi)))
        elif lo:
            out.append(">=%s" % H.fmt(lo))
        elif hi:
            out.append("<%s" % H.fmt(hi))
        else:
            out.append("any")
    return " or ".join(out)


def _words(name: str) -> List[str]:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return [w for w in re.split(r"[_.\W]+", name.lower()) if w]


def _word_match(w: str, u: str) -> bool:
    """`attn` ~ `attention`, `sdpa` ~ `sdpa_kernel`'s word: equal, a prefix of 3+ letters, or
    the letters of an abbreviation in order from the same first letter."""
    if w == u:
        return True
    if len(w) < 3 or len(u) < 3 or w[0] != u[0]:
        return False
    if u.startswith(w) or w.startswith(u):
        return True
    it = iter(u)
    return all(c in it for c in w)


def _complement(spans: Optional[List[Span]]) -> Optional[List[Span]]:
    if spans is None or len(spans) != 1:
        return None   # several pieces: their complement is not needed by any form above
    lo, hi = spans[0]
    out: List[Span] = []
    if lo is not None:
        out.append((None, lo))
    if hi is not None:
        out.append((hi, None))
    return out


def _next(v: Version) -> Version:
    return (v[0], v[1] + 1)


def _span(op: str, b: Version, major_only: bool) -> Optional[List[Span]]:
    """The releases for which `version <op> b` can hold. A full version compared with `>`
    lets its own release line through (2.0.1 > 2.0); a major number (`int(v[0]) > 1`) does not."""
    if major_only:
        k = b[0]
        lo_ge, lo_gt, hi_lt, hi_le = (k, 0), (k + 1, 0), (k, 0), (k + 1, 0)
    else:
        lo_ge = lo_gt = b
        hi_lt, hi_le = b, _next(b)
    return {">=": [(lo_ge, None)], ">": [(lo_gt, None)], "<": [(None, hi_lt)], "<=": [(None, hi_le)],
            "==": [(lo_ge, hi_le)]}.get(op)


def _intersect(a: List[Span], b: List[Span]) -> List[Span]:
    out = []
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo = lo2 if lo1 is None else lo1 if lo2 is None else max(lo1, lo2)
            hi = hi2 if hi1 is None else hi1 if hi2 is None else min(hi1, hi2)
            if lo is None or hi is None or lo < hi:
                out.append((lo, hi))
    return out


def _bound(node, major_only: bool) -> Optional[Version]:
    """The release a version is compared with: "2.3", 2.3, (2, 3), parse("2.3"), 2 (a major)."""
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        return _bound(node.args[0], major_only)
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return (v, 0)
        if isinstance(v, float):
            return H.mt(repr(v))
        if isinstance(v, str):
            return H.mt(v) or (H.mt(v + ".0") if v.isdigit() else None)
        return None
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(
            isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts):
        nums = [e.value for e in node.elts]
        return (nums[0], nums[1] if len(nums) > 1 else 0)
    return None


def _source(node) -> str:
    try:
        text = ast.unparse(node)
    except Exception:  # noqa: BLE001 - only for the description
        return "..."
    return text if len(text) <= 80 else text[:77] + "..."


class Guards:
    """The guard tests of the walker; see the module doc."""

    # -- the torch version ------------------------------------------------------------------
    def version_kind(self, node) -> Optional[str]:
        """'full' or 'major' when `node` holds torch's version, else None."""
        c = node.__class__
        if c is ast.Name or c is ast.Attribute:
            path = self.resolve(node)
            if path in ("torch.__version__", "torch.version.__version__"):
                return "full"
            name = node.id if c is ast.Name else node.attr
            m = self.meaning(node)
            if m is not None:
                return m[1] if m[0] == "version" else None
            if c is ast.Attribute:
                if node.attr == "major" and self.version_kind(node.value):
                    return "major"
                if node.attr in ("release", "base_version", "public", "version") and self.version_kind(node.value):
                    return "full"
            if path is None and _TORCH_VERSION_NAME.match(name):
                return "full"
            return None
        if c is ast.Subscript:
            kind = self.version_kind(node.value)
            if kind is None:
                return None
            index = node.slice
            if isinstance(index, ast.Constant) and index.value == 0:
                return "major"
            return kind if isinstance(index, ast.Slice) else None
        if c is ast.Call:
            f = node.func
            if isinstance(f, ast.Attribute) and f.attr in ("split", "strip", "lstrip") and self.version_kind(f.value):
                return "full"
            fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
            if fname in ("version", "get_distribution") and node.args and isinstance(node.args[0], ast.Constant) \
                    and node.args[0].value == "torch":
                return "full"  # importlib.metadata.version("torch")
            for a in node.args:
                k = self.version_kind(a)
                if k:
                    return k
            return None
        if c in (ast.GeneratorExp, ast.ListComp):
            for g in node.generators:
                k = self.version_kind(g.iter)
                if k:
                    return k
        return None

    def _version_compare(self, node: ast.Compare, positive: bool) -> Optional[List[Guard]]:
        """The guard of a comparison of the torch version with a release, or None."""
        spans: Optional[List[Span]] = None
        left = node.left
        for op, right in zip(node.ops, node.comparators):
            sym = _CMP.get(type(op))
            if sym is None:
                return None
            kind, other = self.version_kind(left), right
            if kind is None:
                kind, other, sym = self.version_kind(right), left, _FLIP[sym]
            if kind is None:
                left = right
                continue
            b = _bound(other, kind == "major")
            s = _span(sym, b, kind == "major") if b else None
            if s is None:
                return None
            spans = s if spans is None else _intersect(spans, s)
            left = right
        if spans is None:
            return None
        if not positive:
            if len(node.ops) > 1:
                return None
            spans = _complement(spans)
            if spans is None:
                return None
        return [Guard("version", self.pos(node).line, _source(node), spans=spans)]

    def _bound_name(self, name: str, node, positive: bool) -> Optional[List[Guard]]:
        m = _BOUND_NAME.search(name)
        if not m:
            return None
        word, b = m.group(1).lower(), (int(m.group(2)), int(m.group(3)))
        below = word.startswith(_BELOW_WORDS)
        sym = ("<=" if "equal" in word or word == "le" else "<") if below else (
            ">" if word == "gt" else ">=")
        spans = _span(sym, b, False)
        if not positive:
            spans = _complement(spans)
        return [Guard("version", self.pos(node).line, name, spans=spans)] if spans is not None else None

    # -- tests -----------------------------------------------------------------------------------
    def facts(self, test, positive: bool = True) -> List[Guard]:
        """The guards that hold where `test` is true (`positive`) or false."""
        if not self.guard_words:
            return []
        c = test.__class__
        if c is ast.UnaryOp and isinstance(test.op, ast.Not):
            return self.facts(test.operand, not positive)
        if c is ast.BoolOp:
            # and: every operand holds where it is true; or: every operand fails where it is false
            if isinstance(test.op, ast.And) == positive:
                return [g for v in test.values for g in self.facts(v, positive)]
            return []
        if c is ast.Call:
            return self._call_facts(test, positive)
        if c is ast.Compare:
            return self._compare_facts(test, positive)
        if c is ast.Name or c is ast.Attribute:
            return self._name_facts(test, positive)
        return []

    def _has(self, obj, name_node, node, positive: bool) -> List[Guard]:
        if not (isinstance(name_node, ast.Constant) and isinstance(name_node.value, str)):
            return []
        base = self.resolve(obj)
        torch_path = base is not None and (base == "torch" or base.startswith("torch."))
        path = base + "." + name_node.value if torch_path else name_node.value
        spans = None
        e = H.history(path) if torch_path else None
        if e:
            lo, hi = H.lifetime(e)
            if lo or hi:
                spans = [(lo, hi)] if positive else _complement([(lo, hi)])
        if not positive:
            # where it is missing, nothing is named; only the releases without it are let through
            return [Guard("version", self.pos(node).line, _source(node), spans=spans)] if spans is not None else []
        return [Guard("has", self.pos(node).line, _source(node), path=path, spans=spans)]

    def _call_facts(self, node: ast.Call, positive: bool) -> List[Guard]:
        f = node.func
        if isinstance(f, ast.Name) and f.id == "hasattr" and len(node.args) == 2:
            return self._has(node.args[0], node.args[1], node, positive)
        if isinstance(f, ast.Name) and f.id == "getattr" and len(node.args) == 3:
            return self._has(node.args[0], node.args[1], node, positive)
        fname = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
        low = fname.lower()
        strings = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        if "torch" in low and len(strings) == len(node.args) and 1 <= len(strings) <= 2 and \
                ("version" in low or len(strings) == 1):
            # is_torch_version(">=", "2.0"); min_torch_version("2.6.0"), torch_at_least("2.0")
            op = strings[0] if len(strings) == 2 else "<" if any(w in low for w in _MAX_WORDS) else \
                ">=" if any(w in low for w in _MIN_WORDS) else None
            b = H.mt(strings[-1])
            spans = _span(op, b, False) if b and op in _FLIP else None
            if spans is not None and not positive:
                spans = _complement(spans)
            return [Guard("version", self.pos(node).line, _source(node), spans=spans)] if spans is not None else []
        bound = self._bound_name(fname, node, positive)
        if bound is not None:
            return bound
        path = self.resolve(f)
        if positive and path is None and _CAPABILITY_CALL.search(fname):
            words = frozenset(w for w in _words(fname) if w not in _STOP_WORDS)
            return [Guard("capability", self.pos(node).line, _source(node), words=words)] if words else []
        return []

    def _compare_facts(self, node: ast.Compare, positive: bool) -> List[Guard]:
        if len(node.ops) == 1:
            op, right, left = node.ops[0], node.comparators[0], node.left
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, ast.Call) and \
                    isinstance(right.func, ast.Name) and right.func.id == "dir" and len(right.args) == 1:
                return self._has(right.args[0], left, node, positive == isinstance(op, ast.In))
            if isinstance(op, (ast.Is, ast.IsNot, ast.Eq, ast.NotEq)) and isinstance(right, ast.Constant) \
                    and right.value is None:
                # getattr(torch.backends, "mps", None) is not None
                return self.facts(left, positive == isinstance(op, (ast.IsNot, ast.NotEq)))
        return self._version_compare(node, positive) or []

    def _name_facts(self, node, positive: bool) -> List[Guard]:
        name = node.id if isinstance(node, ast.Name) else node.attr
        if name == "TYPE_CHECKING":
            return [Guard("all", self.pos(node).line, name)] if positive else []
        m = self.meaning(node)
        if m is not None:
            if m[0] == "flag":   # said where the flag is tested, with what it was assigned
                line = self.pos(node).line
                name = _source(node)
                return [Guard(g.kind, line, name, g.path, g.spans, g.words,
                              origin="%s = %s at line %d" % (name, g.text, g.line))
                        for g in (m[1] if positive else m[2])]
            return []
        bound = self._bound_name(name, node, positive)
        if bound is not None:
            return bound
        # a name that says a feature is there (`HAS_SDPA`, `xformers_available`); not `use_amp`,
        # which is what the user asked for
        if positive and self.resolve(node) is None and _CAPABILITY_NAME.search(name):
            words = frozenset(w for w in _words(name) if w not in _STOP_WORDS)
            return [Guard("capability", self.pos(node).line, name, words=words)] if words else []
        return []

    # -- assignments -------------------------------------------------------------------------------
    def meaning_of(self, value) -> Optional[Tuple[Any, ...]]:
        """What a name assigned `value` holds: ("version", kind), ("flag", true, false) or None."""
        if not self.guard_words:
            return None
        kind = self.version_kind(value)
        if kind is not None:
            return ("version", kind)
        if isinstance(value, ast.Constant) and value.value is True:
            # `SDP_IS_AVAILABLE = True` under a version check or hasattr: what that check said
            said = [g for g in self.guards if g.kind in ("has", "version")]
            if said:
                return ("flag", said, [])
            if self.try_depth:   # `has_dynamo = True` in a try that catches ImportError: the body worked
                return ("flag", [Guard("absent", self.pos(value).line, "%s in a try" % _source(value))], [])
        true, false = self.facts(value, True), self.facts(value, False)
        if true or false:
            return ("flag", true, false)
        return None

    # -- statements ----------------------------------------------------------------------------------
    def catches(self, handler: ast.ExceptHandler) -> bool:
        """Whether the handler catches AttributeError or ImportError (a bare `except:` and
        `except Exception` do too)."""
        t = handler.type
        if t is None:
            return True
        names = t.elts if isinstance(t, ast.Tuple) else [t]
        return any(getattr(n, "id", getattr(n, "attr", None)) in _CATCHES for n in names)

    def is_suppress(self, expr) -> bool:
        if not (isinstance(expr, ast.Call) and getattr(expr.func, "id", getattr(expr.func, "attr", "")) == "suppress"):
            return False
        return any(getattr(a, "id", getattr(a, "attr", None)) in _GUARD_EXC | {"Exception"} for a in expr.args)

    def decorator_facts(self, decorators) -> List[Guard]:
        """@pytest.mark.skipif(cond) / @unittest.skipIf(cond): the body runs where cond is
        false; @unittest.skipUnless(cond): where it is true."""
        out: List[Guard] = []
        for d in decorators:
            if isinstance(d, ast.Call) and d.args:
                name = d.func.attr if isinstance(d.func, ast.Attribute) else getattr(d.func, "id", "")
                if name in ("skipif", "skipIf"):
                    out.extend(self.facts(d.args[0], False))
                elif name == "skipUnless":
                    out.extend(self.facts(d.args[0], True))
        return out


def exits(stmt) -> bool:
    """Whether the rest of the block does not run after `stmt` (return, raise, pytest.skip())."""
    if isinstance(stmt, (ast.Return, ast.Raise, ast.Continue, ast.Break)):
        return True
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        f = stmt.value.func
        return (f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")) in _EXIT_CALLS
    return False


def other_side_of_flag(value, meaning) -> bool:
    """`has_x = False` where has_x is already a flag (set True in the try, False in its handler)."""
    return meaning is not None and meaning[0] == "flag" and isinstance(value, ast.Constant) and \
        isinstance(value.value, bool)
