"""Real broken environments (tests/verbs/fix/realenvs.py), built from the wheels this machine's
pip can reach with its own configuration: for each, `check` names the cause; its printed fix, run
as printed, heals it or the fix says why it cannot resolve here (and no printed command exits 0
leaving it broken); `fix --yes` heals what fix can apply and says what it leaves to the shell;
`fix --undo` restores the exact `pip freeze --all`. Minutes each: `pytest -m slow`.
"""

import os

import pytest

from realenvs import KINDS, build_base, freeze, make

pytestmark = pytest.mark.slow

# The CUDA pairs are gigabytes: one of them runs here, all of them in benchmarks/fix_heal.py.
RUN = [k for k in KINDS if k != "torchvision-of-another-release"]


@pytest.fixture(scope="session")
def base(tmp_path_factory):
    try:
        return build_base(str(tmp_path_factory.mktemp("realenvs")))
    except Exception as e:  # noqa: BLE001 - no torch 2.13.0 reachable by this machine's pip
        pytest.skip("cannot build the base venv here: %s" % e)


@pytest.mark.parametrize("kind", RUN)
def test_a_real_broken_environment(kind, base, tmp_path):
    printed = make(kind, base, str(tmp_path / "printed"))
    before = printed.check()
    f = printed.finding(before)
    assert f, "%s: %s not named; found %s" % (kind, printed.cause, [x["id"] for x in before["findings"]])
    if f["fix"]["commands"]:
        status, after = printed.run_printed(f["fix"]["commands"])
        assert status == 0 and after is not None, (kind, f["fix"])
        assert printed.healthy(after, before), (kind, f["fix"], [x["id"] for x in after["findings"]])
    else:  # nothing resolves here: then it says why, and what to change
        assert "does not resolve here" in f["fix"]["resolution"], f["fix"]

    applied = make(kind, base, str(tmp_path / "applied"))
    start = freeze(applied.py)
    r = applied.fix("--yes")
    if r.returncode == 0:
        assert "checked again: " in r.stdout and "no longer found" in r.stdout, r.stdout
        assert applied.healthy(applied.check(), before)
        u = applied.undo()
        assert u.returncode == 0 and "byte for byte" in u.stdout, u.stdout + u.stderr
        assert freeze(applied.py) == start
    else:  # what fix cannot change (the shell's variables) it says, and changes nothing
        assert r.returncode == 1 and "not applied:" in r.stdout, r.stdout + r.stderr
        assert freeze(applied.py) == start
