"""Which files to lint: recursion into directories honouring .gitignore and --exclude.

The gitignore matching is implemented here (no git subprocess, so it works outside a
repository and costs nothing per directory): blank lines and ``#`` comments, ``\\``
escapes, ``!`` negation, a trailing ``/`` for directories, patterns with a ``/`` anchored to
the .gitignore's directory and others matching a name at any depth, ``*``, ``?``, ``[...]``
and ``**``; the last matching rule wins, deeper .gitignore files after shallower ones, and a
file in an ignored directory stays ignored (as in git). The .gitignore files of the
directories above a given path, up to the repository root, count for what lies below it,
but never hide the path the user named. Not read: .git/info/exclude and the global
core.excludesFile.
"""

import os
import re
from typing import Iterator, List, Optional, Tuple

from .envfiles import kind_of

# Directories never entered while recursing (the tools' and environments' folders, as
# ruff's default `exclude`); a path named on the command line is entered all the same.
DEFAULT_EXCLUDES = (".bzr", ".direnv", ".eggs", ".git", ".git-rewrite", ".hg", ".ipynb_checkpoints", ".mypy_cache",
                    ".nox", ".pants.d", ".pyenv", ".pytest_cache", ".pytype", ".ruff_cache", ".svn", ".tox", ".venv",
                    ".vscode", "__pypackages__", "_build", "buck-out", "build", "dist", "node_modules",
                    "site-packages", "venv", "__pycache__")


