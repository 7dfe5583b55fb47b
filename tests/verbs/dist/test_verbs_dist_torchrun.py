"""torchdoctor dist through real torchrun processes (CPU torch, gloo, 2-3 local ranks).

Four jobs, each a real `python -m torch.distributed.run` (started by the test, or by
`torchdoctor dist --nproc-per-node` itself):

* healthy: every step passes, results verified, bandwidth table, Markdown report;
* odd ranks: rank 1 has an env var the others lack, corrupts its all_reduce
  contribution and hangs in the sweep's all_gather (a collective timeout); rank 2 has
  another companion package on its own PYTHONPATH and cannot import NumPy (a meta-path
  finder), so the store-based gather must work without it;
* a rank that never joins (its wrapper sleeps instead of exec'ing);
* a rank that exits during the collectives (os._exit(7) inside broadcast);
* srun's variables instead of torchrun (two processes the test starts itself; rank 0
  hosts the store): every step passes, OMP_NUM_THREADS is found unset (srun does not set
  it), and rank 1 prints nothing.

Ranks are made to differ with `torchrun --no-python` and a per-rank wrapper, or with a
sitecustomize on PYTHONPATH that acts only in one RANK. Afterwards no process of the job
may be left (each job's processes carry a marker in their environment).
"""

import json
import os
import subprocess
import time
import uuid

import pytest

from conftest import TORCH_PYTHON, needs_torch
from dist_jobs import FAULTS, WRAPPER  # the fault tests' sitecustomize and per-rank wrapper

pytestmark = needs_torch

FAST = ["--timeout", "60", "--sizes", "64K,256K", "--iters", "2", "--warmup", "0"]


def _env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TDTEST_", "RANK", "WORLD_SIZE", "MASTER_",
                                                                    "LOCAL_RANK", "TORCHELASTIC_", "SLURM_"))}
    env["TDTEST_MARK"] = "torchdoctor-test-%s" % uuid.uuid4().hex
    env["PYTHONUNBUFFERED"] = "1"
    env.update(extra)
    return env


def _run(cmd, env, cwd, timeout=300):
    t0 = time.monotonic()
    p = subprocess.run(cmd, env=env, cwd=str(cwd), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), \
        time.monotonic() - t0


def _leftovers(mark, wait=10.0):
    """Processes still carrying this job's marker (ranks, wrappers, torchrun), after a grace."""
    import psutil
    deadline = time.monotonic() + wait
    while True:
        left = []
        for p in psutil.process_iter(["pid"]):
            try:
                if p.environ().get("TDTEST_MARK") == mark and p.status() != psutil.STATUS_ZOMBIE:
                    left.append(p)
            except (psutil.Error, OSError):
                pass
        if not left or time.monotonic() > deadline:
            return [(p.pid, p.cmdline()[:4]) for p in left if p.is_running()]
        time.sleep(0.3)


def _faults_dir(tmp_path):
    d = tmp_path / "faults"
    d.mkdir()
    (d / "sitecustomize.py").write_text(FAULTS)
    return d


def _wrapper(tmp_path, ranks, command):
    (tmp_path / "wrapper.py").write_text(WRAPPER)
    (tmp_path / "ranks.json").write_text(json.dumps(ranks))
    (tmp_path / "cmd.json").write_text(json.dumps(command))
    return str(tmp_path / "wrapper.py")


def _torchrun(nproc, wrapper):
    return [TORCH_PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
            "--no-python", TORCH_PYTHON, wrapper]


def _finding(job, fid, needle=""):
    hits = [f for f in job["findings"] if f["id"] == fid and needle in f["title"] + f["detail"]]
    assert hits, "no %s finding with %r in %s" % (fid, needle, [(f["id"], f["title"]) for f in job["findings"]])
    return hits[0]


