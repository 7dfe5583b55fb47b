"""Facts from a saved report: a `check --json` / `report --format json` document (or bare
facts), or a Markdown report (`report`'s default), whose facts travel in a JSON block after a
marker so a pasted report can be re-diagnosed exactly. `check --from`, `triage` and `diff`
gather their facts here; reading the file itself is userfiles.py's."""

import json
import re

from ..model.facts import SCHEMA_VERSION, Facts
from ..userfiles import decode, display_name, parse_json_text, read_report_bytes


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


# The marker a Markdown report (render/markdown.py FACTS_MARKER) puts before its facts block.
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
    """A saved report, JSON (`report --format json`, `check --json`) or Markdown; '-' is
    standard input."""
    text = decode(read_report_bytes(path))
    name = display_name(path)
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return facts_from_report(parse_json_text(text, name), name)
    if looks_like_markdown_report(text):
        return facts_from_markdown(text, name)
    raise ValueError("%s is not a torchdoctor report (neither JSON nor a Markdown report; "
                     "for a collect_env paste use `torchdoctor triage`)" % name)
