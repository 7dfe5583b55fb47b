"""`torchdoctor lint` as one function, what the command line, MCP and the Python API call.

`run(Options) -> Result`: reads ``[tool.torchdoctor.lint]``, picks the target, finds the
files, scans them, applies ``--fix`` (or shows it, ``--diff``) and lints again what it
rewrote. It never prints and never exits: bad input is one LintError with one line to say;
the caller renders the Result (output.py) and picks the exit code (Result.exit_code).
"""

import os
from typing import Any, Dict, List, Optional

from ...model.records import field, record
from . import config as C
from . import target as T
from .located import Located


class LintError(ValueError):
    """Input lint cannot use (a path that does not exist, an unknown code, a bad config):
    one line, said as it is."""


@record
class Options:
    paths: List[str] = field(default_factory=list)   # default: the current directory
    torch: Optional[str] = None                       # --torch: a version or a range
    python: Optional[str] = None                      # --python: whose installed torch is the target
    select: List[str] = field(default_factory=list)   # codes or prefixes
    ignore: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)  # gitignore-style patterns
    fix: bool = False
    diff: bool = False
    jobs: Optional[int] = None


@record
class Result:
    findings: List[Located] = field(default_factory=list)
    summary: Dict[str, Any] = field(default_factory=dict)   # what the renderers print beside the findings
    diffs: str = ""                                          # --diff: what --fix would write
    notes: List[str] = field(default_factory=list)          # for stderr: files skipped, pins ignored, ...

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0


def run(opts: Options) -> Result:
    from .lintfile import Settings, lint_path
    from .runner import scan
    from .walk import Ignore, discover, exclude_matcher

    paths = list(opts.paths) or ["."]
    for p in paths:
        if not os.path.exists(p):
            raise LintError("%s: no such file or directory" % p)
    from ..common import named_python
    # refused in one line before anything runs it, whatever decides the target
    python = named_python(opts.python) if opts.python else None
    if opts.fix and opts.diff:
        raise LintError("--fix and --diff exclude each other (--diff shows what --fix would write)")
    if opts.fix or opts.diff:
        from .fix import FixUnavailable, require_libcst
        try:
            require_libcst()
        except FixUnavailable as e:
            raise LintError(str(e))
    try:
        cfg = C.load(C.find_pyproject(paths[0]))
        selected = C.selection(opts.select, opts.ignore, cfg)
    except C.ConfigError as e:
        raise LintError(str(e))
    notes = list(cfg.notes)
    target = _target(opts, python, cfg, paths, notes)
    ex = exclude_matcher(opts.exclude, os.getcwd())
    if cfg.exclude:  # patterns of the pyproject.toml are relative to its directory
        ex = Ignore(ex.layers + exclude_matcher(cfg.exclude, os.path.dirname(os.path.abspath(cfg.path))).layers)
    files = list(discover(paths, ex, notes))
    settings = Settings(targets=list(target.versions), cuda=target.cuda, select=selected, want_fixes=True)
    outcome = scan(files, settings, opts.jobs)
    notes.extend(outcome.notes)
    findings = outcome.findings
    result = Result(notes=notes)
    fixed = fixed_files = 0
    if opts.fix or opts.diff:
        from .fix import fix_findings
        from .inplace import tree_roots
        done = fix_findings(findings, outcome.digests, tree_roots(paths), write=opts.fix)
        notes.extend(done.notes)
        fixed, fixed_files = done.rewrites, len(done.paths)
        result.diffs = "".join(done.diffs)
        if opts.fix and done.paths:
            # what is left, at its new place
            again = set(done.paths)
            findings = [f for f in findings if f.path not in again]
            for path in sorted(again):
                findings.extend(lint_path((path, "python"), settings).findings)
            findings.sort(key=Located.sort_key)
    result.findings = findings
    result.summary = {"files": outcome.files, "target": target.describe(), "target_dict": target.to_dict(),
                      "notes": notes, "fixed": fixed, "fixed_files": fixed_files, "dry_run": opts.diff}
    return result


def _target(opts: Options, python: Optional[str], cfg: C.Config, paths: List[str], notes: List[str]) -> T.Target:
    """--torch, else the config's torch, else the project's pins, else --python's torch, else
    the default range (target.py says why in this order)."""
    from .declared import project_target
    spec = opts.torch or cfg.torch
    where = "--torch" if opts.torch or not cfg.torch else "%s [tool.torchdoctor.lint] torch" % os.path.relpath(cfg.path)
    if spec and spec.strip().lower() == T.INSTALLED:
        return _installed(python, where)
    if spec:
        try:
            target = T.from_option(spec)
        except ValueError as e:
            raise LintError("--torch: %s" % e)
        if not opts.torch:
            target.origin = where
        return target
    target, tnotes = project_target(paths[0])
    notes.extend(tnotes)
    if target is not None:
        return target
    if python:  # named on the command line: its torch is what the user asked for
        return _installed(python, "--python")
    return T.default_range()


def _installed(python: Optional[str], asked: str) -> T.Target:
    from ..common import chosen_python
    # --python was checked in run(); without it, the interpreter every verb picks
    python = python or chosen_python(None)
    target = T.from_installed(python)
    if target is None:
        raise LintError("%s: no torch is installed in %s (its dist-info metadata names none)" % (asked, python))
    return target
