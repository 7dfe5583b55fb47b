"""One reader per kind of environment file (requirements, pyproject.toml, setup.cfg,
setup.py, conda environment files, Dockerfiles), each turning the text into a Group;
`read` picks the reader for a kind, `read_file` reads a file from disk.
"""

import ast
import configparser
import os
import re
import shlex
from typing import List, Optional

from .envfiles import NAMES, Group, Pin, kind_of
from .envpins import conda_dep, pip_args, poetry_spec, python_pin, requirement_pin, shell_installs

_CUDA_IMAGE = re.compile(r"^(?:[\w.\-]+(?::\d+)?/)?nvidia/cuda:(\d+)\.(\d+)(?:\.(\d+))?")
_PYTORCH_IMAGE = re.compile(r"^(?:docker\.io/)?pytorch/pytorch:(\d+\.\d+(?:\.\d+)?)(?:-cuda(\d+)\.(\d+)|(?=-|$))")
# images that ship a torch whose version their tag does not say (NGC's nvcr.io/nvidia/pytorch:24.01-py3
# is a month, not a release; pytorch/pytorch:latest moves): the tables hold no map from them
_OTHER_TORCH_IMAGE = re.compile(r"^(?:[\w.\-]+(?::\d+)?/)?(?:nvidia/pytorch|pytorch/pytorch|pytorch/manylinux[\w-]*)(?::|@|$)")
_PYTHON_IMAGE = re.compile(r"^(?:docker\.io/)?(?:library/)?python:(\d+)\.(\d+)")


def read_requirements(text: str, path: str) -> Group:
    g = Group(path, "requirements", text=text)
    where = os.path.basename(path)
    logical, start = "", 0
    for n, raw in enumerate(text.splitlines(), 1):
        if not logical:
            start = n
        line = raw.split(" #", 1)[0] if not raw.lstrip().startswith("#") else ""
        if line.rstrip().endswith("\\"):
            logical += line.rstrip()[:-1] + " "
            continue
        logical += line
        stmt, logical = logical.strip(), ""
        if not stmt:
            continue
        if stmt.startswith("-"):
            try:
                tokens = shlex.split(stmt)
            except ValueError:
                tokens = stmt.split()
            pip_args(tokens, start, where, g)
            continue
        stmt = re.split(r"\s+--?[a-zA-Z]", stmt)[0]  # per-requirement options: --hash=..., --config-settings
        pin = requirement_pin(stmt.split(";", 1)[0] if " @ " not in stmt else stmt, start, where)
        if pin:
            g.pins.append(pin)
    return g


def _toml(text: str):
    try:
        import tomllib  # type: ignore[import-not-found]
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            return None, "TOML not read (Python < 3.11 without the tomli package)"
    try:
        return tomllib.loads(text), None
    except Exception as e:  # tomllib.TOMLDecodeError
        return None, "not valid TOML (%s)" % str(e).splitlines()[0]


def _line_of(text: str, needle: str, default: int = 1) -> int:
    idx = text.find(needle)
    return text.count("\n", 0, idx) + 1 if idx >= 0 else default


def read_pyproject(text: str, path: str, data=None) -> Group:
    g = Group(path, "pyproject", text=text)
    where = "pyproject.toml"
    if data is None:
        data, err = _toml(text)
        if err:
            g.notes.append("%s: %s" % (path, err))
            return g
    project = data.get("project") if isinstance(data.get("project"), dict) else {}
    reqs = list(project.get("dependencies") or [])
    for extra in (project.get("optional-dependencies") or {}).values():
        reqs += list(extra or [])
    for groupreqs in (data.get("dependency-groups") or {}).values():
        reqs += [r for r in groupreqs or [] if isinstance(r, str)]
    tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
    for groupreqs in _table(_table(tool, "pdm"), "dev-dependencies").values():
        reqs += [r for r in groupreqs or [] if isinstance(r, str)] if isinstance(groupreqs, list) else []
    uv = _table(tool, "uv")
    for key in ("dev-dependencies", "constraint-dependencies", "override-dependencies"):
        reqs += [r for r in uv.get(key) or [] if isinstance(r, str)] if isinstance(uv.get(key), list) else []
    for r in reqs:
        if isinstance(r, str):
            pin = requirement_pin(r, _line_of(text, r), where)
            if pin:
                g.pins.append(pin)
    _poetry_pins(_table(tool, "poetry"), text, g)
    rp = project.get("requires-python")
    if isinstance(rp, str):
        g.python = python_pin(rp, _line_of(text, "requires-python"), where)
    return g


def _table(data, key: str) -> dict:
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _poetry_pins(poetry: dict, text: str, g: Group) -> None:
    """[tool.poetry.dependencies] and [tool.poetry.group.<name>.dependencies]: name = "^2.1",
    or a table with a version, or a list of such tables (one per platform or Python)."""
    tables = [_table(poetry, "dependencies"), _table(poetry, "dev-dependencies")]
    tables += [_table(grp, "dependencies") for grp in _table(poetry, "group").values() if isinstance(grp, dict)]
    for deps in tables:
        for name, value in deps.items():
            if name.lower() not in NAMES:
                continue
            for v in value if isinstance(value, list) else [value]:
                constraint = v.get("version") if isinstance(v, dict) else v
                spec = poetry_spec(constraint) if isinstance(constraint, str) else None
                if spec is None:
                    continue
                m = re.search(r"^[ \t]*[\"']?%s[\"']?[ \t]*=" % re.escape(name), text, re.M)
                line = text.count("\n", 0, m.start()) + 1 if m else 1
                g.pins.append(Pin(name.lower(), spec, line, 1, None, "%s = %r" % (name, constraint), "pyproject.toml"))


