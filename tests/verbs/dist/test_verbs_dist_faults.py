"""dist under real faults, under the user's own torchrun (CPU torch, gloo, ranks on 127.0.0.1):
the answer rank 0 gives, that it names the rank to blame, and that the whole job leaves within
5 s of that answer, or of the launcher's SIGTERM. Five jobs, started together (dist_jobs):

* a rank that dies at once, while rank 0 is still starting: torchrun SIGTERMs rank 0, which
  still prints the job's answer (and writes --json and --report);
* TORCH_DISTRIBUTED_DEBUG=DETAIL on one rank: its process group never starts; the setting is
  named as the cause of the init failure, and the stuck rank leaves with the others;
* a rank that never reaches all_gather, and the job stopped (SIGTERM) while the others wait in it;
* a rank with another torch build (CUDA libraries with four-part versions): one finding, the
  rest under it, versions kept as versions in the summaries and the Markdown report;
* a rank in another virtualenv without NumPy: that environment named, its interpreter in the fixes.
"""

import json
import signal
import time

import pytest

from conftest import needs_torch
from dist_jobs import FAST, Job, dist_infos, faults_dir, finding, other_venv

pytestmark = needs_torch

LEAVE_S = 5.0
CUDA_LIBS = {"nvidia-cublas-cu12": "13.1.1.3", "nvidia-cudnn-cu12": "9.24.0.43", "nvidia-cusparse-cu12": "12.5.8.93",
             "nvidia-nccl-cu12": "2.28.9", "triton": "3.5.0"}


@pytest.fixture(scope="module")
def jobs(tmp_path_factory):
    root = tmp_path_factory.mktemp("faults")
    faults = faults_dir(root)
    venv2 = other_venv(root)
    libs = dist_infos(root, CUDA_LIBS)
    long = ["--join-timeout", "300"]
    started = {
        "dies": Job(root, "dies", 2, {1: {"exit_when_rank0_catches": 3}},
                    ["--json", "--report", str(root / "dies.md")] + long),
        "debug": Job(root, "debug", 2, {1: {"env": {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}}},
                     ["--json", "--no-bandwidth", "--timeout", "20"] + long),
        "hang": Job(root, "hang", 3, {1: {"pythonpath": faults}},
                    ["--json", "--no-bandwidth", "--timeout", "300"] + long,
                    env={"TDTEST_FAULTS": "hang_in_all_gather", "TDTEST_FAULT_RANK": "1"}),
        "torch": Job(root, "torch", 3, {1: {"pythonpath": faults + ":" + libs,
                                            "env": {"TDTEST_FAULTS": "other_torch"}}},
                     ["--json", "--no-collectives", "--report", str(root / "torch.md")] + long),
        "venv": Job(root, "venv", 3, {2: {"python": venv2, "pythonpath": faults, "env": {"TDTEST_FAULTS": "hide_numpy"}}},
                    ["--json", "--no-bandwidth", "--timeout", "60"] + FAST + long),
    }
    hang = started["hang"]
    end = time.monotonic() + 400
    while not hang.flagged(1) and hang.proc.poll() is None and time.monotonic() < end:
        time.sleep(0.2)
    time.sleep(3)  # the others are in all_gather by now, waiting for rank 1
    hang.signal(signal.SIGTERM)
    yield root, {k: j.wait() for k, j in started.items()}
    for j in started.values():
        j.kill()


def test_a_rank_that_dies_at_once_still_gets_an_answer_from_rank_0(jobs):
    root, j = jobs
    job = j["dies"].job()
    assert j["dies"].proc.returncode != 0 and "ChildFailedError" in j["dies"].stderr  # torchrun: rank 1 exit 3
    f = finding(job, "dist-interrupted")
    assert f["title"].startswith("The launcher stopped the job (SIGTERM during ")
    assert "Root Cause (first observed failure)" in f["detail"]  # where torchrun names the rank
    assert job["stopped"]["signal"] == "SIGTERM" and job["complete"] is False
    assert (root / "dies.md").read_text().startswith("## torchdoctor dist report")
    assert j["dies"].after_answer() < LEAVE_S, j["dies"].after_answer()


