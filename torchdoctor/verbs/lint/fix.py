"""``--fix`` and ``--diff``: the exactly equivalent rewrites, applied with LibCST.

LibCST (the optional extra ``torchdoctor[lint]``) keeps every byte it is not asked to
change: formatting, comments, quotes, line endings and the file's encoding. A rewrite is
applied only where the detector (pyscan, on ``ast``) attached one, at the same position;
the result must parse again, or the file is left alone. Files are written atomically
(a temporary file beside the original, its permission bits, then os.replace).
"""

import ast
import difflib
import os
import tempfile
from typing import Dict, List, Optional, Tuple

EXTRA_HINT = 'pip install "torchdoctor[lint]"'
IMPORT_LINE = "from torch.nn.attention import SDPBackend, sdpa_kernel"


class FixUnavailable(RuntimeError):
    pass


def require_libcst():
    try:
        import libcst  # noqa: F401
    except ImportError:
        raise FixUnavailable("--fix and --diff need LibCST: %s" % EXTRA_HINT)


def _module_bindings(tree: ast.Module) -> Dict[str, str]:
    """Top-level name -> 'torch.nn.attention.X' for imports of it, or '' for any other binding."""
    out: Dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            for a in node.names:
                out[a.asname or a.name] = "%s.%s" % (node.module, a.name) if node.module and not node.level else ""
        elif isinstance(node, ast.Import):
            for a in node.names:
                out[a.asname or a.name.split(".")[0]] = ""
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = ""
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            out[node.id] = ""
        elif isinstance(node, ast.arg):
            out[node.arg] = ""
    return out


def _insert_at(tree: ast.Module) -> int:
    """Index of the top-level statement after which the import goes."""
    body = tree.body
    idx = 0
    if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
            and isinstance(body[0].value.value, str):
        idx = 1
    for i, s in enumerate(body):
        if isinstance(s, ast.ImportFrom) and s.module == "__future__":
            idx = i + 1
    for i, s in enumerate(body):
        if isinstance(s, ast.Import) and any(a.name == "torch" or a.name.startswith("torch.") for a in s.names):
            return max(idx, i + 1)
        if isinstance(s, ast.ImportFrom) and s.module and (s.module == "torch" or s.module.startswith("torch.")) and not s.level:
            return max(idx, i + 1)
    return idx


def apply(source: bytes, fixes: List[dict]) -> Tuple[bytes, int, List[str]]:
    """(new source, number of rewrites applied, notes)."""
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    notes: List[str] = []
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return source, 0, ["does not parse; nothing rewritten"]
    sdp = [f for f in fixes if f["kind"] == "sdp_kernel"]
    if sdp:
        bound = _module_bindings(tree)
        clash = [n for n in ("SDPBackend", "sdpa_kernel") if n in bound and bound[n] != "torch.nn.attention." + n]
        if clash:
            notes.append("sdp_kernel not rewritten: %s is already bound to something else here" % ", ".join(clash))
            fixes = [f for f in fixes if f["kind"] != "sdp_kernel"]
            sdp = []
        need_import = [n for n in ("SDPBackend", "sdpa_kernel") if bound.get(n) != "torch.nn.attention." + n]
    else:
        need_import = []
    by_pos = {(f["line"], f["col"]): f for f in fixes}

    class Fixer(cst.CSTTransformer):
        METADATA_DEPENDENCIES = (PositionProvider,)

        def __init__(self):
            super().__init__()
            self.count = 0
            self.sdp_done = 0

        def _fix_at(self, node, kind):
            pos = self.get_metadata(PositionProvider, node).start
            f = by_pos.get((pos.line, pos.column + 1))
            return f if f and f["kind"] == kind else None

        def leave_Call(self, original, updated):
            f = self._fix_at(original, "sdp_kernel")
            if not f:
                return updated
            if "#" in cst.Module(body=[]).code_for_node(original):
                notes.append("line %d: sdp_kernel call not rewritten: it has comments inside" % f["line"])
                return updated
            elements = [cst.Element(cst.Attribute(cst.Name("SDPBackend"), cst.Name(b))) for b in f["backends"]]
            self.count += 1
            self.sdp_done += 1
            return updated.with_changes(func=cst.Name("sdpa_kernel"), args=[cst.Arg(cst.List(elements))])

        def leave_Attribute(self, original, updated):
            f = self._fix_at(original, "rename_attr")
            if not f or updated.attr.value != f["attr"]:
                return updated
            self.count += 1
            return updated.with_changes(attr=cst.Name(f["new"]))

    try:
        module = cst.parse_module(source)
        fixer = Fixer()
        new = MetadataWrapper(module).visit(fixer)
    except Exception as e:  # libcst.ParserSyntaxError and the like
        return source, 0, ["LibCST could not read it (%s); nothing rewritten" % str(e).splitlines()[0]]
    if fixer.sdp_done and need_import:
        stmt = cst.parse_statement("from torch.nn.attention import %s\n" % ", ".join(need_import),
                                   config=new.config_for_parsing)
        at = _insert_at(tree)
        body = list(new.body)
        body.insert(at, stmt)
        new = new.with_changes(body=body)
    out = new.bytes
    try:
        compile(out, "<fixed>", "exec", ast.PyCF_ONLY_AST)
    except (SyntaxError, ValueError) as e:
        return source, 0, ["the rewrite would not parse (%s); nothing rewritten" % e]
    return out, fixer.count, notes


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    lines = list(difflib.unified_diff(a, b, fromfile=path, tofile=path))
    return "".join(l if l.endswith("\n") else l + "\n\\ No newline at end of file\n" for l in lines)


def write_atomic(path: str, data: bytes) -> None:
    d = os.path.dirname(os.path.abspath(path))
    st = os.stat(path)
    fd, tmp = tempfile.mkstemp(prefix=".torchdoctor-", suffix=".tmp", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, st.st_mode & 0o7777)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def fix_file(path: str, fixes: List[dict], write: bool) -> Tuple[int, Optional[str], List[str]]:
    """(rewrites applied, unified diff or None, notes). Writes only when `write`."""
    with open(path, "rb") as f:
        old = f.read()
    new, count, notes = apply(old, fixes)
    if not count or new == old:
        return 0, None, notes
    diff = unified_diff(path, old, new)
    if write:
        write_atomic(path, new)
    return count, diff, notes
