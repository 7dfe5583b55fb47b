"""Which lines of a byte buffer contain an anchor: the first pass of a log scan.

Two engines give the same answer (tests/explain/test_explain_prefilter_engines.py holds them to it):

* ``NativePrefilter``: one pass of an Aho-Corasick DFA over the buffer, from the
  optional ``ahocorasick-rs`` package (``pip install torchdoctor[fast]``), the
  way ``grep -F -f`` does it. About 500 MB/s on the benchmark's log.
* ``Prefilter``: the standard library only (rare bytes marked with
  ``bytes.translate``, walked with ``memchr``), about 100 MB/s.

``engine()`` picks the native one when it imports, unless the environment
variable ``TORCHDOCTOR_SCAN_ENGINE`` is ``pure``.
"""
import os
from collections import Counter
from typing import Dict, Iterable, List, Optional, Tuple

ENGINE_VAR = "TORCHDOCTOR_SCAN_ENGINE"
ENGINES = ("native", "pure")

GRAM = 4  # bytes around a rare byte looked up before the whole anchor is compared
SAMPLE = 64 * 1024  # bytes taken from each of 4 places of a chunk to fit the plan
# Relative costs on CPython 3.11: visiting one marked byte in the Python loop vs
# one byte of a bytes.find pass. A byte of the input that is rarer than PASS_RATE
# (per anchor it covers) is cheaper to walk than an anchor is to search for. Fitted
# on the benchmark's 301 MB log at 1,434 anchors: 0.0016 took 0.87x the time of
# 0.0008 and 0.97x that of 0.0012 (median of 3 interleaved scans each).
PASS_RATE = 0.0016


def literals(anchors: Iterable[str], native: bool = False) -> List[bytes]:
    """The anchors as UTF-8, shortest first, without those that contain another
    (a line that holds the longer one holds the shorter) and without those that
    span a newline (no line can contain them: lines are split at newlines).
    `native`: the native engine is in use, and may answer faster."""
    raw = sorted({a.encode("utf-8", "surrogatepass") for a in anchors if a and "\n" not in a},
                 key=lambda a: (len(a), a))
    ar = _native_module() if native and raw else None
    if ar is not None:
        # An anchor is dropped exactly when it holds another one (that one, or one it holds,
        # is kept): one automaton pass over each anchor says so, where comparing every pair
        # took a tenth of a second of every log scan.
        try:
            ac = ar.BytesAhoCorasick(raw)
            return [a for i, a in enumerate(raw)
                    if all(j == i for j, _, _ in ac.find_matches_as_indexes(a, overlapping=True))]
        except Exception:  # noqa: BLE001 - a broken native build: the same answer below
            pass
    # An anchor that holds any other one holds a kept one too (what it holds is kept, or holds
    # a kept one): the same test as the automaton's above, with the standard library's trigger
    # lookup (comparing every pair was quadratic, a tenth of a second of a pure scan).
    triggers = PureTriggers(raw)
    return [a for i, a in enumerate(raw) if triggers.present(a) == [i]]


def native_available() -> bool:
    """Whether the native engine can be used here (its package imports)."""
    return _native_module() is not None


def _native_module():
    try:
        import ahocorasick_rs
    except ImportError:
        return None
    if not (hasattr(ahocorasick_rs, "BytesAhoCorasick") and hasattr(ahocorasick_rs, "Implementation")):
        return None  # a release before 0.20: no byte patterns
    return ahocorasick_rs


def engine(requested: Optional[str] = None) -> str:
    """The engine to use: `requested` ("native" or "pure") or, when None, the
    native one if it is installed and TORCHDOCTOR_SCAN_ENGINE is not "pure".
    Asking for "native" where it is not installed raises ImportError."""
    if requested is None:
        if os.environ.get(ENGINE_VAR, "").strip().lower() == "pure":
            return "pure"
        return "native" if native_available() else "pure"
    if requested not in ENGINES:
        raise ValueError("unknown scan engine %r (one of: %s)" % (requested, ", ".join(ENGINES)))
    if requested == "native" and not native_available():
        raise ImportError("the native scan engine needs ahocorasick-rs: pip install 'torchdoctor[fast]'")
    return requested


