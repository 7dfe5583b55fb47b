"""Every condition of torchdoctor dist on small job-facts fixtures: one that fires, one that stays quiet."""

import copy

import pytest

from torchdoctor.verbs.dist import conditions as C
from torchdoctor.verbs.dist import jobfacts as J
from torchdoctor.verbs.dist.conditions.bandwidth import expected_bound
from torchdoctor.verbs.dist.conditions.collectives import COLLECTIVE_STEPS

GIB = 1 << 30


def summary(**over):
    """One rank's summary as summary.build makes it (CPU torch, NumPy fine), with overrides
    given as dotted paths: summary(**{"torch.version": "2.5.0"})."""
    s = {"v": 1, "tool": "0.1.0", "python": {"version": "3.11.7", "implementation": "CPython",
                                             "executable": "/venv/bin/python"},
         "torch": {"version": "2.13.0+cpu", "cuda": None, "hip": None, "cudnn": None, "git": "cf30153c4c13"},
         "packages": {"numpy": "2.4.6", "torchvision": None},
         "nccl": {"torch": None, "wheels": {}, "loaded": None, "system": []},
         "driver": {"version": None, "cuda": None}, "env": {"OMP_NUM_THREADS": "1"},
         "cuda": {"available": False, "device_count": 0, "visible": None}, "device": None,
         "affinity": {"cpus": "0-63", "count": 64}, "cores": 64, "shm_bytes": 16 * GIB, "numpy": {"ok": True},
         "ifaces": ["eth0", "lo"], "probe": {"ok": True, "error": None, "seconds": 0.1, "mode": "in-process"}}
    for path, value in over.items():
        node = s
        parts = path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return s


def gpu_summary(index, gpu_hash, name="NVIDIA H100 80GB HBM3", memory=80 * GIB, count=8, visible=None, **over):
    over.setdefault("torch.version", "2.5.1+cu124")
    over.setdefault("torch.cuda", "12.4")
    over.setdefault("torch.cudnn", 90100)
    over.setdefault("nccl.torch", "2.21.5")
    over.setdefault("driver.version", "550.54.15")
    s = summary(**over)
    s["cuda"] = {"available": True, "device_count": count, "visible": visible}
    s["device"] = {"index": index, "name": name, "memory": memory, "capability": "9.0", "gpu_hash": gpu_hash,
                   "pci_bus_id": "0000:%02x:00.0" % (0x10 + index)}
    return s


