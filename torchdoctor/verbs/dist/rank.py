"""The program every rank runs: join, gather, (rank 0: diff and plan), collectives, report.

Each step has a deadline. Blocking work (the probe, process-group init, every
collective) runs in a worker thread while the main thread waits on it with that deadline,
watching the store for rank 0's word and for the launcher's SIGTERM; so a collective
that never returns costs `--timeout` once, is reported, and the rank still exits. At the
end every rank leaves through os._exit: a process group stuck in a dead collective, or
torch's own shutdown, cannot hold it.

Every rank leaves promptly when rank 0 has answered ("done", polled by every wait, even
while a step's thread hangs) and when the launcher stops the job: on SIGTERM the waits end
at once (rank 0 reports what it knows first), and a watchdog ends the process WATCHDOG_S
later whatever its main thread is blocked in. The process group talks over a store
connection of its own, so a process-group constructor waiting in the store never holds
the connection the rank's waits poll.

Store keys (under store.prefix_for): join/<r>, n/join; plan/join; sum/<r>, n/sum; plan;
enter/<step>/<r>, res/<step>/<r>, n/res/<step>; go/<step>; at/<r> (the step the rank last
entered and left, with times); exit/<r>; hb/<r>; done; bye.
"""

import faulthandler
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from typing import Any, Callable, Dict, Optional, Tuple

from ... import __version__
from . import early
from . import stack as where_now
from .common import SLACK, STALE_S, Options
from .coordinator import Coordinator, answer_unconnected
from .env import JobEnv
from .store import Answered, Channel, Heartbeat, Liveness, Stopped, connect, prefix_for

WATCHDOG_S = 4.0  # after a stop signal, the most a rank stays (rank 0, which answers first: 4.5 s)
DONE_POLL_S = 0.25  # how often a hanging step looks for rank 0's answer


class Interrupted(BaseException):
    """A stop signal while this rank had no store connection yet (importing torch): there is
    nothing to wait for, and rank 0 answers from what it knows alone."""


def say(msg: str) -> None:
    try:
        sys.stderr.write("torchdoctor: %s\n" % msg)
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


def leave(code: int) -> None:
    for s in (sys.stdout, sys.stderr):
        try:
            s.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


