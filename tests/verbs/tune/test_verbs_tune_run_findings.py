"""Every tune rule (run_findings.TUNE_RULES) on synthetic worker records: one run where it
fires and one where it stays quiet, as every dist condition has (the same meta-test)."""

import pytest

from test_verbs_tune_analysis import check, env, finish, killed, plan, result, setting, stage, times
from torchdoctor.children.timed import ProcResult
from torchdoctor.verbs.tune.run_findings import TUNE_RULES
from torchdoctor.verbs.tune.runner import TuneOptions

HEAD = [{"type": "imported", "seconds": 1.0, "t": 0.1}, env()]


def healthy():
    return result(finish([plan(settings=[setting("a")]), check("default"), check("a"),
                          times("default", 1.0), times("a", 1.0)]))


def fatal(kind, error="RuntimeError: boom"):
    recs = HEAD + [{"type": "fatal", "kind": kind, "stage": "first run of convnet", "error": error,
                    "where": "models.py:3 in forward", "t": 2.0}]
    return result(recs, proc=ProcResult(argv=[], returncode=3))


def cut(after_s):
    recs = HEAD + [plan(settings=[setting("a")]), check("default"), stage("convnet: timing a (round 1)", setting="a")]
    return result(recs, proc=killed(recs, 5.0 + after_s, timed_out=True))


def _with(record, *more):
    return result(finish([plan(settings=[setting("a")]), check("default"), check("a"), times("default", 1.0),
                          times("a", 1.0), dict(record, workload="convnet", t=4.0)] + list(more)))


def _import_cut():
    recs = [{"type": "stage", "what": "import torch", "calls_model": False, "t": 0.1}]
    return result(recs, proc=killed(recs, 5.0, timed_out=True))


def _crashed():
    recs = HEAD + [plan(settings=[setting("a")]), check("default"), stage("convnet: check a", setting="a")]
    return result(recs, proc=killed(recs, 5.2, returncode=-11, signal="SIGSEGV"))


def _default_check(**kw):
    c = check("default", **kw)
    return result(finish([plan(settings=[setting("a")]), c, check("a"), times("default", 1.0), times("a", 1.0)]))


def _nothing():
    recs = HEAD + [{"type": "workload_skipped", "workload": "convnet", "reason": "budget", "t": 1.2},
                   {"type": "done", "t": 1.3}]
    return result(recs)


FIRE = {
    "tune-python-failed": lambda: result([], proc=ProcResult(argv=[], start_error="No such file: /nope/python")),
    "tune-import-failed": lambda: fatal("import", "ImportError: libtorch_cpu.so: cannot open shared object file"),
    "tune-model-raised": lambda: fatal("model_error"),
    "tune-internal": lambda: fatal("internal"),
    "tune-budget-too-small": _import_cut,
    "tune-model-hung": lambda: cut(30.0),
    "tune-budget-ran-out": lambda: cut(0.4),
    "tune-crashed": _crashed,
    "tune-workload-failed": lambda: result(HEAD + [{"type": "workload_error", "workload": "convnet", "phase": "build",
                                                   "error": "RuntimeError: x", "t": 1.0}, {"type": "done", "t": 2}]),
    "tune-model-changes-flags": lambda: _with({"type": "model_changes_flags", "keys": ["threads"],
                                               "values": {"threads": 1}}),
    "tune-flag-not-restored": lambda: _with({"type": "leak", "setting": "a", "keys": ["mkldnn.enabled"]}),
    "tune-setting-failed": lambda: result(finish([plan(settings=[setting("a")]), check("default"),
                                                  times("default", 1.0),
                                                  {"type": "setting_error", "workload": "convnet", "setting": "a",
                                                   "phase": "check", "error": "RuntimeError: no kernel", "t": 3.0}])),
    "tune-default-drift": lambda: _default_check(rel=5e-2),
    "tune-not-reproducible": lambda: _default_check(repro=False),
    "tune-machine-busy": lambda: result(finish([plan(settings=[setting("a")]), check("default"), check("a"),
                                                times("default", 1.0), times("control", 1.4), times("a", 1.0)])),
    "tune-budget-short": lambda: result(finish([plan(settings=[setting("a")]), check("default"),
                                                times("default", 1.0)])),
    "tune-nothing-measured": _nothing,
}

QUIET = {rid: healthy for rid in FIRE}


def ids(r):
    return [f["id"] for f in r["findings"]]


def test_every_tune_rule_has_a_fire_and_a_quiet_fixture():
    registered = {r.id for r in TUNE_RULES}
    assert set(FIRE) == registered, registered ^ set(FIRE)
    assert set(QUIET) == registered, registered ^ set(QUIET)


@pytest.mark.parametrize("rid", sorted(FIRE))
def test_tune_rule_fires(rid):
    r = FIRE[rid]()
    assert rid in ids(r), (rid, [(f["id"], f["title"]) for f in r["findings"]])
    assert "rule-crashed" not in ids(r)


@pytest.mark.parametrize("rid", sorted(QUIET))
def test_tune_rule_quiet(rid):
    r = QUIET[rid]()
    assert rid not in ids(r), [(f["id"], f["title"]) for f in r["findings"]]
    assert "rule-crashed" not in ids(r)


def test_a_healthy_run_has_no_findings():
    assert healthy()["findings"] == []
    assert TuneOptions().tolerance == 1e-3
