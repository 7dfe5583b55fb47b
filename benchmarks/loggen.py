"""Generate realistic training logs with known errors planted at known places.

The background is drawn from a finite pool of training-log lines (progress
bars, metrics, checkpoints, NCCL chatter, warnings that torchdoctor does not
know), and every line of the pool is checked against every pattern of the
knowledge base with a naive matcher (each regex searched on each line, no
anchors, no triggers) so it is known to match nothing. Then every real example
from the knowledge base is planted a known number of times. The expected
result of `torchdoctor explain --file` is computed with the same naive
matcher over the planted lines only: entry id -> (count of lines, first line),
then the scanner's rule for a traceback's `raise X("...")` source line (it
finds an entry only when the message itself has not been seen, and is never
counted as another occurrence), then the knowledge base's whole-input rules:
an entry with `context` needs one of its literals somewhere in the log, and an
entry that `refines` a generic one hides it.

Standard library only; runs under any Python 3.9+ with the repository on
sys.path.
"""

import os
import random
import re
import sys
from typing import Dict, List, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from torchdoctor.match.normalize import normalize  # noqa: E402  (stdlib-only modules)
from torchdoctor.kb.errors import load_entries  # noqa: E402
from torchdoctor.match.matcher import SOURCE_RAISE  # noqa: E402

BAR = "\u2588"


def _bar(rng, width=10):
    done = rng.randint(0, width)
    return BAR * done + " " * (width - done)


# Each template: rng -> one line. Roughly 1 line in 12 carries a word that the
# scanner's prefilter reacts to ('error', 'No ', 'not ', 'failed', 'WARNING'),
# as real logs do, so the benchmark pays for candidate lines too.
TEMPLATES = [
    (40, lambda r: "[%s][trainer][INFO] - Epoch %d | step %d/%d | loss %.4f | lr %.2e | grad_norm %.2f | %.1f samples/s"
     % (_ts(r), r.randint(0, 90), r.randint(0, 50000), 50000, r.random() * 3, r.random() * 1e-3, r.random() * 5,
        r.random() * 2000)),
    (25, lambda r: "Epoch %d:  %d%%|%s| %d/%d [%02d:%02d<%02d:%02d, %5.2fit/s, loss=%.3f, v_num=%d]"
     % (r.randint(0, 90), r.randint(0, 100), _bar(r), r.randint(0, 5000), 5000, r.randint(0, 59), r.randint(0, 59),
        r.randint(0, 59), r.randint(0, 59), r.random() * 20, r.random() * 2, r.randint(0, 9))),
    (20, lambda r: "{'loss': %.4f, 'grad_norm': %.3f, 'learning_rate': %.3e, 'epoch': %.2f}"
     % (r.random() * 3, r.random() * 4, r.random() * 1e-4, r.random() * 10)),
    (10, lambda r: "%s - INFO - __main__ - global_step=%d train/loss=%.5f train/ppl=%.3f tokens/s=%d"
     % (_ts(r), r.randint(0, 10 ** 6), r.random() * 4, 1 + r.random() * 40, r.randint(1000, 90000))),
    (6, lambda r: "Validation DataLoader 0:  %d%%|%s| %d/%d [00:%02d<00:%02d, %.2fit/s]"
     % (r.randint(0, 100), _bar(r), r.randint(0, 250), 250, r.randint(0, 59), r.randint(0, 59), r.random() * 40)),
    (5, lambda r: "INFO:root:eval epoch=%d val_error=%.4f top1_error=%.2f top5_error=%.2f"
     % (r.randint(0, 90), r.random(), r.random() * 40, r.random() * 10)),
    (4, lambda r: "%s:%d:%d [%d] NCCL INFO Channel %02d/%02d :    0   1   2   3   4   5   6   7"
     % (_host(r), r.randint(1000, 99999), r.randint(1000, 99999), r.randint(0, 7), r.randint(0, 31), 32)),
    (3, lambda r: "%s:%d:%d [%d] NCCL INFO comm 0x%x rank %d nranks 8 cudaDev %d busId %x0 - Init COMPLETE"
     % (_host(r), r.randint(1000, 99999), r.randint(1000, 99999), r.randint(0, 7), r.getrandbits(40),
        r.randint(0, 7), r.randint(0, 7), r.randint(0x10, 0xff))),
    (3, lambda r: "Saving checkpoint to /checkpoints/run-%d/step-%07d.pt (%.1f MB)"
     % (r.randint(1, 99), r.randint(0, 10 ** 6), r.random() * 900)),
    (3, lambda r: "wandb: %s run %s-%s-%d" % (r.choice(["Syncing", "Resuming", "Tracking"]),
                                             r.choice(["glorious", "misty", "ancient", "bright"]),
                                             r.choice(["sun", "river", "forest", "dawn"]), r.randint(1, 999))),
    (2, lambda r: "No improvement in val_loss for %d epochs (best %.4f at epoch %d)"
     % (r.randint(1, 9), r.random(), r.randint(0, 90))),
    (2, lambda r: "Skipping batch %d: sequence length %d is not a multiple of %d" % (
        r.randint(0, 10 ** 6), r.randint(1, 4096), r.choice([8, 16, 64]))),
    (2, lambda r: "WARNING:root:gradient overflow at step %d, reducing loss scale to %d" % (
        r.randint(0, 10 ** 6), 2 ** r.randint(1, 16))),
    (1, lambda r: "rank %d: data shard %d failed checksum, re-downloading (attempt %d/3)" % (
        r.randint(0, 7), r.randint(0, 4096), r.randint(1, 3))),
    (1, lambda r: "INFO: metric mean_abs_error=%.5f median_error=%.5f on %d samples" % (
        r.random(), r.random(), r.randint(100, 100000))),
    (1, lambda r: "[rank%d]: evaluation cannot start before step %d; waiting" % (r.randint(0, 7), r.randint(0, 1000))),
    (1, lambda r: "/home/%s/project/train.py:%d: UserWarning: label smoothing %.2f is not used with mixup" % (
        r.choice(["alice", "bob", "ci"]), r.randint(1, 900), r.random())),
    (1, lambda r: "\x1b[32m%s\x1b[0m \x1b[1mtrain\x1b[0m step=%d loss=%.4f" % (_ts(r), r.randint(0, 10 ** 6), r.random())),
]


