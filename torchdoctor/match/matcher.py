"""Find known errors in text: what fits in memory (a paste, a traceback, a short log).

``match_text`` normalises the lines (normalize.py) and also tries adjacent lines
joined, which recovers messages that a terminal or a forum wrapped in the middle.
Logs of any size go through logscan.py, which shares this line matcher (``Index``)
and the result (``Collector``, ``rank``).

Every pattern's literal anchor is checked before its regex runs, and regexes
compile lazily on the first line that contains their anchor.
"""
import re
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Tuple

from ..model.findings import HIGH, POSSIBLE
from ..model.records import field, record
from ..kb.errors import Entry, Pattern, entries_of, files_for, foreign_frameworks, load_entries
from . import prefilter as _pre
from .normalize import normalize
from .prefilter import EveryLine, NativeMarkers, NativePrefilter, Prefilter

SMALL_INPUT = 1024 * 1024
# match_text on a text up to this size loads only the KB files with an anchor in it (a
# cold start spends more on loading the whole KB than on matching); above it, every file.
SELECT_MAX = 64 * 1024
DIRECT_LINES = 400  # match_text: above this many lines, prefilter first

# Short literals that nearly every known error line contains. An anchor with
# none of them becomes a trigger itself, so coverage never depends on this list.
GENERIC_TRIGGERS = ("rror", "ERROR", "arning", "xception", "ailed", "FAIL", "not ", "No ",
                    "fault", "Killed", "bort", "OMP", "nstruction", "deprecated", "cannot",
                    "Cannot", "nable to", "nvalid", "out of memory", "has no attribute",
                    "mismatch")


@record
class Match:
    entry: Entry
    line: int  # 1-based line of the first occurrence
    text: str  # that line, normalised
    count: int = 1
    score: float = 0.0
    groups: Dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return self.entry.id

    @property
    def evidence(self) -> float:
        """What the text itself supports: the score without the entry's priority
        (anchor length, matched span, less the case-folding penalty)."""
        return self.score - 20 * self.entry.priority

    @property
    def confidence(self) -> str:
        """HIGH: a diagnosis. POSSIBLE: a weak match (a catch-all entry whose
        negative priority outweighs what the text shows, or a short case-folded
        hit): say "possibly", never state it as the cause."""
        return HIGH if self.score >= POSSIBLE_BELOW else POSSIBLE


