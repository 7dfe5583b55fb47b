"""The target a project declares: every torch pin of its declaration files, which one
decides, and which disagree with it.

The files are those of the nearest directory, going up from the first path, that holds one
(envfiles.find_project_files), and the requirement and constraint files they name with -r/-c.
Which decides, in this order: what the package says it supports (pyproject.toml, setup.cfg,
setup.py), what an install of it uses (requirements*.txt and their includes), a conda
environment file, a Dockerfile. A package's declared range is what its code must work with;
an install or an image is one use of it, so it decides only when nothing above says. The pins
of the deciding kind are combined (a constraints file narrows a requirements file); a pin of
the others that admits a release outside the target is named in a note, since lint does not
check the code against that release.
"""

import os
from typing import List, Optional, Tuple

from . import envfiles as E
from . import envreaders
from . import history as H
from .target import Target, versions_in

TIERS = (("pyproject", "setupcfg", "setuppy"), ("requirements",), ("conda",), ("docker",))
MAX_INCLUDES = 64   # -r chains are short; a loop or a generated tree must not run on


def read_groups(files: List[str]) -> List[E.Group]:
    """The files read, with the requirement files they include (-r, -c), each once."""
    groups: List[E.Group] = []
    seen = set()
    todo = list(files)
    while todo and len(seen) < MAX_INCLUDES:
        path = todo.pop(0)
        real = os.path.realpath(path)
        if real in seen or not os.path.isfile(path):
            continue
        seen.add(real)
        kind = E.kind_of(os.path.basename(path))
        if kind is None:  # an included file with a name of its own: it is a requirements file
            g = envreaders.read_file(path, "requirements")
        else:
            g = envreaders.read_file(path)
        if g is None:
            continue
        groups.append(g)
        if g.kind == "requirements":
            base = os.path.dirname(path)
            todo.extend(os.path.join(base, inc) for inc, _ in g.includes if "://" not in inc)
    return groups


def _label(g: E.Group, pin: E.Pin) -> str:
    return "%s:%d" % (os.path.relpath(g.path), pin.line)


def _pin_dict(g: E.Group, pin: E.Pin, decided: bool) -> dict:
    return {"file": os.path.relpath(g.path), "line": pin.line, "spec": pin.spec, "decided": decided}


def from_groups(groups: List[E.Group]) -> Tuple[Optional[Target], List[str]]:
    """(the target the pins declare, or None; notes: pins ignored, pins that disagree)."""
    notes = [n for g in groups for n in g.notes]
    pinned = [(g, p) for g in groups for p in g.of("torch") if p.spec]
    for g, p in pinned:
        if not versions_in(p.spec):
            notes.append("%s: torch%s admits no release the tables know; it does not set the target" % (_label(g, p), p.spec))
    pinned = [(g, p) for g, p in pinned if versions_in(p.spec)]
    for kinds in TIERS:
        deciding = [(g, p) for g, p in pinned if g.kind in kinds]
        if deciding:
            break
        for g in groups:  # this kind would have decided: what it could not read, say
            if g.kind in kinds:
                notes.extend("%s:%d: which torch %s ships is not in the tables; it does not set the target"
                             % (os.path.relpath(g.path), line, image) for image, line in g.torch_images)
    else:
        return None, notes
    spec = ",".join(p.spec for _, p in deciding)
    versions = versions_in(spec)
    if not versions:  # the pins of one kind exclude each other: the first one decides
        notes.append("the torch pins %s admit no release together; %s decides"
                     % (", ".join("%s (%s)" % (_label(g, p), p.spec) for g, p in deciding), _label(*deciding[0])))
        deciding = deciding[:1]
        spec = deciding[0][1].spec
        versions = versions_in(spec)
    from packaging.specifiers import SpecifierSet
    origin = ", ".join(_label(g, p) for g, p in deciding)
    chosen = {id(p) for _, p in deciding}
    target = Target(versions, str(SpecifierSet(spec)), origin,
                    cuda=False if all("+cpu" in p.spec for _, p in deciding) else None)
    outside = []
    for g, p in pinned:
        if id(p) in chosen:
            continue
        extra = [v for v in versions_in(p.spec) if v not in versions]
        if extra:
            outside.append("%s torch%s (%s)" % (_label(g, p), p.spec, H.span(versions_in(p.spec))))
    if outside:
        notes.append("torch pins disagree: the target is %s from %s; also pinned, with releases outside it: %s"
                     % (H.span(versions), origin, "; ".join(outside)))
    target.pins = [_pin_dict(g, p, id(p) in chosen) for g, p in pinned]
    return target, notes


def project_target(start: str) -> Tuple[Optional[Target], List[str]]:
    """The target declared by the project around `start` (a file or directory)."""
    return from_groups(read_groups(E.find_project_files(start)))
