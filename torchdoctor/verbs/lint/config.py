"""``[tool.torchdoctor.lint]`` in pyproject.toml, and rule selection.

Keys: ``select``, ``ignore``, ``extend-select`` (lists of codes or prefixes such as "TD1"),
``exclude`` (gitignore-style patterns, relative to the pyproject.toml), ``per-file-ignores``
(a table: glob pattern -> codes, as ruff's), ``torch`` (the target, as --torch). The command line wins over the file. TOML is read with tomllib
(Python 3.11+) or tomli where installed; otherwise the file is not read, with a note.
"""

import fnmatch
import os
from ...model.records import field, record
from typing import FrozenSet, List, Optional, Tuple

from . import rules as R

KEYS = ("select", "ignore", "extend-select", "exclude", "per-file-ignores", "torch")


@record
class Config:
    path: Optional[str] = None
    select: Optional[List[str]] = None
    ignore: List[str] = field(default_factory=list)
    extend_select: List[str] = field(default_factory=list)
    exclude: List[str] = field(default_factory=list)
    torch: Optional[str] = None
    per_file_ignores: List[Tuple[str, FrozenSet[str]]] = field(default_factory=list)   # (pattern, codes)
    notes: List[str] = field(default_factory=list)


def ignored_codes(per_file_ignores, config_path: Optional[str], path: str) -> FrozenSet[str]:
    """The codes per-file-ignores turns off in `path`. A pattern is matched against the path
    relative to the pyproject.toml's directory, and one without a slash also against the
    file's name, as ruff matches them."""
    if not per_file_ignores or not config_path:
        return frozenset()
    rel = os.path.relpath(os.path.abspath(path), os.path.dirname(os.path.abspath(config_path))).replace(os.sep, "/")
    out: FrozenSet[str] = frozenset()
    for pattern, codes in per_file_ignores:
        p = pattern.strip("/")
        if fnmatch.fnmatchcase(rel, p) or fnmatch.fnmatchcase(rel, p + "/*") or (
                "/" not in p and fnmatch.fnmatchcase(os.path.basename(rel), p)):
            out |= codes
    return out


class ConfigError(ValueError):
    pass


def find_pyproject(start: str) -> Optional[str]:
    d = os.path.abspath(start if os.path.isdir(start) else (os.path.dirname(start) or "."))
    while True:
        p = os.path.join(d, "pyproject.toml")
        if os.path.isfile(p):
            return p
        parent = os.path.dirname(d)
        if parent == d or os.path.isdir(os.path.join(d, ".git")):
            return None
        d = parent


def _loads():
    try:
        import tomllib  # type: ignore[import-not-found]
        return tomllib.loads
    except ImportError:
        try:
            import tomli  # type: ignore[import-not-found]
            return tomli.loads
        except ImportError:
            return None


def load(path: Optional[str]) -> Config:
    cfg = Config(path=path)
    if not path:
        return cfg
    loads = _loads()
    if loads is None:
        cfg.notes.append("%s: [tool.torchdoctor.lint] not read: Python < 3.11 needs the tomli package" % path)
        return cfg
    try:
        with open(path, encoding="utf-8") as f:
            data = loads(f.read())
    except OSError as e:
        cfg.notes.append("%s: not read (%s)" % (path, e.strerror or e))
        return cfg
    except Exception as e:  # TOMLDecodeError
        raise ConfigError("%s is not valid TOML: %s" % (path, str(e).splitlines()[0]))
    section = data.get("tool", {}).get("torchdoctor", {}).get("lint")
    if section is None:
        return cfg
    if not isinstance(section, dict):
        raise ConfigError("%s: [tool.torchdoctor.lint] must be a table" % path)
    for key, value in section.items():
        if key not in KEYS:
            raise ConfigError("%s: unknown key %r in [tool.torchdoctor.lint] (known: %s)" % (path, key, ", ".join(KEYS)))
        if key == "per-file-ignores":
            cfg.per_file_ignores = _per_file(path, value)
            continue
        if key == "torch":
            if not isinstance(value, str):
                raise ConfigError("%s: tool.torchdoctor.lint.torch must be a string" % path)
            cfg.torch = value
            continue
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError("%s: tool.torchdoctor.lint.%s must be a list of strings" % (path, key))
        if key == "select":
            cfg.select = value
        elif key == "ignore":
            cfg.ignore = value
        elif key == "extend-select":
            cfg.extend_select = value
        else:
            cfg.exclude = value
    return cfg


def _per_file(path: str, value) -> List[Tuple[str, FrozenSet[str]]]:
    if not isinstance(value, dict):
        raise ConfigError("%s: tool.torchdoctor.lint.per-file-ignores must be a table of pattern = [codes]" % path)
    out = []
    for pattern, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError("%s: tool.torchdoctor.lint.per-file-ignores.%s must be a list of codes" % (path, pattern))
        out.append((pattern, frozenset(expand(codes))))
    return out


def expand(codes: List[str]) -> List[str]:
    """Codes or prefixes ("TD1", "TD301", "ALL") -> rule codes; ConfigError for unknown ones."""
    out = []
    for c in codes:
        c = c.strip().upper()
        if not c:
            continue
        if c == "ALL":
            out.extend(R.all_codes())
            continue
        hit = [k for k in R.all_codes() if k.startswith(c)]
        if not hit:
            raise ConfigError("unknown rule code %r (known: %s)" % (c, ", ".join(R.all_codes())))
        out.extend(hit)
    return out


def selection(cli_select: List[str], cli_ignore: List[str], cfg: Config) -> frozenset:
    select = cli_select or cfg.select
    chosen = set(expand(select)) if select else set(R.default_codes())
    chosen |= set(expand(cfg.extend_select))
    chosen -= set(expand(cfg.ignore + cli_ignore))
    return frozenset(chosen)
