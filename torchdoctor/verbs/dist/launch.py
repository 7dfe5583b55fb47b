"""`torchdoctor dist --nproc-per-node G` with no launcher: run torchrun ourselves.

The same interpreter runs torchrun ``--standalone`` through dist/loopback.py, so that
its stores listen on 127.0.0.1 only (gloo is pinned to the loopback interface too), with
every rank's output in torchrun's per-rank log files. Rank 0 writes the job to a file instead
of printing it; this process adds what only the launcher knows (each rank's exit code,
its last stderr lines), renders, and makes sure nothing is left running: it tracks every
descendant while the job runs (ranks start in their own sessions, so a process group kill
would miss them) and ends any that outlive torchrun. Should this process die first
(SIGKILL), lifeline.Lifeline sends torchrun the SIGTERM that makes it end its ranks.
"""

import glob
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any, Dict, List, Optional

from . import conditions as C
from . import jobfacts as J
from ...children.lifeline import Lifeline
from .common import RESULT_ENV

SET_ENV = "TORCHDOCTOR_DIST_SET"     # names of variables this launcher set (not the user's; left out of the diff)
STARTUP_S = 120.0                    # interpreter and torch start-up of the agent and every rank, generously
GRACE_S = 8.0                        # after rank 0's final word, for torchrun to wind down by itself

_ENTRY = re.compile(r"rank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\)\s*\n\s*exitcode\s*:\s*(-?\d+)\s*\(pid:\s*(\d+)\)"
                    r"[^\n]*(?:\n\s*error_file\s*:[^\n]*)?(?:\n\s*traceback\s*:\s*([^\n]*))?")


def parse_torchrun_failures(text: str) -> Dict[int, Dict[str, Any]]:
    """torchrun's ChildFailedError summary -> {rank: {exitcode, pid, local_rank, root, signal}}."""
    out: Dict[int, Dict[str, Any]] = {}
    root_at = text.find("Root Cause")
    for m in _ENTRY.finditer(text or ""):
        r = int(m.group(1))
        code = int(m.group(3))
        tb = (m.group(5) or "").strip()
        sig = re.search(r"Signal (\d+) \((\w+)\) received", tb)
        out[r] = {"exitcode": code, "pid": int(m.group(4)), "local_rank": int(m.group(2)),
                  "root": root_at >= 0 and m.start() > root_at,
                  "signal": sig.group(2) if sig else None}
    for m in re.finditer(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)", text or ""):
        lr = int(m.group(2))
        if lr not in out:  # standalone: one node, rank == local rank
            out[lr] = {"exitcode": int(m.group(1)), "pid": int(m.group(3)), "local_rank": lr, "root": True,
                       "signal": None}
    return out


def rank_stderr(logdir: str, local_rank: int, lines: int = 12) -> str:
    paths = glob.glob(os.path.join(logdir, "*", "attempt_*", str(local_rank), "stderr.log"))
    if not paths:
        return ""
    try:
        with open(sorted(paths)[-1], "rb") as fh:
            fh.seek(0, 2)
            size = fh.tell()
            fh.seek(max(0, size - 16384))
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return ""
    keep = [ln for ln in text.splitlines() if ln.strip() and "OMP_NUM_THREADS" not in ln and set(ln.strip()) != {"*"}]
    return "\n".join(keep[-lines:])


class Tracker:
    """Every descendant of the launcher seen while it runs: (pid, create time)."""

    def __init__(self, root_pid: int):
        import psutil
        self.psutil = psutil
        self.root = root_pid
        self.seen: Dict[int, float] = {}

    def poll(self) -> None:
        try:
            root = self.psutil.Process(self.root)
            procs = [root] + root.children(recursive=True)
        except self.psutil.Error:
            return
        for p in procs:
            try:
                self.seen.setdefault(p.pid, p.create_time())
            except self.psutil.Error:
                pass

    def alive(self) -> List[Any]:
        out = []
        for pid, ctime in self.seen.items():
            try:
                p = self.psutil.Process(pid)
                if p.create_time() == ctime and p.status() != self.psutil.STATUS_ZOMBIE:
                    out.append(p)
            except self.psutil.Error:
                pass
        return out

    def end_all(self, wait: float = 3.0) -> int:
        procs = self.alive()
        for p in procs:
            try:
                p.terminate()
            except self.psutil.Error:
                pass
        gone, left = self.psutil.wait_procs(procs, timeout=wait)
        for p in left:
            try:
                p.kill()
            except self.psutil.Error:
                pass
        self.psutil.wait_procs(left, timeout=wait)
        return len(procs)


