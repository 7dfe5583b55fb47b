"""A shared library from outside torch's wheel that the loader took instead of the one torch
ships or declares, because LD_LIBRARY_PATH or LD_PRELOAD (DYLD_* on macOS) put it first: the
environment's own culprit, named with the variable, the folder and the library, and fixed by
changing the variable; nothing needs reinstalling.

The probe says which libraries the import loaded and from where (/proc/self/maps, dyld's
image list, the loaded modules), which ones torch's wheel and its dependencies ship, and
the variables as the interpreter saw them; a failed import's error names the library the
loader picked (`/x/libgomp.so.1: version `GOMP_4.0' not found (required by .../libtorch_cpu.so)`).
"""

import os
import re
from typing import List, Optional, Tuple

from ...model import derived as F
from ...model.facts import Facts
from ..registry import ERROR, WARNING, finding, rule

# glibc's words for a library the loader found but could not use: the path is of the library
# that lacks what was asked for.
_REFUSED = re.compile(r"(/[^\s:'\"]+?\.(?:so(?:\.[0-9][0-9.]*)?|dylib))\s*:\s*"
                      r"(version `[^']+' not found(?: \(required by [^)]+\))?|undefined symbol: \S+|"
                      r"wrong ELF class: \S+|invalid ELF header|file too short)")
PATH_VARS = ("LD_PRELOAD", "LD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES", "DYLD_LIBRARY_PATH")


_entries = F.path_var


def brought_by(facts: Facts, path: str) -> Optional[Tuple[str, str]]:
    """(variable, its entry) that made the loader take `path`, or None."""
    folder = os.path.dirname(path)
    for var in PATH_VARS:
        for entry in _entries(facts, var):
            if var in ("LD_PRELOAD", "DYLD_INSERT_LIBRARIES"):
                if entry == path or (os.sep not in entry and entry == os.path.basename(path)):
                    return var, entry
            elif os.path.normpath(entry) == os.path.normpath(folder):
                return var, entry
    return None


def _own_trees(facts: Facts) -> List[str]:
    prefix = facts.value("python.prefix")
    site = facts.value("import_env.site_dirs")
    trees = [prefix] if isinstance(prefix, str) else []
    trees += [d for d in site if isinstance(d, str)] if isinstance(site, list) else []
    return [os.path.normpath(t) + os.sep for t in trees]


def culprits(facts: Facts) -> List[dict]:
    """Foreign libraries that a variable put in front of torch's own: from the import error
    (what the loader refused) and from the libraries the import loaded."""
    out: List[dict] = []
    own = _own_trees(facts)
    imp = facts.section("torch_import")
    text = "%s\n%s" % (imp.get("error") or "", imp.get("traceback") or "") if imp.get("ok") is False else ""
    for m in _REFUSED.finditer(text):
        path, why = m.group(1), m.group(2)
        by = brought_by(facts, path)
        if by and not any(path.startswith(t) for t in own) and all(c["path"] != path for c in out):
            out.append({"path": path, "why": why, "var": by[0], "entry": by[1], "broke_import": True})
    bundled = facts.value("loaded_libs.bundled")
    bundled = bundled if isinstance(bundled, dict) else {}
    for path in facts.value("loaded_libs.paths") or []:
        if not isinstance(path, str):
            continue
        name = os.path.basename(path)
        ships = bundled.get(name)
        by = brought_by(facts, path)
        if ships and by and os.path.dirname(path) != ships and all(c["path"] != path for c in out):
            out.append({"path": path, "why": "loaded instead of %s" % os.path.join(ships, name), "var": by[0],
                        "entry": by[1], "broke_import": False})
    return out


def explained_by_foreign_library(facts: Facts) -> bool:
    """`import torch` failed because a variable put a foreign library in front of torch's own."""
    return any(c["broke_import"] for c in culprits(facts))


@rule("check", "foreign-library", category="foreign-library", severity=ERROR,
      requires=("torch_import",),
      verify=('python -c "import torch; print(torch.__version__, torch.__file__)"',
              'the installed version, loaded from site-packages, and no error'))
def foreign_library(facts):
    """A library from LD_LIBRARY_PATH / LD_PRELOAD is loaded in place of the one torch ships."""
    found = culprits(facts)
    if not found:
        return None
    broke = [c for c in found if c["broke_import"]]
    lead = (broke or found)[0]
    by_var: dict = {}
    for c in found:
        by_var.setdefault(c["var"], []).append(c["entry"])
    cmds = [F.path_var_without(facts, var, entries) for var, entries in by_var.items()]
    lines = ["%s (from %s=%s): %s" % (c["path"], c["var"], c["entry"], c["why"]) for c in found]
    name = os.path.basename(lead["path"])
    f = finding(
        "%s in %s, set by %s, %s" % (name, os.path.dirname(lead["path"]), lead["var"],
                                     "breaks `import torch`" if broke else "is loaded instead of torch's own copy"),
        severity=ERROR if broke else WARNING,
        detail="The dynamic loader searches %s before the folders torch's wheel points it to, so it took a library "
               "that is not the one torch was built with and ships:\n%s\nThe torch install itself is fine: "
               "reinstalling it would change nothing while the variable is set."
               % (" and ".join(sorted(by_var)), "\n".join("  " + ln for ln in lines)),
        fix="Take %s out of %s in the shell that runs Python (and wherever it is set: a shell profile, "
            "`module load`, a conda activate script); nothing needs reinstalling."
            % (", ".join(sorted({c["entry"] for c in found})), " and ".join(sorted(by_var))),
        commands=cmds)
    f.evidence = ["%s=%s" % (var, os.pathsep.join(_entries(facts, var))) for var in sorted(by_var)]
    if broke:
        f.evidence.append("torch_import.error: %s" % str(facts.value("torch_import.error", ""))[:300])
    return f
