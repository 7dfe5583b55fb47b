"""Lint one file: a Python module, a notebook's code cells, or an environment file.

Runs in worker processes: everything here is a pure function of (path, settings) that
returns a FileResult (picklable), never raises for bad input, and never writes.
"""

import ast
import json
import re
from ...model.records import field, record
from typing import Any, Dict, FrozenSet, Iterable, List, Optional, Tuple

from . import envfiles as E
from . import envpins, envreaders, ipython, pyscan, pysource
from .envcheck import EnvCase
from .inplace import digest
from .located import Located, Place, call
from .nbraw import RawNotebook
from .rules import on

ENV_RULES = on("env")
(SYNTAX_RULE,) = on("parse")

_NOQA = re.compile(r"#\s*noqa(?::[ \t]*(?P<codes>[A-Za-z]+[0-9]+(?:[,\s]+[A-Za-z]+[0-9]+)*))?", re.IGNORECASE)
_CELL_PIP = re.compile(r"^\s*(?:!|%)\s*(pip|conda|mamba)\s+install\b(.*)$")


@record
class Settings:
    targets: List[Tuple[int, int]]
    cuda: Optional[bool]
    select: FrozenSet[str]
    want_fixes: bool = False
    want_suppressed: bool = False   # keep what guards and noqa hid (--show-suppressed)
    # [tool.torchdoctor.lint] per-file-ignores: (pattern, codes), relative to config_path's folder
    per_file_ignores: Tuple[Tuple[str, FrozenSet[str]], ...] = ()
    config_path: Optional[str] = None

    def selected_in(self, path: str) -> FrozenSet[str]:
        """The codes that run in `path`: the selection less what per-file-ignores turns off there."""
        from .config import ignored_codes
        return self.select - ignored_codes(self.per_file_ignores, self.config_path, path)


@record
class FileResult:
    path: str
    findings: List[Located] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    mentions: FrozenSet[str] = frozenset()
    scanned: bool = True
    digest: Optional[str] = None   # of the bytes scanned: --fix rewrites only a file that still has them
    suppressed: List[Located] = field(default_factory=list)   # what guards and noqa hid, when asked


def noqa_map(numbered: Iterable[Tuple[int, str]]) -> Dict[int, Optional[FrozenSet[str]]]:
    """line -> None (bare `# noqa`: everything) or the codes named, from (number, line) pairs:
    every line, or those that may hold one."""
    out: Dict[int, Optional[FrozenSet[str]]] = {}
    for n, line in numbered:
        if "noqa" not in line and "NOQA" not in line:
            continue
        m = _NOQA.search(line)
        if m:
            codes = m.group("codes")
            out[n] = None if not codes else frozenset(c.upper() for c in re.split(r"[,\s]+", codes) if c)
    return out


def suppressed(noqa: Dict[Any, Optional[FrozenSet[str]]], line: Any, code: str) -> bool:
    """Whether a `# noqa` comment at `line` (a line number, or (cell, line) in a notebook) hides `code`."""
    if line not in noqa:
        return False
    codes = noqa[line]
    return codes is None or code in codes


def _read(path: str, res: FileResult) -> Optional[bytes]:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        res.notes.append("%s: skipped, cannot read it (%s)" % (path, e.strerror or e))
        res.scanned = False
        return None
    if b"\x00" in data[:8192]:
        res.notes.append("%s: skipped, binary file" % path)
        res.scanned = False
        return None
    return data


def _syntax(path: str, e: Exception) -> Located:
    (loc,) = call(SYNTAX_RULE, e)
    loc.place.path = path
    return loc


def _placed(found: List[Located], path: str) -> List[Located]:
    for loc in found:
        loc.place.path = path
    return found


# The texts whose mention in any file of the scan drops a finding (Located.needs_absent): a
# launcher may set the variable, another module may call the function.
CROSS_FILE_WORDS = ("CUBLAS_WORKSPACE_CONFIG", "use_deterministic_algorithms")


def _mentions(text: str) -> FrozenSet[str]:
    return frozenset(w for w in CROSS_FILE_WORDS if w in text)


