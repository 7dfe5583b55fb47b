"""The rules that turn the worker's records into verdicts, advice and findings: plain
Python over synthetic records (no torch, no child), each rule with a case that fires and
one that stays quiet."""

import io

import pytest

from torchdoctor.children.timed import ProcResult
from torchdoctor.verbs.tune.analysis import assemble
from torchdoctor.verbs.tune.numbers import FASTER, SAME, SLOWER, TOO_FEW, compare, stats
from torchdoctor.verbs.tune.recommend import _ceil_tol
from torchdoctor.verbs.tune.progress import Progress
from torchdoctor.verbs.tune.runner import RecordReader, TuneOptions


def st(median, spread=0.02, n=20):
    """Timings around `median` with an interquartile range of `spread` (relative)."""
    # Evenly spaced over median*(1 -/+ spread): the inclusive quartiles land on median*(1 -/+ spread/2).
    return [median * (1 - spread + 2 * spread * i / (n - 1)) for i in range(n)] if n > 1 else [median]


def test_stats_median_and_quartiles():
    s = stats([1.0, 2.0, 3.0, 4.0, 100.0])
    assert s["median_s"] == 3.0 and s["n"] == 5 and s["q1_s"] == 2.0 and s["q3_s"] == 4.0
    assert s["spread"] == pytest.approx(2.0 / 3.0)
    assert stats([]) is None and stats([0.0, -1]) is None


def test_a_speedup_within_the_spread_is_no_measurable_difference():
    ref = stats(st(1.0, spread=0.30))
    assert compare(stats(st(0.9, spread=0.30)), ref)["verdict"] == SAME  # 1.11x, but the IQRs overlap
    assert compare(stats(st(0.5, spread=0.10)), ref)["verdict"] == FASTER
    assert compare(stats(st(2.0, spread=0.10)), ref)["verdict"] == SLOWER
    assert compare(stats(st(0.5, n=2)), ref)["verdict"] == TOO_FEW


def test_the_range_is_what_both_interquartile_ranges_allow():
    sp = compare(stats(st(0.5, spread=0.10)), stats(st(1.0, spread=0.10)))
    assert sp["value"] == pytest.approx(2.0)
    assert sp["low"] == pytest.approx(0.95 / 0.525) and sp["high"] == pytest.approx(1.05 / 0.475)
    assert sp["low"] > 1  # the only case a speedup is claimed


def test_tolerance_hint_rounds_up():
    assert _ceil_tol(3.04e-3) == "3.1e-3" and _ceil_tol(0.0) == "0" and _ceil_tol("inf") == "inf"


# ------------------------------------------------------------ synthetic runs --
def plan(workload="convnet", settings=(), mode="train"):
    base = [{"id": "default", "family": "default", "label": "default settings", "code": "", "group": None,
             "reference": None, "role": "default", "status": "planned"}]
    return {"type": "plan", "workload": workload, "description": "d", "input": "2x3", "builtin": True,
            "mode": mode, "ops": ["conv2d"], "first_run_s": 0.01, "settings": base + list(settings), "t": 1.0}


def setting(sid, family=None, group=None, reference="default", code="torch.x = 1", label=None, **kw):
    d = {"id": sid, "family": family or sid.split("=")[0], "label": label or sid, "code": code, "group": group,
         "reference": reference, "role": None, "status": "planned"}
    d.update(kw)
    return d


def check(sid, rel=0.0, repro=True, workload="convnet", grad=0.0):
    return {"type": "check", "workload": workload, "setting": sid, "reproducible": repro, "runs": 2, "step_s": 0.01,
            "drift_output": {"max_abs": rel, "max_rel": rel}, "drift_grad": {"max_abs": grad, "max_rel": grad}, "t": 2.0}


def times(sid, median, spread=0.02, workload="convnet"):
    return {"type": "times", "workload": workload, "setting": sid, "round": 1, "times": st(median, spread),
            "number_per_run": 10, "t": 3.0}


def env():
    return {"type": "env", "device": "cpu", "torch": "2.13.0+cpu", "python": "3.11", "threads": 2,
            "cores": {"physical": 2, "logical": 2}, "t": 0.5}


def finish(records, workload="convnet"):
    return [{"type": "imported", "seconds": 1.0, "t": 0.1}, env()] + records + [
        {"type": "workload_done", "workload": workload, "t": 9.0}, {"type": "done", "t": 9.1}]


def result(records, opts=None, proc=None):
    opts = opts or TuneOptions(workloads=["convnet"], tolerance=1e-3)
    return assemble(records, opts, proc or ProcResult(argv=[], returncode=0), 9.5)