def test_healthy_job_started_by_torchdoctor(tmp_path):
    env = _env(tmp_path)
    report = tmp_path / "dist.md"
    rc, out, err, took = _run([TORCH_PYTHON, "-m", "torchdoctor", "dist", "--nproc-per-node", "2", "--json",
                               "--report", str(report), "--join-timeout", "120", "--pairs"] + FAST, env, tmp_path)
    assert rc == 0, (out[-2000:], err[-3000:])
    assert "Traceback" not in out + err
    job = json.loads(out)
    assert job["schema_version"] == 1 and job["kind"] == "torchdoctor-dist" and job["complete"]
    assert job["backend"] == "gloo" and job["world_size"] == 2 and len(job["nodes"]) == 1
    status = {s["name"]: s["status"] for s in job["steps"]}
    for name in ("join", "gather", "init", "barrier", "all_reduce", "all_gather", "broadcast", "all_gather_object"):
        assert status[name] == "ok", (name, status)
    assert status["reduce_scatter"] in ("ok", "unsupported")  # gloo lacks it on CPU in some versions
    for name in ("all_reduce", "all_gather", "broadcast"):
        st = next(s for s in job["steps"] if s["name"] == name)
        assert all(v["status"] == "ok" and v.get("wrong") == [] for v in st["per_rank"].values())
    rows = job["bandwidth"]["rows"]
    assert [(r["op"], r["bytes"]) for r in rows] == [("all_reduce", 65536), ("all_reduce", 262144),
                                                     ("all_gather", 65536), ("all_gather", 262144)]
    for r in rows:
        assert r["time_s"] > 0 and r["busbw"] == pytest.approx(r["algbw"] * (1.0 if r["op"] == "all_reduce" else 0.5))
    assert [(p["what"], p["bytes"]) for p in job["pairs"]] == [("rank 0 <-> rank 1", 262144)]
    assert all(rec["summary"]["probe"]["ok"] for rec in job["ranks"])
    assert not [f for f in job["findings"] if f["severity"] != "info"], job["findings"]
    assert job["launcher"]["self_launched"] and job["launcher"]["leftover_processes_ended"] == 0
    md = report.read_text()
    assert md.startswith("## torchdoctor dist report") and "> Redacted:" in md
    import socket
    host = socket.gethostname()
    if len(host) >= 3:
        assert host not in md
    assert _leftovers(env["TDTEST_MARK"]) == []


