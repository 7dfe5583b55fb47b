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
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ..model.findings import HIGH, POSSIBLE
from ..model.records import field, record
from ..kb.errors import GENERIC_GROUP, POSSIBLY_GROUP, Entry, Pattern, entries_of, files_for, load_entries
from . import prefilter as _pre
from .normalize import normalize, unmarkup
from .candidates import partner, text_candidates
from .prefilter import EveryLine, NativeMarkers, NativePrefilter, NativeTriggers, Prefilter, PureTriggers
from .whose import Layer, first, markers
from .confidence import EVIDENCE_FLOOR, POSSIBLE_BELOW
from .context import Context

SMALL_INPUT = 1024 * 1024
# match_text on a text up to this size loads only the KB files with an anchor in it (a
# cold start spends more on loading the whole KB than on matching); above it, every file.
# The whitespace-insensitive pass (despaced.py) runs on pastes up to this size too.
SELECT_MAX = 64 * 1024
DIRECT_LINES = 400  # match_text: above this many lines, prefilter first
# A text this short may have been retyped in lower case (an issue title, a chat paste): the
# case-folded pass reads it when nothing else matched. Its own number, not DIRECT_LINES: which
# path finds the lines must not change what a short text is.
FOLDED_LINES = 400

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
    # Set when the text shows no torch marker and the matched line is a generic message
    # (whose.py): who prints it, and its cause for any program.
    neutral: Optional[Layer] = None
    anchor: str = ""  # the anchor of the pattern that scored best ...
    anchor_line: str = ""  # ... and the line it hit
    # A notice entry's match in a text that also shows a failure on another line.
    beside_failure: bool = False
    # A match on what the paste printed (printed.py) beside a failure no other match explains.
    observed_beside_failure: bool = False

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
        """HIGH: a diagnosis. POSSIBLE: say "possibly", never state it as the cause. A match
        is POSSIBLE when its entry names a symptom (the GPU is not seen, a worker died, a
        build failed: what happened, not why), when the text holds nothing of torch's and
        the matched line is a message every program prints (`neutral`), or when the text
        shows too little (a short or case-folded hit). A negative priority ranks a generic
        entry below a specific one; it does not make an exact hit less sure."""
        if (self.neutral is not None or self.entry.symptom or self.beside_failure or self.observed_beside_failure
                or GENERIC_GROUP in self.groups  # a generic pattern's hit: its entry is one cause of several
                or POSSIBLY_GROUP in self.groups):  # a specific pattern another mistake can also print
            return POSSIBLE
        return HIGH if max(self.score, self.evidence) >= POSSIBLE_BELOW else POSSIBLE


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
        mk = markers()
        self.own_markers = mk.own
        self.own_markers_bytes = tuple(m.encode() for m in mk.own)
        self.foreign_markers = mk.foreign  # (marker, framework)
        self.foreign_markers_bytes = tuple((m.encode(), n) for m, n in mk.foreign)
        self.namesake_markers = mk.namesakes
        self.namesake_markers_bytes = tuple((m.encode(), n) for m, n in mk.namesakes)
        self.namesake_lines = mk.lines
        self.namesake_lines_bytes = tuple(m.encode() for m in mk.lines)
        self.context_literals = tuple(sorted({c for e in self.entries for c in e.context}))
        self.context_buckets = rare_char_buckets(self.context_literals)
        self.anchors = sorted({p.anchor for _, p in self.pairs if p.anchor} | set(self.context_literals))
        self.longest_anchor = max((len(a) for a in self.anchors), default=1)
        # An anchorless pattern (the KB tests forbid them) could match any line.
        self.every_line = any(not p.anchor for _, p in self.pairs)
        self.order = {e.id: i for i, e in enumerate(self.entries)}
        self._trigger_groups = list(self.by_trigger.values())
        self._triggers = None  # Native/PureTriggers once a log scan has asked for enough lines
        self._lines_matched = 0
        self._despaced = None  # despaced.DespacedIndex, built when a paste first needs it

    def markers_in(self, chunk: bytes) -> Tuple[bool, Optional[str], Optional[str]]:
        """(torch's own marker in `chunk`, the framework named like torch whose marker is in
        it, the other framework whose marker is in it when torch's is not). With the native
        engine one automaton pass over all ~130 markers; the standard library searches them
        one by one (a log that never names torch paid 18 ms per MB for that)."""
        if self._markers is None and self.engine == "native":
            try:
                self._markers = NativeMarkers(self.own_markers_bytes, self.namesake_markers_bytes,
                                              self.foreign_markers_bytes)
            except Exception:  # a broken native build: the same answer below, slower
                self._markers = False
        if self._markers:
            return self._markers.search(chunk)
        own = any(m in chunk for m in self.own_markers_bytes)
        namesake = first(chunk, self.namesake_markers_bytes)[0]
        return own, namesake, None if own else first(chunk, self.foreign_markers_bytes)[0]

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

    def match_line(self, line: str, skip=()) -> List["Hit"]:
        """Hits on one line, one per entry; entries whose id is in `skip` are
        not tried (the caller would drop them anyway)."""
        best: Dict[str, Hit] = {}
        for pairs in self._groups_in(line):
            for entry, pat in pairs:
                if pat.anchor and pat.anchor not in line:
                    continue
                if skip and entry.id in skip:
                    continue
                m = pat.regex.search(line)
                if m:
                    _keep_best(best, entry, pat, m)
        return sorted(best.values(), key=lambda h: self.order[h[0].id])

    def _groups_in(self, line: str):
        """The patterns of the triggers `line` holds, in trigger order. A paste has a few
        lines: one substring search per trigger (~500) is cheapest. A log scan asks for
        thousands: there one automaton pass over the line finds the same triggers at a
        fraction of the cost (with the native engine), or a lookup of the line's
        three-character runs narrows them to the few that can start in it."""
        if self._triggers is None:
            self._lines_matched += 1
            if self._lines_matched > TRIGGER_AUTOMATON_AFTER:
                triggers = None
                if self.engine == "native":
                    try:
                        triggers = NativeTriggers(list(self.by_trigger))
                    except Exception:  # a broken native build: the standard library's, slower
                        pass
                self._triggers = triggers or PureTriggers(list(self.by_trigger))
        if self._triggers:
            groups = self._trigger_groups
            return [groups[i] for i in self._triggers.present(line)]
        return [pairs for trig, pairs in self.by_trigger.items() if trig in line]

    def match_line_folded(self, line: str) -> List["Hit"]:
        """Hits ignoring case, for text retyped in lower case (issue titles,
        chat pastes); scored below any exact-case hit."""
        low = line.lower()
        best: Dict[str, Hit] = {}
        for entry, pat in self.pairs:
            if not pat.anchor or pat.generic or pat.anchor.lower() not in low:
                continue
            m = pat.regex_folded.search(line)
            if m:
                _keep_best(best, entry, pat, m, penalty=FOLDED_PENALTY)
        return sorted(best.values(), key=lambda h: self.order[h[0].id])


