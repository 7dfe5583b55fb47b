"""Reading saved reports back: `check --from`, `diff`, `triage` of JSON."""

import json
import os
import re

from .facts import SCHEMA_VERSION, Facts

MAX_REPORT_BYTES = 64 * 1024 * 1024


def _cannot_read(path: str, e: OSError) -> ValueError:
    return ValueError("cannot read %s: %s" % (path, e.strerror or e))


def open_input(path: str, kind: str = "report"):
    """A binary file handle on a user-given path, or ValueError with one line
    that says why not (every verb that reads a file answers the same way)."""
    if not os.path.exists(path):
        raise ValueError("no such file: %s" % path)
    if os.path.isdir(path):
        raise ValueError("%s is a directory, not a %s" % (path, kind))
    try:
        return open(path, "rb")
    except OSError as e:
        raise _cannot_read(path, e)


def read_head(path: str, limit: int, kind: str = "report") -> bytes:
    """Up to `limit` bytes of a user-given file (ValueError with one line on failure)."""
    with open_input(path, kind) as fh:
        try:
            return fh.read(limit)
        except OSError as e:
            raise _cannot_read(path, e)


def read_report_bytes(path: str) -> bytes:
    """The bytes of a report file, or ValueError with a one-line reason."""
    with open_input(path) as fh:
        try:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                raise ValueError("%s is empty" % path)
            if size > MAX_REPORT_BYTES:
                raise ValueError("%s is %d MB; a torchdoctor report is far smaller" % (path, size // 2 ** 20))
            raw = fh.read()
        except OSError as e:
            raise _cannot_read(path, e)
    if b"\x00" in raw[:4096] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise ValueError("%s is a binary file, not a report" % path)
    return raw


def decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8-sig", "replace")


def parse_json_text(text: str, name: str):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("%s nests JSON too deeply to be a torchdoctor report" % name)
    except ValueError as e:
        raise ValueError("%s is not JSON (%s)" % (name, str(e).split(":")[0]))


def load_json_file(path: str):
    return parse_json_text(decode(read_report_bytes(path)), path)


def facts_from_report(data, name: str = "report") -> Facts:
    """A `check --json` / `report --format json` document, or bare facts."""
    if not isinstance(data, dict):
        raise ValueError("%s is not a torchdoctor report (top level is not an object)" % name)
    facts = data.get("facts", data if "probe" in data or "python" in data else None)
    version = data.get("schema_version")
    if facts is None or version is None:
        raise ValueError("%s is not a torchdoctor report (no schema_version/facts)" % name)
    if version != SCHEMA_VERSION:
        raise ValueError("%s has schema_version %r; this torchdoctor reads %d" % (name, version, SCHEMA_VERSION))
    if not isinstance(facts, dict):
        raise ValueError("%s: 'facts' is not an object" % name)
    return Facts.from_dict(facts)


# A Markdown report (render/markdown.py) carries its facts as a JSON block
# after this marker, so a pasted report can be re-diagnosed exactly.
MD_MARKER = re.compile(r"<!--\s{0,20}torchdoctor:facts\b[^>]{0,400}-->")
MD_FENCE = re.compile(r"(`{3,}|~{3,})[ \t]*json[ \t]*\n")


def facts_from_markdown(text: str, name: str = "report") -> Facts:
    """The facts embedded in a Markdown report; ValueError says what is missing."""
    m = MD_MARKER.search(text)
    if not m:
        raise ValueError("%s is not a torchdoctor Markdown report (no torchdoctor:facts block)" % name)
    f = MD_FENCE.search(text, m.end())
    if not f:
        raise ValueError("%s: the facts block of the Markdown report is missing (cut off?)" % name)
    close = text.find("\n" + f.group(1), f.end())
    if close < 0:
        raise ValueError("%s: the facts block of the Markdown report is cut off" % name)
    body = text[f.end():close]
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ValueError("%s: the facts block of the Markdown report is not valid JSON (cut off or edited?)" % name)
    return facts_from_report(data, name)


def looks_like_markdown_report(text: str) -> bool:
    return bool(MD_MARKER.search(text))


def load_report_facts(path: str) -> Facts:
    """A saved report, JSON (`report --format json`, `check --json`) or Markdown."""
    text = decode(read_report_bytes(path))
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return facts_from_report(parse_json_text(text, path), path)
    if looks_like_markdown_report(text):
        return facts_from_markdown(text, path)
    raise ValueError("%s is not a torchdoctor report (neither JSON nor a Markdown report; "
                     "for a collect_env paste use `torchdoctor triage`)" % path)
