"""How a sys.path entry got there (PYTHONPATH, the working directory, a .pth file, the user
site-packages): what to change when the entry is what hides the installed torch, without
reinstalling anything.
"""

import os
from typing import Optional, Tuple

from ...model import derived as F
from ...model.facts import Facts


def _same(a: str, b: str, cwd: Optional[str]) -> bool:
    def norm(p: str) -> str:
        return os.path.normpath(os.path.join(cwd, p) if cwd and not os.path.isabs(p) else p)
    return norm(a) == norm(b)


def entry_origin(facts: Facts, entry: Optional[str]) -> Tuple[str, str]:
    """(kind, what) for a sys.path entry: ("PYTHONPATH", the variable's entry), ("cwd", the
    folder), (".pth", the file), ("user-site", the folder), ("", "") when it is the
    environment's own."""
    cwd = facts.value("python.cwd")
    cwd = cwd if isinstance(cwd, str) else None
    if entry in ("", None) or (cwd and entry == cwd and entry not in F.path_var(facts, "PYTHONPATH")):
        return "cwd", cwd or "the current directory"
    for e in F.path_var(facts, "PYTHONPATH"):
        if _same(e, entry, cwd):
            return "PYTHONPATH", e
    for pth in facts.value("import_env.pth") or []:
        if isinstance(pth, dict) and entry in (pth.get("adds") or []):
            return ".pth", str(pth.get("file"))
    user = facts.value("import_env.user_site")
    if isinstance(user, str) and _same(user, entry, cwd):
        return "user-site", user
    return "", ""


def origin_words(kind: str, what: str) -> str:
    """How to say where an entry came from, after "which": "PYTHONPATH=/x puts there"."""
    return {"PYTHONPATH": "PYTHONPATH=%s puts there" % what,
            ".pth": "%s adds" % what,
            "user-site": "is the user site-packages (PYTHONNOUSERSITE=1 leaves it out)"}.get(kind, "")