FOLDED_PENALTY = 10.0
# Lines matched one substring search per trigger before a native automaton is built for
# the rest: building it costs about as much as this many lines.
TRIGGER_AUTOMATON_AFTER = 64


# One line's hit of an entry: (entry, score, named groups, the anchor of the pattern).
Hit = Tuple[Entry, float, Dict[str, str], str]


def _keep_best(best: Dict[str, Hit], entry: Entry, pat: Pattern, m: "re.Match[str]", penalty: float = 0.0,
               anchor: Optional[str] = None) -> None:
    """Record a hit of `entry`, keeping its best one. The score: the anchor's length,
    20 per step of priority, and a little for the span the pattern matched."""
    anchor = pat.anchor if anchor is None else anchor
    score = len(anchor) + 20 * entry.priority + min(m.end() - m.start(), 200) / 10.0 - penalty
    if entry.id not in best or score > best[entry.id][1]:
        best[entry.id] = (entry, score, {k: v for k, v in m.groupdict().items() if v is not None}, pat.anchor)


# Characters from the most to the least frequent in logs and prose; any other one is rarer still.
_COMMON_CHARS = " etaoinsrlhdcupmgfybwvk.-_/,:()'\"=0123456789xjqzTSEARCINOLPDMUFBGHWVKYJXQZ"
_RANK = {c: i for i, c in enumerate(_COMMON_CHARS)}


def rare_char_buckets(literals: Sequence[str]) -> Tuple[Tuple[str, Tuple[str, ...]], ...]:
    """The literals grouped by their rarest character: a line that lacks that character cannot
    hold them, and one `in` test of a character skips the whole group (the context literals are
    tested against every anchor line of a log, and there are 150 of them)."""
    groups: Dict[str, List[str]] = {}
    for lit in literals:
        if lit:
            groups.setdefault(max(lit, key=lambda c: _RANK.get(c, len(_RANK))), []).append(lit)
    return tuple((c, tuple(g)) for c, g in sorted(groups.items()))


@lru_cache(maxsize=1)
def default_index() -> Index:
    return Index(load_entries())


