"""Known errors: loaded from kb/errors/*.json, one list of entries per file.

Entry shape (see docs/knowledge-base.md)::

    {"id": "torch-not-compiled-with-cuda",       # stable kebab-case
     "category": "cpu-only-build",               # taxonomy slug
     "title": "...", "cause": "...",
     "patterns": ["Torch not compiled with CUDA enabled"],   # Python regexes, one line each
     "fix": {"summary": "...", "commands": ["..."]},
     "tailor": "cpu-only-build",                 # optional hook, in the area module named like the file
     "priority": 0,                              # optional tie-breaker; negative = generic
     "symptom": false,                           # optional: the message says what, not why
     "notice": false,                            # optional: harmless on its own (a warning, a notice)
     "context": ["torchaudio"],                  # optional: applies only if the input holds one
     "refines": ["windows-dll-procedure-not-found"],  # optional: hides these when it applies
     "printed": ["cpu-build-cuda-unavailable"],  # optional: what a paste printed that it explains
     "frameworks": ["OpenCV"],                   # optional: another framework's output it diagnoses
     "exact": false,                             # optional: never matched without whitespace/underscores
     "links": ["https://..."], "sources": ["https://..."],
     "examples": [{"text": "...", "source": "https://..."}]}

Patterns are matched against one normalised line at a time and must be
linear-time safe; every pattern has a literal *anchor* (its longest required
literal run) so a log scan only runs regexes on lines that contain one. A pattern
that reads a wording every failure of its kind prints (`No module named 'x'` for any
module) ends with the empty group `(?P<generic>)`: a match through it says "possibly". A
pattern whose words another mistake can also print, but specific enough to be read across lost
spaces and joined lines, ends with `(?P<possibly>)` instead: "possibly" too, and the despaced pass
keeps it.
"""

import json
import os
import re
from ..model.records import field, record
from functools import lru_cache
from typing import Any, Dict, List, Optional, Tuple

try:  # Python 3.11+
    import re._parser as _sre_parse  # type: ignore[import-not-found]
    import re._constants as _sre_c  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - 3.9/3.10
    import sre_constants as _sre_c  # type: ignore[no-redef]
    import sre_parse as _sre_parse  # type: ignore[no-redef]


HERE = os.path.dirname(os.path.abspath(__file__))
ERRORS_DIR = os.path.join(HERE, "errors")
# pattern -> anchor, derived from the patterns and written by
# `python -m torchdoctor.kb.errors`: deriving every anchor with sre's parser costs tens of
# ms of the explain start-up, so a shipped build never does it (a test holds the file to
# every pattern). A pattern missing from it (a fresh KB edit) is derived at run time, so a
# stale file only costs time.
ANCHOR_CACHE = os.path.join(HERE, "data", "anchors.json")
REQUIRED = ("id", "category", "title", "patterns", "cause", "fix", "sources", "examples")


# The empty named group that marks a generic pattern (see the module's docstring).
GENERIC_GROUP = "generic"
_GENERIC_MARK = "(?P<%s>)" % GENERIC_GROUP
# The empty named group that marks a specific pattern read only as a possibility.
POSSIBLY_GROUP = "possibly"


@record
class Pattern:
    source: str
    anchor: str  # literal text every match contains ('' when none could be derived)
    _compiled: Optional["re.Pattern[str]"] = None
    _folded: Optional["re.Pattern[str]"] = None

    @property
    def regex(self) -> "re.Pattern[str]":
        if self._compiled is None:
            self._compiled = re.compile(self.source)
        return self._compiled

    @property
    def generic(self) -> bool:
        """A wording every failure of its kind prints (see the module's docstring): read as
        written only, never case-folded or despaced."""
        return _GENERIC_MARK in self.source

    @property
    def regex_folded(self) -> "re.Pattern[str]":
        """The same pattern ignoring case (the lower-case fallback of match_text)."""
        if self._folded is None:
            self._folded = re.compile(self.source, re.IGNORECASE)
        return self._folded


