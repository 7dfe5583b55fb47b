"""Pins out of the text of environment files: a PEP 508 requirement string, a declared
Python, the arguments of a `pip install` (index URLs included), the shell commands of a
RUN line (pip, uv pip, conda, mamba) and conda's `name=version=build` dependencies.
"""

import re
import shlex
from typing import List, Optional

from ...model import versions as V
from .envfiles import NAMES, Group, Pin

_CONDA_NAMES = {"pytorch": "torch", "torch": "torch", "torchvision": "torchvision", "torchaudio": "torchaudio",
                "python": "python", "pytorch-cuda": "pytorch-cuda", "pytorch-gpu": "torch", "pytorch-cpu": "torch"}
_INDEX_RE = re.compile(r"download\.pytorch\.org/whl/(?:(nightly|test)/)?([a-z]+[0-9.]*)(?=/|$|\s)")


def requirement_pin(text: str, line: int, where: str) -> Optional[Pin]:
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


def python_pin(spec: str, line: int, where: str) -> Optional[Pin]:
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        SpecifierSet(spec)
    except InvalidSpecifier:
        return None
    return Pin("python", spec, line, 1, None, spec, where)


def pip_args(tokens: List[str], line: int, where: str, group: Group) -> None:
    """Arguments of one `pip install ...` (tokens after 'install')."""
    i = 0
    includes = {"-r", "--requirement", "-c", "--constraint"}  # pins that bind this install too
    with_value = {"-e", "--editable", "-t", "--target",
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
        if tok in includes and i + 1 < len(tokens):
            group.includes.append((tokens[i + 1], line))
            i += 2
            continue
        if "=" in tok and tok.split("=", 1)[0] in url_opts:
            _index(tok.split("=", 1)[1], line, group)
        elif "=" in tok and tok.split("=", 1)[0] in includes:
            group.includes.append((tok.split("=", 1)[1], line))
        elif tok[:2] in ("-r", "-c") and len(tok) > 2 and not tok.startswith("--"):  # -rother.txt
            group.includes.append((tok[2:], line))
        elif tok in with_value:
            i += 2
            continue
        elif not tok.startswith("-"):
            pin = requirement_pin(tok, line, where)
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
            pip_args(tokens, line, where, group)
            continue
        m = re.search(r"(?:^|\s)(?:conda|mamba|micromamba)\s+install\s+(.*)$", part.strip())
        if m:
            try:
                tokens = shlex.split(m.group(1))
            except ValueError:
                tokens = m.group(1).split()
            for tok in tokens:
                if not tok.startswith("-"):
                    conda_dep(tok, line, where, group)


def conda_dep(text: str, line: int, where: str, group: Group) -> None:
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
        p = python_pin(spec, line, where) if spec else None
        if p:
            group.python = p
        return
    group.pins.append(Pin(name, spec, line, 1, None, t, where))


def _caret_tilde(op: str, ver: str) -> Optional[str]:
    """Poetry's ^X.Y.Z (up to the next change of the first non-zero part) and ~X.Y.Z (up to
    the next minor, or major when only X is given) as a PEP 440 range."""
    parts = ver.split(".")
    if not all(p.isdigit() for p in parts):
        return None
    nums = [int(p) for p in parts]
    if op == "^":
        i = next((k for k, n in enumerate(nums) if n), len(nums) - 1)
    else:
        i = 0 if len(nums) == 1 else 1
    upper = nums[:i + 1]
    upper[-1] += 1
    return ">=%s,<%s" % (ver, ".".join(str(n) for n in upper))


def poetry_spec(text: str) -> Optional[str]:
    """A Poetry version constraint ("^2.1", "~2.1.0", "2.1.0", ">=2.1 <2.4", "2.1.*", "*") as a
    PEP 440 specifier set ("" for any version); None for what PEP 440 cannot say ("a || b")."""
    t = text.strip()
    if "||" in t or "|" in t:
        return None
    if t in ("", "*"):
        return ""
    out = []
    for part in re.split(r"\s*,\s*|\s+(?=[<>=!~^])", t):
        part = part.strip()
        m = re.match(r"^(\^|~(?!=))\s*([0-9][0-9.]*)$", part)
        if m:
            spec = _caret_tilde(m.group(1), m.group(2).rstrip("."))
            if spec is None:
                return None
            out.append(spec)
        elif part[:1].isdigit():
            out.append("==" + part)
        elif part:
            out.append(part.replace(" ", ""))
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return str(SpecifierSet(",".join(out)))
    except InvalidSpecifier:
        return None
