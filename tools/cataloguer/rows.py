"""Catalogue rows: their schema, their id, the knowledge-base entry that recognises each, and
the files they are written to."""

import hashlib
import json
import os
from typing import Dict, Iterable, List, Optional

from .classify import CLASSES
from .text import render

KINDS = ("error", "warning")
# field -> the types it may hold
SCHEMA = {
    "id": (str,), "text": (str,), "kind": (str,), "exc": (str,), "where": (str,), "sites": (int,),
    "source": (str,), "class": (str,), "reasons": (list,), "reviewed": (bool,), "entry": (str, type(None)),
}
# Header fields of a catalogue file.
HEADER = ("catalogue", "release", "generated", "inputs", "scope", "notes", "unreachable")


def row_id(package: str, kind: str, text: str) -> str:
    """Stable across releases: the package's name (not its version), the kind and the text.
    The same message in torch 2.13 and 2.14 is one id, so a review decision and the coverage
    ratchet carry over from one release to the next."""
    return hashlib.sha1(("%s\0%s\0%s" % (package, kind, text)).encode("utf-8")).hexdigest()[:16]


def make_rows(package: str, source: str, sites: Iterable[Dict[str, object]]) -> List[Dict[str, object]]:
    """One row per distinct (kind, text): `where` is its first site in path order, `sites`
    how many there are. Sites are dicts with text, kind, exc, where."""
    by_key: Dict[tuple, Dict[str, object]] = {}
    for s in sorted(sites, key=lambda s: (_where_key(str(s["where"])), str(s["text"]))):
        key = (s["kind"], s["text"])
        row = by_key.get(key)
        if row is None:
            by_key[key] = {"id": row_id(package, str(s["kind"]), str(s["text"])), "text": s["text"],
                           "kind": s["kind"], "exc": s.get("exc") or "", "where": s["where"], "sites": 1,
                           "source": source}
        else:
            row["sites"] = int(row["sites"]) + 1  # type: ignore[arg-type]
            if not row["exc"] and s.get("exc"):
                row["exc"] = s["exc"]
    return sorted(by_key.values(), key=lambda r: (_where_key(str(r["where"])), str(r["text"])))


def _where_key(where: str):
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, 0)


def renderings(row: Dict[str, object]) -> List[str]:
    """What the message looks like printed: placeholders filled with a number, then with a
    word, then with a device name (what most device messages fill in), then with a version
    (what most version checks fill in: DeepSpeed's "Installed CUDA version {} does not match the
    version torch was compiled with {}" reads as itself only with versions); each with the
    exception or warning class in front as a traceback ends, then bare (a pattern may start at
    the beginning of the line)."""
    out = []
    for fill in ("1", "x", "CUDA", "12.8"):
        body = render(str(row["text"]), fill)
        exc = str(row.get("exc") or "")
        if exc and exc.isidentifier():
            out.append("%s: %s" % (exc, body))
        out.append(body)
    return list(dict.fromkeys(out))


def recognising_entry(row: Dict[str, object], match_text, index) -> Optional[str]:
    """The id of the knowledge-base entry the matcher ranks first on the first rendering it
    recognises at all; None when it recognises none."""
    for text in renderings(row):
        found = match_text(text, index=index)
        if found:
            return found[0].id
    return None


def validate(row: Dict[str, object]) -> List[str]:
    """What is wrong with a row (empty when nothing)."""
    problems = []
    for field, types in SCHEMA.items():
        if field not in row:
            problems.append("no %s" % field)
        elif not isinstance(row[field], types) or (bool in types) != isinstance(row[field], bool):
            problems.append("%s is %r" % (field, type(row[field]).__name__))
    extra = set(row) - set(SCHEMA)
    if extra:
        problems.append("unknown fields %s" % sorted(extra))
    if problems:
        return problems
    if row["kind"] not in KINDS:
        problems.append("kind %r" % row["kind"])
    if row["class"] not in CLASSES:
        problems.append("class %r" % row["class"])
    if not all(isinstance(r, str) for r in row["reasons"]):  # type: ignore[union-attr]
        problems.append("reasons hold a non-string")
    if not row["text"] or not row["where"] or not row["source"] or int(row["sites"]) < 1:  # type: ignore[arg-type]
        problems.append("empty text, where or source, or no site")
    return problems


def dumps(header: Dict[str, object], rows: List[Dict[str, object]]) -> str:
    """The file's text: the header fields, then one row per line (a regenerated file's diff
    shows the rows that changed)."""
    head = json.dumps({k: header[k] for k in HEADER if k in header}, indent=1, ensure_ascii=False, sort_keys=False)
    body = ",\n".join("  " + json.dumps({k: r[k] for k in SCHEMA}, ensure_ascii=False) for r in rows)
    return head[:-2] + ',\n "rows": [\n' + body + "\n ]\n}\n"


def load(path: str) -> Dict[str, object]:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def write(path: str, header: Dict[str, object], rows: List[Dict[str, object]], date: str) -> bool:
    """Write the file unless it already holds these rows and this header (the generation date
    aside): then it is left as it is, date included, so regenerating changes nothing. True
    when written."""
    if os.path.exists(path):
        old = load(path)
        old_gen = dict(old.get("generated") or {})
        new_gen = dict(header.get("generated") or {})
        old_gen.pop("date", None)
        new_gen.pop("date", None)
        same = old_gen == new_gen and old.get("rows") == json.loads(dumps(header, rows))["rows"] and all(
            old.get(k) == json.loads(json.dumps(header.get(k))) for k in HEADER if k != "generated")
        if same:
            return False
    header = dict(header, generated=dict(header.get("generated") or {}, date=date))
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(dumps(header, rows))
    os.replace(tmp, path)
    return True