def _ts(r):
    return "2026-%02d-%02d %02d:%02d:%02d,%03d" % (r.randint(1, 12), r.randint(1, 28), r.randint(0, 23),
                                                 r.randint(0, 59), r.randint(0, 59), r.randint(0, 999))


def _host(r):
    return "node%03d" % r.randint(0, 255)


class Naive:
    """The reference: every pattern of every entry searched on every line."""

    def __init__(self, entries):
        self.pats = [(e.id, re.compile(p.source)) for e in entries for p in e.patterns]

    def hits(self, raw_line: str) -> List[str]:
        line = normalize(raw_line)
        found = []
        for eid, rx in self.pats:
            if eid not in found and rx.search(line):
                found.append(eid)
        return found


def background_pool(seed: int, size: int, naive: "Naive") -> Tuple[List[str], int]:
    """`size` distinct-ish background lines, each verified to match nothing."""
    rng = random.Random(seed)
    weights = [w for w, _ in TEMPLATES]
    makers = [f for _, f in TEMPLATES]
    pool, dropped = [], 0
    for make in rng.choices(makers, weights=weights, k=size):
        line = make(rng)
        if naive.hits(line):
            dropped += 1
            continue
        pool.append(line)
    return pool, dropped


def example_blocks(entries) -> List[Tuple[str, List[str]]]:
    blocks = []
    for e in entries:
        for ex in e.examples:
            lines = ex["text"].replace("\r\n", "\n").split("\n")
            blocks.append((e.id, [ln for ln in lines]))
    return blocks


