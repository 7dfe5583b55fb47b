"""Files that declare an environment: requirements*.txt, pyproject.toml, setup.cfg, setup.py,
environment.yml and Dockerfiles. Each is read into a Group of pins (torch, torchvision,
torchaudio), index URLs, a declared Python and CUDA base images; the TD4xx rules then ask
the compatibility tables (torchdoctor.kb.compat) whether that group can be installed.
"""

import ast
import configparser
import fnmatch
import os
import re
import shlex
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

from .. import versions as V
from ..kb import compat
from . import rules as R

COMPANIONS = ("torchvision", "torchaudio")
NAMES = ("torch", "torchvision", "torchaudio")
_CONDA_NAMES = {"pytorch": "torch", "torch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio",
                "python": "python", "pytorch-cuda": "pytorch-cuda", "pytorch-gpu": "torch", "pytorch-cpu": "torch"}
_INDEX_RE = re.compile(r"download\.pytorch\.org/whl/(?:(nightly|test)/)?([a-z]+[0-9.]*)(?=/|$|\s)")
_CUDA_IMAGE = re.compile(r"^(?:[\w.\-]+(?::\d+)?/)?nvidia/cuda:(\d+)\.(\d+)(?:\.(\d+))?")
_PYTORCH_IMAGE = re.compile(r"^(?:docker\.io/)?pytorch/pytorch:(\d+\.\d+(?:\.\d+)?)-cuda(\d+)\.(\d+)")
_PYTHON_IMAGE = re.compile(r"^(?:docker\.io/)?(?:library/)?python:(\d+)\.(\d+)")


def kind_of(name: str) -> Optional[str]:
    """The environment-file kind of a file name, or None."""
    n = name.lower()
    if n == "pyproject.toml":
        return "pyproject"
    if n == "setup.cfg":
        return "setupcfg"
    if n == "setup.py":
        return "setuppy"
    if n.endswith(".txt") and (n.startswith(("requirements", "constraints")) or n.endswith(("-requirements.txt", "_requirements.txt", ".requirements.txt"))):
        return "requirements"
    if fnmatch.fnmatch(n, "environment*.y*ml") or fnmatch.fnmatch(n, "conda*.y*ml"):
        return "conda"
    if n in ("dockerfile", "containerfile") or n.startswith(("dockerfile.", "containerfile.")) or n.endswith(".dockerfile"):
        return "docker"
    return None


@dataclass
class Pin:
    name: str           # torch | torchvision | torchaudio | python | pytorch-cuda
    spec: str           # PEP 440 specifier set ("" = unpinned)
    line: int
    col: int = 1
    local: Optional[str] = None   # "cu121" from torch==2.1.0+cu121
    text: str = ""
    where: str = ""


@dataclass
class Group:
    path: str
    kind: str
    pins: List[Pin] = field(default_factory=list)
    indexes: List[Tuple[str, str, int]] = field(default_factory=list)   # (variant, url, line)
    python: Optional[Pin] = None
    images: List[Tuple[str, str, int]] = field(default_factory=list)    # (cuda "12.1", image, line)
    text: str = ""
    notes: List[str] = field(default_factory=list)

    def of(self, name: str) -> List[Pin]:
        return [p for p in self.pins if p.name == name]


def _req(text: str, line: int, where: str) -> Optional[Pin]:
    from packaging.requirements import InvalidRequirement, Requirement
    t = text.strip()
    if not t or t.startswith(("-", "#", "git+", "http:", "https:", "file:", ".")):
        return None
    try:
        r = Requirement(t)
    except InvalidRequirement:
        return None
    name = r.name.lower().replace("_", "-")
    if name not in NAMES:
        return None
    spec, local = str(r.specifier), None
    for s in r.specifier:
        tag = V.local_tag(s.version)
        if tag:
            local = tag
    return Pin(name, spec, line, 1, local, t, where)


def _python_pin(spec: str, line: int, where: str) -> Optional[Pin]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    return Pin("python", spec, line, 1, None, spec, where)


