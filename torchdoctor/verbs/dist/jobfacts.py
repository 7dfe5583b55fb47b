"""The job's facts as rank 0 assembles them, and the words for ranks and nodes (pure).

A job result is one JSON-able dict (its shape is documented in README, "dist --json"):
``ranks`` (one record per rank: where it ran, its facts summary, what became of it),
``nodes`` (ranks grouped by machine, labelled a, b, c...), ``steps`` (join, gather,
the collectives, each with per-rank results), ``bandwidth``, ``pairs``, ``findings``.
Conditions read it through the helpers here, so a finding names ranks the same way
everywhere: "rank 5 (node b, local 1)", "ranks 0-4,6-7", "node b (ranks 8-15)".
"""

from collections import OrderedDict
from typing import Any, Dict, Iterable, List, Optional, Sequence, Tuple

SCHEMA_VERSION = 1
KIND = "torchdoctor-dist"


def node_letter(i: int) -> str:
    """0 -> 'a', 25 -> 'z', 26 -> 'aa'."""
    out = ""
    i += 1
    while i:
        i, rem = divmod(i - 1, 26)
        out = chr(ord("a") + rem) + out
    return out


def ranges(ranks: Iterable[int]) -> str:
    """[0, 1, 2, 3, 4, 6, 7] -> '0-4,6-7'."""
    rs = sorted(set(int(r) for r in ranks))
    parts: List[str] = []
    i = 0
    while i < len(rs):
        j = i
        while j + 1 < len(rs) and rs[j + 1] == rs[j] + 1:
            j += 1
        parts.append(str(rs[i]) if i == j else "%d-%d" % (rs[i], rs[j]))
        i = j + 1
    return ",".join(parts)


def ranks_text(ranks: Iterable[int]) -> str:
    """'rank 2', 'ranks 0-1,3': the word agrees with the count."""
    rs = set(int(r) for r in ranks)
    return ("rank %s" if len(rs) == 1 else "ranks %s") % ranges(rs)


def rank_record(job: Dict[str, Any], r: int) -> Dict[str, Any]:
    ranks = job.get("ranks") or []
    if 0 <= r < len(ranks) and ranks[r].get("rank") == r:  # the usual layout: ranks[r] is rank r
        return ranks[r]
    for rec in ranks:
        if rec.get("rank") == r:
            return rec
    return {"rank": r}


def where(job: Dict[str, Any], r: int) -> Dict[str, Any]:
    w = rank_record(job, r).get("where")
    return w if isinstance(w, dict) else {}


def summary(job: Dict[str, Any], r: int) -> Optional[Dict[str, Any]]:
    s = rank_record(job, r).get("summary")
    return s if isinstance(s, dict) else None


def world(job: Dict[str, Any]) -> int:
    return int(job.get("world_size") or len(job.get("ranks") or []))


def all_ranks(job: Dict[str, Any]) -> List[int]:
    return list(range(world(job)))


def joined(job: Dict[str, Any]) -> List[int]:
    return [rec["rank"] for rec in job.get("ranks") or [] if rec.get("joined")]


def with_summary(job: Dict[str, Any]) -> List[int]:
    return [rec["rank"] for rec in job.get("ranks") or [] if isinstance(rec.get("summary"), dict)]


def node_of(job: Dict[str, Any], r: int) -> Optional[Dict[str, Any]]:
    label = rank_record(job, r).get("node")
    for node in job.get("nodes") or []:
        if (label is not None and node.get("label") == label) or (label is None and r in node.get("ranks", [])):
            return node
    return None


def rank_label(job: Dict[str, Any], r: int) -> str:
    """'rank 5 (node b, local 1)'; for a rank that never said where it ran, the node and
    local rank its neighbours imply, marked with '?'."""
    w = where(job, r)
    node = node_of(job, r)
    bits = []
    if node is not None:
        bits.append("node %s" % node["label"])
    elif w.get("guess_node"):
        bits.append("node %s?" % w["guess_node"])
    local = w.get("local_rank")
    if local is not None:
        bits.append("local %s%s" % (local, "?" if w.get("guessed") else ""))
    return "rank %d (%s)" % (r, ", ".join(bits)) if bits else "rank %d" % r


def ranks_phrase(job: Dict[str, Any], ranks: Sequence[int]) -> str:
    """One rank: its full label. Exactly one whole node (of several): 'node b (ranks 8-15)'.
    Else 'ranks 0-4,6-7'."""
    rs = sorted(set(ranks))
    if len(rs) == 1:
        return rank_label(job, rs[0])
    nodes = job.get("nodes") or []
    whole = [n for n in nodes if n.get("ranks") and set(n["ranks"]) == set(rs)]
    if len(nodes) > 1 and whole:
        return "node %s (ranks %s)" % (whole[0]["label"], ranges(rs))
    return "ranks %s" % ranges(rs)


def split(values: Dict[int, Any]) -> Tuple[Any, List[int], List[Tuple[Any, List[int]]]]:
    """Ranks grouped by value: (majority value, its ranks, [(other value, ranks), ...]).

    The majority is the value most ranks hold; on a tie, the one rank 0 (the lowest rank)
    holds. Minorities come smallest first."""
    groups: "OrderedDict[str, Tuple[Any, List[int]]]" = OrderedDict()
    for r in sorted(values):
        key = repr(values[r])
        groups.setdefault(key, (values[r], []))[1].append(r)
    ordered = sorted(groups.values(), key=lambda g: (-len(g[1]), g[1][0]))
    major = ordered[0]
    minor = sorted(ordered[1:], key=lambda g: (len(g[1]), g[1][0]))
    return major[0], major[1], minor


def assign_nodes(job: Dict[str, Any]) -> None:
    """Group ranks into nodes by the machine they reported (node key, else host name), in
    order of their lowest rank, and guess where ranks that never reported would have run:
    torchrun places ranks in blocks of LOCAL_WORLD_SIZE per node."""
    by_key: "OrderedDict[str, Dict[str, Any]]" = OrderedDict()
    local_world = None
    for rec in sorted(job.get("ranks") or [], key=lambda x: x["rank"]):
        w = rec.get("where") if isinstance(rec.get("where"), dict) else None
        if not w or w.get("guessed"):
            continue
        key = w.get("node_id") or w.get("host") or "?"
        node = by_key.setdefault(key, {"key": key, "host": w.get("host"), "ranks": [],
                                       "node_rank": w.get("node_rank")})
        node["ranks"].append(rec["rank"])
        if w.get("local_world_size"):
            local_world = local_world or int(w["local_world_size"])
    nodes = list(by_key.values())
    for i, node in enumerate(nodes):
        node["label"] = node_letter(i)
        for r in node["ranks"]:
            rank_record(job, r)["node"] = node["label"]
    job["nodes"] = nodes
    if not local_world:
        return
    for rec in job.get("ranks") or []:
        w = rec.get("where") if isinstance(rec.get("where"), dict) else None
        if w and not w.get("guessed"):
            continue
        r = rec["rank"]
        block = r // local_world
        guess = {"guessed": True, "local_rank": r % local_world}
        for node in nodes:
            if any(x // local_world == block for x in node["ranks"]):
                guess["guess_node"] = node["label"]
                guess["host"] = node.get("host")
                break
        rec["where"] = guess


def step(job: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    for s in job.get("steps") or []:
        if s.get("name") == name:
            return s
    return None


def ranks_per_node(job: Dict[str, Any]) -> Dict[str, List[int]]:
    return {n["label"]: list(n["ranks"]) for n in job.get("nodes") or []}