class NativePrefilter:
    """Finds the lines of a byte buffer that contain at least one anchor, with
    one pass of an Aho-Corasick DFA (ahocorasick-rs, Rust's aho-corasick crate).

    Matches are reported without overlaps, earliest end first. That still
    names every line that holds an anchor: no anchor spans a newline, so after
    a match on an earlier line the search resumes before this line's anchor
    and reports a match that ends no later than it, on this line or (then
    resuming again) before it. The DFA does not depend on the input, so one
    serves every chunk and `budget` never trips.
    """

    def __init__(self, anchors: Iterable[str]):
        ar = _native_module()
        if ar is None:
            raise ImportError("ahocorasick-rs is not installed")
        kept = literals(anchors, native=True)
        self.size = len(kept)
        self._ac = ar.BytesAhoCorasick(kept, implementation=ar.Implementation.DFA) if kept else None

    def line_starts(self, buf: bytes, budget: bool = False) -> List[int]:
        """Sorted offsets of the lines of `buf` that contain an anchor."""
        if self._ac is None:
            return []
        starts: List[int] = []
        line_end = -1  # end of the line of the last start taken
        rfind, find = buf.rfind, buf.find
        for _, s, _ in self._ac.find_matches_as_indexes(buf):
            if s < line_end:
                continue  # another anchor on a line already taken
            starts.append(rfind(b"\n", 0, s) + 1)
            e = find(b"\n", s)
            line_end = e if e >= 0 else len(buf)
        return starts


class NativeMarkers:
    """Whether a chunk holds torch's own markers, and which framework named like torch or
    other framework's markers it holds (kb/data/foreign.json), in one pass of an automaton
    (overlapping matches: a marker that contains another cannot hide it)."""

    def __init__(self, own: Iterable[bytes], namesakes: Iterable[Tuple[bytes, str]],
                 foreign: Iterable[Tuple[bytes, str]]):
        ar = _native_module()
        if ar is None:
            raise ImportError("ahocorasick-rs is not installed")
        own, namesakes, foreign = list(own), list(namesakes), list(foreign)
        self.n_own = len(own)
        # pattern index -> (0 own / 1 namesake / 2 foreign, framework name)
        self.kinds = [(0, "")] * len(own) + [(1, n) for _, n in namesakes] + [(2, n) for _, n in foreign]
        pats = own + [m for m, _ in namesakes] + [m for m, _ in foreign]
        self._ac = ar.BytesAhoCorasick(pats, implementation=ar.Implementation.DFA)

    def search(self, chunk: bytes) -> Tuple[bool, Optional[str], Optional[str]]:
        """(torch's own marker found, the namesake found, the other framework found when
        torch's marker is not); of several, the one whose marker comes first in the list,
        as the standard library's search in that order answers."""
        hits = {i for i, _, _ in self._ac.find_matches_as_indexes(chunk, overlapping=True)}
        own = any(i < self.n_own for i in hits)
        found = [None, None, None]
        for i in sorted(hits):
            kind, name = self.kinds[i]
            if kind and found[kind] is None:
                found[kind] = name
        return own, found[1], None if own else found[2]


class NativeTriggers:
    """Which of the matcher's triggers a line holds, in one pass of an automaton over the
    line (overlapping matches: every trigger present is reported, one that contains another
    hides nothing), instead of one substring search per trigger."""

    def __init__(self, triggers: List[str]):
        ar = _native_module()
        if ar is None:
            raise ImportError("ahocorasick-rs is not installed")
        # A contiguous NFA: 2 ms to build and no memory to speak of; the DFA answers a line in
        # 0.9 us instead of 1.5 us, but costs 15 ms and 8 MB, more than a log's candidate lines gain.
        self._ac = ar.AhoCorasick(triggers, implementation=ar.Implementation.ContiguousNFA)

    def present(self, line: str) -> List[int]:
        """Indexes of the triggers in `line`, in the order they were given."""
        return sorted({i for i, _, _ in self._ac.find_matches_as_indexes(line, overlapping=True)})


class PureTriggers:
    """NativeTriggers' answer with the standard library: each trigger is filed under its
    first three characters, and a line is looked up by the three-character runs it holds,
    so only triggers that can start somewhere in it are searched for. A long line has
    nearly every run: there one substring search per trigger is cheaper."""

    LONG = 512

    def __init__(self, triggers: List[str]):
        self._triggers = triggers
        self._by_head: Dict[str, List[int]] = {}
        self._short = [i for i, t in enumerate(triggers) if len(t) < 3]  # no run of three to file under
        for i, t in enumerate(triggers):
            if len(t) >= 3:
                self._by_head.setdefault(t[:3], []).append(i)

    def present(self, line: str) -> List[int]:
        """Indexes of the triggers in `line`, in the order they were given."""
        triggers = self._triggers
        if len(line) > self.LONG:
            return [i for i, t in enumerate(triggers) if t in line]
        get = self._by_head.get
        found = [i for i in self._short if triggers[i] in line]
        for head in {line[k:k + 3] for k in range(len(line) - 2)}:
            cands = get(head)
            if cands:
                found.extend(i for i in cands if triggers[i] in line)
        found.sort()
        return found