# A traceback quotes the source line that raised: `raise AssertionError("Torch not compiled
# with CUDA enabled")`, or the import that failed (`import torchvision.transforms.functional_tensor`),
# holds the message's words, but it is code, not the error. It is the line quoted only until the
# message itself comes (a paste cut before its error keeps it), and is never counted as an
# occurrence of the error.
SOURCE_RAISE = re.compile(r"^\s*(?:raise\s+[A-Za-z_][\w.]*\s*\(|import\s+[A-Za-z_][\w.]*|from\s+[A-Za-z_][\w.]*\s+import\s)")
# IPython's traceback lists the source around the failing line with line numbers: a comment
# there (`    328   # autoray.py:84: UserWarning: torch.symeig is deprecated`) is the
# author's note about some other run, never this run's output.
SOURCE_COMMENT = re.compile(r"^\s{0,12}(?:-{1,8}>\s{0,4})?\d{1,6}\s{1,20}#")


_MARKS = (GENERIC_GROUP, POSSIBLY_GROUP)  # groups that say "possibly" and nothing else


def _marked(groups) -> bool:
    """Whether a hit's (or a match's) groups carry a mark: it was read only as a possibility."""
    return any(mark in groups for mark in _MARKS)


class Collector:
    def __init__(self, index: "Index"):
        self.found: Dict[str, Match] = {}
        self.context = Context(index)
        self.quoted_source: set = set()  # ids found so far only on a traceback's source lines

    def add(self, line_no: int, text: str, hits) -> None:
        source = SOURCE_RAISE.match(text) is not None
        for entry, score, groups, anchor in hits:
            m = self.found.get(entry.id)
            # a plain hit that settles a marked one (the KeyError's os.environ frame joined to it) is
            # the same occurrence, not another: only a joined pair holding the marked line, which starts
            # on that line or on the one or two before it (a caret line between); a plain hit on another
            # line is another occurrence, even when its text holds the marked line's (a message's older,
            # shorter wording)
            settles = (m is not None and _marked(m.groups) and not _marked(groups)
                       and 0 <= m.line - line_no <= 2 and bool(m.text.strip()) and m.text.strip() in text)
            if m is None:
                self.found[entry.id] = Match(entry, line_no, text[:2000], 1, score, groups, anchor=anchor,
                                             anchor_line=text[:2000])
                if source:
                    self.quoted_source.add(entry.id)
                continue
            if source:
                pass
            elif entry.id in self.quoted_source:  # the message after its source line: quote the message
                self.quoted_source.discard(entry.id)
                m.line, m.text = line_no, text[:2000]
                m.anchor, m.anchor_line = anchor, text[:2000]
            elif not settles:
                m.count += 1
            if score > m.score:
                m.score, m.anchor, m.anchor_line = score, anchor, text[:2000]
            # A multi-line message may name its details on a later line
            # (the GLOBAL in a weights-only failure): keep what we learn. A generic or
            # possibly pattern's mark stays only while no plain pattern of the entry has hit:
            # the plain hit (DefaultCPUAllocator's message, bitsandbytes' Setup Failed) is the
            # diagnosis, the marked one (a bare Errno 12, a warning before it) adds nothing to doubt it.
            for k, v in groups.items():
                if k not in _MARKS:
                    m.groups.setdefault(k, v)
            for mark in _MARKS:
                if mark not in groups:
                    m.groups.pop(mark, None)

    def certain(self):
        """The ids found by a plain pattern: a joined pair need not try them again, while an
        entry found only through a generic or possibly mark may still hit plainly across the
        join (a KeyError whose os.environ frame sits on the line above); its marked hits there
        are dropped by the caller, and a plain one settles the match without counting again."""
        return {k for k, m in self.found.items() if not _marked(m.groups)}

    def results(self) -> List[Match]:
        # Below the floor a match is no diagnosis; dropped before the refines
        # are applied, so it hides no broader entry either.
        kept = [m for m in self.found.values() if m.evidence >= EVIDENCE_FLOOR]
        return rank(self.context.apply(kept))


def rank(matches: List[Match]) -> List[Match]:
    """Diagnoses before possibilities, causes before notices, then by score."""
    return sorted(matches, key=lambda m: (m.confidence != HIGH, m.entry.notice, -m.score, m.line, m.id))


@lru_cache(maxsize=16)
def _selected_index(files: Tuple[str, ...]) -> Index:
    return Index(entries_of(files))


def joins(lines: List[str], i: int) -> Tuple[str, ...]:
    """Line i and its partner (the next line, past a line of carets) joined as a wrapped
    message may have been split: with a space and without; none when either is blank. The
    one definition match_text tries and the KB-file selection looks at, so the two cannot
    drift apart."""
    a, b = lines[i].rstrip(), lines[partner(lines, i)].strip()
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