@record(eq=False)
class Entry:
    id: str
    category: str
    title: str
    cause: str
    fix: Dict[str, Any]
    patterns: List[Pattern]
    links: List[str] = field(default_factory=list)
    sources: List[str] = field(default_factory=list)
    examples: List[Dict[str, str]] = field(default_factory=list)
    tailor: Optional[str] = None
    priority: int = 0
    # Literal strings of which the input must hold at least one (anywhere) for this entry
    # to apply: a generic line ("WinError 127") means this entry's cause only beside them.
    context: List[str] = field(default_factory=list)
    # Ids of generic entries this one narrows down: when both match, only this one is shown.
    refines: List[str] = field(default_factory=list)
    # The message says what happened, not why (the GPU is not seen, a worker died, a build
    # failed): a match is said "possibly", whatever its score (matcher.Match.confidence).
    symptom: bool = False
    # Harmless on its own (a deprecation, a fallback notice, a launcher's note): never the
    # diagnosis of a failure the text also shows (matcher.Context.failures).
    notice: bool = False
    # Observations of what a paste printed about torch (match/printed.py) that this entry
    # explains when no line of the paste is a known error.
    printed: List[str] = field(default_factory=list)
    # Other frameworks (kb/data/foreign.json) whose own output this entry diagnoses for a
    # PyTorch user: a text that shows one of them, and nothing of torch, keeps this match
    # (OpenCV's wheel failing to load libGL in a torch project's `import cv2`).
    frameworks: List[str] = field(default_factory=list)
    # Matched only as written: the second pass, which drops whitespace, underscores and colons
    # (match/despaced.py), skips it, because one of those carries its meaning (torch._C's
    # underscore marks a private module; ${WHEEL_URL} names a variable).
    exact: bool = False
    file: str = ""
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)


def literal_anchor(pattern: str) -> str:
    """Longest run of literal characters that every match of `pattern` contains.

    Only the top-level sequence counts: anything inside a group, a branch, a
    class or under a quantifier that allows zero repetitions may be absent.
    """
    try:
        parsed = _sre_parse.parse(pattern)
    except re.error:
        return ""
    best, run = "", []
    LITERAL = _sre_c.LITERAL
    SUBPATTERN = _sre_c.SUBPATTERN
    MAX_REPEAT, MIN_REPEAT = _sre_c.MAX_REPEAT, _sre_c.MIN_REPEAT
    if parsed.state.flags & re.IGNORECASE:
        return ""
    for op, av in parsed:
        if op is LITERAL and av != 10:
            run.append(chr(av))
            continue
        # A newline ends a run: anchors are searched within one line (the log scan, grep -F -f).
        if op in (MAX_REPEAT, MIN_REPEAT) and av[0] >= 1 and len(av[2]) == 1 and av[2][0][0] is LITERAL \
                and av[2][0][1] != 10:
            # 'x+' or 'x{2,}': one x is certain, the rest is not.
            run.append(chr(av[2][0][1]))
        elif op is SUBPATTERN and len(av) >= 4:
            sub = list(av[-1])
            if all(o is LITERAL and a != 10 for o, a in sub):  # a plain capturing group of literals
                run.extend(chr(a) for _, a in sub)
                continue
        best = _longer(run, best)
        run = []
    return _longer(run, best)


def _longer(run: List[str], best: str) -> str:
    """The longer of two literal runs; of two as long, the one of more UTF-8 bytes (a run of
    CJK characters is rarer in a log than one of ASCII letters: 'orch' vs '无法使用')."""
    cand = "".join(run)
    return cand if (len(cand), len(cand.encode("utf-8"))) > (len(best), len(best.encode("utf-8"))) else best


@lru_cache(maxsize=1)
def _anchor_cache() -> Dict[str, str]:
    try:
        with open(ANCHOR_CACHE, encoding="utf-8") as fh:
            data = json.load(fh)
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def _entry(raw: Dict[str, Any], fname: str, anchors: Dict[str, str]) -> Entry:
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise ValueError("%s: entry %r lacks %s" % (fname, raw.get("id"), ", ".join(missing)))
    pats = [Pattern(p, anchors[p] if isinstance(anchors.get(p), str) else literal_anchor(p)) for p in raw["patterns"]]
    return Entry(
        id=raw["id"], category=raw["category"], title=raw["title"], cause=raw["cause"],
        fix=raw["fix"], patterns=pats,
        links=list(raw.get("links", [])), sources=list(raw["sources"]), examples=list(raw["examples"]),
        tailor=raw.get("tailor"), priority=int(raw.get("priority", 0)), context=list(raw.get("context", [])),
        refines=list(raw.get("refines", [])), symptom=bool(raw.get("symptom", False)),
        notice=bool(raw.get("notice", False)), printed=list(raw.get("printed", [])),
        frameworks=list(raw.get("frameworks", [])), exact=bool(raw.get("exact", False)), file=fname, raw=raw,
    )


def _kb_files() -> List[str]:
    return sorted(f for f in os.listdir(ERRORS_DIR) if f.endswith(".json"))