class Index:
    """All patterns with their anchors, and the triggers that cover them.

    `engine`: the prefilter's engine, "native" or "pure" (see prefilter.py);
    None picks the native one when it is installed. Both find the same lines.
    """

    def __init__(self, entries: Iterable[Entry], engine: Optional[str] = None):
        self.entries = list(entries)
        self._engine = engine
        self._explicit_engine = engine is not None  # asked for by name: no silent fallback
        self._native: Optional[NativePrefilter] = None
        self._markers = None  # NativeMarkers, or False when the native engine failed
        self.pairs: List[Tuple[Entry, Pattern]] = [(e, p) for e in self.entries for p in e.patterns]
        # trigger -> the patterns whose anchor contains it
        self.by_trigger: Dict[str, List[Tuple[Entry, Pattern]]] = {}
        for entry, p in self.pairs:
            t = next((g for g in GENERIC_TRIGGERS if g in p.anchor), None)
            self.by_trigger.setdefault(t if t is not None else p.anchor, []).append((entry, p))
        # Entries' context literals are anchors too, so a log scan sees every line that
        # holds one. Other frameworks' markers are not: the scan looks for them per chunk
        # only until torch's own name turns up, which in a torch log is at once.
        foreign = foreign_frameworks()
        self.foreign_markers = tuple(foreign["markers"])
        self.foreign_markers_bytes = tuple(m.encode() for m in self.foreign_markers)
        self.own_markers = tuple(foreign["own"])
        self.own_markers_bytes = tuple(m.encode() for m in self.own_markers)
        self.context_literals = tuple(sorted({c for e in self.entries for c in e.context}))
        self.anchors = sorted({p.anchor for _, p in self.pairs if p.anchor} | set(self.context_literals))
        self.longest_anchor = max((len(a) for a in self.anchors), default=1)
        # An anchorless pattern (the KB tests forbid them) could match any line.
        self.every_line = any(not p.anchor for _, p in self.pairs)
        self.order = {e.id: i for i, e in enumerate(self.entries)}

    def markers_in(self, chunk: bytes) -> Tuple[bool, bool]:
        """(torch's own marker in `chunk`, another framework's marker in it). With the native
        engine one automaton pass over all ~55 markers; the standard library searches them
        one by one (a log that never names torch paid 18 ms per MB for that)."""
        if self._markers is None and self.engine == "native":
            try:
                self._markers = NativeMarkers(self.own_markers_bytes, self.foreign_markers_bytes)
            except Exception:  # a broken native build: the same answer below, slower
                self._markers = False
        if self._markers:
            return self._markers.search(chunk)
        own = any(m in chunk for m in self.own_markers_bytes)
        return own, not own and any(m in chunk for m in self.foreign_markers_bytes)

    @property
    def engine(self) -> str:
        """The prefilter engine in use: "native" or "pure" (resolved on first use,
        so that an explain that needs no prefilter never imports the native one)."""
        if self._engine not in _pre.ENGINES:
            self._engine = _pre.engine(self._engine)
        return self._engine

    def prefilter(self, buf: bytes):
        """A prefilter for `buf`: the native automaton (one for every buffer), or a
        pure Prefilter fitted to (a sample of) `buf`."""
        if self.every_line:
            return EveryLine()
        if self.engine == "native":
            if self._native is None:
                try:
                    self._native = NativePrefilter(self.anchors)
                except Exception:
                    if self._explicit_engine:
                        raise
                    # The native package imports but does not work (a broken or foreign
                    # build): the standard library gives the same answer, slower.
                    self._engine = "pure"
                    return self.prefilter(buf)
            return self._native
        return Prefilter(self.anchors, _pre.sample(buf))

    def match_line(self, line: str, skip=()) -> List[Tuple[Entry, float, Dict[str, str]]]:
        """Hits on one line, one per entry; entries whose id is in `skip` are
        not tried (the caller would drop them anyway)."""
        best: Dict[str, Tuple[Entry, float, Dict[str, str]]] = {}
        for trig, pairs in self.by_trigger.items():
            if trig not in line:
                continue
            for entry, pat in pairs:
                if pat.anchor and pat.anchor not in line:
                    continue
                if skip and entry.id in skip:
                    continue
                m = pat.regex.search(line)
                if m:
                    _keep_best(best, entry, pat, m)
        return sorted(best.values(), key=lambda h: self.order[h[0].id])

    def match_line_folded(self, line: str) -> List[Tuple[Entry, float, Dict[str, str]]]:
        """Hits ignoring case, for text retyped in lower case (issue titles,
        chat pastes); scored below any exact-case hit."""
        low = line.lower()
        best: Dict[str, Tuple[Entry, float, Dict[str, str]]] = {}
        for entry, pat in self.pairs:
            if not pat.anchor or pat.anchor.lower() not in low:
                continue
            m = pat.regex_folded.search(line)
            if m:
                _keep_best(best, entry, pat, m, penalty=FOLDED_PENALTY)
        return sorted(best.values(), key=lambda h: self.order[h[0].id])


FOLDED_PENALTY = 10.0

# Confidence floor: a weak match must not read as a cause. Chosen from the scores of the
# top match of every text in tests/eval/*.jsonl (about 1,900 labelled texts and 290
# unrelated ones):
# * EVIDENCE_FLOOR: a match whose evidence (Match.evidence) is below it is no
#   diagnosis and is dropped. The weakest correct top match in the eval sets has
#   evidence 5.4 (a 4-character anchor with a Chinese sentence); below 5 there
#   is nothing but a case-folded hit of a short anchor ("a.CUDA() hangs": -1.7),
#   where the anchor no longer says what it said in its own case.
# * POSSIBLE_BELOW: a match scoring below it is kept but marked POSSIBLE. Every
#   wrong top match and every false diagnosis on the unrelated sets scores 15 or
#   more, so the band costs no right answer; what falls in it (score < 10: all
#   negative scores, i.e. catch-all entries such as cuda-not-available or
#   nccl-warn-log found alone, and exact hits of very short anchors) is right
#   in the eval sets but is an observation, not a cause. A negative score is
#   therefore never a HIGH diagnosis; since the ranking is by score, a POSSIBLE
#   match never ranks above a HIGH one.
EVIDENCE_FLOOR = 5.0
POSSIBLE_BELOW = 10.0