def _keep(findings: List[Located], noqa, settings: Settings, res: FileResult,
          key=lambda f: f.line) -> List[Located]:
    """The selected findings no `# noqa` hides; with --show-suppressed, the hidden ones go to
    `res.suppressed`, each saying which comment hid it."""
    kept = []
    selected = _selection(settings)
    for f in findings:
        if f.code not in selected(f.path):
            continue
        if not suppressed(noqa, key(f), f.code):
            kept.append(f)
        elif settings.want_suppressed:
            f.suppressed = "# noqa%s on its line" % ("" if noqa[key(f)] is None else ": " + f.code)
            res.suppressed.append(f)
    return kept


def _hidden(found: List[Located], settings: Settings) -> List[Located]:
    """What guards hid, of the selected rules."""
    selected = _selection(settings)
    return [f for f in found if f.code in selected(f.path)]


def _selection(settings: Settings):
    """path -> the codes that run there, worked out once per path."""
    if not settings.per_file_ignores:
        return lambda path: settings.select
    seen: Dict[str, FrozenSet[str]] = {}

    def selected(path: str) -> FrozenSet[str]:
        if path not in seen:
            seen[path] = settings.selected_in(path)
        return seen[path]
    return selected


def lint_python(path: str, settings: Settings, data: Optional[bytes] = None) -> FileResult:
    """The findings of a Python file. Its statements are parsed and walked a chunk at a time
    (pysource), so the memory does not grow with the file; the bytes go once decoded."""
    res = FileResult(path)
    data = _read(path, res) if data is None else data
    if data is None:
        return res
    res.digest = digest(data)
    text, exact = pysource.decode(data)
    noqa = noqa_map(pysource.lines_containing(text, ("noqa", "NOQA")))
    res.mentions = _mentions(text)
    tree = None
    hidden: Optional[List[Located]] = [] if settings.want_suppressed else None
    try:
        if not exact:
            ast.parse(data, filename=path)  # bytes Python cannot decode: the parser's own error
        data = None
        if path.endswith("setup.py"):  # small, and its setup() call is read from the whole tree
            tree = ast.parse(text, filename=path)
            found = pyscan.analyze(tree, text, settings.targets, settings.cuda, hidden)
        else:
            found = pyscan.analyze_text(text, settings.targets, settings.cuda, hidden)
    except RecursionError:  # the walk or the parser ran out of stack: the parser says which
        error = pysource.parse_error(text)
        if error is None:
            res.notes.append("%s: too deeply nested to analyse; only parsed" % path)
        else:
            res.findings = _keep([_syntax(path, error)], noqa, settings, res)
        return res
    except pysource.PARSE_ERRORS as e:
        res.findings = _keep([_syntax(path, e)], noqa, settings, res)
        return res
    if not settings.want_fixes:
        for loc in found:
            loc.edit = None
    res.findings = _keep(_placed(found, path), noqa, settings, res)
    if hidden:
        res.suppressed += _hidden(_placed(hidden, path), settings)
    if tree is not None:
        group = envreaders.read_setup_py(text, path, tree)
        res.findings += env_findings(group, settings, noqa, res)
    return res


