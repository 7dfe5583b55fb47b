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
from .stdin import STDIN


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
    show_suppressed: bool = False                     # keep what guards and noqa hid, with why
    source: Optional[bytes] = None                    # what `-` stands for: the bytes read from standard input
    stdin_filename: Optional[str] = None              # the path those bytes stand for (messages, config, pins)


@record
class Result:
    findings: List[Located] = field(default_factory=list)
    summary: Dict[str, Any] = field(default_factory=dict)   # what the renderers print beside the findings
    diffs: str = ""                                          # --diff: what --fix would write
    notes: List[str] = field(default_factory=list)          # for stderr: files skipped, pins ignored, ...
    suppressed: List[Located] = field(default_factory=list)  # --show-suppressed: what guards and noqa hid
    fixed_source: Optional[bytes] = None                     # `-` with --fix: the source, fixed (the output)

    @property
    def exit_code(self) -> int:
        return 1 if self.findings else 0


def run(opts: Options) -> Result:
    from .lintfile import Settings, lint_path
    from .runner import scan
    from .walk import Ignore, discover, exclude_matcher

    paths = list(opts.paths) or (["-"] if opts.stdin_filename else ["."])
    stdin = paths == [STDIN]
    if STDIN in paths and not stdin:
        raise LintError("-: standard input is linted alone; give no other path with it")
    if opts.stdin_filename and not stdin:
        raise LintError("--stdin-filename names what is read from standard input: lint it with `-`")
    for p in paths if not stdin else ():
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
    kind = _stdin_kind(opts) if stdin else None
    # standard input stands for --stdin-filename: its project's config and pins apply
    anchor = (opts.stdin_filename or ".") if stdin else paths[0]
    try:
        cfg = C.load(C.find_pyproject(anchor))
        selected = C.selection(opts.select, opts.ignore, cfg)
    except C.ConfigError as e:
        raise LintError(str(e))
    notes = list(cfg.notes)
    target = _target(opts, python, cfg, [anchor], notes)

    def settings_for(t: T.Target) -> Settings:
        return Settings(targets=list(t.versions), cuda=t.cuda, select=selected, want_fixes=True,
                        want_suppressed=opts.show_suppressed, per_file_ignores=tuple(cfg.per_file_ignores),
                        config_path=cfg.path)
    settings = settings_for(target)
    if stdin:
        return _run_stdin(opts, kind, settings, target, notes)
    ex = exclude_matcher(opts.exclude, os.getcwd())
    if cfg.exclude:  # patterns of the pyproject.toml are relative to its directory
        ex = Ignore(ex.layers + exclude_matcher(cfg.exclude, os.path.dirname(os.path.abspath(cfg.path))).layers)
    files = list(discover(paths, ex, notes))
    if opts.torch or cfg.torch:
        parts = [(target, files)]
    else:  # each file against its own project's pins (a repository of several projects)
        from .subprojects import split
        parts = split(files, anchor, target, notes)
    settings_of = {}
    scanned = []
    for t, group in parts:
        s = settings if t is target else settings_for(t)
        settings_of.update((p, s) for p, _ in group)
        scanned.append((s, group))
    outcome = scan(scanned, opts.jobs)
    notes.extend(outcome.notes)
    findings, suppressed = outcome.findings, outcome.suppressed
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
            suppressed = [f for f in suppressed if f.path not in again]
            for path in sorted(again):
                res = lint_path((path, "python"), settings_of.get(path, settings))
                findings.extend(res.findings)
                suppressed.extend(res.suppressed)
            findings.sort(key=Located.sort_key)
            suppressed.sort(key=Located.sort_key)
    result.findings, result.suppressed = findings, suppressed
    result.summary = _summary(outcome.files, target, notes, fixed, fixed_files, opts.diff,
                              suppressed if opts.show_suppressed else None)
    return result


def _summary(files: int, target: T.Target, notes: List[str], fixed: int, fixed_files: int, dry_run: bool,
             suppressed: Optional[List[Located]] = None) -> dict:
    return {"files": files, "target": target.describe(), "target_dict": target.to_dict(),
            "notes": notes, "fixed": fixed, "fixed_files": fixed_files, "dry_run": dry_run,
            "suppressed": suppressed}


def _stdin_kind(opts: Options) -> str:
    from . import stdin as S
    if opts.source is None:
        raise LintError("-: nothing was read from standard input")
    try:
        return S.check(opts.source, opts.stdin_filename)
    except S.Refused as e:
        raise LintError(str(e))


def _run_stdin(opts: Options, kind: str, settings, target: T.Target, notes: List[str]) -> Result:
    """`-`: lint the bytes read; with --fix the fixed source is the output, with --diff its diff."""
    from . import stdin as S
    from .runner import Outcome, combine
    name = opts.stdin_filename or S.STDIN
    data = opts.source or b""
    outcome = combine([S.lint(data, opts.stdin_filename, kind, settings)], Outcome(files=1))
    notes.extend(outcome.notes)
    findings = outcome.findings
    result = Result(notes=notes)
    fixed = 0
    if opts.fix or opts.diff:
        new, fixed, fix_notes = S.fix(data, opts.stdin_filename, findings)
        notes.extend(fix_notes)
        if opts.fix:
            result.fixed_source = new
            if fixed:  # what is left, in the fixed source
                again = combine([S.lint(new, opts.stdin_filename, kind, settings)], Outcome(files=1))
                findings = again.findings
        elif fixed:
            from .fix import unified_diff
            result.diffs = unified_diff(name, data, new)
    result.findings, result.suppressed = findings, outcome.suppressed
    result.summary = _summary(outcome.files, target, notes, fixed, 1 if fixed else 0, opts.diff,
                              outcome.suppressed if opts.show_suppressed else None)
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