def _keep_best(best: Dict[str, Tuple[Entry, float, Dict[str, str]]], entry: Entry, pat: Pattern,
               m: "re.Match[str]", penalty: float = 0.0) -> None:
    """Record a hit of `entry`, keeping its best one. The score: the anchor's length,
    20 per step of priority, and a little for the span the pattern matched."""
    score = len(pat.anchor) + 20 * entry.priority + min(m.end() - m.start(), 200) / 10.0 - penalty
    if entry.id not in best or score > best[entry.id][1]:
        best[entry.id] = (entry, score, {k: v for k, v in m.groupdict().items() if v is not None})


@lru_cache(maxsize=1)
def default_index() -> Index:
    return Index(load_entries())


class Context:
    """What the whole input holds besides its error lines: entries' context literals,
    and whether it is another framework's output (see kb/data/foreign.json)."""

    def __init__(self, index: "Index"):
        self.index = index
        self.seen: set = set()  # context literals found
        self.own = False  # torch's own name found
        self.foreign = False  # a marker of another framework found

    def feed(self, text: str) -> None:
        """A whole text, or (log scan) one anchor line of it."""
        for lit in self.index.context_literals:
            if lit not in self.seen and lit in text:
                self.seen.add(lit)

    def feed_text(self, text: str) -> None:
        self.feed(text)
        self.own = self.own or any(m in text for m in self.index.own_markers)
        if not self.own:
            self.foreign = self.foreign or any(m in text for m in self.index.foreign_markers)

    def feed_chunk(self, chunk: bytes) -> None:
        """A chunk of a log: looks for the framework markers until torch is named."""
        if self.own:
            return
        if self.foreign:  # only torch's own name can change the verdict now
            self.own = any(m in chunk for m in self.index.own_markers_bytes)
            return
        self.own, foreign = self.index.markers_in(chunk)
        self.foreign = foreign and not self.own

    def apply(self, matches: List["Match"]) -> List["Match"]:
        if self.foreign and not self.own:
            return []  # TensorFlow's, JAX's... error that never mentions torch
        kept = [m for m in matches if not m.entry.context or any(c in self.seen for c in m.entry.context)]
        hidden = {r for m in kept for r in m.entry.refines}
        return [m for m in kept if m.entry.id not in hidden]


class Collector:
    def __init__(self, index: "Index"):
        self.found: Dict[str, Match] = {}
        self.context = Context(index)

    def add(self, line_no: int, text: str, hits) -> None:
        for entry, score, groups in hits:
            m = self.found.get(entry.id)
            if m is None:
                self.found[entry.id] = Match(entry, line_no, text[:2000], 1, score, groups)
            else:
                m.count += 1
                if score > m.score:
                    m.score = score
                # A multi-line message may name its details on a later line
                # (the GLOBAL in a weights-only failure): keep what we learn.
                for k, v in groups.items():
                    m.groups.setdefault(k, v)

    def results(self) -> List[Match]:
        # Below the floor a match is no diagnosis; dropped before the refines
        # are applied, so it hides no broader entry either.
        kept = [m for m in self.found.values() if m.evidence >= EVIDENCE_FLOOR]
        return rank(self.context.apply(kept))


def rank(matches: List[Match]) -> List[Match]:
    return sorted(matches, key=lambda m: (-m.score, m.line, m.id))


@lru_cache(maxsize=16)
def _selected_index(files: Tuple[str, ...]) -> Index:
    return Index(entries_of(files))


