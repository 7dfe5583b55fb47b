"""Differences between ranks that follow from another one: one root cause, its consequences
listed under it, instead of a finding for each.

A rank started with another interpreter has another Python, torch and packages; a rank with
another torch build has that build's CUDA, cuDNN, NCCL and CUDA libraries. Those are not
separate problems: one finding for the root (the first of ROOTS that differs), the rest
said under it, and no finding of their own. A difference is a consequence of a root when
the ranks that have it are among the root's odd ranks and its family follows from the root's.
"""

import re
from typing import Dict, List, Set, Tuple

from .. import jobfacts as J
from .differ import Diff, all_differences, odd

# What follows from a difference, by family: (root family, its root fact, the families that follow)
ROOTS = (
    ("environment", None, {"environment", "python", "torch", "cuda", "nccl", "package"}),
    ("python", "Python", {"torch", "cuda", "nccl", "package"}),
    ("torch", "torch", {"torch", "cuda", "nccl", "package"}),
)
# torch's own stack: the packages a torch build brings (its CUDA libraries, its Triton)
TORCH_STACK = re.compile(r"^(?:nvidia-|triton$|pytorch-triton|cuda-)")
Key = Tuple[str, str]


def _follows(root: Diff, d: Diff, families) -> bool:
    if d[0] not in families or (d[0], d[1]) == (root[0], root[1]):
        return False
    if root[0] == "torch" and d[0] == "package" and not TORCH_STACK.match(d[1]):
        return False
    return set(odd(d)) <= set(odd(root))


def consequences(job) -> Tuple[Dict[Key, List[Diff]], Set[Key]]:
    """({root (family, fact): [its consequences]}, every (family, fact) that is a consequence)."""
    diffs = all_differences(job)
    under: Dict[Key, List[Diff]] = {}
    taken: Set[Key] = set()
    for family, fact, families in ROOTS:
        for root in diffs:
            key = (root[0], root[1])
            if root[0] != family or (fact and root[1] != fact) or key in taken:
                continue
            for d in diffs:
                k = (d[0], d[1])
                if k not in taken and k != key and _follows(root, d, families):
                    under.setdefault(key, []).append(d)
                    taken.add(k)
    return under, taken


def lines(job, diffs: List[Diff], packages_shown: int = 8) -> str:
    """The consequences in words, one line each (the packages together)."""
    out = []
    pkgs = [d for d in diffs if d[0] == "package"]
    for fam, fact, major, _, minors in diffs:
        if fam != "package":
            out.append("  - %s: %s" % (fact, "; ".join("%s on %s" % (v, J.ranks_text(rs)) for v, rs in minors) +
                                       " (the others: %s)" % major))
    if pkgs:
        shown = ["%s %s (others: %s)" % (fact, "/".join(str(v) for v, _ in minors), major)
                 for _, fact, major, _, minors in pkgs[:packages_shown]]
        more = " and %d more" % (len(pkgs) - packages_shown) if len(pkgs) > packages_shown else ""
        out.append("  - %d package%s: %s%s" % (len(pkgs), "" if len(pkgs) == 1 else "s", ", ".join(shown), more))
    return "\n".join(out)
