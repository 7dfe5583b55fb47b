"""Meta-tests of the areas, found from the registry: a new check or hook cannot skip them.

* every registered check has a facts fixture that fires it and one on which it stays quiet
  (tests/areas/check_fixtures.json, recorded from the suite by tools/record_check_fixtures.py);
* every hook a kb/errors/<area>.json entry names is defined in the area module <area>;
* a hook named like a check (one name per condition) lives in that check's area.
"""

import json
import os

import pytest

from torchdoctor.areas.checks import all_checks, run_checks
from torchdoctor.areas.registry import all_hooks, area_of
from torchdoctor.model.facts import Facts
from torchdoctor.kb.errors import load_entries

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "check_fixtures.json"), encoding="utf-8") as fh:
    FIXTURES = json.load(fh)
CHECKS = all_checks()


@pytest.mark.parametrize("chk", CHECKS, ids=[c.id for c in CHECKS])
def test_every_check_has_a_firing_and_a_quiet_fixture(chk):
    have = FIXTURES.get(chk.id, {})
    assert "fires" in have and "quiet" in have, (
        "check %s needs a test that fires it and one that keeps it quiet; then run "
        "tools/record_check_fixtures.py" % chk.id)


@pytest.mark.parametrize("chk", CHECKS, ids=[c.id for c in CHECKS])
def test_every_check_fires_on_its_fixture_and_not_on_the_other(chk):
    have = FIXTURES.get(chk.id, {})
    if "fires" not in have or "quiet" not in have:
        pytest.skip("no fixtures (the test above fails)")
    fired = [f for f in run_checks(Facts.from_dict(have["fires"]), only=[chk.id]) if f.check == chk.id]
    assert fired and all(f.id != "rule-crashed" for f in fired)
    quiet = [f for f in run_checks(Facts.from_dict(have["quiet"]), only=[chk.id]) if f.check == chk.id]
    assert quiet == []


def test_a_kb_files_hooks_live_in_the_area_of_the_same_name():
    hooks = all_hooks()
    wrong = []
    for e in load_entries():
        if e.tailor:
            fn = hooks.get(e.tailor)
            where = area_of(fn.__module__) if fn else None
            if where != e.file[:-len(".json")]:
                wrong.append("%s (%s) names hook %r, defined in %s" % (e.id, e.file, e.tailor, where))
    assert not wrong, "\n".join(wrong)


def test_a_hook_named_like_a_check_lives_beside_it():
    checks = {c.id: c for c in CHECKS}
    wrong = ["%s: hook in %s, check in %s" % (name, area_of(fn.__module__), area_of(checks[name].func.__module__))
             for name, fn in all_hooks().items() if name in checks and area_of(fn.__module__) != area_of(checks[name].func.__module__)]
    assert not wrong, wrong


def test_hook_names_are_condition_names():
    bad = [n for n in all_hooks() if n != n.lower() or "_" in n or " " in n]
    assert not bad, "hook names are kebab-case condition names: %s" % bad


def test_the_checks_tuple_lists_every_check_the_areas_define():
    """A check written but not listed would never run; one listed twice would run twice."""
    import importlib
    import pkgutil

    import torchdoctor.areas as areas
    from torchdoctor.areas.checks import CHECKS as LISTED
    defined = set()
    for mod in pkgutil.walk_packages(areas.__path__, areas.__name__ + "."):
        m = importlib.import_module(mod.name)
        for value in vars(m).values():
            r = getattr(value, "rule", None)
            if callable(value) and r is not None and r.family == "check" and value.__module__ == m.__name__:
                defined.add(r.id)
    listed = [r.id for r in LISTED]
    assert sorted(listed) == sorted(defined)
    assert len(listed) == len(set(listed))