def make_job(summaries, per_node=None, steps=None, joined=None, **extra):
    n = len(summaries)
    per_node = per_node or n
    ranks = []
    for r, s in enumerate(summaries):
        j = joined[r] if joined is not None else True
        rec = {"rank": r, "joined": j}
        if j:
            host = "host%d" % (r // per_node)
            rec["where"] = {"rank": r, "host": host, "node_id": host, "local_rank": r % per_node,
                            "local_world_size": per_node, "pid": 1000 + r}
            if s is not None:
                rec["summary"] = s
                rec["gather"] = {"ok": True, "error": None}
        ranks.append(rec)
    job = {"schema_version": 1, "kind": J.KIND, "world_size": n, "ranks": ranks, "backend": None,
           "steps": [{"name": "join", "kind": "join", "status": "ok", "timeout_s": 10,
                      "missing": [r for r in range(n) if joined and not joined[r]]},
                     {"name": "gather", "kind": "gather", "status": "ok"}] + list(steps or []),
           "bandwidth": {"rows": []}, "pairs": []}
    job.update(extra)
    J.assign_nodes(job)
    return job


def ids(job):
    return [f.id for f in C.diagnose(job)]


def only(job, cid):
    return [f for f in C.diagnose(job) if f.id == cid]


def step(name, per, status=None, kind=None, **kw):
    st = {"name": name, "kind": kind or name, "per_rank": {str(r): v for r, v in per.items()}, "timeout_s": 30}
    if status is None:
        states = {v["status"] for v in per.values()}
        status = "ok" if states == {"ok"} else sorted(states - {"ok"})[0]
    st["status"] = status
    st.update(kw)
    return st


def healthy_cpu(n=3):
    return make_job([summary() for _ in range(n)])


def healthy_gpu(n=4, **kw):
    return make_job([gpu_summary(r, "h%d" % r) for r in range(n)], backend="nccl", **kw)


# ------------------------------------------------------------------ the fixtures --
def _exited():
    job = healthy_cpu(2)
    job["ranks"][1]["fate"] = {"how": "exited", "step": "broadcast", "exitcode": 7, "reason": "",
                               "stderr_tail": "RuntimeError: NCCL error: unhandled system error"}
    return job


def _interrupted():
    job = healthy_cpu(2)
    job["interrupted"] = "SIGTERM during all_reduce"
    return job


def _gather_failed():
    job = healthy_cpu(2)
    del job["ranks"][1]["summary"]
    job["ranks"][1]["gather"] = {"ok": False, "error": "no facts within 30 s"}
    return job


def _mismatch(path, value, n=3, odd=1, gpu=False):
    sums = [gpu_summary(r, "h%d" % r) if gpu else summary() for r in range(n)]
    node = sums[odd]
    parts = path.split(".")
    for p in parts[:-1]:
        node = node.setdefault(p, {})
    node[parts[-1]] = value
    return make_job(sums, backend="nccl" if gpu else "gloo")


def _numpy_missing():
    job = healthy_cpu(3)
    job["ranks"][2]["summary"]["numpy"] = {"ok": False, "error": "ModuleNotFoundError: No module named 'numpy'"}
    return job


def _gpu_shared():
    return make_job([gpu_summary(0, "same"), gpu_summary(0, "same")], backend="nccl")


def _outside_visible():
    return make_job([gpu_summary(r, "h%d" % r, count=2) for r in range(2)] +
                    [gpu_summary(0, "h0", count=2), gpu_summary(1, "h1", count=2)], per_node=4, backend="nccl")


def _debug_left_set():
    job = healthy_gpu(2)
    for r in range(2):
        job["ranks"][r]["summary"]["env"]["NCCL_P2P_DISABLE"] = "1"
    return job


def _ifname_none():
    job = healthy_gpu(2)
    for r in range(2):
        job["ranks"][r]["summary"]["env"]["NCCL_SOCKET_IFNAME"] = "ib0"
    return job


def _omp_unset():
    job = healthy_cpu(4)
    for r in range(4):
        job["ranks"][r]["summary"]["env"].pop("OMP_NUM_THREADS")
    return job


def _shm_small():
    job = healthy_gpu(2)
    for r in range(2):
        job["ranks"][r]["summary"]["shm_bytes"] = 64 << 20
    return job


def _init_failed():
    return make_job([summary(), summary()], backend="gloo", steps=[step("init", {
        0: {"status": "error", "error": "RuntimeError: Connection refused"}, 1: {"status": "error",
                                                                              "error": "RuntimeError: Connection refused"}})])


def _wrong():
    bad = {"status": "wrong", "wrong": [{"from": 1, "what": "slot 1 is 3, expected 2 (rank 1's contribution)"}]}
    return make_job([summary() for _ in range(3)], backend="gloo",
                    steps=[step("all_reduce", {0: bad, 1: bad, 2: bad})])


def _object_failed():
    return make_job([summary() for _ in range(2)], backend="gloo", steps=[step("all_gather_object", {
        0: {"status": "ok"}, 1: {"status": "error", "error": "RuntimeError: Numpy is not available"}})])


NODE_NV18 = {"topo": {"gpus": list(range(4)), "links": {"%d-%d" % (i, j): "NV18" for i in range(4) for j in range(4)
                                                         if i < j}},
             "gpus": [{"index": i, "gpu_hash": "h%d" % i, "capability": "9.0", "pcie_gen": 5, "pcie_width": 16}
                      for i in range(4)], "net": [], "ib": []}


def _bandwidth(busbw):
    job = healthy_gpu(4)
    job["ranks"][0]["summary"]["node"] = copy.deepcopy(NODE_NV18)
    job["bandwidth"] = {"rows": [{"op": "all_reduce", "bytes": 1 << 30, "time_s": 0.01, "algbw": busbw / 1.5,
                                  "busbw": busbw, "ranks": 4, "slowest_rank": 0}]}
    return job


def _pairs(slow):
    job = healthy_gpu(4)
    job["pairs"] = [{"what": "rank %d <-> rank %d" % (a, b), "busbw": 200.0, "bytes": 1 << 28}
                    for a in range(4) for b in range(4) if a < b]
    if slow:
        job["pairs"][2]["busbw"] = 20.0
    return job


def _launcher_failed():
    job = make_job([])
    job["launcher_error"] = {"returncode": 1, "error": "ValueError: Cuda is not available.",
                             "command": "python -m torch.distributed.run --standalone --nproc-per-node gpu ..."}
    return job


FIRE = {
    "dist-launcher-failed": _launcher_failed,
    "dist-rank-never-joined": lambda: make_job([summary(), None], joined=[True, False]),
    "dist-rank-exited": _exited,
    "dist-interrupted": _interrupted,
    "dist-gather-failed": _gather_failed,
    "dist-environment-mismatch": lambda: _mismatch("python.executable", "/other/venv/bin/python"),
    "dist-torch-mismatch": lambda: _mismatch("torch.version", "2.5.0+cu121"),
    "dist-cuda-mismatch": lambda: _mismatch("torch.cudnn", 90300, gpu=True),
    "dist-nccl-mismatch": lambda: _mismatch("nccl.torch", "2.20.5", gpu=True),
    "dist-driver-mismatch": lambda: _mismatch("driver.version", "535.104.05", gpu=True),
    "dist-python-mismatch": lambda: _mismatch("python.version", "3.10.14"),
    "dist-package-mismatch": lambda: _mismatch("packages.torchvision", "0.28.0"),
    "dist-env-mismatch": lambda: _mismatch("env.NCCL_DEBUG", "INFO"),
    "dist-gpu-mismatch": lambda: _mismatch("device.name", "NVIDIA A100-SXM4-80GB", gpu=True),
    "dist-shm-mismatch": lambda: _mismatch("shm_bytes", 64 << 20),
    "dist-numpy-missing": _numpy_missing,
    "dist-gpu-shared": _gpu_shared,
    "dist-device-outside-visible": _outside_visible,
    "dist-nccl-debug-left-set": _debug_left_set,
    "dist-nccl-socket-ifname": _ifname_none,
    "dist-omp-unset": _omp_unset,
    "dist-shm-small": _shm_small,
    "dist-init-failed": _init_failed,
    "dist-collective": _wrong,
    "dist-object-collective-failed": _object_failed,
    "dist-bandwidth-below-topology": lambda: _bandwidth(60.0),
    "dist-slow-pair": lambda: _pairs(True),
}

QUIET = {
    "dist-launcher-failed": lambda: healthy_cpu(2),
    "dist-rank-never-joined": lambda: healthy_cpu(2),
    "dist-rank-exited": lambda: healthy_cpu(2),
    "dist-interrupted": lambda: healthy_cpu(2),
    "dist-gather-failed": lambda: healthy_cpu(2),
    "dist-environment-mismatch": lambda: healthy_cpu(3),
    "dist-torch-mismatch": lambda: _mismatch("torch.cuda", None),     # the same value the others have
    "dist-cuda-mismatch": lambda: healthy_gpu(3),
    "dist-nccl-mismatch": lambda: healthy_gpu(3),
    "dist-driver-mismatch": lambda: healthy_gpu(3),
    "dist-python-mismatch": lambda: healthy_cpu(3),
    "dist-package-mismatch": lambda: healthy_cpu(3),
    "dist-env-mismatch": lambda: healthy_cpu(3),
    "dist-gpu-mismatch": lambda: healthy_gpu(3),
    "dist-shm-mismatch": lambda: healthy_cpu(3),
    "dist-numpy-missing": lambda: healthy_cpu(3),
    "dist-gpu-shared": lambda: healthy_gpu(4),
    "dist-device-outside-visible": lambda: healthy_gpu(4),
    "dist-nccl-debug-left-set": lambda: healthy_gpu(2),
    "dist-nccl-socket-ifname": lambda: healthy_gpu(2),
    "dist-omp-unset": lambda: healthy_cpu(4),
    "dist-shm-small": lambda: healthy_gpu(2),
    "dist-init-failed": lambda: make_job([summary()] * 2, backend="gloo",
                                         steps=[step("init", {0: {"status": "ok"}, 1: {"status": "ok"}})]),
    "dist-collective": lambda: make_job([summary()] * 2, backend="gloo", steps=[
        step(n, {0: {"status": "ok"}, 1: {"status": "ok"}}) for n in COLLECTIVE_STEPS]),
    "dist-object-collective-failed": lambda: make_job([summary()] * 2, backend="gloo", steps=[
        step("all_gather_object", {0: {"status": "ok"}, 1: {"status": "ok"}})]),
    "dist-bandwidth-below-topology": lambda: _bandwidth(400.0),
    "dist-slow-pair": lambda: _pairs(False),
}

EMITS = {"dist-collective": "dist-collective-wrong"}


def test_every_condition_has_a_fire_and_a_quiet_fixture():
    assert set(FIRE) == set(C.BY_ID) == set(QUIET)


# The run order of the conditions, as it stood when conditions.py was one module (770dfb8), with
# the environment mismatch (the root of the other mismatches) before them: the CONDITIONS tuple
# must keep it.
RUN_ORDER = [
    "dist-rank-never-joined", "dist-rank-exited", "dist-launcher-failed", "dist-interrupted", "dist-gather-failed",
    "dist-environment-mismatch", "dist-torch-mismatch", "dist-cuda-mismatch", "dist-nccl-mismatch", "dist-driver-mismatch",
    "dist-python-mismatch", "dist-package-mismatch", "dist-env-mismatch", "dist-gpu-mismatch", "dist-shm-mismatch",
    "dist-numpy-missing", "dist-gpu-shared", "dist-device-outside-visible", "dist-nccl-debug-left-set",
    "dist-nccl-socket-ifname", "dist-omp-unset", "dist-shm-small", "dist-init-failed", "dist-collective",
    "dist-object-collective-failed", "dist-bandwidth-below-topology", "dist-slow-pair",
]


def test_conditions_run_in_their_defined_order():
    assert [r.id for r in C.CONDITIONS] == RUN_ORDER


@pytest.mark.parametrize("cid", sorted(FIRE))
def test_condition_fires(cid):
    job = FIRE[cid]()
    got = C.BY_ID[cid].func(job)
    assert got, "%s stayed quiet on its fixture" % cid
    assert all(f.id == EMITS.get(cid, cid) for f in got), [f.id for f in got]
    for f in got:
        assert f.title and f.severity in ("error", "warning", "info") and f.category


@pytest.mark.parametrize("cid", sorted(QUIET))
def test_condition_quiet(cid):
    assert C.BY_ID[cid].func(QUIET[cid]()) == []


def test_healthy_jobs_have_no_findings():
    assert ids(healthy_cpu(4)) == []
    assert ids(healthy_gpu(4)) == []


# ------------------------------------------------------------- naming the odd ranks --
def test_majority_and_minority_are_named_as_the_issue_asks():
    sums = [gpu_summary(r % 4, "n%d-%d" % (r // 4, r % 4)) for r in range(8)]
    sums[5]["torch"]["version"] = "2.5.0+cu121"
    job = make_job(sums, per_node=4, backend="nccl")
    [f] = only(job, "dist-torch-mismatch")
    assert f.severity == "error"
    assert f.detail.startswith("rank 5 (node b, local 1): torch 2.5.0+cu121; ranks 0-4,6-7: 2.5.1+cu124.")
    assert "rank 5 (node b, local 1)" in f.title
    assert f.fix.commands == ["/venv/bin/python -m pip install torch==2.5.1 --index-url https://download.pytorch.org/whl/cu124"]


def test_a_whole_odd_node_is_named_as_a_node():
    sums = [gpu_summary(r % 2, "n%d-%d" % (r // 2, r % 2)) for r in range(6)]
    for r in (2, 3):
        sums[r]["nccl"]["torch"] = "2.18.1"
    [f] = only(make_job(sums, per_node=2, backend="nccl"), "dist-nccl-mismatch")
    assert f.detail.startswith("node b (ranks 2-3): NCCL (torch) 2.18.1; ranks 0-1,4-5: 2.21.5")


def test_env_var_only_one_rank_has():
    job = _mismatch("env.NCCL_DEBUG", "INFO", n=3, odd=2)
    [f] = only(job, "dist-env-mismatch")
    assert f.severity == "warning"
    assert f.detail.startswith("rank 2 (node a, local 2): NCCL_DEBUG=INFO; ranks 0-1: not set")
    assert f.fix.commands == ["unset NCCL_DEBUG"]


def test_env_vars_that_differ_by_design_are_not_compared():
    sums = [summary() for _ in range(2)]
    for r, s in enumerate(sums):
        s["env"].update({"RANK": str(r), "LOCAL_RANK": str(r), "CUDA_VISIBLE_DEVICES": str(r)})
    assert only(make_job(sums), "dist-env-mismatch") == []


def test_an_unrelated_env_difference_is_a_note_only():
    [f] = only(_mismatch("env.PYTHONPATH", "/opt/extra"), "dist-env-mismatch")
    assert f.severity == "info"


def test_python_minor_mismatch_is_an_error_patch_a_warning():
    assert only(_mismatch("python.version", "3.10.14"), "dist-python-mismatch")[0].severity == "error"
    assert only(_mismatch("python.version", "3.11.9"), "dist-python-mismatch")[0].severity == "warning"


def test_package_only_one_rank_has_names_it_and_the_fix():
    [f] = only(_mismatch("packages.torchvision", "0.28.0", n=3, odd=2), "dist-package-mismatch")
    assert "rank 2 (node a, local 2): torchvision 0.28.0; ranks 0-1: not installed" in f.detail
    assert f.fix.commands == ["/venv/bin/python -m pip uninstall -y torchvision"]


def test_ranks_without_facts_are_left_out_of_the_diff():
    job = _gather_failed()
    assert only(job, "dist-torch-mismatch") == []
    assert [f.id for f in C.diagnose(job)] == ["dist-gather-failed"]


# ---------------------------------------------------------------- joins and fates --
def test_never_joined_rank_is_named_with_its_inferred_node():
    job = make_job([summary(), summary(), None, summary()], per_node=2, joined=[True, True, False, True])
    [f] = only(job, "dist-rank-never-joined")
    assert "rank 2 (node b?, local 0?)" in f.detail
    assert f.title.startswith("1 of 4 ranks never joined within 10 s")


def test_never_joined_rank_with_a_launcher_exit_code():
    job = make_job([summary(), None], joined=[True, False])
    job["ranks"][1]["fate"] = {"how": "exited", "exitcode": 1, "reason": "", "step": "join"}
    [f] = only(job, "dist-rank-never-joined")
    assert "exit code 1" in f.detail
    assert only(job, "dist-rank-exited") == []  # named once


def test_exited_rank_carries_its_exit_code_stderr_and_known_error():
    [f] = only(_exited(), "dist-rank-exited")
    assert f.title == "rank 1 (node a, local 1) exited during broadcast"
    assert "exit code 7" in f.detail and "unhandled system error" in f.detail
    assert "[nccl-unhandled-system-error]" in f.detail


def test_killed_rank_names_the_signal_and_the_stopped_victims():
    job = healthy_cpu(3)
    job["ranks"][1]["fate"] = {"how": "gone", "step": "all_reduce", "exitcode": -9, "reason": "killed by SIGKILL"}
    job["ranks"][2]["fate"] = {"how": "terminated", "victim": True, "step": "all_reduce"}
    [f] = only(job, "dist-rank-exited")
    assert "killed by signal 9" in f.detail and "The launcher then stopped rank 2" in f.detail


def test_interrupted_after_a_rank_left_is_only_a_note():
    job = _interrupted()
    assert only(job, "dist-interrupted")[0].severity == "error"
    job["ranks"][1]["fate"] = {"how": "exited", "exitcode": 7, "step": "all_reduce"}
    assert only(job, "dist-interrupted")[0].severity == "info"


# ------------------------------------------------------------------------ placement --
def test_two_ranks_on_one_gpu():
    [f] = only(_gpu_shared(), "dist-gpu-shared")
    assert f.title == "ranks 0-1 share one GPU on node a" and "Duplicate GPU detected" in f.detail


def test_device_outside_visible_devices_is_an_error_per_rank():
    got = only(_outside_visible(), "dist-device-outside-visible")
    assert [f.severity for f in got] == ["error", "error"]
    assert got[0].title.startswith("rank 2 (node a, local 2) has LOCAL_RANK 2 but sees 2 GPU(s)")


def test_one_gpu_per_rank_binding_is_a_warning():
    sums = [gpu_summary(0, "h%d" % r, count=1, visible=str(r)) for r in range(2)]
    [f] = only(make_job(sums, backend="nccl"), "dist-device-outside-visible")
    assert f.severity == "warning" and "CUDA_VISIBLE_DEVICES=1" in f.title


def test_socket_ifname_matching_an_interface_is_a_note():
    job = healthy_gpu(2)
    for r in range(2):
        job["ranks"][r]["summary"]["env"]["NCCL_SOCKET_IFNAME"] = "eth"
    [f] = only(job, "dist-nccl-socket-ifname")
    assert f.severity == "info" and "eth0" in f.title


def test_nccl_knobs_do_not_matter_on_a_cpu_job():
    job = healthy_cpu(2)
    for r in range(2):
        job["ranks"][r]["summary"]["env"].update({"NCCL_P2P_DISABLE": "1", "NCCL_SOCKET_IFNAME": "ib0"})
    assert only(job, "dist-nccl-debug-left-set") == [] and only(job, "dist-nccl-socket-ifname") == []


def test_omp_unset_on_a_single_rank_node_is_quiet():
    job = make_job([summary(), summary()], per_node=1)
    for r in range(2):
        job["ranks"][r]["summary"]["env"].pop("OMP_NUM_THREADS")
    assert only(job, "dist-omp-unset") == []


# ---------------------------------------------------------------------- collectives --
def test_wrong_result_names_the_contributor_once():
    [f] = only(_wrong(), "dist-collective-wrong")
    assert f.title == "all_reduce gave a wrong result: the contribution of rank 1 (node a, local 1) arrived wrong"
    assert "at ranks 0-2: slot 1 is 3, expected 2" in f.detail


def test_timeout_names_who_never_entered_and_gives_flight_recorder_variables():
    per = {0: {"status": "timeout", "entered": True}, 1: {"status": "missing", "entered": False},
           2: {"status": "timeout", "entered": True}}
    job = healthy_gpu(3)
    job["steps"].append(step("all_reduce", per, status="timeout"))
    [f] = only(job, "dist-collective-timeout")
    assert f.title == "all_reduce hung: rank 1 (node a, local 1) never entered it; ranks 0,2 waited in it"
    assert "rank 1 (node a, local 1) never entered all_reduce (no progress reported)" in f.detail
    assert "ranks 0,2 waited inside torch's all_reduce for it" in f.detail
    env = f.fix.commands[0]
    for name in ("TORCH_NCCL_TRACE_BUFFER_SIZE=2000", "TORCH_NCCL_DUMP_ON_TIMEOUT=1", "TORCH_NCCL_DESYNC_DEBUG=1",
                 "NCCL_DEBUG=INFO"):
        assert name in env
    assert "torchfrtrace /tmp -p nccl_trace_rank_" in f.fix.commands


def test_gloo_timeout_gets_gloos_advice_not_the_flight_recorder():
    job = make_job([summary()] * 2, backend="gloo", steps=[step("barrier", {
        0: {"status": "timeout", "entered": True}, 1: {"status": "missing", "entered": False}}, status="timeout")])
    [f] = only(job, "dist-collective-timeout")
    assert "export TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO" in f.fix.commands
    assert f.fix.commands[0] == "py-spy dump --pid 1001  # rank 1, on its node"
    assert "monitored_barrier" in f.fix.summary
    text = " ".join([f.detail, f.fix.summary] + f.fix.commands + f.links)
    assert "flight" not in text.lower() and "NCCL" not in text and "torchfrtrace" not in text


def test_a_hang_names_the_rank_that_never_entered_the_collective():
    """What the ranks report: where each step's thread was at the deadline (inside torch's
    collective, or elsewhere) and their last progress."""
    def waiting(r):
        return {"status": "timeout", "entered": True, "thread": {
            "in_torch": True, "at": "distributed_c10d.py:4200 in all_gather",
            "stack": ["distributed_c10d.py:4200 in all_gather", "c10d_logger.py:81 in wrapper"]},
            "at": {"step": "all_gather", "left": False, "last_left": "broadcast", "ago_s": 5.1,
                   "last_left_ago_s": 5.2}}
    elsewhere = {"status": "timeout", "entered": True, "thread": {
        "in_torch": False, "at": "sitecustomize.py:57 in hang", "stack": ["sitecustomize.py:57 in hang"]},
        "at": {"step": "all_gather", "left": False, "last_left": "broadcast", "ago_s": 14.0, "last_left_ago_s": 14.0}}
    job = make_job([summary()] * 4, backend="gloo", steps=[step("all_gather", {
        0: waiting(0), 1: elsewhere, 2: waiting(2), 3: waiting(3)}, status="timeout")])
    [f] = only(job, "dist-collective-timeout")
    assert f.title == "all_gather hung: rank 1 (node a, local 1) never entered it; ranks 0,2-3 waited in it"
    assert ("rank 1 (node a, local 1) never entered all_gather (last seen: after broadcast, 14 s ago; its step was "
            "at sitecustomize.py:57 in hang)") in f.detail
    # a rank that gave no result at all: its last progress says where it was
    silent = {"status": "missing", "entered": False, "at": {"step": "broadcast", "left": True,
                                                            "last_left": "broadcast", "last_left_ago_s": 21.0}}
    job = make_job([summary()] * 3, backend="gloo", steps=[step("all_gather", {
        0: waiting(0), 1: silent, 2: waiting(2)}, status="timeout")])
    [f] = only(job, "dist-collective-timeout")
    assert f.title.startswith("all_gather hung: rank 1 (node a, local 1) never entered it")
    assert "(last seen: after broadcast, 21 s ago)" in f.detail


def test_a_rank_that_stopped_responding_in_a_hung_collective_is_the_one_blamed_for_the_hang():
    """A stopped rank (SIGSTOP, a frozen node) whose heartbeat stood still before the deadline:
    rank 0 records it as gone, and the hang it caused is its doing, not the waiting rank's."""
    waiting = {"status": "timeout", "entered": True, "thread": {
        "in_torch": True, "at": "distributed_c10d.py:2950 in all_reduce", "stack": ["distributed_c10d.py:2950 in all_reduce"]},
        "at": {"step": "all_reduce", "left": False, "last_left": "barrier", "ago_s": 30.2}}
    job = make_job([summary()] * 2, backend="gloo", steps=[step("all_reduce", {
        0: waiting, 1: {"status": "gone", "entered": True}}, status="timeout")])
    job["ranks"][1]["fate"] = {"how": "gone", "step": "all_reduce", "reason": "no heartbeat for 12 s"}
    [f] = only(job, "dist-collective-timeout")
    assert f.title == "all_reduce hung: rank 1 (node a, local 1) stopped responding in it; rank 0 waited in it"
    assert "rank 1 (node a, local 1) stopped responding in all_reduce (no heartbeat for 12 s)" in f.detail
    assert "py-spy dump --pid 1001  # rank 1" in f.fix.commands[0]
    [gone] = only(job, "dist-rank-exited")
    assert gone.title == "rank 1 (node a, local 1) stopped responding during all_reduce"


def test_a_debug_setting_on_one_rank_is_the_linked_cause_of_the_init_hang():
    job = make_job([summary(), summary(**{"env.TORCH_DISTRIBUTED_DEBUG": "DETAIL"})], backend="gloo", steps=[
        step("init", {0: {"status": "ok"}, 1: {"status": "timeout", "entered": True}}, status="timeout")])
    found = C.diagnose(job)
    assert [f.id for f in found[:2]] == ["dist-env-mismatch", "dist-init-failed"]  # the cause first
    env, init = found[0], found[1]
    assert env.severity == "error" and "likely cause of init failing" in env.detail
    assert "Likely cause: TORCH_DISTRIBUTED_DEBUG differs between ranks" in init.detail
    assert init.fix.summary.startswith("Make the setting above the same on every rank")
    # the advice never asks to set, on some ranks, the variable whose difference is the cause
    assert not any("TORCH_DISTRIBUTED_DEBUG" in c for c in init.fix.commands), init.fix.commands


NVIDIA = {"nvidia-cublas-cu12": "12.6.4.1", "nvidia-cudnn-cu12": "9.5.1.17", "nvidia-nccl-cu12": "2.21.5",
          "nvidia-cusparse-cu12": "12.5.4.2", "nvidia-cufft-cu12": "11.3.0.4", "triton": "3.2.0"}


def test_one_torch_mismatch_is_one_finding_with_its_consequences_under_it():
    odd = summary(**{"torch.version": "2.6.0+cu126", "torch.cuda": "12.6", "torch.cudnn": 90501,
                     "torch.git": "1eba9b3aa3c4", "nccl.wheels": {"nvidia-nccl-cu12": "2.21.5"}})
    odd["packages"].update(NVIDIA)
    job = make_job([summary(), odd, summary()], backend="gloo")
    found = C.diagnose(job)
    assert [f.id for f in found] == ["dist-torch-mismatch"], [(f.id, f.title) for f in found]
    [f] = found
    assert f.title == "torch differs between ranks: rank 1 (node a, local 1)" and f.severity == "error"
    for said in ("torch build (git): 1eba9b3aa3c4", "CUDA (torch build): 12.6 on rank 1 (the others: none)",
                 "cuDNN (torch): 90501", "NCCL wheel nvidia-nccl-cu12", "6 packages: nvidia-cublas-cu12 12.6.4.1"):
        assert said in f.detail, (said, f.detail)
    assert f.fix.commands == ["/venv/bin/python -m pip install torch==2.13.0 --index-url "
                              "https://download.pytorch.org/whl/cpu"]


def test_another_interpreter_is_the_root_and_its_python_runs_the_fixes():
    odd = summary(**{"python.executable": "/opt/venv2/bin/python", "numpy": {
        "ok": False, "error": "ModuleNotFoundError: No module named 'numpy'"}})
    odd["packages"] = {"numpy": None, "torchvision": None}
    job = make_job([summary(), odd, summary()], backend="gloo")
    found = {f.id: f for f in C.diagnose(job)}
    assert set(found) == {"dist-environment-mismatch", "dist-numpy-missing"}, list(found)
    env = found["dist-environment-mismatch"]
    assert env.title == "rank 1 (node a, local 1) runs another Python environment: /opt/venv2/bin/python"
    assert "1 package: numpy not installed (others: 2.4.6)" in env.detail
    assert env.fix.commands[0] == "/opt/venv2/bin/python -m pip freeze > odd-rank-packages.txt"
    np_ = found["dist-numpy-missing"]
    assert np_.fix.commands[0] == "/opt/venv2/bin/python -m pip install numpy"
    assert "another environment than the other ranks'" in np_.fix.summary and "/opt/venv2/bin/python" in np_.fix.summary


def test_unsupported_reduce_scatter_is_a_note():
    job = make_job([summary()] * 2, backend="gloo", steps=[step("reduce_scatter", {
        0: {"status": "unsupported", "error": "RuntimeError: ProcessGroupGloo does not support reduce_scatter"},
        1: {"status": "unsupported", "error": "x"}}, backend="gloo")])
    [f] = only(job, "dist-collective-unsupported")
    assert f.severity == "info" and f.title == "reduce_scatter is not supported by gloo here; skipped"


def test_rank_that_left_during_a_collective_is_the_cause_not_the_others():
    job = make_job([summary()] * 2, backend="gloo", steps=[step("broadcast", {
        0: {"status": "error", "error": "RuntimeError: [/x/gloo/transport/tcp/pair.cc:537] Read error [127.0.0.1]:4: "
                                        "Connection reset by peer. This is typically caused by a remote worker"},
        1: {"status": "gone", "entered": True}}, status="error")])
    [f] = only(job, "dist-collective-failed")
    assert f.title == "broadcast failed: rank 1 (node a, local 1) left during it"
    assert "Read error [127.0.0.1]:4: Connection reset by peer." in f.detail and "pair.cc" not in f.detail


# ------------------------------------------------------------------------ bandwidth --
def test_bandwidth_shortfall_states_the_threshold_and_the_bound():
    [f] = only(_bandwidth(60.0), "dist-bandwidth-below-topology")
    assert "13% of what NV18 (18 NVLink x 25 GB/s per direction) should reach (450 GB/s)" in f.title
    assert "Flagged below 50% of it" in f.detail


def test_bandwidth_of_small_messages_is_not_judged():
    job = _bandwidth(1.0)
    job["bandwidth"]["rows"][0]["bytes"] = 1 << 20
    assert only(job, "dist-bandwidth-below-topology") == []


def test_no_expectation_on_gloo():
    job = _bandwidth(1.0)
    job["backend"] = "gloo"
    assert expected_bound(job) is None and only(job, "dist-bandwidth-below-topology") == []


def test_a_broken_condition_is_a_finding_not_a_traceback(monkeypatch):
    from torchdoctor.model.rules import rule

    @rule("dist", "dist-boom", severity="error", category="dist-rank")
    def boom(job):
        raise KeyError("x")
    monkeypatch.setattr(C, "CONDITIONS", C.CONDITIONS + (boom.rule,))
    [crash] = [f for f in C.diagnose(healthy_cpu(2)) if f.id == "rule-crashed"]
    assert crash.check == "dist-boom" and crash.severity == "warning" and crash.category == "internal"


def test_a_step_cut_short_by_the_launcher_is_unfinished_not_failed():
    job = make_job([summary()] * 2, backend="gloo", interrupted="SIGTERM during all_gather 64 KiB", steps=[
        step("all_gather 64 KiB", {0: {"status": "missing", "entered": True}, 1: {"status": "missing", "entered": True}},
             status="interrupted", kind="all_gather 64 KiB")])
    [f] = only(job, "dist-collective-unfinished")
    assert f.title == "all_gather 64 KiB had not finished on ranks 0-1 when the run was stopped"
    assert only(job, "dist-collective-failed") == []


def test_a_rank_that_died_before_joining_shows_its_stderr_and_the_known_error():
    job = make_job([summary(), None], joined=[True, False])
    job["steps"][0].update(status="interrupted", seconds=1.2)
    job["ranks"][1]["fate"] = {"how": "exited", "exitcode": 1, "reason": "", "step": "join", "stderr_tail":
                               "torchdoctor: error: rank 1: import torch failed (ImportError: libtorch_cuda.so: "
                               "cannot open shared object file: No such file or directory)"}
    [f] = only(job, "dist-rank-never-joined")
    assert f.title == "1 of 2 ranks had not joined when the run was stopped (after 1 s): rank 1 (node a?, local 1?)"
    assert "Last lines of rank 1's stderr:\n    torchdoctor: error: rank 1: import torch failed" in f.detail
    assert "\nKnown error: " in f.detail


def test_launcher_failure_fix_for_gpu_without_a_gpu():
    [f] = only(_launcher_failed(), "dist-launcher-failed")
    assert f.title == "torchrun failed before any rank ran: ValueError: Cuda is not available."
    assert "needs a visible GPU" in f.fix.summary