def generate(path: str, size_mb: float, seed: int = 1234, rounds: int = 0, pool_size: int = 4000) -> Dict:
    """Write ~size_mb MB to `path`; returns the expected matches and stats.

    rounds: how many times every knowledge-base example is planted (default:
    one round per 75 MB, at least one).
    """
    entries = load_entries()
    naive = Naive(entries)
    pool, dropped = background_pool(seed, pool_size, naive)
    blocks = example_blocks(entries)
    # Per-line reference hits of every block, computed once.
    block_hits = [[naive.hits(ln) for ln in lines] for _, lines in blocks]
    # The context literals each block and each background line holds.
    literals = sorted({c for e in entries for c in e.context})

    def lits(text):
        return frozenset(c for c in literals if c in text)
    block_lits = [lits("\n".join(normalize(ln) for ln in lines)) for _, lines in blocks]
    pool_lits = [lits(normalize(ln)) for ln in pool]
    seen = set()
    rounds = rounds or max(1, int(round(size_mb / 75.0)))
    target = int(size_mb * 1024 * 1024)
    avg = sum(len(x.encode("utf-8")) + 1 for x in pool) / len(pool)
    n_bg = max(1, int(target / avg))
    rng = random.Random(seed + 1)
    # Planting positions: (background line index, block index), sorted.
    plants = sorted((rng.randrange(n_bg), bi) for _ in range(rounds) for bi in range(len(blocks)))
    expected: Dict[str, Dict[str, int]] = {}
    quoted = set()  # ids seen so far only on a traceback's `raise` source line
    line_no = 0
    pi = 0
    unmatched_blocks = 0
    step = 100000
    with open(path, "wb") as fh:
        i = 0
        while i < n_bg:
            j = min(n_bg, i + step)
            out: List[str] = []
            for k in range(i, j):
                while pi < len(plants) and plants[pi][0] == k:
                    bi = plants[pi][1]
                    seen |= block_lits[bi]
                    any_hit = False
                    for ln, hits in zip(blocks[bi][1], block_hits[bi]):
                        line_no += 1
                        out.append(ln)
                        source = SOURCE_RAISE.match(normalize(ln)) is not None
                        for eid in hits:
                            any_hit = True
                            rec = expected.get(eid)
                            if rec is None:
                                expected[eid] = {"count": 1, "line": line_no}
                                if source:
                                    quoted.add(eid)
                            elif source:
                                pass
                            elif eid in quoted:  # the message after its quoted source line
                                quoted.discard(eid)
                                rec["line"] = line_no
                            else:
                                rec["count"] += 1
                    if not any_hit:
                        unmatched_blocks += 1
                    pi += 1
                line_no += 1
                pick = rng.randrange(len(pool))
                if pool_lits[pick]:
                    seen |= pool_lits[pick]
                out.append(pool[pick])
            fh.write(("\n".join(out) + "\n").encode("utf-8"))
            i = j
    by_id = {e.id: e for e in entries}
    expected = {eid: rec for eid, rec in expected.items()
                if not by_id[eid].context or any(c in seen for c in by_id[eid].context)}
    hidden = {r for eid in expected for r in by_id[eid].refines}
    expected = {eid: rec for eid, rec in expected.items() if eid not in hidden}
    return {
        "path": path, "bytes": os.path.getsize(path), "lines": line_no, "rounds": rounds,
        "planted_blocks": len(plants), "planted_entries": len({b[0] for b in blocks}),
        "blocks_matching_nothing_line_by_line": unmatched_blocks // max(1, rounds),
        "pool_dropped": dropped, "expected": expected,
    }


def verify(expected: Dict[str, Dict[str, int]], matches: List[Dict]) -> List[str]:
    """Differences between the expected result and `explain --json` matches."""
    got = {m["id"]: m for m in matches}
    problems = []
    for eid, rec in sorted(expected.items()):
        m = got.get(eid)
        if m is None:
            problems.append("%s: planted %d lines, not found" % (eid, rec["count"]))
        elif m["count"] != rec["count"] or m["line"] != rec["line"]:
            problems.append("%s: expected count %d first line %d, got count %d line %d"
                            % (eid, rec["count"], rec["line"], m["count"], m["line"]))
    for eid in sorted(set(got) - set(expected)):
        problems.append("%s: found %d lines, none planted" % (eid, got[eid]["count"]))
    return problems


if __name__ == "__main__":
    import json
    import time
    t = time.perf_counter()
    info = generate(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 10)
    exp = info.pop("expected")
    info["entries_expected"] = len(exp)
    info["seconds"] = round(time.perf_counter() - t, 2)
    print(json.dumps(info, indent=2))