def read_setup_cfg(text: str, path: str) -> Group:
    g = Group(path, "setupcfg", text=text)
    cp = configparser.ConfigParser(interpolation=None)
    try:
        cp.read_string(text)
    except configparser.Error as e:
        g.notes.append("%s: not read (%s)" % (path, str(e).splitlines()[0]))
        return g
    reqs: List[str] = []
    if cp.has_option("options", "install_requires"):
        reqs += cp.get("options", "install_requires").splitlines()
    if cp.has_section("options.extras_require"):
        for _, v in cp.items("options.extras_require"):
            reqs += v.splitlines()
    for r in reqs:
        r = r.split("#", 1)[0].strip()
        pin = requirement_pin(r, _line_of(text, r), "setup.cfg") if r else None
        if pin:
            g.pins.append(pin)
    if cp.has_option("options", "python_requires"):
        s = cp.get("options", "python_requires").strip()
        g.python = python_pin(s, _line_of(text, "python_requires"), "setup.cfg")
    return g


def read_setup_py(text: str, path: str, tree: Optional[ast.AST] = None) -> Group:
    """Literal install_requires / extras_require / python_requires of a setup() call."""
    g = Group(path, "setuppy", text=text)
    try:
        tree = tree or ast.parse(text)
    except (SyntaxError, ValueError):
        return g
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "setup"):
            continue
        for kw in node.keywords:
            vals: List[ast.AST] = []
            if kw.arg == "install_requires" and isinstance(kw.value, (ast.List, ast.Tuple)):
                vals = list(kw.value.elts)
            elif kw.arg == "extras_require" and isinstance(kw.value, ast.Dict):
                for v in kw.value.values:
                    if isinstance(v, (ast.List, ast.Tuple)):
                        vals += list(v.elts)
            elif kw.arg == "python_requires" and isinstance(kw.value, ast.Constant) and isinstance(kw.value.value, str):
                g.python = python_pin(kw.value.value, kw.value.lineno, "setup.py")
            for v in vals:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    pin = requirement_pin(v.value, v.lineno, "setup.py")
                    if pin:
                        pin.col = v.col_offset + 1
                        g.pins.append(pin)
    return g


def read_conda(text: str, path: str) -> Group:
    """The dependencies list of a conda environment file (a small YAML subset: '- item' lines,
    and the nested '- pip:' list)."""
    g = Group(path, "conda", text=text)
    where = os.path.basename(path)
    in_deps, deps_indent, pip_indent = False, 0, None
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        indent = len(line) - len(line.lstrip())
        body = line.strip()
        if re.match(r"^dependencies\s*:", body) and indent == 0:
            in_deps, deps_indent, pip_indent = True, indent, None
            continue
        if in_deps and indent <= deps_indent and not body.startswith("-"):
            in_deps = False
        if not in_deps:
            continue
        if pip_indent is not None and indent <= pip_indent:
            pip_indent = None
        if body.startswith("- pip:") or body == "- pip :":
            pip_indent = indent
            continue
        if body.startswith("-"):
            item = body[1:].strip().strip("'\"")
            if pip_indent is not None:
                if item.startswith("-"):
                    try:
                        pip_args(shlex.split(item), n, where, g)
                    except ValueError:
                        pass
                else:
                    pin = requirement_pin(item, n, where)
                    if pin:
                        g.pins.append(pin)
            else:
                conda_dep(item, n, where, g)
    return g


def read_dockerfile(text: str, path: str) -> Group:
    g = Group(path, "docker", text=text)
    where = os.path.basename(path)
    logical, start = "", 0
    for n, raw in enumerate(text.splitlines() + [""], 1):
        if not logical:
            start = n
        stripped = raw.strip()
        if stripped.startswith("#") and not logical:
            continue
        if raw.rstrip().endswith("\\"):
            logical += raw.rstrip()[:-1] + " "
            continue
        logical += raw
        stmt, logical = logical.strip(), ""
        if not stmt:
            continue
        parts = stmt.split(None, 1)
        instr, rest = parts[0].upper(), (parts[1] if len(parts) > 1 else "")
        if instr == "FROM":
            image = next((t for t in rest.split() if not t.startswith("--")), "")
            m = _CUDA_IMAGE.match(image)
            if m:
                g.images.append(("%s.%s" % (m.group(1), m.group(2)), image, start))
            m = _PYTORCH_IMAGE.match(image)
            if m:
                local = "cu%s%s" % (m.group(2), m.group(3)) if m.group(2) else None
                g.pins.append(Pin("torch", "==" + m.group(1), start, 1, local, image, where))
            elif _OTHER_TORCH_IMAGE.match(image):
                g.torch_images.append((image, start))
            m = _PYTHON_IMAGE.match(image)
            if m:
                g.python = python_pin("==%s.%s.*" % (m.group(1), m.group(2)), start, where)
        elif instr == "RUN":
            if rest.startswith("["):
                try:
                    rest = " ".join(ast.literal_eval(rest))
                except (ValueError, SyntaxError):
                    pass
            shell_installs(rest, start, where, g)
    return g


def read(kind: str, text: str, path: str, tree=None) -> Group:
    if kind == "requirements":
        return read_requirements(text, path)
    if kind == "pyproject":
        return read_pyproject(text, path)
    if kind == "setupcfg":
        return read_setup_cfg(text, path)
    if kind == "setuppy":
        return read_setup_py(text, path, tree)
    if kind == "conda":
        return read_conda(text, path)
    return read_dockerfile(text, path)


def read_file(path: str, kind: Optional[str] = None) -> Optional[Group]:
    """The file's pins, read as `kind` (by default, what its name says it is)."""
    kind = kind or kind_of(os.path.basename(path))
    if not kind:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return read(kind, text, path)
