"""Where `fix` keeps what it needs to undo: the cache folder (platformdirs' rules, without the
dependency), one folder per snapshot, and the journal of what was applied and undone.

    <cache>/torchdoctor/fix/journal.jsonl           one JSON object a line, appended
    <cache>/torchdoctor/fix/snapshots/<id>/meta.json
                                           /freeze.txt (pip freeze --all, byte for byte)
                                           /wheels/*.whl (the replaced distributions, repacked)
"""

import json
import os
import sys
import time
from typing import Any, Dict, List, Optional

KEEP_SNAPSHOTS = 5  # older snapshots (and their wheels) are pruned


def cache_root() -> str:
    """The user's cache folder for torchdoctor: TORCHDOCTOR_CACHE_DIR, else where platformdirs
    puts a user cache: $XDG_CACHE_HOME or ~/.cache on Linux, ~/Library/Caches on macOS,
    %LOCALAPPDATA% on Windows."""
    own = os.environ.get("TORCHDOCTOR_CACHE_DIR")
    if own:
        return own
    if sys.platform == "darwin":
        return os.path.join(os.path.expanduser("~"), "Library", "Caches", "torchdoctor")
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or os.path.join(os.path.expanduser("~"), "AppData", "Local")
        return os.path.join(base, "torchdoctor", "Cache")
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "torchdoctor")


def fix_dir() -> str:
    return os.path.join(cache_root(), "fix")


def journal_path() -> str:
    return os.path.join(fix_dir(), "journal.jsonl")


def new_snapshot_dir() -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    base = os.path.join(fix_dir(), "snapshots")
    os.makedirs(base, exist_ok=True)
    for n in range(1000):
        path = os.path.join(base, stamp if n == 0 else "%s-%d" % (stamp, n))
        try:
            os.makedirs(os.path.join(path, "wheels"))
            return path
        except FileExistsError:
            continue
    raise OSError("cannot create a snapshot folder in %s" % base)


def write_meta(snapdir: str, meta: Dict[str, Any]) -> None:
    tmp = os.path.join(snapdir, "meta.json.tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(meta, fh, indent=1, sort_keys=True)
    os.replace(tmp, os.path.join(snapdir, "meta.json"))


def read_meta(snapdir: str) -> Optional[Dict[str, Any]]:
    try:
        with open(os.path.join(snapdir, "meta.json"), encoding="utf-8") as fh:
            meta = json.load(fh)
    except (OSError, ValueError):
        return None
    return meta if isinstance(meta, dict) else None


def log(event: Dict[str, Any]) -> None:
    """Append one entry to the journal."""
    os.makedirs(fix_dir(), exist_ok=True)
    event = dict(event, at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    with open(journal_path(), "a", encoding="utf-8") as fh:
        fh.write(json.dumps(event, sort_keys=True) + "\n")


def journal() -> List[Dict[str, Any]]:
    out = []
    try:
        with open(journal_path(), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    obj = json.loads(line)
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    out.append(obj)
    except OSError:
        pass
    return out


def last_undoable(python: Optional[str]) -> Optional[str]:
    """The snapshot folder of the last fix applied (to `python`, or to any interpreter) and not
    undone since: what `fix --undo` restores."""
    undone = set()
    for event in reversed(journal()):
        snap = event.get("snapshot")
        if not isinstance(snap, str):
            continue
        if event.get("event") in ("undone", "rolled-back"):
            undone.add(snap)
        elif event.get("event") == "applied" and snap not in undone:
            if python is None or event.get("python") == python:
                if read_meta(snap) is not None:
                    return snap
    return None


def prune(keep: int = KEEP_SNAPSHOTS) -> None:
    """Drop all but the newest `keep` snapshots (their wheels can be gigabytes)."""
    import shutil
    base = os.path.join(fix_dir(), "snapshots")
    try:
        names = sorted(n for n in os.listdir(base) if os.path.isdir(os.path.join(base, n)))
    except OSError:
        return
    for name in names[:-keep] if keep else names:
        shutil.rmtree(os.path.join(base, name), ignore_errors=True)