def test_a_debug_setting_on_one_rank_is_named_as_the_cause_and_the_stuck_rank_leaves(jobs):
    _, j = jobs
    job = j["debug"].job()
    ids = [f["id"] for f in job["findings"]]
    assert ids[:2] == ["dist-env-mismatch", "dist-init-failed"], ids
    env, init = job["findings"][:2]
    assert env["title"] == "TORCH_DISTRIBUTED_DEBUG differs between ranks: rank 1 (node a, local 1)"
    assert env["severity"] == "error" and "likely cause of init failing" in env["detail"]
    assert "Likely cause: TORCH_DISTRIBUTED_DEBUG differs between ranks" in init["detail"]
    assert not [c for f in job["findings"] for c in f["fix"]["commands"] if "DISTRIBUTED_DEBUG=" in c]
    # rank 1 was inside torch's process-group constructor: it still left with the job
    assert j["debug"].after_answer() < LEAVE_S, j["debug"].after_answer()
    assert "SIGKILL" not in j["debug"].stderr


def test_sigterm_during_a_hang_names_the_rank_that_never_entered_and_everyone_leaves(jobs):
    _, j = jobs
    hang = j["hang"]
    assert hang.signalled_at is not None and hang.answered_at is not None
    job = hang.job()
    f = finding(job, "dist-collective-unfinished")
    assert f["title"] == ("all_gather had not finished on ranks 0-2 when the run was stopped: "
                          "rank 1 (node a, local 1) never entered it"), f["title"]
    assert "never entered all_gather (last seen: after all_reduce" in f["detail"] and "in hang" in f["detail"]
    assert job["stopped"]["signal"] == "SIGTERM" and job["stopped"]["during"] == "all_gather"
    assert hang.answered_at - hang.signalled_at < LEAVE_S
    assert hang.after_signal() < LEAVE_S, hang.after_signal()


def test_one_other_torch_build_is_one_finding_with_its_consequences_and_versions_stay_versions(jobs):
    root, j = jobs
    job = j["torch"].job()
    # (the PYTHONPATH that brings rank 1 its other torch differs too: a note of its own)
    mism = [f for f in job["findings"] if f["category"] == "dist-mismatch" and f["id"] != "dist-env-mismatch"]
    assert [f["id"] for f in mism] == ["dist-torch-mismatch"], [(f["id"], f["title"]) for f in mism]
    f = mism[0]
    assert job["findings"][0] == f
    assert f["title"] == "torch differs between ranks: rank 1 (node a, local 1)" and f["severity"] == "error"
    for said in ("rank 1 (node a, local 1): torch 2.12.0+cu126", "CUDA (torch build): 12.6 on rank 1",
                 "NCCL wheel nvidia-nccl-cu12: 2.28.9", "nvidia-cublas-cu12 13.1.1.3", "nvidia-cudnn-cu12 9.24.0.43"):
        assert said in f["detail"], (said, f["detail"])
    summ = job["ranks"][1]["summary"]
    assert summ["packages"]["nvidia-cublas-cu12"] == "13.1.1.3" and summ["nccl"]["wheels"]["nvidia-nccl-cu12"] == "2.28.9"
    md = (root / "torch.md").read_text()
    assert "13.1.1.3" in md and "9.24.0.43" in md and "<ip>" not in md


def test_a_rank_in_another_environment_is_named_and_its_fixes_run_its_interpreter(jobs):
    _, j = jobs
    job = j["venv"].job()
    py = job["ranks"][2]["summary"]["python"]["executable"]
    assert py.endswith("venv2/bin/python")
    env = finding(job, "dist-environment-mismatch")
    assert env["title"] == "rank 2 (node a, local 2) runs another Python environment: %s" % py
    np_ = finding(job, "dist-numpy-missing")
    assert np_["fix"]["commands"][0] == "%s -m pip install numpy" % py
    assert py in np_["fix"]["summary"]
    obj = finding(job, "dist-object-collective-failed")
    assert obj["fix"]["commands"] == ["%s -m pip install numpy" % py]