def _complete(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return bool(json.load(fh).get("complete"))
    except (OSError, ValueError):
        return False


def _deadline(nproc: Optional[int], opts) -> float:
    n = nproc or 8
    steps = 7 + 2 * 4 + ((1 + min(64, n * (n - 1) // 2)) if opts.pairs else 0)
    return STARTUP_S + opts.join_timeout + opts.timeout * (steps + 3)


def _signals(*names):
    return [getattr(signal, n) for n in names if hasattr(signal, n)]


class Interrupted(Exception):
    pass


def _on_signal(signum, frame):
    raise Interrupted(signal.Signals(signum).name)


def run(nproc: str, opts, forward: List[str]) -> int:
    tmp = tempfile.mkdtemp(prefix="torchdoctor-dist-")
    old = {}
    for sig in _signals("SIGTERM", "SIGHUP"):  # `timeout 240 torchdoctor dist ...`: still report, leave nothing
        try:
            old[sig] = signal.signal(sig, _on_signal)
        except (OSError, ValueError):
            pass
    try:
        return _run(nproc, opts, forward, tmp)
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        shutil.rmtree(tmp, ignore_errors=True)


def _run(nproc: str, opts, forward: List[str], tmp: str) -> int:
    result = os.path.join(tmp, "job.json")
    logdir = os.path.join(tmp, "logs")
    cmd = [sys.executable, "-m", "torchdoctor.verbs.dist.loopback", "--standalone", "--nnodes", "1",
           "--local-addr", "127.0.0.1", "--nproc-per-node", str(nproc), "--max-restarts", "0",
           "--monitor-interval", "0.2", "--redirects", "3", "--log-dir", logdir, "-m", "torchdoctor", "dist"] + forward
    env = dict(os.environ)
    env[RESULT_ENV] = result
    ours = []
    for name, value in (("GLOO_SOCKET_IFNAME", "lo"),):
        if name not in env:
            env[name] = value
            ours.append(name)
    env[SET_ENV] = ",".join(ours)
    out_path, err_path = os.path.join(tmp, "torchrun.out"), os.path.join(tmp, "torchrun.err")
    t0 = time.monotonic()
    lifeline = Lifeline()
    lifeline.start()
    with open(out_path, "wb") as out_f, open(err_path, "wb") as err_f:
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out_f, stderr=err_f, env=env,
                                    start_new_session=True)
        except OSError as e:
            lifeline.release()
            sys.stderr.write("torchdoctor: error: cannot start torchrun (%s): %s\n" % (cmd[0], e))
            return 2
        lifeline.watch(proc.pid)  # torchrun leads a session (so a group) of its own
        tracker = Tracker(proc.pid)
        deadline = t0 + _deadline(int(nproc) if str(nproc).isdigit() else None, opts)
        interrupted = None
        done_at = None
        try:
            while proc.poll() is None:
                tracker.poll()
                now = time.monotonic()
                if done_at is None and _complete(result):
                    done_at = now
                if now > deadline or (done_at is not None and now - done_at > GRACE_S):
                    if now > deadline:
                        interrupted = "torchdoctor stopped torchrun after %.0f s (its overall limit)" % (now - t0)
                    _stop(proc)
                    break
                time.sleep(0.2)
        except (KeyboardInterrupt, Interrupted) as e:
            interrupted = "interrupted (%s)" % (e.args[0] if isinstance(e, Interrupted) else "Ctrl-C")
            for sig in _signals("SIGINT", "SIGTERM", "SIGHUP"):  # the cleanup below is bounded: let it run
                try:
                    signal.signal(sig, lambda *a: None)
                except (OSError, ValueError):
                    pass
            _stop(proc)
        try:
            proc.wait(timeout=GRACE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        leftovers = tracker.end_all()
        lifeline.release()
    with open(err_path, "rb") as fh:
        err_text = fh.read().decode("utf-8", "replace")
    job = _load(result)
    if job is None:
        job = _stub(nproc, opts)
    exits = parse_torchrun_failures(err_text)
    if job.get("_stub") and not exits:
        # torchrun itself failed before any rank ran (a bad --nproc-per-node, no GPU for 'gpu', ...)
        job["launcher_error"] = {"returncode": proc.returncode, "error": last_error(err_text),
                                 "command": " ".join(cmd[:11] + ["..."])}
        if not interrupted:
            job.pop("interrupted", None)
    launcher = job.setdefault("launcher", {})
    launcher.update({"name": "torchrun --standalone (started by torchdoctor)", "self_launched": True,
                     "returncode": proc.returncode, "leftover_processes_ended": leftovers, "env_set": ours,
                     "wall_s": round(time.monotonic() - t0, 3)})
    launcher["exits"] = {str(r): v for r, v in sorted(exits.items())}
    if interrupted:
        job["interrupted"] = interrupted + ("; rank 0: %s" % job["interrupted"] if job.get("interrupted") else "")
    merge_exits(job, exits, logdir)
    findings = C.diagnose(job)
    job["findings"] = [f.to_dict() for f in findings]
    from .coordinator import exit_code
    from .render import emit
    code = exit_code(findings, opts.fail_on)
    job["exit_code"] = code
    code = emit(job, opts, code)
    if interrupted and interrupted.startswith("interrupted ("):
        return 130
    return code


def _stop(proc) -> None:
    """SIGTERM to torchrun: it forwards it to every rank (rank 0 then reports what it has)."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except (OSError, AttributeError):  # AttributeError: no process groups (Windows)
        try:
            proc.terminate()
        except OSError:
            pass


def _load(path: str) -> Optional[Dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as fh:
            job = json.load(fh)
        return job if isinstance(job, dict) and job.get("kind") == J.KIND else None
    except (OSError, ValueError):
        return None


def _stub(nproc: str, opts) -> Dict[str, Any]:
    """No word from rank 0 at all: a job result from the launcher's view alone."""
    from ... import __version__
    n = int(nproc) if str(nproc).isdigit() else 0
    return {"schema_version": J.SCHEMA_VERSION, "kind": J.KIND, "_stub": True,
            "tool": {"name": "torchdoctor", "version": __version__},
            "collected_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "complete": False,
            "options": opts.to_dict(), "world_size": n, "backend": None,
            "ranks": [{"rank": r, "joined": False, "where": {"local_rank": r}} for r in range(n)],
            "nodes": [{"label": "a", "host": None, "ranks": list(range(n))}] if n else [],
            "steps": [], "bandwidth": {"rows": []}, "pairs": [], "timings": {},
            "interrupted": "rank 0 never reported (no job result)"}


def merge_exits(job: Dict[str, Any], exits: Dict[int, Dict[str, Any]], logdir: str) -> None:
    """Exit codes and stderr tails of ranks that failed, from torchrun's summary."""
    for r, e in exits.items():
        if r >= len(job.get("ranks") or []):
            continue
        rec = job["ranks"][r]
        victim = e.get("signal") == "SIGTERM" or e["exitcode"] in (-15, 143)
        fate = rec.get("fate") if isinstance(rec.get("fate"), dict) else None
        if victim and (fate is None or fate.get("how") == "terminated"):
            rec["fate"] = dict(fate or {"how": "terminated", "step": None, "reason": "SIGTERM from the launcher"},
                               victim=True, exitcode=e["exitcode"])
            continue
        if e["exitcode"] == 0:
            continue
        tail = rank_stderr(logdir, e["local_rank"])
        if fate is None:
            fate = {"how": "exited" if e["exitcode"] > 0 else "crashed", "step": _step_of(job, r), "reason": ""}
        fate["exitcode"] = e["exitcode"]
        if e["exitcode"] < 0:
            try:
                fate["reason"] = "killed by %s" % signal.Signals(-e["exitcode"]).name
            except ValueError:
                pass
        if fate.get("how") == "gone":
            fate["how"] = "exited" if e["exitcode"] > 0 else "crashed"
        fate["victim"] = False
        if tail:
            fate["stderr_tail"] = tail
        rec["fate"] = fate
    if job.get("_stub") and exits and 0 not in exits and job.get("ranks"):
        job["ranks"][0]["fate"] = {"how": "exited", "step": None, "reason": "no result from rank 0",
                                   "stderr_tail": rank_stderr(logdir, 0)}


def last_error(text: str) -> str:
    """The exception line that ends a Python traceback in `text`, else its last line."""
    lines = [ln.rstrip() for ln in (text or "").splitlines() if ln.strip()]
    for ln in reversed(lines):
        if re.match(r"^[A-Za-z_][\w.]*(?:Error|Exception|Exit)\b:?", ln):
            return ln[:500]
    return lines[-1][:500] if lines else "no output"


def _step_of(job: Dict[str, Any], r: int) -> Optional[str]:
    """The first step rank `r` has no result for."""
    rec = job["ranks"][r]
    if not rec.get("joined"):
        return "join"
    if not isinstance(rec.get("summary"), dict):
        return "gather"
    for s in job.get("steps") or []:
        per = s.get("per_rank")
        if isinstance(per, dict) and per.get(str(r), {}).get("status") in ("missing", "timeout", "error"):
            return s["name"]
    return None