def test_odd_ranks_are_named_and_gather_works_without_numpy(tmp_path):
    faults = _faults_dir(tmp_path)
    comp = tmp_path / "companion"
    (comp / "torchvision").mkdir(parents=True)
    (comp / "torchvision" / "__init__.py").write_text("")
    info = comp / "torchvision-0.28.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: torchvision\nVersion: 0.28.0\n")
    (comp / "sitecustomize.py").write_text(FAULTS)
    ranks = {"1": {"env": {"NCCL_DEBUG": "WARN", "TDTEST_FAULTS": "corrupt_all_reduce,hang_in_sweep"},
                   "pythonpath": str(faults)},
             "2": {"env": {"TDTEST_FAULTS": "hide_numpy"}, "pythonpath": str(comp)}}
    wrapper = _wrapper(tmp_path, ranks, [TORCH_PYTHON, "-m", "torchdoctor", "dist"])
    env = _env(tmp_path)
    rc, out, err, took = _run(_torchrun(3, wrapper) + ["--json", "--join-timeout", "120"] + FAST + ["--timeout", "5"],
                              env, tmp_path)
    assert rc == 1, (out[-2000:], err[-3000:])  # errors found; torchrun passes rank 0's exit status on
    job = json.loads(out)
    # the store-based gather: every rank's facts arrived, rank 2's without NumPy
    assert [rec["rank"] for rec in job["ranks"] if rec.get("summary")] == [0, 1, 2]
    assert job["ranks"][2]["summary"]["numpy"]["ok"] is False
    env_f = _finding(job, "dist-env-mismatch", "NCCL_DEBUG")
    assert env_f["title"] == "NCCL_DEBUG differs between ranks: rank 1 (node a, local 1)"
    assert env_f["detail"].startswith("rank 1 (node a, local 1): NCCL_DEBUG=WARN; ranks 0,2: not set")
    pkg = _finding(job, "dist-package-mismatch", "torchvision")
    assert pkg["title"] == "torchvision differs between ranks: rank 2 (node a, local 2)"
    assert "rank 2 (node a, local 2): torchvision 0.28.0; ranks 0-1: not installed" in pkg["detail"]
    assert _finding(job, "dist-numpy-missing")["title"] == "NumPy cannot be imported on rank 2 (node a, local 2)"
    # the control: torch's own object gather needs NumPy on that rank, and fails there
    obj = _finding(job, "dist-object-collective-failed")
    assert "rank 2 (node a, local 2)" in obj["title"] and "Numpy is not available" in obj["detail"]
    wrong = _finding(job, "dist-collective-wrong")
    assert wrong["title"] == ("all_reduce gave a wrong result: the contribution of rank 1 (node a, local 1) "
                              "arrived wrong")
    assert {r["op"] for r in job["bandwidth"]["rows"]} == {"all_reduce"}  # the sweep ran on, up to the hang
    hang = _finding(job, "dist-collective-timeout")
    # the rank that never reached torch's all_gather is named, apart from those that waited in it
    assert hang["title"] == "all_gather 64 KiB hung: rank 1 (node a, local 1) never entered it; ranks 0,2 waited in it"
    assert "rank 1 (node a, local 1) never entered all_gather 64 KiB (last seen: after all_reduce 256 KiB" in \
        hang["detail"] and "in hang" in hang["detail"]  # its thread's frame: the fault's sleeping function
    assert "export TORCH_DISTRIBUTED_DEBUG=DETAIL TORCH_CPP_LOG_LEVEL=INFO" in hang["fix"]["commands"]
    assert "flight" not in json.dumps(hang).lower()  # gloo: gloo's advice, not NCCL's flight recorder
    st = next(s for s in job["steps"] if s["name"] == "all_gather 64 KiB")
    assert st["status"] == "timeout" and st["seconds"] < 5 + 5 + 5   # --timeout, rank 0's slack, scheduling
    assert next(s for s in job["steps"] if s["name"] == "all_gather 256 KiB")["status"] == "skipped"
    assert _leftovers(env["TDTEST_MARK"]) == []


def test_rank_that_never_joins_is_named_within_the_join_timeout(tmp_path):
    console = os.path.join(os.path.dirname(TORCH_PYTHON), "torchdoctor")
    command = [console] if os.path.exists(console) else [TORCH_PYTHON, "-m", "torchdoctor"]
    wrapper = _wrapper(tmp_path, {"1": {"sleep": 300}}, command + ["dist"])  # `--no-python torchdoctor dist`
    env = _env(tmp_path)
    rc, out, err, took = _run(_torchrun(2, wrapper) + ["--json", "--join-timeout", "3"] + FAST, env, tmp_path)
    assert rc == 1, (out[-2000:], err[-3000:])
    job = json.loads(out)
    join = job["steps"][0]
    assert join["name"] == "join" and join["status"] == "failed" and join["missing"] == [1]
    assert join["seconds"] < 3 + 3
    f = _finding(job, "dist-rank-never-joined")
    assert f["title"] == "1 of 2 ranks never joined within 3 s: rank 1 (node a?, local 1?)"
    assert not [s for s in job["steps"] if s["name"] == "all_reduce"]  # no collective without every rank
    assert took < 300 - 30  # the sleeper was ended, not waited for
    assert _leftovers(env["TDTEST_MARK"]) == []


def test_rank_that_exits_during_the_collectives(tmp_path):
    faults = _faults_dir(tmp_path)
    env = _env(tmp_path, TDTEST_FAULTS="exit_in_broadcast", TDTEST_FAULT_RANK="1", PYTHONPATH=str(faults))
    rc, out, err, took = _run([TORCH_PYTHON, "-m", "torchdoctor", "dist", "--nproc-per-node", "2", "--json",
                               "--join-timeout", "120"] + FAST, env, tmp_path)
    assert rc == 1, (out[-2000:], err[-3000:])
    assert "Traceback" not in out + err
    job = json.loads(out)
    f = _finding(job, "dist-rank-exited")
    assert f["title"] == "rank 1 (node a, local 1) exited during broadcast"
    assert "exit code 7" in f["detail"]
    assert job["launcher"]["exits"]["1"]["exitcode"] == 7
    status = {s["name"]: s["status"] for s in job["steps"]}
    assert status["all_reduce"] == "ok" and status["broadcast"] in ("error", "interrupted")
    bc = next(s for s in job["steps"] if s["name"] == "broadcast")
    assert bc.get("seconds", 0) < 60  # noticed when the rank left, not at the collective's timeout
    assert _leftovers(env["TDTEST_MARK"]) == []