def _raw_file(fname: str):
    with open(os.path.join(ERRORS_DIR, fname), encoding="utf-8") as fh:
        return json.load(fh)


def _raw_entries():
    """(file name, entry as written) for every entry of kb/errors/*.json, in file order."""
    for fname in _kb_files():
        for raw in _raw_file(fname):
            yield fname, raw


@lru_cache(maxsize=None)
def _file_entries(fname: str) -> Tuple[Entry, ...]:
    anchors = _anchor_cache()
    return tuple(_entry(raw, fname, anchors) for raw in _raw_file(fname))


@lru_cache(maxsize=1)
def load_entries() -> Tuple[Entry, ...]:
    entries: List[Entry] = []
    seen = set()
    for fname in _kb_files():
        for e in _file_entries(fname):
            if e.id in seen:
                raise ValueError("duplicate known-error id %r in %s" % (e.id, fname))
            seen.add(e.id)
            entries.append(e)
    # By id, not by file: which file of kb/errors/ an entry sits in is for its readers only,
    # and must not change what `explain --list` shows or how anything ranks.
    return tuple(sorted(entries, key=lambda e: e.id))


# What lets explain load only the files an input can match (loading the whole KB costs more
# of explain's cold start than the match itself): each file's anchors, and which file holds
# each id.
# Written with the anchor cache; a stale or missing one means loading everything.
ENTRY_INDEX = os.path.join(HERE, "data", "entry_index.json")


@lru_cache(maxsize=1)
def entry_index() -> Optional[Dict[str, Any]]:
    try:
        with open(ENTRY_INDEX, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or set(data.get("anchors", ())) != set(_kb_files()):
        return None  # a file added or removed since: the index cannot be trusted
    return data


def derived_entry_index() -> Dict[str, Any]:
    """What entry_index() must hold, derived now."""
    anchors: Dict[str, set] = {}
    ids: Dict[str, str] = {}
    for fname, raw in _raw_entries():
        lits = anchors.setdefault(fname, set())
        lits.update(literal_anchor(p) for p in raw.get("patterns", []))
        ids[raw.get("id")] = fname
    return {"anchors": {f: sorted(a) for f, a in sorted(anchors.items())}, "ids": dict(sorted(ids.items()))}


def files_for(text: str) -> Optional[Tuple[str, ...]]:
    """The files of kb/errors/ with an anchor in `text`, compared lower-cased (which also
    covers case-folded matching): their entries are a superset of what can match in it.
    None: no usable index, so the caller takes every entry. An anchorless pattern (''
    is in every text) keeps its file always."""
    index = entry_index()
    if index is None:
        return None
    low = text.lower()
    return tuple(f for f, lits in index["anchors"].items() if any(a in text or a.lower() in low for a in lits))


def entries_of(files: Tuple[str, ...]) -> Tuple[Entry, ...]:
    """The entries of these files of kb/errors/, in load_entries() order (by id)."""
    return tuple(sorted((e for f in files for e in _file_entries(f)), key=lambda e: e.id))


FOREIGN_FILE = os.path.join(HERE, "data", "foreign.json")


@lru_cache(maxsize=1)
def foreign_frameworks() -> Dict[str, Any]:
    """kb/data/foreign.json: torch's own markers, other frameworks' markers by framework, the
    frameworks named like torch, and who prints each kind of generic message (match/whose.py)."""
    with open(FOREIGN_FILE, encoding="utf-8") as fh:
        return json.load(fh)


def get_entry(entry_id: str) -> Optional[Entry]:
    index = entry_index()
    fname = index["ids"].get(entry_id) if index is not None else None
    if fname is not None:  # one file read, not the whole KB
        for e in _file_entries(fname):
            if e.id == entry_id:
                return e
    elif index is not None:
        return None
    for e in load_entries():
        if e.id == entry_id:
            return e
    return None


def derived_anchors() -> Dict[str, str]:
    """pattern -> anchor for every pattern, derived now (what the cache must hold)."""
    out = {p: literal_anchor(p) for _, raw in _raw_entries() for p in raw.get("patterns", [])}
    return dict(sorted(out.items()))


if __name__ == "__main__":  # python -m torchdoctor.kb.errors: refresh the anchor cache and index
    for path, data in ((ANCHOR_CACHE, derived_anchors()), (ENTRY_INDEX, derived_entry_index())):
        with open(path, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=0, ensure_ascii=False)
            fh.write("\n")
        print("wrote %s" % path)
