"""Reading saved reports back: `check --from`, `diff`, `triage` of JSON."""

import json
import os

from .facts import SCHEMA_VERSION, Facts

MAX_REPORT_BYTES = 64 * 1024 * 1024


def load_json_file(path: str):
    if not os.path.exists(path):
        raise ValueError("no such file: %s" % path)
    if os.path.isdir(path):
        raise ValueError("%s is a directory, not a report" % path)
    try:
        size = os.path.getsize(path)
        if size == 0:
            raise ValueError("%s is empty" % path)
        if size > MAX_REPORT_BYTES:
            raise ValueError("%s is %d MB; a torchdoctor report is far smaller" % (path, size // 2 ** 20))
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError as e:
        raise ValueError("cannot read %s: %s" % (path, e.strerror or e))
    if b"\x00" in raw[:4096]:
        raise ValueError("%s is a binary file, not a JSON report" % path)
    try:
        return json.loads(raw.decode("utf-8-sig", "replace"))
    except RecursionError:
        raise ValueError("%s nests JSON too deeply to be a torchdoctor report" % path)
    except ValueError as e:
        raise ValueError("%s is not JSON (%s)" % (path, str(e).split(":")[0]))


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


def load_report_facts(path: str) -> Facts:
    return facts_from_report(load_json_file(path), path)