def lint_notebook(path: str, settings: Settings) -> FileResult:
    """Code cells, with their line numbers (cell N, line L). Cells that do not parse are one
    TD000 each; the others are analysed together, in order (names flow between cells)."""
    res = FileResult(path)
    data = _read(path, res)
    if data is None:
        return res
    raw_text = data.decode("utf-8", "replace")
    try:
        nb = json.loads(raw_text)
        cells = nb.get("cells") if isinstance(nb, dict) else None
        if not isinstance(cells, list):
            raise ValueError("no 'cells' list")
    except (ValueError, AttributeError) as e:
        res.notes.append("%s: skipped, not a notebook (%s)" % (path, str(e).splitlines()[0][:80]))
        res.scanned = False
        return res
    joined: List[str] = []
    where: List[Tuple[int, int]] = []   # joined line -> (cell, line in cell)
    noqa: Dict[Tuple[int, int], Optional[FrozenSet[str]]] = {}
    group = E.Group(path, "notebook")
    out: List[Located] = []
    for ci, cell in enumerate(cells, 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        src = "".join(src) if isinstance(src, list) else str(src)
        cell_lines = src.splitlines()
        for ln, text in noqa_map(enumerate(cell_lines, 1)).items():
            noqa[(ci, ln)] = text
        for ln, line in enumerate(cell_lines, 1):  # `!pip install ...`, `%pip install ...`
            m = _CELL_PIP.match(line)
            if m:
                before = len(group.pins)
                envpins.shell_installs("%s install %s" % (m.group(1), m.group(2)), ln, path, group)
                for p in group.pins[before:]:
                    p.where, p.col = "cell %d" % ci, ci  # the cell, for the location below
        # IPython's magics, shell escapes and help are not Python: what IPython runs instead
        clean = ipython.to_python_lines(src)
        try:
            ast.parse("\n".join(clean) + "\n")
        except pysource.PARSE_ERRORS as e:
            f = _syntax(path, e)
            f.place.cell = ci
            out.append(f)
            continue
        for ln in range(1, len(clean) + 1):
            where.append((ci, ln))
        joined.extend(clean)
    source = "\n".join(joined) + "\n"
    res.mentions = _mentions(source)
    hidden: Optional[List[Located]] = [] if settings.want_suppressed else None
    try:
        found = pyscan.analyze_text(source, settings.targets, settings.cuda, hidden)
    except pysource.PARSE_ERRORS:
        found = []

    def in_cell(h: Located) -> Located:
        p = h.place
        cell, line = where[p.line - 1] if 0 < p.line <= len(where) else (None, p.line)
        end_line = where[p.end_line - 1][1] if p.end_line and 0 < p.end_line <= len(where) and where[p.end_line - 1][0] == cell else None
        h.place = Place(path, line, p.col, end_line, p.end_col if end_line else None, cell)
        h.edit = None   # --fix rewrites .py files only
        return h

    out.extend(in_cell(h) for h in found)
    for h in env_results(group):
        line = h.place.line
        cell = next((p.col for p in group.pins if p.line == line and p.where.startswith("cell ")), None)
        h.place = Place(path, line, 1, cell=cell)
        out.append(h)
    res.findings = _keep(out, noqa, settings, res, key=lambda f: (f.cell, f.line))
    if hidden:
        res.suppressed += _hidden([in_cell(h) for h in hidden], settings)
    if res.findings:
        raw = RawNotebook(raw_text)
        for f in res.findings:
            at = raw.place(f.cell, f.line, f.col) if f.cell is not None else None
            if at:
                f.place.raw_line, f.place.raw_col = at
    return res


def env_results(group: E.Group, python=None) -> List[Located]:
    case = EnvCase(group, python)
    out: List[Located] = []
    for r in ENV_RULES:
        out.extend(call(r, case))
    return out


def env_findings(group: E.Group, settings: Settings, noqa, res: FileResult, python=None) -> List[Located]:
    return _keep(_placed(env_results(group, python), group.path), noqa, settings, res)


def lint_env(path: str, kind: str, settings: Settings, python=None,
             data: Optional[bytes] = None) -> Tuple[FileResult, Optional[E.Group]]:
    res = FileResult(path)
    data = _read(path, res) if data is None else data
    if data is None:
        return res, None
    text = data.decode("utf-8", "replace")
    res.mentions = _mentions(text)
    group = envreaders.read(kind, text, path)
    res.notes.extend(group.notes)
    lines = text.splitlines()
    noqa = noqa_map(enumerate(lines, 1))
    if kind == "docker":  # a `# noqa: TD404` comment line above an instruction counts for it
        for n, line in enumerate(lines, 1):
            if n in noqa and line.lstrip().startswith("#"):
                noqa.setdefault(n + 1, noqa[n])
    res.findings = env_findings(group, settings, noqa, res, python)
    return res, group


def lint_path(item: Tuple[str, str], settings: Settings) -> FileResult:
    """Entry point of the workers: (path, kind) with kind python | notebook."""
    path, kind = item
    try:
        if kind == "notebook":
            return lint_notebook(path, settings)
        return lint_python(path, settings)
    except Exception as e:  # a bug of ours must not end the scan of everything else
        res = FileResult(path)
        res.notes.append("%s: not checked, internal error %s: %s" % (path, type(e).__name__, e))
        return res
