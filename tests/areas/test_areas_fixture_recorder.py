"""tools/record_check_fixtures.py, the step CONTRIBUTING.md gives for a new check: run on one
test file, it records for each check those tests ran a facts tree that fires it and one that
keeps it quiet (the meta-test's replay of them holds), and keeps what it did not see."""

import json
import os
import subprocess
import sys

from torchdoctor.areas.checks import run_checks
from torchdoctor.model.facts import Facts

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "record_check_fixtures.py")
TESTS = os.path.join(ROOT, "tests", "areas", "test_areas_mps_checks.py")


def test_the_recorder_records_both_fixtures_of_the_checks_a_test_file_runs(tmp_path):
    out = tmp_path / "fixtures.json"
    kept = {"fires": {"a": 1}, "quiet": {"b": 2}}
    out.write_text(json.dumps({"torch-not-installed": kept, "no-such-check": kept}))
    p = subprocess.run([sys.executable, TOOL, "--out", str(out), TESTS], capture_output=True, text=True,
                       timeout=600, cwd=str(tmp_path))
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data.pop("torch-not-installed") == kept, "a check the run did not see lost its fixtures"
    assert "no-such-check" not in data, "a fixture of a check that no longer exists was kept"
    assert {"mps-not-built", "mps-unavailable", "mps-fallback-enabled"} <= set(data), sorted(data)
    for cid, kinds in data.items():
        assert set(kinds) == {"fires", "quiet"}, (cid, sorted(kinds))
        fired = [f for f in run_checks(Facts.from_dict(kinds["fires"]), only=[cid]) if f.check == cid]
        quiet = [f for f in run_checks(Facts.from_dict(kinds["quiet"]), only=[cid]) if f.check == cid]
        assert fired and all(f.id != "rule-crashed" for f in fired) and quiet == [], cid