def test_recommendations_pick_the_best_of_a_group_and_reject_drift():
    recs = finish([
        plan(settings=[setting("threads=1", "threads", "threads", code="torch.set_num_threads(1)"),
                       setting("threads=4", "threads", "threads", code="torch.set_num_threads(4)"),
                       setting("tf32", "tf32.conv", code="torch.backends.cudnn.allow_tf32 = True"),
                       setting("slow", "x"), setting("same", "y")]),
        check("default"), check("threads=1"), check("threads=4"), check("tf32", rel=3e-3), check("slow"),
        check("same"),
        times("default", 1.0), times("threads=1", 0.8), times("threads=4", 0.5), times("tf32", 0.5),
        times("slow", 2.0), times("same", 1.0),
    ])
    r = result(recs)
    rec = r["workloads"][0]["recommendations"]
    assert [x["setting"] for x in rec["speed"]] == ["threads=4"]  # the best of the group only
    assert rec["code_speed"] == "import torch\ntorch.set_num_threads(4)"
    notes = " ".join(rec["speed_notes"])
    assert "tf32 is 2.00x faster but drifts 3.0e-03" in notes and "--tolerance 3.0e-3" in notes
    assert "slow is slower" in notes and "no measurable difference" in notes and "same" in notes
    # With the drift accepted, TF32 is recommended too (and the caveat about combinations appears).
    r2 = result(recs, TuneOptions(workloads=["convnet"], tolerance=5e-3))
    rec2 = r2["workloads"][0]["recommendations"]
    assert {x["setting"] for x in rec2["speed"]} == {"threads=4", "tf32"} and rec2["caveat"]


def test_keep_the_defaults_when_nothing_is_measurably_faster():
    r = result(finish([plan(settings=[setting("a")]), check("default"), check("a"),
                       times("default", 1.0, 0.3), times("a", 0.95, 0.3)]))
    rec = r["workloads"][0]["recommendations"]
    assert rec["speed"] == [] and rec["code_speed"] == "" and rec["speed_notes"][0].startswith("keep the defaults")


def test_varying_shapes_benchmark_note():
    recs = finish([
        plan(settings=[setting("varying:off", "cudnn.benchmark", reference=None, role="reference", varying_shapes=True),
                       setting("varying:on", "cudnn.benchmark", reference="varying:off", varying_shapes=True,
                               label="cudnn.benchmark=True (varying shapes)")]),
        check("default"), times("default", 1.0), times("varying:off", 1.0), times("varying:on", 3.0)])
    r = result(recs)
    s = {x["id"]: x for x in r["workloads"][0]["settings"]}
    assert s["varying:on"]["status"] == "measured" and s["varying:on"]["speedup"]["verdict"] == SLOWER
    assert any("keep cudnn.benchmark off" in n for n in r["workloads"][0]["recommendations"]["speed_notes"])


def test_reproducibility_advice_when_the_default_is_not_reproducible():
    recs = finish([plan(settings=[setting("cudnn.deterministic=True", "cudnn.deterministic",
                                          code="torch.backends.cudnn.deterministic = True")]),
                   check("default", repro=False), check("cudnn.deterministic=True", repro=True),
                   times("default", 1.0), times("cudnn.deterministic=True", 1.25)])
    r = result(recs)
    rec = r["workloads"][0]["recommendations"]
    assert "not bitwise reproducible" in rec["reproducibility"][0]["text"]
    assert "torch.backends.cudnn.deterministic = True" in rec["code_reproducibility"]
    assert any(f["id"] == "tune-not-reproducible" for f in r["findings"])
    # Quiet when the default is reproducible.
    r2 = result(finish([plan(), check("default"), times("default", 1.0)]))
    assert not any(f["id"] == "tune-not-reproducible" for f in r2["findings"])
    assert "bitwise-equal" in r2["workloads"][0]["recommendations"]["reproducibility"][0]["text"]


def test_default_drift_beyond_tolerance_is_a_finding_with_the_fix():
    recs = finish([plan(settings=[setting("tf32.conv=off", "tf32.conv", code='x = "ieee"')]),
                   check("default", rel=3e-3), check("tf32.conv=off", rel=0.0),
                   times("default", 1.0), times("tf32.conv=off", 1.2)])
    r = result(recs)
    assert any(f["id"] == "tune-default-drift" for f in r["findings"])
    texts = [x["text"] for x in r["workloads"][0]["recommendations"]["reproducibility"]]
    assert any("tf32.conv=off is within it" in t for t in texts)
    r2 = result(finish([plan(), check("default", rel=1e-7), times("default", 1.0)]))
    assert not any(f["id"] == "tune-default-drift" for f in r2["findings"])


def test_a_setting_that_raises_is_a_warning_with_the_known_error():
    recs = finish([plan(settings=[setting("deterministic_algorithms")]), check("default"), times("default", 1.0),
                   {"type": "setting_error", "workload": "convnet", "setting": "deterministic_algorithms",
                    "phase": "check", "error": "RuntimeError: adaptive_avg_pool2d_backward_cuda does not have a "
                                               "deterministic implementation, but you set "
                                               "'torch.use_deterministic_algorithms(True)'.", "t": 2.5}])
    r = result(recs)
    s = {x["id"]: x for x in r["workloads"][0]["settings"]}
    assert s["deterministic_algorithms"]["status"] == "error"
    f = next(f for f in r["findings"] if f["id"] == "tune-setting-failed")
    assert f["severity"] == "warning" and "Known error" in f["detail"]


