"""Applying a plan: snapshot first, run the steps, check again, and roll back when a step fails,
the finding is still there or a new error appeared; and `undo`, which puts the last snapshot
back (the same code path a rollback takes).
"""

import os
import time
from typing import Callable, List, Optional, Sequence, Set, Tuple

from ...model.findings import ERROR
from ...model.records import field, record
from . import snapshot as S
from . import store
from .plan import MOVE, PIP, Item

HEALED, ROLLED_BACK, NOT_APPLIED = "healed", "rolled-back", "not-applied"


@record
class Result:
    status: str
    lines: List[str] = field(default_factory=list)
    snapshot: Optional[str] = None


def take_snapshot(python: str, names: Sequence[str], findings: Sequence[str]) -> Tuple[Optional[str], str]:
    """(snapshot folder, error): pip freeze --all and the named distributions repacked."""
    text, err = S.freeze(python)
    if text is None:
        return None, "cannot snapshot the environment: %s" % err
    snapdir = store.new_snapshot_dir()
    with open(os.path.join(snapdir, "freeze.txt"), "w", encoding="utf-8", newline="") as fh:
        fh.write(text)
    dirs, prefix = S.site_dirs(python)
    dists = {}
    for name in names:
        found = S.find_dist(dirs, name)
        if found is None:
            continue
        try:
            packed = S.repack(found[0], found[1], prefix, os.path.join(snapdir, "wheels"))
        except (OSError, ValueError) as e:
            return None, "cannot repack %s for the snapshot: %s" % (name, e)
        packed["site"] = found[0]
        dists[name] = packed
    store.write_meta(snapdir, {"python": python, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                               "findings": list(findings), "dists": dists, "moves": [], "prefix": prefix})
    store.prune()
    return snapdir, ""


def restore(snapdir: str, stream=None) -> Tuple[bool, List[str]]:
    """Put the snapshot back: moved files to where they were, the package set to the snapshot's
    `pip freeze --all`. (exact?, what was done)."""
    meta = store.read_meta(snapdir) or {}
    python = str(meta.get("python", ""))
    lines: List[str] = []
    for src, dst in reversed(meta.get("moves") or []):
        if os.path.lexists(dst) and not os.path.lexists(src):
            os.rename(dst, src)
            lines.append("moved %s back to %s" % (dst, src))
    try:
        with open(os.path.join(snapdir, "freeze.txt"), encoding="utf-8", newline="") as fh:
            want_text = fh.read()
    except OSError as e:
        return False, lines + ["the snapshot's freeze.txt cannot be read: %s" % e]
    now, err = S.freeze(python)
    if now is None:
        return False, lines + ["pip freeze failed: %s" % err]
    dists = meta.get("dists") or {}
    if now == want_text and not dists:
        # the same verified sentence as after a reinstall: what a reader (and a script) looks for
        return True, lines + ["pip freeze --all is byte for byte the snapshot's (no package had changed)"]
    want, have = S.freeze_map(want_text), S.freeze_map(now)
    # What changed, and every distribution the snapshot holds: a fix that reinstalled the same
    # version (same freeze line) still replaced its files.
    back = [n for n in want if have.get(n) != want[n] or n in dists]
    extra = [n for n in have if n not in want]
    wheels = [dists[n]["wheel"] for n in back if n in dists and os.path.isfile(dists[n]["wheel"])]
    lost = [n for n in back if not (n in dists and os.path.isfile(dists[n]["wheel"]))]
    if wheels:
        ok, said = S.run_pip(python, ["install", "--no-deps", "--no-index", "--force-reinstall", "--no-compile"]
                             + wheels, isolated=True, stream=stream)
        names = ", ".join(n for n in back if n in dists)
        lines.append("reinstalled from the snapshot: " + names if ok else "reinstalling %s failed: %s" % (names, said))
    for n in lost:  # not snapshotted (it was not expected to change): from the user's own sources
        ok, said = S.run_pip(python, ["install", "--no-deps", want[n]], stream=stream)
        lines.append("%s %s%s" % ("reinstalled" if ok else "could not reinstall", want[n], "" if ok else ": " + said))
    if extra:
        ok, said = S.run_pip(python, ["uninstall", "-y"] + extra, stream=stream)
        lines.append("removed what the fix added: " + ", ".join(extra) if ok else
                     "removing %s failed: %s" % (", ".join(extra), said))
    for n in back:
        d = dists.get(n)
        if d:
            found = S.find_dist([d["site"]], n)
            if found and found[1] == d["info_dir"]:
                S.put_back_meta(d["site"], d["info_dir"], d["meta"])
    after, _ = S.freeze(python)
    exact = after == want_text
    lines.append("pip freeze --all is %s the snapshot's" % ("byte for byte" if exact else "NOT"))
    return exact, lines