def _pip_args(tokens: List[str], line: int, where: str, group: Group) -> None:
    """Arguments of one `pip install ...` (tokens after 'install')."""
    i = 0
    with_value = {"-r", "--requirement", "-c", "--constraint", "-e", "--editable", "-t", "--target",
                  "--prefix", "--root", "--src", "--platform", "--python-version", "--implementation",
                  "--abi", "--progress-bar", "--cache-dir", "--log", "--timeout", "--retries", "--proxy",
                  "--trusted-host", "--cert", "--client-cert", "--upgrade-strategy", "--only-binary",
                  "--no-binary", "--config-settings", "-C", "--global-option", "--report"}
    url_opts = {"-i", "--index-url", "--extra-index-url", "-f", "--find-links"}
    while i < len(tokens):
        tok = tokens[i]
        if tok in url_opts and i + 1 < len(tokens):
            _index(tokens[i + 1], line, group)
            i += 2
            continue
        if "=" in tok and tok.split("=", 1)[0] in url_opts:
            _index(tok.split("=", 1)[1], line, group)
        elif tok in with_value:
            i += 2
            continue
        elif not tok.startswith("-"):
            pin = _req(tok, line, where)
            if pin:
                group.pins.append(pin)
        i += 1


def _index(url: str, line: int, group: Group) -> None:
    m = _INDEX_RE.search(url + " ")
    if m and not m.group(1):
        group.indexes.append((m.group(2), url, line))


_PIP_INSTALL = re.compile(r"(?:^|\s)(?:(?:python[\d.]*|py)\s+-m\s+)?(?:uv\s+)?pip[\d.]*\s+install\s+(.*)$")


def shell_installs(cmd: str, line: int, where: str, group: Group) -> None:
    for part in re.split(r"&&|\|\||;|\|", cmd):
        m = _PIP_INSTALL.search(part.strip())
        if m:
            try:
                tokens = shlex.split(m.group(1))
            except ValueError:
                tokens = m.group(1).split()
            _pip_args(tokens, line, where, group)
            continue
        m = re.search(r"(?:^|\s)(?:conda|mamba|micromamba)\s+install\s+(.*)$", part.strip())
        if m:
            try:
                tokens = shlex.split(m.group(1))
            except ValueError:
                tokens = m.group(1).split()
            for tok in tokens:
                if not tok.startswith("-"):
                    _conda_dep(tok, line, where, group)


def _conda_dep(text: str, line: int, where: str, group: Group) -> None:
    """pytorch=2.1.0, pytorch==2.1.0=py3.10_cuda12.1_0, python=3.10, pytorch-cuda=12.1."""
    t = text.strip().strip("'\"")
    if "::" in t:
        t = t.split("::", 1)[1]
    m = re.match(r"^([A-Za-z0-9_.\-]+)\s*(.*)$", t)
    if not m:
        return
    name = _CONDA_NAMES.get(m.group(1).lower())
    if not name:
        return
    rest = m.group(2).strip()
    spec = ""
    if rest:
        vm = re.match(r"^(==|=|>=|<=|>|<|!=)?\s*([0-9][0-9A-Za-z.*]*)", rest)
        if vm:
            op, ver = vm.group(1) or "==", vm.group(2)
            if op == "=":  # conda fuzzy match: 2.1 means 2.1.*
                spec = "==" + ver.rstrip(".*") + ".*"
            else:
                spec = op + ver
    if name == "python":
        p = _python_pin(spec, line, where) if spec else None
        if p:
            group.python = p
        return
    group.pins.append(Pin(name, spec, line, 1, None, t, where))


# -- readers ------------------------------------------------------------------------------
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
            _pip_args(tokens, start, where, g)
            continue
        stmt = re.split(r"\s+--?[a-zA-Z]", stmt)[0]  # per-requirement options: --hash=..., --config-settings
        pin = _req(stmt.split(";", 1)[0] if " @ " not in stmt else stmt, start, where)
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
    for r in reqs:
        if isinstance(r, str):
            pin = _req(r, _line_of(text, r), where)
            if pin:
                g.pins.append(pin)
    rp = project.get("requires-python")
    if isinstance(rp, str):
        g.python = _python_pin(rp, _line_of(text, "requires-python"), where)
    return g


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
        pin = _req(r, _line_of(text, r), "setup.cfg") if r else None
        if pin:
            g.pins.append(pin)
    if cp.has_option("options", "python_requires"):
        s = cp.get("options", "python_requires").strip()
        g.python = _python_pin(s, _line_of(text, "python_requires"), "setup.cfg")
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
                g.python = _python_pin(kw.value.value, kw.value.lineno, "setup.py")
            for v in vals:
                if isinstance(v, ast.Constant) and isinstance(v.value, str):
                    pin = _req(v.value, v.lineno, "setup.py")
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
                        _pip_args(shlex.split(item), n, where, g)
                    except ValueError:
                        pass
                else:
                    pin = _req(item, n, where)
                    if pin:
                        g.pins.append(pin)
            else:
                _conda_dep(item, n, where, g)
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
                g.pins.append(Pin("torch", "==" + m.group(1), start, 1, "cu%s%s" % (m.group(2), m.group(3)), image, where))
            m = _PYTHON_IMAGE.match(image)
            if m:
                g.python = _python_pin("==%s.%s.*" % (m.group(1), m.group(2)), start, where)
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


