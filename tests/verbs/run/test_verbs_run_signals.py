"""surfaces/signals.py and its data: every explanation cites its sources, names real KB
entries, and fires only where it should."""

import os
import re
import signal

import pytest

from conftest import REFERENCE
from torchdoctor.kb.errors import get_entry
from torchdoctor.verbs.run.signals import explain_death, load, oom_kill_count


def test_the_data_is_complete_and_sourced():
    d = load()
    for name, spec in d["signals"].items():
        assert hasattr(signal, name), name
        assert spec["title"].startswith("{who} ") and spec["meaning"]
        assert spec["sources"] and all(k in d["sources"] for k in spec["sources"]), name
        assert all(get_entry(eid) is not None for eid in spec["related"]), name
        assert all(s in d["steps"] for s in spec["steps"]), name
    for key, step in d["steps"].items():
        assert step["commands"] and all(k in d["sources"] for k in step["sources"]), key
    for key, src in d["sources"].items():
        assert src.startswith("https://") or "NOTES.md" in src or ".py" in src, key
    assert re.compile(d["torchrun"]["pattern"])


def test_the_torch_facts_match_the_shared_reference():
    notes = os.path.join(REFERENCE, "NOTES.md")
    if not os.path.exists(notes):
        pytest.skip("the shared reference (../shared/reference beside the checkout) is not here")
    text = open(notes, encoding="utf-8").read()
    row = next(ln for ln in text.splitlines() if ln.startswith("| `TORCH_SHOW_CPP_STACKTRACES=1`"))
    assert "Appends C++ stack traces to errors" in row
    row = next(ln for ln in text.splitlines() if "`TORCH_NCCL_*`" in ln)
    assert "1 = abort communicator and tear down the process" in row and "default 3" in row
    src = load()["sources"]["torch_env"]
    assert "'Appends C++ stack traces to errors'" in src and "'abort communicator and tear down the process'" in src


def test_fires_for_deaths_by_signal_and_stays_quiet_otherwise():
    seg = explain_death(-signal.SIGSEGV, argv=["python", "train.py"])
    assert seg["signal"] == "SIGSEGV" and seg["title"] == "The program was killed by SIGSEGV (segmentation fault)"
    assert any("PYTHONFAULTHANDLER=1 torchdoctor run -- python train.py" in c for s in seg["steps"] for c in s["commands"])
    assert [r["id"] for r in seg["related"]] == ["torch-import-segfault", "extension-load-library-crash"]
    assert explain_death(0) is None and explain_death(1) is None and explain_death(2, "Traceback ...") is None
    assert explain_death(-signal.SIGINT) is None and explain_death(-signal.SIGPIPE) is None
    assert explain_death(-signal.SIGTERM, forwarded=signal.SIGTERM) is None  # the user asked for it
    assert explain_death(-signal.SIGTERM)["title"] == "The program was stopped by SIGTERM"


def test_a_shell_or_launcher_reporting_a_signal():
    assert explain_death(128 + signal.SIGKILL, argv=["bash", "train.sh"]) is None  # nothing says it died
    assert explain_death(139, "epoch 1 loss 0.5\n", argv=["python", "train.py"]) is None  # sys.exit(139)
    x = explain_death(128 + signal.SIGKILL, "train.sh: line 3:  4242 Killed                  python train.py\n",
                      argv=["bash", "train.sh"])
    assert x["signal"] == "SIGKILL" and x["who"] == "a process it ran"
    assert x["exit_note"] == "exit status 137 is how a shell or launcher reports that a process it ran was " \
                             "killed by SIGKILL (128 + 9)"
    tail = ("[rank1]: ... \nroot:\n  time      : 2026-01-01_00:00:00\n  rank      : 1 (local_rank: 1)\n"
            "  exitcode  : -11 (pid: 4242)\n  error_file: <N/A>\n  traceback : Signal 11 (SIGSEGV) received by PID 4242\n")
    x = explain_death(1, tail)
    assert x["signal"] == "SIGSEGV" and x["who"] == "rank 1 of the job (local rank 1, PID 4242)"
    assert x["title"] == "Rank 1 of the job (local rank 1, PID 4242) was killed by SIGSEGV (segmentation fault)"
    assert explain_death(128 + 200) is None
    for said in ("Segmentation fault (core dumped)", "zsh: segmentation fault  python x.py", "Signal 11 received",
                 "exited on signal 11 (SIGSEGV)"):
        assert explain_death(139, "step 9\n%s\n" % said)["signal"] == "SIGSEGV", said


