"""The rule table is data with sources, and every version it names exists in the tables."""

import json
import os
import re

import pytest

from conftest import REFERENCE, ROOT
from torchdoctor.kb import compat
from torchdoctor.verbs.lint import output as O
from torchdoctor.verbs.lint import rules as R


def test_every_version_named_exists_in_the_tables():
    known = set(compat.known_releases())
    pre = set(R.data()["_meta"]["pre_table_releases"]["versions"])
    assert max(pre, key=lambda v: tuple(map(int, v.split(".")))) < min(known, key=lambda v: tuple(map(int, v.split("."))))
    named = R.versions_named()
    assert len(named) > 40
    for where, fieldname, version in named:
        minor = ".".join(version.split(".")[:2])
        assert minor in known or minor in pre, "%s %s=%s is no release of compat.json" % (where, fieldname, version)


def test_history_is_ordered():
    for path in R.known_paths():
        e = R.history(path)
        added, dep, rem = R.mt(e.get("added")), R.mt(e.get("deprecated")), \
            (R.mt(e.get("removed")) if e.get("removed") and "not" not in str(e["removed"]) else None)
        if added and dep:
            assert added <= dep, path
        if dep and rem:
            assert dep < rem, path
        if added and rem:
            assert added < rem, path


def test_every_source_resolves():
    for path, e in R.data()["apis"].items():
        assert e.get("source") and R.source_text(e["source"]) != e["source"], path
        for part in e["source"].split("+"):
            assert part in R.data()["_meta"]["sources"], (path, part)
    for code, r in R.rules().items():
        assert re.fullmatch(r"TD\d{3}", code)
        assert r["severity"] in ("error", "warning", "info") and r["summary"] and r["name"]
        if code != "TD000":
            assert r["source"], code
    assert R.source_text("SCAN").startswith("static scan")   # compat.json's keys are cited too


def test_fixes_name_real_replacements():
    for path, e in R.data()["apis"].items():
        if e.get("fix"):
            assert e["replacement"] in R.known_paths() and e.get("fix_min")


@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout")
def test_backends_history_matches_the_shared_reference():
    with open(os.path.join(REFERENCE, "backends_api.json"), encoding="utf-8") as f:
        ref = json.load(f)
    curated = ref["curated"]
    checked = 0
    for key, e in curated.items():
        for path in (p.strip() for p in key.split("/")):
            path = path if path.startswith("torch") else key.split(".")[0] + "." + ".".join(key.split(".")[1:-1]) + "." + path
            mine = R.history(path)
            if mine is None:
                continue
            assert R.mt(mine["added"]) == R.mt(e["added"]), path
            checked += 1
    assert checked >= 80
    # the rules' own API entries never contradict a scanned first/last sighting
    for path, e in R.data()["apis"].items():
        seen = ref["all_scanned"].get(path)
        if seen and e.get("added") and not e.get("added_or_earlier"):
            assert R.mt(e["added"]) <= R.mt(seen["first_seen"]), path


def test_the_docs_rule_table_is_the_data():
    """docs/lint.md's tables are generated (tools/capture_examples.py): run it after a change."""
    with open(os.path.join(ROOT, "docs", "lint.md"), encoding="utf-8") as f:
        page = f.read()
    assert O.rules_table(markdown=True) in page
    assert O.api_table() in page