def _listening(mark):
    """(command line, address) of every TCP socket that a process of this job listens on."""
    import psutil
    out = []
    for p in psutil.process_iter(["pid"]):
        try:
            if p.environ().get("TDTEST_MARK") != mark:
                continue
            conns = p.net_connections(kind="tcp") if hasattr(p, "net_connections") else p.connections(kind="tcp")
            out += [(" ".join(p.cmdline()[1:4]), c.laddr.ip) for c in conns if c.status == psutil.CONN_LISTEN]
        except (psutil.Error, OSError):
            pass
    return out


def test_a_killed_launcher_leaves_nothing_running_and_its_stores_listened_on_loopback_only(tmp_path):
    faults = _faults_dir(tmp_path)
    flag = tmp_path / "hanging"
    env = _env(tmp_path, TDTEST_FAULTS="hang_in_sweep", TDTEST_HANG_FLAG=str(flag), PYTHONPATH=str(faults))
    p = subprocess.Popen([TORCH_PYTHON, "-m", "torchdoctor", "dist", "--nproc-per-node", "2", "--json",
                          "--join-timeout", "120"] + FAST, env=env, cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 240
        while not all(os.path.exists("%s.%d" % (flag, r)) for r in (0, 1)) and time.monotonic() < deadline:
            assert p.poll() is None, "the job ended before its ranks hung"
            time.sleep(0.2)
        # every store and gloo listener of the job is up now
        listening = _listening(env["TDTEST_MARK"])
        assert len([c for c, _ in listening if "--standalone" in c]) >= 2, listening  # torchrun's two stores
        assert {ip for _, ip in listening} == {"127.0.0.1"}, listening
        p.kill()
        p.wait(timeout=30)
        assert _leftovers(env["TDTEST_MARK"], wait=60) == []
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


def test_srun_variables_without_torchrun(tmp_path):
    import socket
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    base = _env(tmp_path, SLURM_NTASKS="2", SLURM_NODEID="0", SLURM_STEP_TASKS_PER_NODE="2",
                SLURM_STEP_NODELIST="localhost", SLURM_JOB_ID="4242", SLURM_STEP_ID="0", MASTER_ADDR="127.0.0.1",
                MASTER_PORT=str(port), GLOO_SOCKET_IFNAME="lo")
    base.pop("OMP_NUM_THREADS", None)
    cmd = [TORCH_PYTHON, "-m", "torchdoctor", "dist", "--json", "--no-bandwidth", "--join-timeout", "120",
           "--timeout", "60"]
    procs = []
    for r in (0, 1):
        env = dict(base, SLURM_PROCID=str(r), SLURM_LOCALID=str(r))
        procs.append(subprocess.Popen(cmd, env=env, cwd=str(tmp_path), stdin=subprocess.DEVNULL,
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE))
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [o[1].decode()[-2000:] for o in outs]
    job = json.loads(outs[0][0])
    assert job["launcher"]["name"] == "slurm" and job["launcher"]["run_id"] == "slurm-4242.0"
    assert all(s["status"] in ("ok", "unsupported") for s in job["steps"]), job["steps"]
    # srun does not set OMP_NUM_THREADS (torchrun does): two ranks on one node, each with every core
    assert [(f["id"], f["title"]) for f in job["findings"] if f["severity"] != "info"] == [
        ("dist-omp-unset", "OMP_NUM_THREADS is unset with 2 ranks on node a")]
    assert outs[1] == (b"", b"")  # other ranks print nothing unless they fail on their own
    assert _leftovers(base["TDTEST_MARK"]) == []
