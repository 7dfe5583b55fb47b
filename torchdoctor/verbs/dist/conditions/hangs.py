"""Who is to blame for a collective that never completed.

A hang holds every rank that called the collective, waiting for the one that did not: their
per-rank results all say "timeout", and the culprit is the rank that never entered it. Each
rank reports where its step's thread was when its deadline passed (inside torch's collective,
or elsewhere: see dist/stack.py), and every rank publishes its progress (the step it last
entered and left, and when); from both, each rank gets one role in the step:

* ``never``  - never entered the collective: its thread was elsewhere, or it gave no result
               and its last progress was an earlier step;
* ``left``   - left the job during it (exited, or stopped responding: its heartbeat stood
               still), so the others waited for it in vain;
* ``silent`` - entered it and then said nothing more (stopped, or too slow to answer);
* ``waited`` - waited inside torch's collective for the others;
* ``done``   - completed it (a root whose broadcast left, a rank that was not needed).
"""

from typing import Any, Dict, List, Tuple

from .. import jobfacts as J
from .common import fate_how, fate_text, per_rank_of

ROLES = ("never", "left", "silent", "waited", "done")


def _ago(at: Dict[str, Any], key: str) -> str:
    v = at.get(key)
    return ", %.0f s ago" % v if isinstance(v, (int, float)) else ""


def _last_seen(at: Dict[str, Any]) -> str:
    if at.get("last_left"):
        return "last seen: after %s%s" % (at["last_left"], _ago(at, "last_left_ago_s"))
    if at.get("step"):
        return "last seen: in %s%s" % (at["step"], _ago(at, "ago_s"))
    return ""


def roles(job: Dict[str, Any], name: str) -> Dict[str, List[Tuple[int, str]]]:
    """{role: [(rank, what to say of it)]} for step `name` (see the module's docstring)."""
    out: Dict[str, List[Tuple[int, str]]] = {k: [] for k in ROLES}
    for r, v in sorted(per_rank_of(J.step(job, name)).items()):
        status, thread, at = v.get("status"), v.get("thread") or {}, v.get("at") or {}
        if status in ("ok", "skipped", "unsupported", "wrong"):
            out["done"].append((r, ""))
        elif thread and thread.get("in_torch") is False:
            where = "its step was at %s" % " <- ".join(thread.get("stack") or [])[:300]
            out["never"].append((r, "; ".join(x for x in (_last_seen(at), where) if x)))
        elif thread or status in ("timeout", "stopped"):
            out["waited"].append((r, ""))
        elif status == "gone":
            # it left while the others waited for it: its own finding says how, and the hang is its doing
            fate = J.rank_record(job, r).get("fate") or {}
            out["left"].append((r, fate_how(fate) if isinstance(fate, dict) else "left"))
        elif at and (at.get("step") != name or at.get("left")):
            out["never"].append((r, _last_seen(at)))
        elif at or v.get("entered"):
            out["silent"].append((r, "last seen: in it%s" % _ago(at, "ago_s") if at else ""))
        else:
            out["never"].append((r, "no progress reported"))
    return out


def blamed(job: Dict[str, Any], name: str) -> List[int]:
    """The ranks a hang in `name` is to be blamed on: those that never entered it or left during
    it, else those that went silent in it."""
    rs = roles(job, name)
    return sorted(r for k in ("never", "left") for r, _ in rs[k]) or [r for r, _ in rs["silent"]]


def title(job: Dict[str, Any], name: str, rs: Dict[str, List[Tuple[int, str]]]) -> str:
    never, silent, waited = ([r for r, _ in rs[k]] for k in ("never", "silent", "waited"))
    if not (never or silent or rs["left"]):
        return ""
    bits = []
    if never:
        bits.append("%s never entered it" % J.ranks_phrase(job, never))
    for how in sorted({h for _, h in rs["left"]}):
        bits.append("%s %s in it" % (J.ranks_phrase(job, [r for r, h in rs["left"] if h == how]), how))
    if silent:
        bits.append("%s stopped answering in it" % J.ranks_phrase(job, silent))
    if waited:
        bits.append("%s waited in it" % J.ranks_text(waited))
    return "%s hung: %s" % (name, "; ".join(bits))


def detail(job: Dict[str, Any], name: str, rs: Dict[str, List[Tuple[int, str]]]) -> str:
    lines = []
    for r, what in rs["never"]:
        lines.append("%s never entered %s%s" % (J.rank_label(job, r), name, " (%s)" % what if what else ""))
    for r, how in rs["left"]:
        why = fate_text(job, r)
        lines.append("%s %s in %s%s" % (J.rank_label(job, r), how, name, " (%s)" % why if why else ""))
    for r, what in rs["silent"]:
        lines.append("%s entered %s and stopped answering%s" % (J.rank_label(job, r), name,
                                                                " (%s)" % what if what else ""))
    if rs["waited"]:
        lines.append("%s waited inside torch's %s for it" % (J.ranks_phrase(job, [r for r, _ in rs["waited"]]),
                                                             name.split()[0]))
    return "; ".join(lines)
