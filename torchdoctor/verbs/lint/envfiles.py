"""Files that declare an environment: requirements*.txt, pyproject.toml, setup.cfg, setup.py,
environment.yml and Dockerfiles. Each is read into a Group of pins (torch, torchvision,
torchaudio), index URLs, a declared Python and CUDA base images; the TD4xx rules then ask
the compatibility tables (torchdoctor.kb.compat) whether that group can be installed.

This module holds what the others share: which file names are environment files
(kind_of), the Pin and the Group they are read into, and which of them belong to a
project (find_project_files; which of their pins sets lint's target: declared). Reading them is in
envreaders (pins out of requirement strings and install commands: envpins), the
TD4xx rules over a Group in envrules.
"""

import fnmatch
import os
from ...model.records import field, record
from typing import List, Optional, Tuple

COMPANIONS = ("torchvision", "torchaudio")
NAMES = ("torch", "torchvision", "torchaudio")


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


@record
class Pin:
    name: str           # torch | torchvision | torchaudio | python | pytorch-cuda
    spec: str           # PEP 440 specifier set ("" = unpinned)
    line: int
    col: int = 1
    local: Optional[str] = None   # "cu121" from torch==2.1.0+cu121
    text: str = ""
    where: str = ""


@record
class Group:
    path: str
    kind: str
    pins: List[Pin] = field(default_factory=list)
    indexes: List[Tuple[str, str, int]] = field(default_factory=list)   # (variant, url, line)
    python: Optional[Pin] = None
    images: List[Tuple[str, str, int]] = field(default_factory=list)    # (cuda "12.1", image, line)
    torch_images: List[Tuple[str, int]] = field(default_factory=list)   # (image, line): ships a torch the tables do not name
    includes: List[Tuple[str, int]] = field(default_factory=list)       # (path, line) of -r / -c
    text: str = ""
    notes: List[str] = field(default_factory=list)

    def of(self, name: str) -> List[Pin]:
        return [p for p in self.pins if p.name == name]


def find_project_files(start: str) -> List[str]:
    """The declaration files of the project around `start`: the nearest directory, going up,
    that holds one (pyproject.toml, setup.cfg, setup.py, requirements*.txt, environment*.yml,
    a Dockerfile, or a requirements/ folder of .txt files: requirements/base.txt, pt2.txt)."""
    d = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start) or ".")
    while True:
        try:
            names = os.listdir(d)
        except OSError:
            names = []
        if os.path.basename(d) in ("site-packages", "dist-packages"):
            return []  # an installed package is not a project: its pins are not the target
        hits = [os.path.join(d, n) for n in sorted(names) if kind_of(n) and os.path.isfile(os.path.join(d, n))]
        hits += _requirements_folder(os.path.join(d, "requirements")) if "requirements" in names else []
        if hits:
            return hits
        parent = os.path.dirname(d)
        if parent == d or os.path.isdir(os.path.join(d, ".git")):
            return []
        d = parent


def _requirements_folder(folder: str) -> List[str]:
    """The .txt files of a project's requirements/ folder (read as requirements files)."""
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    return [os.path.join(folder, n) for n in names if n.endswith(".txt") and os.path.isfile(os.path.join(folder, n))]
