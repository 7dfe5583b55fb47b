"""`torchdoctor fix`: diagnose, resolve the fixes against the target's pip configuration, show
exactly what would run, and (after the user agrees, or --yes) apply it with a snapshot,
check again and roll back unless healed. `fix --undo` restores the last snapshot.

`plan_for` is the dry-run form that the Python API and the MCP server get: they never change
an environment.
"""

import sys
from typing import Callable, List, Optional, Sequence, Tuple

from ...model.findings import ERROR
from . import apply as A
from . import plan as P
from . import store

EXIT_OK, EXIT_NOT_HEALED = 0, 1


def examine(python: str, timeout: float, isolated_from: Optional[str] = None):
    """(facts, report) of `python`, as `check` sees it."""
    from ...diagnose import examine as diagnose_target
    report = diagnose_target(python=python, timeout=timeout, isolated_from=isolated_from)
    return report.facts, report


def plan_for(python: str, ids: Sequence[str] = (), timeout: float = 60.0,
             isolated_from: Optional[str] = None) -> Tuple[object, List[P.Item]]:
    """(report, plan items): what `fix` would do for `python`, without doing it."""
    facts, report = examine(python, timeout, isolated_from)
    chosen = P.select(report.findings, ids)
    return report, P.resolve_and_plan(chosen, facts)


def absolute(python: str) -> str:
    """The interpreter as the journal records it: an absolute path (not resolving links: a venv's
    python is a link to the base interpreter)."""
    import os
    import shutil
    if os.sep in python or (os.altsep and os.altsep in python):
        return os.path.abspath(python)
    return shutil.which(python) or python


def run(python: str, ids: Sequence[str], yes: bool, dry_run: bool, timeout: float,
        say: Callable[[str], None], confirm: Callable[[str], bool]) -> int:
    """The verb: `say` prints a line on stdout, `confirm` asks (never called with --yes)."""
    python = absolute(python)
    report, items = plan_for(python, ids, timeout)
    if ids:
        known = {f.id for f in report.findings} | {f.check for f in report.findings}
        absent = [i for i in ids if i not in known]
        if absent:
            say("not found in %s: %s" % (python, ", ".join(absent)))
    if not items:
        errors = [f for f in report.findings if f.severity == ERROR]
        say("nothing to fix in %s%s" % (python, "" if ids or not errors else " (no error-level finding)"))
        return EXIT_OK if not ids or not absent else EXIT_NOT_HEALED
    for line in P.describe(items):
        say(line)
    runnable = [it for it in items if it.runnable]
    if dry_run:
        say("dry run: nothing was changed")
        return EXIT_OK
    if not runnable:
        say("nothing here that fix can apply (see 'not applied' above)")
        return EXIT_NOT_HEALED
    if not yes and not confirm("Apply the fix of %s to %s?" % (", ".join(it.finding.id for it in runnable), python)):
        say("nothing was changed")
        return EXIT_NOT_HEALED
    before = {f.id for f in report.findings}
    result = A.apply(items, python, before, lambda: examine(python, timeout)[1], stream=sys.stderr)
    for line in result.lines:
        say(line)
    if result.status == A.HEALED:
        say("fixed; `torchdoctor fix --undo --python %s` puts the previous package set back" % python)
        return EXIT_OK
    say("not fixed: %s" % ("the environment was rolled back to the snapshot" if result.status == A.ROLLED_BACK
                           else "nothing was changed"))
    return EXIT_NOT_HEALED


def run_undo(python: Optional[str], yes: bool, dry_run: bool, say: Callable[[str], None],
             confirm: Callable[[str], bool]) -> int:
    snapdir = store.last_undoable(absolute(python) if python else None)
    if snapdir is None:
        say("no fix to undo%s (journal: %s)" % (" for %s" % python if python else "", store.journal_path()))
        return EXIT_NOT_HEALED
    meta = store.read_meta(snapdir) or {}
    target = meta.get("python")
    say("last fix: %s in %s (snapshot %s)" % (", ".join(meta.get("findings") or []), target, snapdir))
    for src, dst in meta.get("moves") or []:
        say("  will move back: %s -> %s" % (dst, src))
    say("  will restore: pip freeze --all as it was before the fix (%s repacked: %s)"
        % (len(meta.get("dists") or {}), ", ".join(sorted(meta.get("dists") or {})) or "nothing"))
    if dry_run:
        say("dry run: nothing was changed")
        return EXIT_OK
    if not yes and not confirm("Undo the last fix of %s?" % target):
        say("nothing was changed")
        return EXIT_NOT_HEALED
    exact, lines = A.undo(snapdir, stream=sys.stderr)
    for line in lines:
        say(line)
    return EXIT_OK if exact else EXIT_NOT_HEALED