def match_text(text: str, index: Optional[Index] = None, observe: bool = True) -> List[Match]:
    """Matches in an in-memory text, best first. `observe`: also read what the text printed
    about torch (printed.py) when no line is a diagnosis."""
    if "\\n" in text and text.count("\n") < 3:
        # One logged string holding a whole traceback ("...\\nRuntimeError: ...").
        text = text.replace("\\r\\n", "\n").replace("\\n", "\n")
    text = unmarkup(text)
    lines = [normalize(ln) for ln in text.splitlines()]
    index = index or _index_for(lines)
    col = Collector(index)
    col.context.feed_text("\n".join(lines))
    if len(lines) <= DIRECT_LINES or index.every_line:
        singles: Iterable[int] = range(len(lines))
        pairs: Iterable[int] = range(len(lines) - 1)
    else:
        singles, pairs = text_candidates(lines, index)
    # Quoted source comments still say whose code this is (the context above), but hold no output.
    quoted = ["" if SOURCE_COMMENT.match(ln) else ln for ln in lines]
    for i in singles:
        hits = index.match_line(quoted[i])
        if hits:
            col.add(i + 1, lines[i], hits)
    # Wrapped messages: try each pair of neighbours joined, for entries that
    # neither line found on its own.
    for i in pairs:
        if not quoted[i] or not quoted[partner(lines, i)]:
            continue
        for joined in joins(lines, i):
            hits = [h for h in index.match_line(joined, skip=col.certain())
                    if h[0].id not in col.found or not _marked(h[2])]
            if hits:
                col.add(i + 1, joined, hits)
    later_passes(col, quoted, index, folded=len(lines) <= FOLDED_LINES)
    results = col.results()
    if not observe or any(m.confidence == HIGH for m in results):
        return results
    from .printed import printed_pass  # a paste with no diagnosis: what it printed about torch
    printed_pass(col, lines)
    return col.results()


def later_passes(col: "Collector", lines: List[str], index: Index, folded: bool = True) -> None:
    """The passes for a text the exact ones missed, or one cut at a fixed width: the retyped
    case (folded, for short texts), then lost spaces and odd wraps (despaced)."""
    if folded and not col.found:
        # Nothing in the original case: the message may have been retyped.
        for i, line in enumerate(lines):
            hits = index.match_line_folded(line)
            if hits:
                col.add(i + 1, line, hits)
    if sum(map(len, lines)) <= SELECT_MAX and (_hard_wrapped(lines) or
                                                not any(m.confidence == HIGH for m in col.results())):
        # No diagnosis yet, or the paste was cut into lines of one width: it may have lost
        # its spaces or been wrapped at odd places.
        from .despaced import despace_text, despaced_pass
        flat = despace_text("".join(lines))
        dindex = _despaced_index_for(flat)
        col.context.index = dindex.index  # the context literals of the entries it may add
        col.context.feed("\n".join(lines))
        col.context.feed_despaced(flat)
        despaced_pass(lines, dindex, _keep_best, col.add, col.found)


WRAP_WIDTH = 24  # a terminal or a dialog cuts lines at one width, and never this short


def _hard_wrapped(lines: List[str]) -> bool:
    """Two neighbouring lines of one length (WRAP_WIDTH or more) that differ: a text cut at
    a fixed width, whose messages the single lines and pairs may not hold whole."""
    return any(len(a) == len(b) >= WRAP_WIDTH and a != b for a, b in zip(lines, lines[1:]))


def _despaced_index_for(flat: str):
    """The despaced patterns of the KB files whose despaced anchors are in `flat`, the text despaced."""
    from .despaced import DespacedIndex, anchors_by_file
    by_file = anchors_by_file()
    if by_file is None:
        index = default_index()
    else:
        files = tuple(f for f, lits in by_file.items() if any(a in flat for a in lits))
        index = _selected_index(files)
    if index._despaced is None:
        index._despaced = DespacedIndex(index, GENERIC_TRIGGERS)
    return index._despaced


def best_match(text: str) -> Optional[Match]:
    """The best known error in `text`, or None (also for no text at all): the one function
    that rules use to name a known error in the text they report on (a check's probe output,
    a rank's error, a tune child's stderr), so they and `explain` never disagree on an error.
    What a text printed about torch is no error of it: those rules read the facts themselves."""
    if not text or not text.strip():
        return None
    found = match_text(text, observe=False)
    return found[0] if found else None