def test_oom_counter_and_faulthandler_notes():
    k = explain_death(-signal.SIGKILL, oom_before=3, oom_after=4)
    assert k["oom_kills"] == 1 and "OOM killer killed 1 process(es)" in k["notes"][0]
    k = explain_death(-signal.SIGKILL, oom_before=3, oom_after=3)
    assert k["oom_kills"] == 0 and "No process of this cgroup was OOM-killed" in k["notes"][0]
    assert "oom_kills" not in explain_death(-signal.SIGKILL)
    s = explain_death(-signal.SIGSEGV, "Fatal Python error: Segmentation fault\n\nCurrent thread ...")
    assert all("PYTHONFAULTHANDLER" not in c for st in s["steps"] for c in st["commands"])
    assert any("faulthandler's" in n for n in s["notes"])


def test_oom_kill_count_reads_cgroup_v2_and_v1(tmp_path):
    proc, cg = tmp_path / "proc", tmp_path / "cg"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "cgroup").write_text("0::/user.slice/job-7\n")
    (cg / "user.slice" / "job-7").mkdir(parents=True)
    (cg / "user.slice" / "job-7" / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 2\noom_kill 5\n")
    assert oom_kill_count(str(proc), str(cg)) == 5
    (proc / "self" / "cgroup").write_text("12:cpu,cpuacct:/x\n9:memory:/docker/abc\n")
    (cg / "memory" / "docker" / "abc").mkdir(parents=True)
    (cg / "memory" / "docker" / "abc" / "memory.oom_control").write_text("oom_kill_disable 0\nunder_oom 0\noom_kill 2\n")
    assert oom_kill_count(str(proc), str(cg)) == 2
    assert oom_kill_count(str(tmp_path / "nothing"), str(cg)) is None


TORCHRUN_TAIL = """Failures:
[1]:
  time      : 2026-12-03_13:54:35
  host      : localhost
  rank      : 0 (local_rank: 0)
  exitcode  : -15 (pid: 12080)  (SIGTERM)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 12080
-------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-12-03_13:54:35
  host      : localhost
  rank      : 3 (local_rank: 1)
  exitcode  : -11 (pid: 12081)  (SIGSEGV)
  error_file: <N/A>
  traceback : Signal 11 (SIGSEGV) received by PID 12081
"""


def test_a_rank_killed_under_torchrun_is_named_by_rank_and_gdb_runs_the_rank_not_the_launcher():
    argv = ["torchrun", "--nnodes", "2", "--nproc-per-node", "2", "train.py", "--lr", "0.1"]
    x = explain_death(1, TORCHRUN_TAIL, argv=argv)
    assert x["signal"] == "SIGSEGV" and x["who"] == "rank 3 of the job (local rank 1, PID 12081)"  # the root cause
    gdb = [c for st in x["steps"] for c in st["commands"] if "gdb" in c]
    assert gdb == ["torchrun --nnodes 2 --nproc-per-node 2 --no-python gdb -q -batch -ex run -ex bt --args python "
                   "train.py --lr 0.1"], gdb
    m = explain_death(1, TORCHRUN_TAIL, argv=["python", "-m", "torch.distributed.run", "--standalone", "-m", "pkg.train"])
    assert [c for st in m["steps"] for c in st["commands"] if "gdb" in c] == [
        "python -m torch.distributed.run --standalone --no-python gdb -q -batch -ex run -ex bt --args python -m "
        "pkg.train"]