def _move(src: str, dst: str) -> str:
    if not os.path.lexists(src):
        return "%s does not exist" % src
    if os.path.lexists(dst):
        return "%s already exists" % dst
    os.rename(src, dst)
    return ""


def apply(items: Sequence[Item], python: str, before_ids: Set[str], recheck: Callable[[], object],
          stream=None) -> Result:
    """Run the runnable items after a snapshot; check again; roll back unless healed."""
    todo = [it for it in items if it.runnable]
    if not todo:
        return Result(NOT_APPLIED, ["nothing fix can apply"])
    names = sorted({n for it in todo for n in it.replaces})
    ids = [it.finding.id for it in todo]
    snapdir, err = take_snapshot(python, names, ids)
    if snapdir is None:
        return Result(NOT_APPLIED, [err])
    lines = ["snapshot: %s (%s)" % (snapdir, ", ".join(names) or "pip freeze --all only")]
    meta = store.read_meta(snapdir) or {}
    try:
        for it in todo:
            for s in it.steps:
                if s.kind == PIP:
                    ok, said = S.run_pip(python, s.argv, stream=stream)
                    if not ok:
                        return _rollback(snapdir, python, lines + ["step failed: %s (%s)" % (s.command, said)], stream)
                    lines.append("ran: %s" % s.command)
                elif s.kind == MOVE:
                    why = _move(*s.argv)
                    if why:
                        return _rollback(snapdir, python, lines + ["step failed: %s (%s)" % (s.command, why)], stream)
                    meta.setdefault("moves", []).append(list(s.argv))
                    store.write_meta(snapdir, meta)
                    lines.append("moved: %s -> %s" % tuple(s.argv))
        store.log({"event": "applied", "python": python, "snapshot": snapdir, "findings": ids,
                   "steps": [s.command for it in todo for s in it.steps if s.kind in (PIP, MOVE)]})
        report = recheck()
        found = getattr(report, "findings", [])
        remaining = [i for i in ids if any(f.id == i for f in found)]
        new = sorted({f.id for f in found if f.severity == ERROR and f.id not in before_ids})
        if remaining or new:
            why = []
            if remaining:
                why.append("still found: %s" % ", ".join(remaining))
            if new:
                why.append("new error(s): %s" % ", ".join(new))
            return _rollback(snapdir, python, lines + ["checked again: " + "; ".join(why)], stream)
    except KeyboardInterrupt:
        _rollback(snapdir, python, lines + ["interrupted"], stream)
        raise
    return Result(HEALED, lines + ["checked again: %s no longer found" % ", ".join(ids)], snapdir)


def _rollback(snapdir: str, python: str, lines: List[str], stream) -> Result:
    exact, done = restore(snapdir, stream=stream)
    store.log({"event": "rolled-back", "python": python, "snapshot": snapdir, "exact": exact})
    return Result(ROLLED_BACK, lines + ["rolled back:"] + ["  " + d for d in done], snapdir)


def undo(snapdir: str, stream=None) -> Tuple[bool, List[str]]:
    exact, done = restore(snapdir, stream=stream)
    meta = store.read_meta(snapdir) or {}
    store.log({"event": "undone", "python": meta.get("python"), "snapshot": snapdir, "exact": exact})
    return exact, done
