"""The fault list: eleven real faults of one rank in a job under the user's own torchrun (CPU
torch, gloo), each named by rank 0 as that rank's doing, and every job gone within 5 s of rank
0's answer (and, for the job the launcher stops, of its SIGTERM). Minutes of torchrun jobs (a few at a time): `slow`, run in CI's own step
(`pytest -m slow`).

Rank 1 is the culprit of each: it never starts; it exits before joining; it exits inside a
collective; it never reaches all_gather; it is stopped (SIGSTOP) inside all_reduce; its
all_reduce contribution is corrupted; it has TORCH_DISTRIBUTED_DEBUG=DETAIL; it runs another
virtualenv without NumPy; it has another torch build; it is SIGKILLed inside all_gather; it
never reaches all_gather and the launcher stops the job (SIGTERM) while rank 0 waits in it.
"""

import json
import os
import signal
import time

import pytest

from conftest import needs_torch
from dist_jobs import FAST, Job, dist_infos, faults_dir, other_venv

pytestmark = [needs_torch, pytest.mark.slow]

AT_ONCE = 3  # jobs running at the same time (each: torchrun and its ranks importing torch)
LEAVE_S = 5.0
CULPRIT = "rank 1 (node a"
SIGTERMED = "never reaches all_gather, the launcher stops the job"


def faults(root):
    """name -> (ranks, job args, env for every rank, the finding that must name rank 1)."""
    f = faults_dir(root)
    fault = {"pythonpath": f}
    run = ["--json", "--join-timeout", "300"] + FAST
    return {
        "never starts": ({1: {"sleep": 600}}, ["--json", "--join-timeout", "40"], {}, "dist-rank-never-joined"),
        "exits before joining": ({1: {"exit_when_rank0_connected": 3}}, run, {}, "dist-interrupted"),
        "exits inside broadcast": ({1: fault}, run + ["--timeout", "60"],
                                   {"TDTEST_FAULTS": "exit_in_broadcast", "TDTEST_FAULT_RANK": "1"}, "dist-rank-exited"),
        "never reaches all_gather": ({1: fault}, run + ["--timeout", "20", "--no-bandwidth"],
                                     {"TDTEST_FAULTS": "hang_in_all_gather", "TDTEST_FAULT_RANK": "1"},
                                     "dist-collective-timeout"),
        # a stopped process is still there (its pid lives) and its heartbeat stands still only
        # as long as the collective's deadline: rank 0 names it as the one that stopped answering
        "stopped (SIGSTOP) in all_reduce": ({1: fault}, run + ["--timeout", "30", "--no-bandwidth"],
                                            {"TDTEST_FAULTS": "stop_in_all_reduce", "TDTEST_FAULT_RANK": "1"},
                                            "dist-collective-timeout"),
        "corrupts its all_reduce contribution": ({1: fault}, run + ["--timeout", "60", "--no-bandwidth"],
                                                 {"TDTEST_FAULTS": "corrupt_all_reduce", "TDTEST_FAULT_RANK": "1"},
                                                 "dist-collective-wrong"),
        "TORCH_DISTRIBUTED_DEBUG=DETAIL on it alone": ({1: {"env": {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}}},
                                                       run + ["--timeout", "20", "--no-bandwidth"], {},
                                                       "dist-env-mismatch"),
        "another virtualenv without NumPy": ({1: {"python": other_venv(root), "pythonpath": f,
                                                  "env": {"TDTEST_FAULTS": "hide_numpy"}}},
                                             run + ["--timeout", "60", "--no-bandwidth"], {},
                                             "dist-environment-mismatch"),
        "another torch build": ({1: {"pythonpath": f + os.pathsep + dist_infos(root, {"nvidia-cublas-cu12": "13.1.1.3"}),
                                     "env": {"TDTEST_FAULTS": "other_torch"}}}, run + ["--no-collectives"], {},
                                "dist-torch-mismatch"),
        "SIGKILLed inside all_gather": ({1: fault}, run + ["--timeout", "60", "--no-bandwidth"],
                                        {"TDTEST_FAULTS": "kill_in_all_gather", "TDTEST_FAULT_RANK": "1"},
                                        "dist-rank-exited"),
        SIGTERMED: ({1: fault}, run + ["--timeout", "300", "--no-bandwidth"],
                    {"TDTEST_FAULTS": "hang_in_all_gather", "TDTEST_FAULT_RANK": "1"}, "dist-collective-unfinished"),
    }


