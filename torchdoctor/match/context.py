"""What the whole input holds besides its error lines: entries' context literals, whose
output it is (whose.py), the frameworks whose traceback frames show, and its failure lines.
matcher.Collector feeds it a text at once (match_text) or chunk by chunk (logscan.py), and it
filters and marks the matches at the end (`apply`)."""

import re
from functools import lru_cache
from typing import List, Optional, Tuple

from .confidence import FAILURES_KEPT, POSSIBLE_BELOW, failure_lines, mark_notices
from .whose import by_line, first, frames_in, neutral_layer, own_outside_namesakes


DESPACED_MIN = 8  # see Context.feed_despaced

# pip's conflict listing names every requirement on torch, the ones that agree too: beside `The
# user requested torch==1.12.0`, a line `torchaudio 0.12.0 depends on torch==1.12.0` is not the
# conflict (another line of the listing is), whatever order pip printed them in.
_REQUESTED = re.compile(r"The user requested (?:\(constraint\) )?torch==([\w.+]{1,40})")
_LISTED_PIN = re.compile(r"\bdepends on torch==([\w.+]{1,40})\s*$")


def agrees_with_request(match, requested: set) -> bool:
    """A match read on a listing line whose exact torch pin is the one every request and constraint
    names (pip's `==1.12.0` accepts `1.12.0+cu113`, so local tags are left out); a request or a
    constraint that disagrees keeps the line a conflict."""
    pin = _LISTED_PIN.search(match.anchor_line or "")
    return pin is not None and all(_same_release(v, pin.group(1)) for v in requested)


def _same_release(a: str, b: str) -> bool:
    """1.12.0 and 1.12.0+cu113 name the same release; 1.12.0+cpu and 1.12.0+cu113 do not."""
    base_a, _, local_a = a.partition("+")
    base_b, _, local_b = b.partition("+")
    return base_a == base_b and (not local_a or not local_b or local_a == local_b)


@lru_cache(maxsize=16)
def _despaced_literals(literals: Tuple[str, ...]) -> Tuple[Tuple[str, str], ...]:
    """(literal, despaced) for the literals of DESPACED_MIN characters or more once despaced; once
    per index (an index's literals are a tuple)."""
    from .despaced import despace_text
    pairs = ((lit, despace_text(lit)) for lit in literals)
    return tuple((lit, d) for lit, d in pairs if len(d) >= DESPACED_MIN)


class Context:
    """What the whole input holds besides its error lines: entries' context literals,
    whose output it is (whose.py, kb/data/foreign.json), and its failure lines."""

    def __init__(self, index):
        self.index = index  # matcher.Index: its markers and context literals
        self.failures: set = set()  # failure lines, stripped (at most FAILURES_KEPT)
        self.seen: set = set()  # context literals found
        self.own = False  # torch's own marker found
        self.other: Optional[str] = None  # while not own: the other framework whose output it is
        self.framed: set = set()  # frameworks whose own traceback frames were seen (whose.frames_in)
        self.requested: set = set()  # torch versions pip's conflict listing says the user requested

    @property
    def foreign(self) -> bool:
        return self.other is not None

    def feed(self, text: str) -> None:
        """A whole text, or (log scan) one anchor line of it. pip's "The user requested " is an
        anchor, so a log scan hands its request lines here one by one: no pass of its own."""
        if "The user requested" in text:
            self.requested.update(_REQUESTED.findall(text))
        seen = self.seen
        for ch, lits in self.index.context_buckets:
            if ch in text:
                for lit in lits:
                    if lit not in seen and lit in text:
                        seen.add(lit)

    def feed_despaced(self, flat: str) -> None:
        """A whole text with its whitespace, emphasis marks and colons gone (despaced.py): the
        context literals hold as they would in the paste before it lost them. Only literals of
        DESPACED_MIN characters or more once despaced: a short one ("is not") turns up across
        word boundaries ("this nothing")."""
        seen = self.seen
        for lit, d in _despaced_literals(self.index.context_literals):
            if lit not in seen and d in flat:
                seen.add(lit)

    def _failures(self, found) -> None:
        for f in found:
            if len(self.failures) >= FAILURES_KEPT:
                return
            self.failures.add(f.strip())

    def feed_text(self, text: str) -> None:
        self.feed(text)
        self._failures(failure_lines(text))
        self.framed |= frames_in(text)
        ix = self.index
        own = any(m in text for m in ix.own_markers)
        namesake = first(text, ix.namesake_markers)[0]
        if own and by_line(text, namesake, ix.namesake_lines):
            own = own_outside_namesakes(text, ix.own_markers, ix.namesake_markers, ix.namesake_lines)
        self._verdict(own, namesake, None if own or namesake else first(text, ix.foreign_markers)[0])

    def feed_chunk(self, chunk: bytes) -> None:
        """A chunk of a log: looks for the framework markers until torch is named."""
        if len(self.failures) < FAILURES_KEPT:
            self._failures(failure_lines(chunk))
        if self.own:
            return
        self.framed |= frames_in(chunk)
        ix = self.index
        own, namesake, foreign = ix.markers_in(chunk)
        if own and by_line(chunk, namesake, ix.namesake_lines_bytes):
            own = own_outside_namesakes(chunk, ix.own_markers_bytes, ix.namesake_markers_bytes, ix.namesake_lines_bytes)
        self._verdict(own, namesake, foreign)

    def _verdict(self, own: bool, namesake: Optional[str], foreign: Optional[str]) -> None:
        self.own = self.own or own
        if self.own:
            self.other = None
        elif self.other is None:
            self.other = namesake or foreign

    def apply(self, matches: List) -> List:
        if self.other is not None:  # TensorFlow's, JAX's, R torch's... error, not PyTorch's,
            # unless an entry diagnoses that framework's own output (OpenCV's libGL) and the text
            # shows that framework's own frames, not only its name (a pip line installing it)
            matches = [m for m in matches if self.other in m.entry.frameworks and self.other in self.framed]
        kept = [m for m in matches if not m.entry.context or any(c in self.seen for c in m.entry.context)]
        if self.requested:
            kept = [m for m in kept if not agrees_with_request(m, self.requested)]
        hidden = {r for m in kept for r in m.entry.refines}
        kept = [m for m in kept if m.entry.id not in hidden]
        # Set on every call: a log scan asks again as more of it is read. A known message
        # that is not a generic one (torch's own wording: NNPACK's warning, a DataLoader
        # worker's death) shows as much as torch's name does.
        layers = [None if self.own or self.other else neutral_layer(m.anchor_line, m.anchor) for m in kept]
        shown = any(layer is None and max(m.score, m.evidence) >= POSSIBLE_BELOW for m, layer in zip(kept, layers))
        for m, layer in zip(kept, layers):
            m.neutral = None if shown else layer
        mark_notices(kept, self.failures)
        return kept
