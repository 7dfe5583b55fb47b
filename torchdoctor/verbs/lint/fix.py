"""``--fix`` and ``--diff``: the exactly equivalent rewrites, applied with LibCST.

LibCST (the optional extra ``torchdoctor[lint]``) keeps every byte it is not asked to
change: formatting, comments, quotes, line endings and the file's encoding. A rewrite is
applied only where the detector (pyscan, on ``ast``) attached one, at the same position;
the result must parse again, or the file is left alone. What may be rewritten, and how
it is written without harm (the content the scan saw, links, read-only files, hard links,
the size limit, atomically): inplace.
"""

import ast
import difflib
from typing import Dict, List, Optional, Tuple

from ...model.records import field, record
from . import inplace

class FixUnavailable(RuntimeError):
    pass


def require_libcst():
    try:
        import libcst  # noqa: F401
    except ImportError:
        from ..extra_hint import add_package
        raise FixUnavailable("--fix and --diff need LibCST (the lint extra): %s" % add_package("libcst"))


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
        new = MetadataWrapper(module, unsafe_skip_copy=True).visit(fixer)  # the module is ours alone
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


def fix_file(path: str, fixes: List[dict], scanned_digest: str, roots: List[str],
             write: bool) -> Tuple[int, Optional[str], List[str]]:
    """(rewrites applied, unified diff or None, notes) for one file, found where the scan
    read it (`scanned_digest`). Writes only when `write`; --diff shows what --fix would
    write, so the same files are left alone (inplace.Refused, with why)."""
    real = inplace.target(path, roots)
    old = inplace.read_scanned(real, scanned_digest)
    new, count, notes = apply(old, fixes)
    if not count or new == old:
        return 0, None, notes
    if write:
        inplace.replace(real, scanned_digest, new)
        return count, None, notes
    return count, unified_diff(path, old, new), notes


@record
class Fixed:
    rewrites: int = 0
    paths: List[str] = field(default_factory=list)   # the files rewritten (or, for --diff, that would be)
    diffs: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)


def fix_findings(findings, digests: Dict[str, str], roots: List[str], write: bool) -> Fixed:
    """Apply (or, without `write`, show) the rewrites the findings carry, file by file."""
    by_file: Dict[str, List[dict]] = {}
    for f in findings:
        if f.edit and f.cell is None:
            by_file.setdefault(f.path, []).append(f.edit)
    out = Fixed()
    for path, fixes in by_file.items():
        try:
            if path not in digests:
                raise inplace.Refused(inplace.CHANGED)
            count, diff, notes = fix_file(path, fixes, digests[path], roots, write)
        except inplace.Refused as e:
            out.notes.append("%s: %s: not fixed" % (path, e))
            continue
        except OSError as e:
            out.notes.append("%s: not fixed (%s)" % (path, e.strerror or e))
            continue
        out.notes.extend("%s: %s" % (path, n) for n in notes)
        if count:
            out.rewrites += count
            out.paths.append(path)
            if diff:
                out.diffs.append(diff)
    return out