def _continue_stopped(job):
    """A SIGSTOPped rank cannot even take torchrun's SIGTERM: once rank 0 has answered, let it go on
    (it then sees the answer and leaves, as any rank does)."""
    pid = json.loads(job.out.decode())["ranks"][1]["where"]["pid"]
    os.kill(pid, signal.SIGCONT)


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    root = tmp_path_factory.mktemp("faultlist")
    todo = list(faults(root).items())
    done = {}
    while todo:
        wave, todo = todo[:AT_ONCE], todo[AT_ONCE:]
        running = {name: (Job(root, name.replace(" ", "_").replace("/", "_"), 2, ranks, args, env=env), fid)
                   for name, (ranks, args, env, fid) in wave}
        for name, (job, fid) in running.items():
            if name == SIGTERMED:
                end = time.monotonic() + 400
                while not job.flagged(1) and job.proc.poll() is None and time.monotonic() < end:
                    time.sleep(0.2)
                time.sleep(3)  # rank 0 is in all_gather by now, waiting for rank 1
                job.signal(signal.SIGTERM)
            if "SIGSTOP" in name:
                end = time.monotonic() + 400
                while job.answered_at is None and job.proc.poll() is None and time.monotonic() < end:
                    time.sleep(0.1)
                time.sleep(0.5)  # the whole answer
                _continue_stopped(job)
        for name, (job, fid) in running.items():
            done[name] = (job.wait(), fid)
    print("\nfault | finding that names the culprit | s from rank 0's answer (the SIGTERM) to the last rank's exit")
    for name, (job, fid) in done.items():
        titles = [f["title"] for f in job.job()["findings"] if f["id"] == fid]
        print("%s | %s | %s%s" % (name, titles[0] if titles else "-", job.after_answer(),
                                  " (%s)" % job.after_signal() if job.signalled_at is not None else ""))
    yield done
    for job, _ in done.values():
        job.kill()


def test_the_list_has_at_least_eight_faults(results):
    assert sorted(results) == sorted(NAMES) and len(NAMES) >= 8


NAMES = ["never starts", "exits before joining", "exits inside broadcast", "never reaches all_gather",
         "stopped (SIGSTOP) in all_reduce", "corrupts its all_reduce contribution",
         "TORCH_DISTRIBUTED_DEBUG=DETAIL on it alone", "another virtualenv without NumPy", "another torch build",
         "SIGKILLed inside all_gather", SIGTERMED]


@pytest.mark.parametrize("name", NAMES)
def test_rank_0_names_the_culprit_and_the_job_leaves_within_5_s(results, name):
    job, fid = results[name]
    j = job.job()
    named = [f for f in j["findings"] if f["id"] == fid and CULPRIT in f["title"]]
    assert named, (name, [(f["id"], f["title"]) for f in j["findings"]])
    # no finding blames another rank for what rank 1 did
    assert not [f for f in j["findings"] if f["severity"] == "error" and f["category"] != "dist-mismatch"
                and ("rank 0 (" in f["title"]) and CULPRIT not in f["title"]], j["findings"]
    assert job.after_answer() is not None and job.after_answer() < LEAVE_S, (name, job.after_answer())
    if name == SIGTERMED:
        assert j["stopped"]["signal"] == "SIGTERM" and job.answered_at - job.signalled_at < LEAVE_S
        assert job.after_signal() < LEAVE_S, job.after_signal()
