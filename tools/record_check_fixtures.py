#!/usr/bin/env python3
"""Record, from the test suite itself, one facts tree on which each check fires and one on
which it stays quiet (the smallest of each), into tests/areas/check_fixtures.json.

    python tools/record_check_fixtures.py [pytest args]     # e.g. -k expandable
    python tools/record_check_fixtures.py --out FILE tests/areas/test_areas_mps_checks.py

A run over part of the suite keeps the recorded fixtures of the checks it did not see (and
of those it saw, the smaller one).

The meta-test tests/areas/test_areas_meta.py replays them: every registered check must have
both, fire on the first and stay quiet on the second. A new check therefore needs tests that
exercise it both ways before the meta-test passes. A maintainer tool: not part of the test run.
"""

import json
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "areas", "check_fixtures.json")


class Recorder:
    def __init__(self):
        self.best = {}  # (check id, "fires"|"quiet") -> facts dict

    def pytest_configure(self, config):
        # run_checks calls the module's run_check for every check (by its global name), so
        # wrapping it there sees every check every test runs.
        from torchdoctor.areas import checks
        from torchdoctor.model.rules import CRASHED
        original = checks.run_check

        def recording(chk, facts):
            try:
                before = json.dumps(facts.to_dict(), sort_keys=True, default=str)
            except (TypeError, ValueError):
                before = None
            out = original(chk, facts)
            if before is not None and not any(f.id == CRASHED for f in out):
                key = (chk.id, "fires" if out else "quiet")
                if key not in self.best or len(before) < len(self.best[key]):
                    self.best[key] = before
            return out
        checks.run_check = recording


def main(argv):
    out_path = OUT
    if argv[:1] == ["--out"] and len(argv) > 1:
        out_path, argv = os.path.abspath(argv[1]), argv[2:]
    rec = Recorder()
    # Paths given select tests; without any, the whole suite runs.
    targets = [] if any(os.path.exists(a) for a in argv) else [os.path.join(ROOT, "tests")]
    code = pytest.main(["-q", "-p", "no:cacheprovider"] + targets + argv, plugins=[rec])
    data = {}
    if os.path.exists(out_path):
        with open(out_path, encoding="utf-8") as fh:
            data = json.load(fh)
    for (cid, kind), text in sorted(rec.best.items()):
        old = data.get(cid, {}).get(kind)
        if old is None or len(text) < len(json.dumps(old, sort_keys=True, default=str)):
            data.setdefault(cid, {})[kind] = json.loads(text)
    from torchdoctor.areas.checks import all_checks
    data = {cid: v for cid, v in sorted(data.items()) if cid in {c.id for c in all_checks()}}
    with open(out_path, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=1, sort_keys=True)
        fh.write("\n")
    print("recorded %d checks into %s (pytest exit %s)" % (len(data), out_path, code))
    return 0 if rec.best else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
