"""A repository of several projects (pytorch/examples: a requirements.txt per example) is linted
file by file against the pins of the project each file belongs to: the nearest folder, going up
from the file, that declares its environment (envfiles.find_project_files). A file whose project
pins no torch, or is the project of the path asked for, gets the run's own target.

Only where the pins decide: --torch or [tool.torchdoctor.lint] torch name one target for all.
"""

import os
from typing import Dict, List, Tuple

from . import envfiles as E
from .declared import from_groups, read_groups
from .target import Target

Files = List[Tuple[str, str]]   # (path, kind), as walk.discover yields them


def split(files: Files, anchor: str, target: Target, notes: List[str]) -> List[Tuple[Target, Files]]:
    """The files in groups of one target each, the run's own first; a note per sub-project
    target that differs from the run's."""
    home = tuple(E.find_project_files(anchor))
    project_of: Dict[str, tuple] = {}           # folder -> its project's declaration files
    target_of: Dict[tuple, Target] = {home: target}
    groups: Dict[tuple, Files] = {}              # a target's releases and cuda -> its files
    firsts: Dict[tuple, Target] = {}
    own_pins: List[str] = []                     # "folder (spec)" of each sub-project with pins of its own
    for path, kind in files:
        folder = os.path.dirname(os.path.abspath(path))
        if folder not in project_of:
            project_of[folder] = tuple(E.find_project_files(folder))
        declared = project_of[folder]
        if declared not in target_of:
            own, _ = from_groups(read_groups(list(declared))) if declared else (None, [])
            target_of[declared] = own or target
            if own is not None and _key(own) != _key(target):
                own_pins.append("%s (torch%s, %s)" % (os.path.relpath(os.path.dirname(declared[0])), own.spec,
                                                      own.origin.rsplit("/", 1)[-1]))
        t = target_of[declared]
        firsts.setdefault(_key(t), t)
        groups.setdefault(_key(t), []).append((path, kind))
    if own_pins:
        notes.append("%d sub-project%s linted against %s own torch pins (--torch names one target for all): %s"
                     % (len(own_pins), "" if len(own_pins) == 1 else "s", "its" if len(own_pins) == 1 else "their",
                        "; ".join(own_pins)))
    order = sorted(groups, key=lambda k: k != _key(target))
    return [(firsts[k], groups[k]) for k in order]


def _key(t: Target) -> tuple:
    return tuple(t.versions), t.cuda