class Prefilter:
    """Finds the lines of a byte buffer that contain at least one anchor,
    with the standard library only.

    grep's trick (one pass of a multi-string automaton) is not available from
    the standard library, and one bytes.find pass per anchor costs hundreds of
    passes. Instead each anchor is covered by one of its bytes that is rare in
    this input: bytes.translate maps all the chosen bytes to NUL in one pass,
    memchr walks the NULs, and a 4-byte gram lookup then a comparison of the
    whole anchor confirm a hit. Anchors made only of common bytes get a
    bytes.find pass of their own. The plan is fitted to a sample of the input
    (byte counts), so a log full of 'K's simply does not use 'K'.

    The result is exact: every line that contains an anchor is returned, and
    only those.
    """

    def __init__(self, anchors: Iterable[str], sample: bytes):
        kept = literals(anchors)
        counts = Counter(sample)
        n = max(len(sample), 1)
        self.passes: List[bytes] = [a for a in kept if len(a) < GRAM]
        todo = {i for i, a in enumerate(kept) if len(a) >= GRAM}
        holders: Dict[int, set] = {}
        for i in todo:
            # Only bytes with a whole gram after them: one dict lookup a visit.
            for b in set(kept[i][:len(kept[i]) - GRAM + 1]):
                holders.setdefault(b, set()).add(i)
        chosen: Dict[int, List[int]] = {}
        self.rate = 0.0
        while todo:
            best, best_cost, best_live = None, None, None
            for b, owners in holders.items():
                live = owners & todo
                if live:
                    cost = (counts.get(b, 0) + 0.5) / n / len(live)
                    if best_cost is None or cost < best_cost:
                        best, best_cost, best_live = b, cost, live
            if best is None or best_cost > PASS_RATE:
                self.passes.extend(kept[i] for i in sorted(todo))
                break
            chosen[best] = sorted(best_live)
            self.rate += (counts.get(best, 0) + 0.5) / n
            todo -= best_live
        table = bytearray(b"\x01" * 256)
        # grams[g]: the anchors whose chosen byte starts the 4-byte gram g.
        grams: Dict[bytes, List[Tuple[int, bytes]]] = {}
        for b, idx in chosen.items():
            table[b] = 0
            for i in idx:
                a = kept[i]
                p = a.find(bytes((b,)))
                grams.setdefault(a[p:p + GRAM], []).append((p, a))
        self.table = bytes(table)
        self.plan = bool(chosen)
        self.grams = grams

    def line_starts(self, buf: bytes, budget: bool = False) -> Optional[List[int]]:
        """Sorted offsets of the lines of `buf` that contain an anchor; None
        when `budget` is set and the rare bytes turn out not to be rare."""
        starts = set()
        find, rfind, startswith = buf.find, buf.rfind, buf.startswith
        if self.plan:
            limit = int(len(buf) * max(4 * self.rate, PASS_RATE)) + 10000 if budget else -1
            marks = buf.translate(self.table)
            mfind = marks.find
            grams = self.grams
            pos = mfind(b"\0")
            while pos >= 0:
                limit -= 1
                if limit == 0:
                    return None
                hit = False
                cands = grams.get(buf[pos:pos + GRAM])
                if cands:
                    for p, a in cands:
                        if pos >= p and startswith(a, pos - p):
                            hit = True
                            break
                if hit:
                    starts.add(rfind(b"\n", 0, pos) + 1)
                    e = find(b"\n", pos)
                    if e < 0:
                        break
                    pos = mfind(b"\0", e)
                else:
                    pos = mfind(b"\0", pos + 1)
        for a in self.passes:
            pos = find(a)
            while pos >= 0:
                starts.add(rfind(b"\n", 0, pos) + 1)
                e = find(b"\n", pos)
                if e < 0:
                    break
                pos = find(a, e)
        return sorted(starts)


class EveryLine:
    """The prefilter when some pattern has no anchor: every line is a candidate."""

    def line_starts(self, buf: bytes, budget: bool = False) -> List[int]:
        out = [0]
        pos = buf.find(b"\n")
        while 0 <= pos < len(buf) - 1:
            out.append(pos + 1)
            pos = buf.find(b"\n", pos + 1)
        return out


def sample(buf: bytes) -> bytes:
    """What the pure Prefilter's plan is fitted to: 4 slices of a big buffer."""
    if len(buf) <= 4 * SAMPLE:
        return buf
    step = (len(buf) - SAMPLE) // 3
    return b"".join(buf[i * step:i * step + SAMPLE] for i in range(4))