def _translate(pat: str) -> str:
    """Regex source for a gitignore glob (already stripped of !, leading and trailing /)."""
    out, i, n = [], 0, len(pat)
    while i < n:
        c = pat[i]
        if c == "*":
            if pat[i:i + 2] == "**":
                before = i == 0 or pat[i - 1] == "/"
                after = i + 2 == n or pat[i + 2] == "/"
                if before and after:
                    if i + 2 == n:
                        out.append(".*")
                    else:
                        out.append("(?:.*/)?")
                        i += 1  # the slash after ** is part of the group
                    i += 2
                    continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = i + 1
            if j < n and pat[j] in "!^":
                j += 1
            if j < n and pat[j] == "]":
                j += 1
            while j < n and pat[j] != "]":
                j += 1
            if j >= n:
                out.append("\\[")
            else:
                body = pat[i + 1:j]
                if body[:1] in "!^":
                    body = "^" + body[1:]
                out.append("[" + body.replace("\\", "\\\\") + "]")
                i = j
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pat[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


class Rule:
    __slots__ = ("regex", "negate", "dir_only", "pattern")

    def __init__(self, regex, negate, dir_only, pattern):
        self.regex, self.negate, self.dir_only, self.pattern = regex, negate, dir_only, pattern


def parse_rules(text: str) -> List[Rule]:
    rules = []
    for raw in text.splitlines():
        line = raw
        if not line.strip() or line.startswith("#"):
            continue
        # trailing spaces are ignored unless escaped
        while line.endswith(" ") and not line.endswith("\\ "):
            line = line[:-1]
        negate = line.startswith("!")
        if negate:
            line = line[1:]
        elif line.startswith("\\!") or line.startswith("\\#"):
            line = line[1:]
        dir_only = line.endswith("/")
        line = line.rstrip("/")
        if not line:
            continue
        anchored = "/" in line
        line = line.lstrip("/")
        body = _translate(line)
        src = ("^" if anchored else "^(?:.*/)?") + body + "$"
        try:
            rules.append(Rule(re.compile(src, re.DOTALL), negate, dir_only, raw))
        except re.error:
            continue
    return rules


class Ignore:
    """Stack of (base directory, rules) applied to absolute paths."""

    def __init__(self, layers: Optional[List[Tuple[str, List[Rule]]]] = None):
        self.layers = layers or []

    def child(self, base: str, rules: List[Rule]) -> "Ignore":
        return Ignore(self.layers + [(base, rules)]) if rules else self

    def ignored(self, path: str, is_dir: bool) -> bool:
        verdict = False
        for base, rules in self.layers:
            rel = os.path.relpath(path, base)
            if rel.startswith(".."):
                continue
            rel = rel.replace(os.sep, "/")
            for r in rules:
                if r.dir_only and not is_dir:
                    continue
                if r.regex.match(rel):
                    verdict = not r.negate
        return verdict


def _read_rules(directory: str) -> List[Rule]:
    try:
        with open(os.path.join(directory, ".gitignore"), encoding="utf-8", errors="replace") as f:
            return parse_rules(f.read())
    except OSError:
        return []


def _ancestors_ignore(path: str) -> Ignore:
    """The .gitignore files above `path`, up to the repository root (the directory with .git)."""
    chain = []
    d = os.path.dirname(os.path.abspath(path))
    while True:
        chain.append(d)
        if os.path.exists(os.path.join(d, ".git")):
            break
        parent = os.path.dirname(d)
        if parent == d:
            chain = []  # not in a repository: only the .gitignore files below the path count
            break
        d = parent
    ig = Ignore()
    for d in reversed(chain):
        ig = ig.child(d, _read_rules(d))
    return ig


def file_kind(name: str) -> Optional[str]:
    if name.endswith(".py"):
        return "setuppy" if name == "setup.py" else "python"
    if name.endswith(".ipynb"):
        return "notebook"
    return kind_of(name)


def discover(paths: List[str], excludes: Optional[Ignore] = None,
             notes: Optional[List[str]] = None) -> Iterator[Tuple[str, str]]:
    """(path, kind) of every file to lint, in a stable order, each once."""
    seen = set()
    excludes = excludes or Ignore()
    for root in paths:
        if os.path.isfile(root) or not os.path.isdir(root):
            if excludes.ignored(os.path.abspath(root), False):
                continue
            kind = file_kind(os.path.basename(root)) or "python"
            key = os.path.realpath(root)
            if key not in seen:
                seen.add(key)
                yield root, kind
            continue
        ig = _ancestors_ignore(root).child(os.path.abspath(root), _read_rules(root))
        yield from _walk(root, os.path.abspath(root), ig, excludes, seen, notes)


def _walk(display: str, absdir: str, ig: Ignore, excludes: Ignore, seen: set, notes) -> Iterator[Tuple[str, str]]:
    try:
        entries = sorted(os.scandir(absdir), key=lambda e: e.name)
    except OSError as e:
        if notes is not None:
            notes.append("%s: skipped, cannot list it (%s)" % (display, e.strerror or e))
        return
    subdirs = []
    for entry in entries:
        apath = entry.path
        shown = os.path.join(display, entry.name) if display not in (".", "") else entry.name
        try:
            is_dir = entry.is_dir(follow_symlinks=False)
        except OSError:
            continue
        if is_dir:
            if entry.name in DEFAULT_EXCLUDES or ig.ignored(apath, True) or excludes.ignored(apath, True):
                continue
            subdirs.append((shown, apath))
            continue
        kind = file_kind(entry.name)
        if not kind or ig.ignored(apath, False) or excludes.ignored(apath, False):
            continue
        if not _regular_or_dangling(entry):  # a pipe would block the read forever, a device never end
            if notes is not None:
                notes.append("%s: skipped, not a regular file" % shown)
            continue
        key = os.path.realpath(apath)
        if key in seen:
            continue
        seen.add(key)
        yield shown, kind
    for shown, apath in subdirs:
        yield from _walk(shown, apath, ig.child(apath, _read_rules(apath)), excludes, seen, notes)


def _regular_or_dangling(entry: os.DirEntry) -> bool:
    """A regular file, or a link to one; a dangling link too (its read says it cannot be read)."""
    try:
        if entry.is_file():
            return True
        return entry.is_symlink() and not os.path.exists(entry.path)
    except OSError:
        return True


def exclude_matcher(patterns: List[str], base: str) -> Ignore:
    return Ignore([(os.path.abspath(base), parse_rules("\n".join(patterns)))]) if patterns else Ignore()
