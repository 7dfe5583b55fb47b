"""The scan: discover files, pick the target, lint Python files in parallel (the environment
files in this process: they are few and cheap), apply the project-wide filters."""

import gc
import os
from ...model.records import field, record
from typing import Dict, List, Optional, Tuple

from .lintfile import FileResult, Settings, lint_env, lint_path
from .located import Located

MAX_WORKERS = 8          # more processes than this buys nothing on a few thousand files
PARALLEL_MIN_FILES = 48  # below this, starting processes costs more than it saves


@record
class Outcome:
    findings: List[Located] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)
    files: int = 0
    workers: int = 1
    digests: Dict[str, str] = field(default_factory=dict)   # path -> digest of the bytes scanned
    suppressed: List[Located] = field(default_factory=list)  # what guards and noqa hid (--show-suppressed)


def workers_for(n_files: int, jobs: Optional[int]) -> int:
    if jobs is not None:
        return max(1, min(jobs, MAX_WORKERS))
    if n_files < PARALLEL_MIN_FILES:
        return 1
    try:
        cpus = len(os.sched_getaffinity(0))  # type: ignore[attr-defined]
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_WORKERS))


# Syntax trees hold no reference cycles (pyscan breaks its own), so the cyclic garbage
# collector only costs time while thousands of them are built (~30% of parse time on the
# torch tree); it runs every GC_EVERY files instead.
GC_EVERY = 256


def _lint_serial(items, settings: Tuple[Settings, ...]) -> List[FileResult]:
    was = gc.isenabled()
    gc.disable()
    try:
        out = []
        for i, (path, kind, which) in enumerate(items, 1):
            out.append(lint_path((path, kind), settings[which]))
            if i % GC_EVERY == 0:
                gc.collect()
        return out
    finally:
        if was:
            gc.enable()


_SETTINGS: Tuple[Settings, ...] = ()
_DONE = 0


def _init(settings: Tuple[Settings, ...]) -> None:
    global _SETTINGS
    _SETTINGS = settings
    gc.disable()


def _work(item):
    global _DONE
    _DONE += 1
    if _DONE % GC_EVERY == 0:
        gc.collect()
    path, kind, which = item
    return lint_path((path, kind), _SETTINGS[which])


def lint_python_files(items: List[Tuple[str, str, int]], settings: Tuple[Settings, ...],
                      workers: int) -> Tuple[List[FileResult], int]:
    """items: (path, kind, index of its Settings in `settings`)."""
    if workers <= 1 or len(items) < 2:
        return _lint_serial(items, settings), 1
    import multiprocessing
    try:
        with multiprocessing.get_context().Pool(workers, initializer=_init, initargs=(settings,)) as pool:
            chunk = max(1, min(64, len(items) // (workers * 8) or 1))
            return list(pool.imap(_work, items, chunksize=chunk)), workers
    except (OSError, ImportError, PermissionError, RuntimeError):
        # no working semaphores or fork here (some sandboxes, AWS Lambda): one process it is
        return _lint_serial(items, settings), 1


def scan(parts: List[Tuple[Settings, List[Tuple[str, str]]]], jobs: Optional[int] = None) -> Outcome:
    """One scan of every part's files, each file with its part's settings (a repository of
    several projects lints each against its own pins): one pool, and the project-wide filters
    over all of them."""
    settings = tuple(s for s, _ in parts)
    files = [(p, k, i) for i, (_, group) in enumerate(parts) for p, k in group]
    out = Outcome(files=len(files))
    code = ("python", "notebook", "setuppy")
    py = [(p, "python" if k == "setuppy" else k, i) for p, k, i in files if k in code]
    env = [(p, k, i) for p, k, i in files if k not in code]
    out.workers = workers_for(len(py), jobs)
    results, out.workers = lint_python_files(py, settings, out.workers)
    # environment files: pyproject/setup.cfg first, so requirement files can inherit their Python
    order = {"pyproject": 0, "setupcfg": 1}
    env.sort(key=lambda pki: order.get(pki[1], 2))
    declared = {}
    for path, kind, i in env:
        d = os.path.dirname(os.path.abspath(path))
        res, group = lint_env(path, kind, settings[i], declared.get(d))
        if group is not None and group.python and kind in ("pyproject", "setupcfg"):
            declared.setdefault(d, group.python)
        results.append(res)
    return combine(results, out)


def combine(results: List[FileResult], out: Outcome) -> Outcome:
    """The files' results as one outcome: their notes, the digests --fix checks, and the
    findings no file of the scan silences (needs_absent), sorted."""
    mentions = set()
    for r in results:
        mentions |= set(r.mentions)
        out.notes.extend(r.notes)
        if r.digest is not None:
            out.digests[r.path] = r.digest
        if not r.scanned:
            out.files -= 1
    for r in results:
        out.findings.extend(f for f in r.findings if not (f.needs_absent and f.needs_absent in mentions))
        out.suppressed.extend(f for f in r.suppressed if not (f.needs_absent and f.needs_absent in mentions))
    out.findings.sort(key=Located.sort_key)
    out.suppressed.sort(key=Located.sort_key)
    return out
