"""Find known errors in text: a pasted message, a traceback or a multi-GB log.

Two paths share one line matcher:

* ``match_text`` for what fits in memory (a paste): lines are normalised and
  adjacent lines are also tried joined, which recovers messages that a
  terminal or a forum wrapped in the middle.
* ``scan_stream`` for logs: binary chunks, constant memory. Only lines that
  contain a *trigger* (a short literal found with bytes.find, which runs at
  memchr speed) are decoded and matched, so the cost is a few passes of
  bytes.find over the data plus real work on the rare error lines.

Every pattern's literal anchor is checked before its regex runs, and regexes
compile lazily on the first line that contains their anchor.
"""

import codecs
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import IO, Dict, Iterable, List, Optional, Tuple

from ..kb.errors import Entry, Pattern, load_entries

CHUNK = 8 * 1024 * 1024
MAX_LINE = 64 * 1024  # longer lines are matched on their first and last 32 KiB
SMALL_INPUT = 1024 * 1024

# Short literals that nearly every known error line contains. An anchor with
# none of them becomes a trigger itself, so coverage never depends on this list.
GENERIC_TRIGGERS = ("rror", "ERROR", "arning", "xception", "ailed", "FAIL", "not ", "No ",
                    "fault", "Killed", "bort", "OMP", "nstruction", "deprecated", "cannot",
                    "Cannot", "nable to", "nvalid", "out of memory", "has no attribute",
                    "mismatch")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
_PROMPT = re.compile(r"^(?:>>> |\.\.\. |\$ |# |In \[\d+\]: |PS [^>\n]{0,200}> )")


def normalize(line: str) -> str:
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    line = line.rstrip("\r\n").replace("\r", "")
    if len(line) > MAX_LINE:
        line = line[: MAX_LINE // 2] + " ... " + line[-MAX_LINE // 2:]
    return _PROMPT.sub("", line, count=1)


@dataclass
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


class Index:
    """All patterns with their anchors, and the triggers that cover them."""

    def __init__(self, entries: Iterable[Entry]):
        self.entries = list(entries)
        self.pairs: List[Tuple[Entry, Pattern]] = [(e, p) for e in self.entries for p in e.patterns]
        # trigger -> the patterns whose anchor contains it
        self.by_trigger: Dict[str, List[Tuple[Entry, Pattern]]] = {}
        for entry, p in self.pairs:
            t = next((g for g in GENERIC_TRIGGERS if g in p.anchor), None)
            self.by_trigger.setdefault(t if t is not None else p.anchor, []).append((entry, p))
        # An anchorless pattern (the KB tests forbid them) runs on every candidate line.
        self.triggers = sorted(t.encode("utf-8") for t in self.by_trigger if t)
        self.order = {e.id: i for i, e in enumerate(self.entries)}

    def match_line(self, line: str) -> List[Tuple[Entry, float, Dict[str, str]]]:
        best: Dict[str, Tuple[Entry, float, Dict[str, str]]] = {}
        for trig, pairs in self.by_trigger.items():
            if trig not in line:
                continue
            for entry, pat in pairs:
                if pat.anchor and pat.anchor not in line:
                    continue
                m = pat.regex.search(line)
                if not m:
                    continue
                score = len(pat.anchor) + 20 * entry.priority + min(m.end() - m.start(), 200) / 10.0
                if entry.id not in best or score > best[entry.id][1]:
                    groups = {k: v for k, v in m.groupdict().items() if v is not None}
                    best[entry.id] = (entry, score, groups)
        return sorted(best.values(), key=lambda h: self.order[h[0].id])


@lru_cache(maxsize=1)
def default_index() -> Index:
    return Index(load_entries())


class Collector:
    def __init__(self):
        self.found: Dict[str, Match] = {}

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
        return rank(list(self.found.values()))


def rank(matches: List[Match]) -> List[Match]:
    return sorted(matches, key=lambda m: (-m.score, m.line, m.id))


def match_text(text: str, index: Optional[Index] = None) -> List[Match]:
    """Matches in an in-memory text, best first."""
    index = index or default_index()
    col = Collector()
    lines = [normalize(ln) for ln in text.splitlines()]
    matched_lines = set()
    for i, line in enumerate(lines):
        hits = index.match_line(line)
        if hits:
            matched_lines.add(i)
            col.add(i + 1, line, hits)
    # Wrapped messages: try each pair of neighbours joined, for entries that
    # neither line found on its own.
    for i in range(len(lines) - 1):
        a, b = lines[i].rstrip(), lines[i + 1].strip()
        if not a or not b:
            continue
        for joined in (a + " " + b, a + b):
            hits = [h for h in index.match_line(joined) if h[0].id not in col.found]
            if hits:
                col.add(i + 1, joined, hits)
    return col.results()


def best_match(text: str) -> Optional[Match]:
    found = match_text(text)
    return found[0] if found else None


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8", "replace")


def scan_stream(fh: IO[bytes], index: Optional[Index] = None, chunk_size: int = CHUNK) -> List[Match]:
    """Matches in a binary stream of any size, in constant memory."""
    index = index or default_index()
    col = Collector()
    triggers = index.triggers
    line_base = 0  # lines before the current chunk
    carry = b""
    first = True
    while True:
        data = fh.read(chunk_size)
        if first:
            first = False
            if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
                # PowerShell's `>` writes UTF-16: re-read the rest as text.
                return _scan_utf16(data, fh, index)
            if data[:3] == codecs.BOM_UTF8:
                data = data[3:]
        if not data:
            break
        buf = carry + data
        cut = buf.rfind(b"\n")
        if cut < 0:
            if len(buf) < 4 * MAX_LINE:
                carry = buf
                continue
            cut = len(buf) - 1  # one enormous line: match what we have
        chunk, carry = buf[: cut + 1], buf[cut + 1:]
        line_base = _scan_chunk(chunk, line_base, triggers, index, col)
    if carry:
        _scan_chunk(carry + b"\n", line_base, triggers, index, col)
    return col.results()


def _scan_chunk(chunk: bytes, line_base: int, triggers, index: Index, col: Collector) -> int:
    starts = set()
    find, rfind = chunk.find, chunk.rfind
    for t in triggers:
        pos = find(t)
        while pos >= 0:
            s = rfind(b"\n", 0, pos) + 1
            starts.add(s)
            e = find(b"\n", pos)
            pos = find(t, e) if e >= 0 else -1
    last_pos, last_line = 0, line_base
    for s in sorted(starts):
        last_line += chunk.count(b"\n", last_pos, s)
        last_pos = s
        e = chunk.find(b"\n", s)
        line = normalize(_decode(chunk[s:e if e >= 0 else len(chunk)]))
        hits = index.match_line(line)
        if hits:
            col.add(last_line + 1, line, hits)
    return line_base + chunk.count(b"\n")


def _scan_utf16(head: bytes, fh: IO[bytes], index: Index) -> List[Match]:
    dec = codecs.getincrementaldecoder("utf-16")("replace")
    col = Collector()
    line_no = 0
    pending = ""
    data = head
    while data:
        pending += dec.decode(data)
        lines = pending.split("\n")
        pending = lines.pop()
        for ln in lines:
            line_no += 1
            line = normalize(ln)
            hits = index.match_line(line)
            if hits:
                col.add(line_no, line, hits)
        data = fh.read(CHUNK)
    pending += dec.decode(b"", final=True)
    if pending:
        hits = index.match_line(normalize(pending))
        if hits:
            col.add(line_no + 1, normalize(pending), hits)
    return col.results()