# -- rules ---------------------------------------------------------------------------------
def _torch_patches(group: Group) -> Optional[List[str]]:
    """Known torch patches every torch pin of the group admits; None when torch is unpinned."""
    from packaging.specifiers import SpecifierSet
    specs = [p.spec for p in group.of("torch") if p.spec]
    if not specs:
        return None
    s = SpecifierSet(",".join(specs))
    out = []
    for m in compat.known_releases():
        for patch in (compat.release(m) or {}).get("patches") or []:
            if s.contains(patch, prereleases=True) or any(s.contains("%s+%s" % (patch, p.local), prereleases=True)
                                                           for p in group.of("torch") if p.local):
                out.append(patch)
    return out


def _exact(pin: Pin) -> Optional[str]:
    m = re.fullmatch(r"===?\s*([0-9][0-9A-Za-z.+]*)", pin.spec.strip())
    return m.group(1).split("+")[0] if m and "*" not in m.group(1) else None


def _short(patches: List[str]) -> str:
    if len(patches) == 1:
        return "torch " + patches[0]
    return "torch %s ... %s" % (patches[0], patches[-1])


def check_group(group: Group, python: Optional[Pin] = None) -> List[Tuple[str, int, int, str]]:
    """(code, line, col, message) for one environment group."""
    out: List[Tuple[str, int, int, str]] = []
    patches = _torch_patches(group)
    torch_pins = group.of("torch")
    tp = torch_pins[0] if torch_pins else None
    # TD401: companions no release pairs with the torch pin
    if patches:
        for name in COMPANIONS:
            ok_fn = compat.torchvision_compatible if name == "torchvision" else compat.torchaudio_compatible
            for pin in group.of(name):
                ver = _exact(pin)
                if not ver:
                    continue
                answers = [ok_fn(p, ver) for p in patches]
                if any(a is True for a in answers) or not answers or any(a is None for a in answers):
                    continue
                best = (compat.torch_for_torchvision(ver) if name == "torchvision" else None)
                pairs = "; %s %s goes with torch %s" % (name, ver, best) if best else ""
                match = (compat.matching_torchvision(patches[-1]) if name == "torchvision"
                         else compat.matching_torchaudio(patches[-1]))
                shown = tp.text or ("torch" + tp.spec)
                within = "" if len(patches) == 1 and shown.endswith(patches[0]) else " (%s)" % _short(patches)
                out.append(("TD401", pin.line, pin.col, "%s==%s does not pair with %s%s: torch %s pairs with %s %s%s" % (
                    name, ver, shown, within, patches[-1], name, match or "(unknown)", pairs)))
    # TD405: torch unpinned beside pinned companions
    if torch_pins and all(not p.spec and not p.local for p in torch_pins):
        for name in COMPANIONS:
            for pin in group.of(name):
                ver = _exact(pin)
                if not ver:
                    continue
                want = compat.torch_for_torchvision(ver) if name == "torchvision" else None
                hint = " (it was released with torch %s: pin torch==%s)" % (want, want) if want and want[0].isdigit() else ""
                out.append(("TD405", torch_pins[0].line, torch_pins[0].col,
                            "torch is not pinned but %s is (%s==%s)%s; whichever install runs last decides the "
                            "torch you get" % (name, name, ver, hint)))
                break
            else:
                continue
            break
    # TD402: index URL / local tag for a variant that does not exist or lacks the pin
    all_variants = set()
    for m in compat.known_releases():
        all_variants.update(compat.cuda_variants(m))
    variants = [(v, url, line) for v, url, line in group.indexes]
    variants += [(p.local, "torch" + p.spec, p.line) for p in torch_pins if p.local]
    for variant, url, line in variants:
        if variant in ("cpu", "nightly", "test"):
            continue
        if variant.startswith("cu"):
            if variant not in all_variants:
                out.append(("TD402", line, 1, "%s: no torch release the tables know was built for %s (CUDA %s)"
                            % (url, variant, compat.cuda_of_variant(variant) or "?")))
                continue
            if patches:
                carry = [p for p in patches if variant in compat.cuda_variants(p)]
                if not carry:
                    have = sorted({v for p in patches for v in compat.cuda_variants(p)})
                    out.append(("TD402", line, 1, "%s: %s has no %s wheels (it was built for %s)"
                                % (url, _short(patches), variant, ", ".join(have) or "CPU only")))
        elif variant.startswith("rocm") and patches:
            ver = variant[4:]
            rocm = {x for p in patches for x in ((compat.release(p) or {}).get("rocm") or [])}
            if rocm and ver not in rocm:
                out.append(("TD402", line, 1, "%s: %s was not built for ROCm %s (ROCm %s)"
                            % (url, _short(patches), ver, ", ".join(sorted(rocm)))))
    # TD403: no wheel for the declared Python
    py = group.python or python
    if patches and py and py.spec:
        lowest = _lowest_python(py.spec)
        if lowest:
            ok = [compat.python_supported(p, lowest) for p in patches]
            if ok and all(a is False for a in ok):
                sup = compat.supported_pythons(patches[-1]) or []
                out.append(("TD403", (tp.line if tp else py.line), (tp.col if tp else 1),
                            "%s has no wheel for Python %s, which %s admits (%s: Python %s)" % (
                                _short(patches), lowest, "%s %s" % (py.where, py.spec),
                                _short(patches[-1:]), ", ".join(sup))))
    # TD404 / TD406: CUDA base image against the wheel's CUDA
    if group.images and patches:
        variant = next((p.local for p in torch_pins if p.local), None) or \
            next((v for v, _, _ in group.indexes if v.startswith("cu")), None)
        if not variant and len(patches) == 1:
            variant = compat.default_cuda(patches[0])
        info = compat.variant_info(variant) if variant and variant.startswith("cu") else None
        for cuda, image, line in group.images:
            img = compat.min_driver(cuda, "linux")
            if not info or not img or not img.get("full"):
                continue
            wheel_mvc, wheel_full = info["linux"].get("mvc"), info["linux"].get("full")
            if wheel_mvc and V.older(img["full"], wheel_mvc):
                out.append(("TD404", line, 1,
                            "%s admits hosts whose driver supports CUDA %s (>= %s), but %s (%s) needs a driver "
                            ">= %s: on hosts in between torch.cuda.is_available() is False" % (
                                image, cuda, img["full"], _short(patches), variant, wheel_mvc)))
            elif wheel_full and V.release(cuda)[0] > V.release(compat.cuda_of_variant(variant))[0]:
                out.append(("TD406", line, 1,
                            "%s needs a driver >= %s (CUDA %s), while %s (%s) runs on drivers from %s: hosts "
                            "with a driver in between refuse to start the container" % (
                                image, img["full"], cuda, _short(patches), variant, wheel_mvc or wheel_full)))
    return out