def stage(what, workload="convnet", setting=None, calls_model=True, t=5.0):
    return {"type": "stage", "what": what, "workload": workload, "setting": setting, "calls_model": calls_model, "t": t}


def killed(records, ended_at, **kw):
    p = ProcResult(argv=[], **kw)
    p.extra["ended_at"] = ended_at
    return p


def test_endings_are_told_apart():
    head = [{"type": "imported", "seconds": 1.0, "t": 0.1}, env(), plan(settings=[setting("a")]), check("default")]
    # Killed at the deadline 0.4 s into a step that usually takes 0.01 s: slow, not hung.
    recs = head + [stage("convnet: timing a (round 1)", setting="a", t=5.0)]
    r = result(recs, proc=killed(recs, 5.4, timed_out=True))
    assert r["run"]["ending"] == "budget" and any(f["id"] == "tune-budget-ran-out" for f in r["findings"])
    assert not any(f["severity"] == "error" for f in r["findings"])
    # 30 s into it: hung.
    r = result(recs, proc=killed(recs, 35.0, timed_out=True))
    assert r["run"]["ending"] == "hung" and any(f["id"] == "tune-model-hung" for f in r["findings"])
    s = {x["id"]: x for x in r["workloads"][0]["settings"]}
    assert s["a"]["status"] == "hung" and s["default"]["reproducible"] is True
    # A signal: crashed, with the setting that was on.
    r = result(recs, proc=killed(recs, 5.2, returncode=-11, signal="SIGSEGV"))
    assert r["run"]["ending"] == "crashed"
    f = next(f for f in r["findings"] if f["id"] == "tune-crashed")
    assert "torch.x = 1" in f["fix"]["summary"] and "1 drift check" in f["detail"]
    # Killed while importing torch: the budget is too small.
    recs = [{"type": "stage", "what": "import torch", "calls_model": False, "t": 0.1}]
    r = result(recs, proc=killed(recs, 5.0, timed_out=True))
    assert [f["id"] for f in r["findings"]] == ["tune-budget-too-small"]


def test_a_run_that_measured_nothing_is_an_error_that_says_why():
    from torchdoctor.verbs.tune.api import exit_code
    # The child finished, but the budget was gone before the first workload started.
    recs = [{"type": "imported", "seconds": 1.0, "t": 0.1}, env(),
            {"type": "workload_skipped", "workload": "convnet", "reason": "budget", "t": 1.2}, {"type": "done", "t": 1.3}]
    r = result(recs)
    f = [f for f in r["findings"] if f["id"] == "tune-nothing-measured"]
    assert len(f) == 1 and f[0]["severity"] == "error" and exit_code(r) == 1
    assert "budget" in f[0]["title"] + f[0]["detail"]
    # --list-settings measures nothing by design
    r = result(recs, opts=TuneOptions(workloads=["convnet"], list_only=True))
    assert not any(f["id"] == "tune-nothing-measured" for f in r["findings"]) and exit_code(r) == 0


def test_record_reader_keeps_a_line_cut_short_for_later(tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"type": "a"}\n{"type": "b", "x": [1, 2')
    rd = RecordReader(str(path))
    assert [r["type"] for r in rd.poll()] == ["a"]
    with open(str(path), "ab") as fh:
        fh.write(b"]}\nnot json\n")
    assert [r["type"] for r in rd.poll()] == ["b"]
    assert rd.poll() == []


def test_progress_is_a_bar_on_a_terminal_and_lines_otherwise():
    out = io.StringIO()
    p = Progress(out, 10.0, tty=True)
    p.record({"type": "stage", "what": "convnet: timing a (round 1)"}, 2.5)
    p.tick(5.0)
    p.close()
    text = out.getvalue()
    assert "\r\x1b[K[##########..........]    5 s left  convnet: timing a (round 1)" in text
    assert text.endswith("\r\x1b[K")
    out = io.StringIO()
    p = Progress(out, 10.0, tty=False)
    for i, what in enumerate(["import torch", "convnet: check a", "convnet: check b", "convnet: timing a (round 1)",
                              "convnet: timing b (round 1)"]):
        p.record({"type": "stage", "what": what}, float(i))
        p.tick(float(i))
    lines = out.getvalue().splitlines()
    assert lines == ["[  0.0 s of 10 s] import torch", "[  1.0 s of 10 s] convnet: drift and reproducibility checks",
                     "[  3.0 s of 10 s] convnet: timing, settings interleaved"]