def joins(lines: List[str], i: int) -> Tuple[str, ...]:
    """Line i and line i+1 joined as a wrapped message may have been split: with a space
    and without; none when either is blank. The one definition match_text tries and the
    KB-file selection looks at, so the two cannot drift apart."""
    a, b = lines[i].rstrip(), lines[i + 1].strip()
    return (a + " " + b, a + b) if a and b else ()


def _index_for(lines: List[str]) -> Index:
    """An Index of the entries that can match these lines: those of the KB files with an
    anchor in a line or in a joined neighbour pair (what match_text tries). The result is
    the same as with every entry; only what is loaded differs."""
    if sum(len(ln) + 1 for ln in lines) > SELECT_MAX:
        return default_index()
    joined = [j for i in range(len(lines) - 1) for j in joins(lines, i)]
    files = files_for("\n".join(lines + joined))
    return default_index() if files is None else _selected_index(files)


def match_text(text: str, index: Optional[Index] = None) -> List[Match]:
    """Matches in an in-memory text, best first."""
    if "\\n" in text and text.count("\n") < 3:
        # One logged string holding a whole traceback ("...\\nRuntimeError: ...").
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    lines = [normalize(ln) for ln in text.splitlines()]
    index = index or _index_for(lines)
    col = Collector(index)
    col.context.feed_text("\n".join(lines))
    if len(lines) <= DIRECT_LINES or index.every_line:
        singles: Iterable[int] = range(len(lines))
        pairs: Iterable[int] = range(len(lines) - 1)
    else:
        singles, pairs = _text_candidates(lines, index)
    for i in singles:
        hits = index.match_line(lines[i])
        if hits:
            col.add(i + 1, lines[i], hits)
    # Wrapped messages: try each pair of neighbours joined, for entries that
    # neither line found on its own.
    for i in pairs:
        for joined in joins(lines, i):
            hits = index.match_line(joined, skip=col.found)
            if hits:
                col.add(i + 1, joined, hits)
    if not col.found and len(lines) <= DIRECT_LINES:
        # Nothing in the original case: the message may have been retyped.
        for i, line in enumerate(lines):
            hits = index.match_line_folded(line)
            if hits:
                col.add(i + 1, line, hits)
    return col.results()


def _text_candidates(lines: List[str], index: Index) -> Tuple[List[int], List[int]]:
    """The lines, and the neighbour pairs, that contain an anchor: only those
    can match, so match_text skips the rest without changing its result.

    A joined pair contains an anchor when one of its lines does or when one
    spans the join; the latter is found by running the prefilter over a short
    window around every join.
    """
    blob = "\n".join(lines).encode("utf-8", "surrogatepass")
    pre = index.prefilter(blob)
    singles = line_numbers(blob, pre.line_starts(blob))
    cand = set(singles)
    w = max(1, index.longest_anchor - 1)
    windows: List[str] = []
    owners: List[int] = []
    for i in range(len(lines) - 1):
        a, b = lines[i].rstrip(), lines[i + 1].strip()
        if a and b:
            windows.append(a[-w:] + " " + b[:w])
            windows.append(a[-w:] + b[:w])
            owners.extend((i, i))
    wblob = "\n".join(windows).encode("utf-8", "surrogatepass")
    spans = {owners[k] for k in line_numbers(wblob, pre.line_starts(wblob))}
    pairs = sorted(i for i in range(len(lines) - 1) if i in cand or (i + 1) in cand or i in spans)
    return singles, pairs


def line_numbers(buf: bytes, starts: List[int]) -> List[int]:
    out, pos, n = [], 0, 0
    for s in starts:
        n += buf.count(b"\n", pos, s)
        pos = s
        out.append(n)
    return out


def best_match(text: str) -> Optional[Match]:
    """The best known error in `text`, or None (also for no text at all): the one function
    that rules use to name a known error in the text they report on (a check's probe output,
    a rank's error, a tune child's stderr), so they and `explain` never disagree."""
    if not text or not text.strip():
        return None
    found = match_text(text)
    return found[0] if found else None
