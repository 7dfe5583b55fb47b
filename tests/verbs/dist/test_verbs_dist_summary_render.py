"""A rank's summary (from probe facts), its redaction, and the three renderings of a job."""

import io
import json
import os
import sys

from conftest import make_facts

# The job fixtures of the conditions' tests (tests/verbs/dist/conditions/), whichever folder pytest reads first.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "conditions"))
from test_verbs_dist_conditions import _exited, _mismatch, _wrong, healthy_cpu, make_job, summary
from torchdoctor.verbs.dist import render as R
from torchdoctor.verbs.dist import summary as S
from torchdoctor.verbs.dist.common import Options
from torchdoctor.render.style import Style
from torchdoctor.model.facts import absent

UUID = "8a1b2c3d-0000-1111-2222-333344445555"


def gpu_facts():
    return make_facts(
        python={"version": "3.11.7", "implementation": "CPython"},
        torch={"version": "2.5.1+cu124", "cuda": "12.4", "hip": absent("not built with it"),
               "git_version": "a8d6afb511a69687bbb2b7e88a3cf67917e1697e"},
        backends={"cudnn": {"version": 90100}},
        packages={"installed": {"torch": {"version": "2.5.1+cu124"}, "numpy": {"version": "2.1.0"},
                                "nvidia-nccl-cu12": {"version": "2.21.5"}, "pip": {"version": "24.0"},
                                "torchvision": absent("not installed")}},
        cuda={"is_available": True, "device_count": 2, "nccl_version": "2.21.5",
              "devices": [{"index": i, "name": "NVIDIA A100-SXM4-80GB", "capability": [8, 0],
                           "total_memory": 80 << 30, "uuid": UUID[:-1] + str(i)} for i in range(2)]},
        driver={"driver_version": "550.54.15", "cuda_driver_version": "12.4"},
        env={"CUDA_HOME": absent("not set"), "NCCL_DEBUG": "INFO",
             "LD_LIBRARY_PATH": "/home/alice/venv/lib:/usr/local/cuda/lib64"},
        cpu={"affinity_cores": 64}, memory={"shm_bytes": 64 << 20}, probe={"completed": True})


def test_summary_of_a_gpu_rank():
    s = S.build(gpu_facts(), {"GLOO_SOCKET_IFNAME": "eth0", "CUDA_VISIBLE_DEVICES": "0,1"}, local_rank=1,
                ifaces=["eth0", "lo"])
    assert s["torch"] == {"version": "2.5.1+cu124", "cuda": "12.4", "hip": None, "cudnn": 90100, "git": "a8d6afb511a6"}
    assert s["nccl"]["torch"] == "2.21.5" and s["nccl"]["wheels"] == {"nvidia-nccl-cu12": "2.21.5"}
    assert s["packages"] == {"numpy": "2.1.0", "torchvision": None}   # torch, pip, the NCCL wheel elsewhere
    assert s["env"] == {"GLOO_SOCKET_IFNAME": "eth0", "LD_LIBRARY_PATH": "/home/alice/venv/lib:/usr/local/cuda/lib64",
                        "NCCL_DEBUG": "INFO"}
    assert s["cuda"] == {"available": True, "device_count": 2, "visible": "0,1"}
    assert s["device"]["index"] == 1 and s["device"]["capability"] == "8.0"
    assert s["device"]["gpu_hash"] and s["device"]["gpu_hash"] != S.topology.gpu_hash(UUID[:-1] + "0")
    assert s["shm_bytes"] == 64 << 20 and s["cores"] == 64 and s["probe"]["ok"]


def test_summary_leaves_out_what_the_self_launcher_set():
    s = S.build(gpu_facts(), {"GLOO_SOCKET_IFNAME": "lo", "TORCHDOCTOR_DIST_SET": "GLOO_SOCKET_IFNAME"}, 0, ifaces=[])
    assert "GLOO_SOCKET_IFNAME" not in s["env"]


def test_summary_without_facts_says_why():
    s = S.build(None, {}, 0, probe_error="the probe did not finish within 5 s", ifaces=[])
    assert s["probe"] == {"ok": False, "error": "the probe did not finish within 5 s", "seconds": None,
                          "mode": "in-process"}
    assert s["cuda"]["available"] is False and s["device"] is None


def test_device_index_policy():
    assert [S.device_index(lr, 4) for lr in (0, 3, 5)] == [0, 3, 1]
    assert S.device_index(3, 1) == 0 and S.device_index(0, 0) is None and S.device_index(None, 2) == 0


def test_redaction_keeps_what_rank_0_compares():
    s = S.build(gpu_facts(), {}, 1, ifaces=[])
    s["env"]["HF_TOKEN"] = "hf_abcdefghijklmnopqrstuvwxyz0123"
    out = S.redact(s, {"USER": "alice", "HOME": "/home/alice"})
    assert out["env"]["LD_LIBRARY_PATH"] == "/home/<user>/venv/lib:/usr/local/cuda/lib64"
    assert out["env"]["HF_TOKEN"] == "<secret>"
    assert out["device"]["gpu_hash"] == s["device"]["gpu_hash"]   # two ranks on one GPU stay detectable
    assert out["redacted"]["secret"] == 1


def test_numpy_state_reports_the_import_error(monkeypatch):
    import builtins
    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "numpy":
            raise ModuleNotFoundError("No module named 'numpy'")
        return real(name, *a, **k)
    monkeypatch.setattr(builtins, "__import__", fake)
    assert S.numpy_state() == {"ok": False, "error": "ModuleNotFoundError: No module named 'numpy'"}