def _lowest_python(spec: str) -> Optional[str]:
    from packaging.specifiers import SpecifierSet
    s = SpecifierSet(spec)
    if s.contains("3.6.0") or s.contains("3.6.99"):
        return None  # no lower bound worth checking
    for minor in range(7, 17):
        if s.contains("3.%d.0" % minor) or s.contains("3.%d.99" % minor):
            return "3.%d" % minor
    return None


def project_torch_pins(groups: List[Group]) -> List[Pin]:
    """The torch pins that declare what the project supports (not Dockerfiles, conda files)."""
    return [p for g in groups if g.kind in ("pyproject", "setupcfg", "setuppy", "requirements") for p in g.of("torch")]


def find_project_files(start: str) -> List[str]:
    """The declaration files of the project around `start`: the nearest directory, going up,
    that holds pyproject.toml, setup.cfg, setup.py or requirements*.txt."""
    d = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        try:
            names = os.listdir(d)
        except OSError:
            names = []
        if os.path.basename(d) in ("site-packages", "dist-packages"):
            return []  # an installed package is not a project: its pins are not the target
        hits = [n for n in names if kind_of(n) in ("pyproject", "setupcfg", "setuppy", "requirements")]
        if hits:
            return [os.path.join(d, n) for n in sorted(hits)]
        parent = os.path.dirname(d)
        if parent == d or os.path.isdir(os.path.join(d, ".git")):
            return []
        d = parent


def read_file(path: str) -> Optional[Group]:
    kind = kind_of(os.path.basename(path))
    if not kind:
        return None
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    return read(kind, text, path)


def python_of(groups: List[Group]) -> Dict[str, Pin]:
    """Declared Python per directory (pyproject, setup.cfg, setup.py): requirement files of
    that directory inherit it."""
    out: Dict[str, Pin] = {}
    for g in groups:
        if g.python and g.kind in ("pyproject", "setupcfg", "setuppy"):
            out.setdefault(os.path.dirname(os.path.abspath(g.path)), g.python)
    return out