class Rank:
    def __init__(self, job: JobEnv, opts: Options, environ: Dict[str, str]):
        self.job, self.opts, self.environ = job, opts, environ
        self.r, self.n = job.rank, job.world_size
        self.stop_reason: Optional[str] = None
        self.step_name = "start"
        self.ch: Optional[Channel] = None
        self.torch = None
        self.comm = None
        self.stuck = False       # a worker thread did not come back: no further collectives here
        self.last_left: Optional[Tuple[str, float]] = None  # the step this rank last finished, and when

    # -- plumbing ---------------------------------------------------------------
    def _stop(self) -> Optional[str]:
        return self.stop_reason

    def on_signal(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        if self.stop_reason is not None:
            leave(128 + signum)  # a second signal: leave now (rank 0 has had its chance to report)
        self.stop_reason = "%s during %s" % (name, self.step_name)
        self.stop_signal, self.stop_step = name, self.step_name
        # Whatever the main thread is blocked in, the process ends WATCHDOG_S from now.
        dog = threading.Timer(WATCHDOG_S + (0.5 if self.r == 0 else 0.0), leave, (128 + signum,))
        dog.daemon = True
        dog.start()
        if self.ch is None:  # still starting (importing torch): nobody to tell, nothing to wait for
            if self.r != 0:
                leave(128 + signum)
            raise Interrupted(name)
        # Connected: the waits see stop_reason within a poll, and the step records the exit.

    def in_thread(self, fn: Callable[[], Any], deadline: float) -> Tuple[str, Any]:
        """('ok', value) | ('error', 'Type: message') | ('timeout', where its thread was) |
        ('stopped', reason); raises Answered on a rank other than 0 once rank 0 has answered."""
        box: Dict[str, Any] = {}

        def run():
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - any failure of the step is its result
                box["error"] = ("%s: %s" % (type(e).__name__, str(e).strip()))[:2000]

        t = threading.Thread(target=run, name="torchdoctor-%s" % self.step_name, daemon=True)
        t.start()
        next_poll = time.monotonic() + DONE_POLL_S
        while t.is_alive():
            if self.stop_reason:
                self.stuck = True
                self.stopped_in = where_now.where(t.ident)  # what rank 0 says of a job it was stopped in
                return "stopped", self.stop_reason
            now = time.monotonic()
            left = deadline - now
            if left <= 0:
                self.stuck = True
                return "timeout", where_now.where(t.ident)
            if self.r != 0 and self.ch is not None and now >= next_poll:
                next_poll = now + DONE_POLL_S
                if self.ch.answered():
                    raise Answered("rank 0 answered during %s" % self.step_name)
            t.join(min(0.05, left))
        if "error" in box:
            return "error", box["error"]
        return "ok", box.get("value")

    # -- the run -------------------------------------------------------------------
    def run(self) -> int:
        faulthandler.enable()
        self.environ = dict(os.environ)
        for sig in [getattr(signal, n) for n in ("SIGTERM", "SIGINT", "SIGHUP") if hasattr(signal, n)]:
            try:
                signal.signal(sig, self.on_signal)
            except (OSError, ValueError):
                pass
        try:
            for name, _ in early.RECEIVED[:1]:  # the launcher stopped the job while the CLI was starting
                self.step_name = "start-up"
                self.on_signal(getattr(signal, name), None)
            return self.run_connected()
        except Interrupted:
            self.step_name = "start-up"
            return answer_unconnected(self) if self.r == 0 else 143

    def run_connected(self) -> int:
        set_log = "TORCH_CPP_LOG_LEVEL" not in os.environ
        if set_log:
            # c10d logs its retries and timeouts (with C++ stack traces) itself; this tool reports them in
            # one line instead. An explicit TORCH_CPP_LOG_LEVEL of the user's is left alone.
            os.environ["TORCH_CPP_LOG_LEVEL"] = "FATAL"
        try:
            self.step_name = "import torch"
            with warnings.catch_warnings(record=True) as caught:  # kept in the summary, not printed by a rank
                warnings.simplefilter("always")
                import torch
                import torch.distributed  # noqa: F401
            self.import_warnings = ["%s: %s" % (w.category.__name__, str(w.message)[:300]) for w in caught][:5]
        except Interrupted:
            raise
        except BaseException as e:  # noqa: BLE001
            say("error: rank %d: import torch failed (%s: %s); this rank cannot join" % (self.r, type(e).__name__, e))
            return 1
        finally:
            if set_log:
                os.environ.pop("TORCH_CPP_LOG_LEVEL", None)
        self.torch = torch
        warnings.simplefilter("ignore", FutureWarning)
        parent = os.getppid()
        self.step_name = "connect"
        try:
            raw = connect(self.job, self.opts.join_timeout)
        except Exception as e:  # noqa: BLE001
            say("error: rank %d cannot reach the rendezvous store at %s:%d within %g s: %s" % (
                self.r, self.job.master_addr, self.job.master_port, self.opts.join_timeout, _line(e)))
            return 1
        self.ch = Channel(raw, prefix_for(self.job), stop=self._stop)
        self.raw = raw
        self.hb = Heartbeat(self.job, self.opts.join_timeout, self.r, on_orphan=lambda: leave(1))
        self.hb.start(parent)
        try:
            if self.r == 0:
                return Coordinator(self).run()
            return self.run_worker()
        except Answered:
            return 0  # rank 0 has answered for the job; what this rank was doing is in it
        except Stopped:
            self.say_exit({"how": "terminated", "signal": getattr(self, "stop_signal", None), "step": self.step_name})
            return 143  # the launcher is stopping the job (128 + SIGTERM)
        except Exception as e:  # noqa: BLE001 - a bug of ours: one line, the traceback only on request
            if os.environ.get("TORCHDOCTOR_DEBUG"):
                traceback.print_exc()
            say("error: rank %d: internal error during %s: %s (TORCHDOCTOR_DEBUG=1 shows the traceback)" % (
                self.r, self.step_name, _line(e)))
            try:
                self.ch.put("exit/%d" % self.r, {"how": "crashed", "step": self.step_name,
                                                "reason": "torchdoctor internal error: %s" % _line(e)})
            except Exception:  # noqa: BLE001
                pass
            return 1

    def say_exit(self, what: Dict[str, Any]) -> None:
        try:
            self.ch.put("exit/%d" % self.r, what)
        except Exception:  # noqa: BLE001 - the store may be going away with the job
            pass

    def progress(self, step: str, left: bool = False) -> None:
        """Publish the step this rank is in (or has just finished), with the time: what rank 0
        says of a rank that never answers ("last seen: after broadcast, 14 s ago")."""
        now = time.time()
        if left:
            self.last_left = (step, now)
        rec: Dict[str, Any] = {"step": step, "t": now, "left": left}
        if self.last_left:
            rec["last_left"], rec["last_left_t"] = self.last_left
        try:
            self.ch.put("at/%d" % self.r, rec)
        except Stopped:
            raise
        except Exception:  # noqa: BLE001 - progress is a bonus; the steps' own keys carry the job
            pass

    # -- shared steps ------------------------------------------------------------------
    def join(self) -> None:
        from . import summary as S
        self.step_name = "join"
        self.where = S.where(self.r, self.job.local_rank, self.job.local_world_size, self.job.node_rank)
        self.where["heartbeat"] = True
        self.ch.put("join/%d" % self.r, self.where)
        self.ch.add("n/join", 1)
        self.progress("join", left=True)

    def gather(self) -> Dict[str, Any]:
        """This rank's redacted summary; the probe runs in-process in a worker thread, with
        the deadline: an exception or a hang of the probe is reported, not fatal."""
        from . import summary as S
        from . import topology
        self.step_name = "gather"
        t0 = time.monotonic()

        def probe():
            from ...gather.probe import gather
            return gather(python=sys.executable, timeout=self.opts.timeout, in_process=True)

        status, value = self.in_thread(probe, t0 + self.opts.timeout)
        if status == "stopped":
            raise Stopped(value)
        self.stuck = False  # a stuck probe thread does not hold the process group
        facts = value if status == "ok" else None
        error = None if status == "ok" else ("the probe did not finish within %g s" % self.opts.timeout
                                             if status == "timeout" else "the probe failed: %s" % value)
        node = None
        first_local = self.job.local_rank == 0 or (self.job.local_rank is None and self.r == 0)
        if first_local:
            st, node = self.in_thread(lambda: topology.gather_node(timeout=min(10.0, self.opts.timeout)),
                                      time.monotonic() + min(30.0, self.opts.timeout))
            self.stuck = False
            if st != "ok":
                node = {"_failed": "topology: %s" % (node if st == "error" else st)}
        try:
            summ = S.build(facts, self.environ, self.job.local_rank, self.torch, probe_error=error,
                           probe_seconds=round(time.monotonic() - t0, 3), node=node)
        except Exception as e:  # noqa: BLE001
            summ = {"v": S.SUMMARY_VERSION, "tool": __version__,
                    "probe": {"ok": False, "error": "summary: %s" % _line(e), "mode": "in-process"}}
        summ["torch_import_warnings"] = getattr(self, "import_warnings", [])
        out = S.redact(summ, self.environ)
        out["gather_s"] = round(time.monotonic() - t0, 3)
        self.device_index = (summ.get("device") or {}).get("index")
        return out

    def publish_summary(self, summ: Dict[str, Any]) -> None:
        self.ch.put("sum/%d" % self.r, summ)
        self.ch.add("n/sum", 1)
        self.progress("gather", left=True)

    def make_comm(self, plan: Dict[str, Any]):
        from torch.distributed import PrefixStore

        from .collectives import Comm
        # A connection of its own: the process group's constructor waits in the store (up to its
        # timeout) for ranks that may never come, and a client serves one request at a time.
        try:
            raw = connect(self.job, self.opts.join_timeout, client=True)
        except Exception:  # noqa: BLE001 - the shared one still works, as before
            raw = self.raw
        return Comm(self.torch, plan["backend"], self.r, self.n, self.device_index,
                    PrefixStore(prefix_for(self.job) + "pg/", raw), self.opts.timeout)

    def step_fn(self, plan: Dict[str, Any], step: Dict[str, Any]) -> Optional[Callable[[], Any]]:
        """The callable for `step` on this rank, or None where this rank sits it out."""
        kind = step["kind"]
        c = self.comm
        if kind == "init":
            return c.init
        if kind in ("barrier", "all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_gather_object"):
            return getattr(c, kind)
        if kind == "sweep":
            return lambda: c.timed(step["op"], step["bytes"], plan["iters"], plan["warmup"])
        if kind == "groups":
            return lambda: c.new_groups([p["ranks"] for p in plan["pairs"]])
        if kind == "pair":
            p = plan["pairs"][step["pair"]]
            if self.r not in p["ranks"]:
                return None
            return lambda: c.timed("all_reduce", step["bytes"], plan["iters"], plan["warmup"],
                                   group=c.groups[step["pair"]], members=p["ranks"])
        raise ValueError("unknown step %r" % kind)

    def run_step(self, plan: Dict[str, Any], step: Dict[str, Any]) -> Dict[str, Any]:
        """Run one step here and publish this rank's result (rank 0 collects them)."""
        name = step["name"]
        self.step_name = name
        t0 = time.monotonic()
        fn = self.step_fn(plan, step) if not self.stuck else None
        if fn is None:
            res = {"status": "skipped" if not self.stuck else "error",
                   "error": None if not self.stuck else "an earlier step is still running on this rank"}
        else:
            self.ch.put("enter/%s/%d" % (name, self.r), 1)
            self.progress(name)
            status, value = self.in_thread(fn, t0 + self.opts.timeout)
            if status == "ok":
                res = dict(value or {"status": "ok"})
            elif status == "timeout":
                res = {"status": "timeout", "entered": True, "thread": value}
            elif status == "stopped":
                self.ch.put("res/%s/%d" % (name, self.r), {"status": "stopped", "entered": True,
                                                          "thread": getattr(self, "stopped_in", None)})
                self.ch.add("n/res/%s" % name, 1)
                raise Stopped(value)
            else:
                res = {"status": "error", "error": value}
            res["entered"] = True
        res["seconds"] = res.get("seconds") if step["kind"] in ("sweep", "pair") else round(time.monotonic() - t0, 4)
        self.ch.put("res/%s/%d" % (name, self.r), res)
        self.ch.add("n/res/%s" % name, 1)
        if res.get("status") not in ("timeout", "skipped"):
            self.progress(name, left=True)
        return res

    def wait_word(self, key: str, deadline: float) -> Any:
        """Rank 0's word on `key`; None if rank 0 is gone or silent past the deadline."""
        live = Liveness(self.ch, STALE_S)

        def rank0_gone():
            if key != "done" and self.ch.answered():
                raise Answered("rank 0 answered while rank %d waited for %s" % (self.r, key))
            return bool(live.dead([0]))

        if self.ch.wait_key(key, deadline, tick=rank0_gone):
            return self.ch.get(key)
        return None

    # -- a rank other than 0 -----------------------------------------------------------
    def run_worker(self) -> int:
        self.join()
        word = self.wait_word("plan/join", time.monotonic() + self.opts.join_timeout + SLACK)
        if word is None:
            return self.orphaned("join")
        if not word.get("proceed"):
            return self.finish()
        summ = self.gather()
        self.publish_summary(summ)
        self.step_name = "plan"
        plan = self.wait_word("plan", time.monotonic() + 2 * self.opts.timeout + SLACK)
        if plan is None:
            return self.orphaned("gather")
        if plan.get("proceed"):
            self.comm = self.make_comm(plan)
            for step in plan["steps"]:
                self.run_step(plan, step)
                go = self.wait_word("go/%s" % step["name"], time.monotonic() + self.opts.timeout + 2 * SLACK)
                if go is None:
                    return self.orphaned(step["name"])
                if not go.get("go"):
                    break
        return self.finish()

    def finish(self) -> int:
        self.step_name = "done"
        self.wait_word("done", time.monotonic() + 3 * self.opts.timeout + SLACK)
        try:
            self.ch.add("bye", 1)
        except Exception:  # noqa: BLE001
            pass
        return 0

    def orphaned(self, step: str) -> int:
        """Rank 0 went silent. The lowest surviving rank says so (someone must); the rest stay quiet."""
        try:
            alive = [r for r in range(1, self.n) if r < self.r]
            dead = Liveness(self.ch, STALE_S).dead(alive) if alive else {}
            lowest = len(dead) == len(alive)
        except Exception:  # noqa: BLE001
            lowest = self.r == 1
        if lowest:
            say("error: rank 0 stopped responding during %s; no job report (rank %d of %d)" % (step, self.r, self.n))
        return 1


def _line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return "%s: %s" % (type(e).__name__, text[0][:300] if text else "")