# ------------------------------------------------------------------------ render --
def _finish(job):
    from torchdoctor.verbs.dist import conditions as C
    job["findings"] = [f.to_dict() for f in C.diagnose(job)]
    job.setdefault("collected_at", "2026-01-01T00:00:00+0000")
    job.setdefault("tool", {"version": "0.1.0"})
    return job


def test_text_names_nodes_steps_and_findings():
    job = _finish(_mismatch("env.NCCL_DEBUG", "INFO"))
    job["backend"], job["backend_why"] = "gloo", "no rank has a CUDA device"
    text = R.render_text(job, Style(color=False))
    assert text.startswith("torchdoctor dist: 3 ranks on 1 node, gloo (no rank has a CUDA device), torch 2.13.0+cpu")
    assert "  node a  host0  ranks 0-2 (local 0-2)" in text
    assert "! WARNING NCCL_DEBUG differs between ranks: rank 1 (node a, local 1)" in text
    assert "Findings: 0 error(s), 1 warning(s), 0 note(s)" in text


def test_bandwidth_table_and_formula():
    job = _finish(healthy_cpu(2))
    job["backend"] = "gloo"
    job["plan"] = {"iters": 5, "warmup": 1}
    job["bandwidth"] = {"rows": [{"op": "all_reduce", "bytes": 1 << 20, "time_s": 0.002, "algbw": 0.524,
                                  "busbw": 0.524, "ranks": 2, "slowest_rank": 1}]}
    text = R.render_text(job, Style(color=False))
    assert "busbw = algbw x 2(n-1)/n for all_reduce" in text
    assert "all_reduce  1 MiB  2.00 ms  0.52" in text
    assert "gloo/CPU: measured only" in text


def test_markdown_is_redacted_and_carries_the_job():
    job = _finish(_exited())
    job["ranks"][0]["where"]["host"] = job["nodes"][0]["host"] = "gpu-node-17.example.org"
    job["ranks"][1]["fate"]["stderr_tail"] = "error at gpu-node-17.example.org 10.1.2.3"
    red = R.redact_job(job)
    md = R.render_markdown(red)
    assert "gpu-node-17" not in md and "10.1.2.3" not in md
    assert md.startswith("## torchdoctor dist report")
    assert "> Redacted: " in md and "rank 1 (node a, local 1) exited during broadcast" in md
    payload = md.split("```json\n", 1)[1].split("\n```", 1)[0]
    assert json.loads(payload)["kind"] == "torchdoctor-dist"
    assert "NOT REDACTED" in R.render_markdown(job)


def test_emit_survives_a_closed_reader_and_reports_a_full_disk(tmp_path):
    job = _finish(_wrong())

    class Broken(io.StringIO):
        def write(self, s):
            raise BrokenPipeError()

    class Full(io.StringIO):
        def write(self, s):
            raise OSError(28, "No space left on device")

    opts = Options(as_json=True)
    assert R.emit(job, opts, 1, stream=Broken()) == 1
    assert R.emit(job, opts, 1, stream=Full()) == 2
    opts = Options(report=str(tmp_path / "r.md"))
    out = io.StringIO()
    assert R.emit(job, opts, 1, stream=out) == 1
    assert (tmp_path / "r.md").read_text().startswith("## torchdoctor dist report")
    assert R.emit(job, Options(report=str(tmp_path / "no" / "r.md")), 1, stream=io.StringIO()) == 2


def test_json_is_versioned():
    job = _finish(make_job([summary()]))
    d = json.loads(R.render_json(job))
    assert d["schema_version"] == 1 and d["kind"] == "torchdoctor-dist"


def test_four_part_versions_are_versions_not_addresses():
    """nvidia-cublas-cu12 13.1.1.3 and cuDNN's 9.24.0.43 look like IPv4 addresses; in a version
    they stay (as `report` keeps them), while an address in the environment is still redacted."""
    f = gpu_facts()
    inst = f.value("packages.installed")
    inst.update({"nvidia-cublas-cu12": {"version": "13.1.1.3"}, "nvidia-cudnn-cu12": {"version": "9.24.0.43"},
                 "nvidia-nccl-cu12": {"version": "2.28.9.1"}})
    s = S.build(f, {"MASTER_ADDR": "10.20.30.40", "NCCL_SOCKET_IFNAME": "eth0"}, 0, ifaces=[])
    s["env"]["NCCL_IB_HCA"] = "mlx5_0 at 10.20.30.41"
    out = S.redact(s, {})
    assert out["packages"]["nvidia-cublas-cu12"] == "13.1.1.3" and out["packages"]["nvidia-cudnn-cu12"] == "9.24.0.43"
    assert out["nccl"]["wheels"] == {"nvidia-nccl-cu12": "2.28.9.1"}
    assert out["env"]["NCCL_IB_HCA"] == "mlx5_0 at <ip>"
    # the Markdown report redacts the job again, findings included: the versions in their words stay too
    other = json.loads(json.dumps(out))
    other["packages"]["nvidia-cublas-cu12"] = "12.8.4.1"
    job = make_job([out, other, json.loads(json.dumps(other))])
    job["findings"] = [x.to_dict() for x in __import__("torchdoctor.verbs.dist.conditions",
                                                        fromlist=["diagnose"]).diagnose(job)]
    md = R.render_markdown(R.redact_job(job))
    assert "13.1.1.3" in md and "12.8.4.1" in md and "9.24.0.43" in md, md[:3000]
    assert "10.20.30.41" not in md and "<ip>" in md
