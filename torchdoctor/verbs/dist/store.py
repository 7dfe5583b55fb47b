"""The rendezvous store (c10d TCPStore) as the doctor's channel between ranks.

Join records, heartbeats, fact summaries, the plan and every step's per-rank results go
through it as small JSON values: it needs neither NCCL nor NumPy, so a broken NCCL is
diagnosed rather than hung on, and a torch without NumPy still reports. Under torchrun
every rank is a client of the agent's store (TORCHELASTIC_USE_AGENT_STORE=True); under
srun or plain env:// variables rank 0 hosts it at MASTER_ADDR:MASTER_PORT.

Keys live under ``torchdoctor/<run id>/<restart>/``. Nothing here blocks without a
deadline: waits poll `check` and `add(key, 0)` (one round trip each), never `get` on a
key that may not exist (that would block up to the store's timeout).
"""

import json
import threading
import time
from datetime import timedelta
from typing import Any, Callable, Dict, Iterable, List, Optional

from .env import JobEnv

POLL_MIN = 0.002
POLL_MAX = 0.05
HEARTBEAT_S = 0.5


class Stopped(Exception):
    """A wait was cut short: this process is being stopped, or rank 0 said to stop."""


class Answered(Stopped):
    """Rank 0 has answered for the job ("done"): nothing this rank does now is in the report."""


def connect(job: JobEnv, timeout: float, client: bool = False):
    """The raw TCPStore: a client of the launcher's store, or (rank 0 under srun/env://) its
    host; with `client`, always a client (another connection to a store already there)."""
    from torch.distributed import TCPStore
    td = timedelta(seconds=max(1.0, timeout))
    if client or job.agent_store or job.rank != 0:
        return TCPStore(job.master_addr, job.master_port, None, False, timeout=td, wait_for_workers=False)
    return TCPStore(job.master_addr, job.master_port, job.world_size, True, timeout=td, wait_for_workers=False,
                    multi_tenant=True)


def prefix_for(job: JobEnv) -> str:
    return "torchdoctor/%s/%d/" % (job.run_id, job.restart)


class Channel:
    """JSON values under the doctor's prefix, with deadline-bound waits."""

    def __init__(self, raw, prefix: str, stop: Optional[Callable[[], Optional[str]]] = None):
        from torch.distributed import PrefixStore
        self.raw = raw
        self.prefix = prefix
        self.s = PrefixStore(prefix, raw)
        self.stop = stop or (lambda: None)
        self.lock = threading.Lock()  # one request at a time on this connection

    # -- values ---------------------------------------------------------------
    def put(self, key: str, value: Any) -> None:
        data = json.dumps(value, default=str, separators=(",", ":"))
        with self.lock:
            self.s.set(key, data)

    def get(self, key: str) -> Any:
        with self.lock:
            raw = self.s.get(key)
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)

    def get_many(self, keys: List[str]) -> List[Any]:
        if not keys:
            return []
        with self.lock:
            if hasattr(self.s, "multi_get"):
                raws = self.s.multi_get(keys)
            else:
                raws = [self.s.get(k) for k in keys]
        return [json.loads(r.decode("utf-8") if isinstance(r, bytes) else r) for r in raws]

    def has(self, key: str) -> bool:
        with self.lock:
            return bool(self.s.check([key]))

    def add(self, key: str, n: int = 1) -> int:
        with self.lock:
            return int(self.s.add(key, n))

    def count(self, key: str) -> int:
        return self.add(key, 0)

    def answered(self) -> bool:
        """Whether rank 0 has given the job's answer (the "done" key)."""
        return self.has("done")

    def which(self, keys: Iterable[str]) -> List[str]:
        """The keys that exist (one round trip each: only for a final account)."""
        return [k for k in keys if self.has(k)]

    # -- waiting ----------------------------------------------------------------
    def wait_count(self, key: str, target: int, deadline: float, tick: Optional[Callable[[], bool]] = None) -> int:
        """Poll counter `key` until it reaches `target` or `deadline` (time.monotonic);
        returns the last count. `tick` returning True ends the wait early."""
        delay = POLL_MIN
        while True:
            n = self.count(key)
            if n >= target:
                return n
            why = self.stop()
            if why:
                raise Stopped(why)
            if tick is not None and tick():
                return n
            now = time.monotonic()
            if now >= deadline:
                return n
            time.sleep(min(delay, max(0.0, deadline - now)))
            delay = min(POLL_MAX, delay * 2)

    def wait_key(self, key: str, deadline: float, tick: Optional[Callable[[], bool]] = None) -> bool:
        delay = POLL_MIN
        while True:
            if self.has(key):
                return True
            why = self.stop()
            if why:
                raise Stopped(why)
            if tick is not None and tick():
                return False
            now = time.monotonic()
            if now >= deadline:
                return False
            time.sleep(min(delay, max(0.0, deadline - now)))
            delay = min(POLL_MAX, delay * 2)


class Heartbeat:
    """A daemon thread on its own store connection: counts `hb/<rank>` up every half
    second, and ends this process if its launcher (the parent) has gone, so a rank is
    never left behind as an orphan."""

    def __init__(self, job: JobEnv, timeout: float, rank: int, on_orphan: Callable[[], None]):
        self.job, self.timeout, self.rank = job, timeout, rank
        self.on_orphan = on_orphan
        self.ppid = None
        self.ok = True
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="torchdoctor-heartbeat", daemon=True)

    def start(self, parent_pid: int) -> None:
        self.ppid = parent_pid
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        import os
        try:
            from torch.distributed import PrefixStore, TCPStore
            raw = TCPStore(self.job.master_addr, self.job.master_port, None, False,
                           timeout=timedelta(seconds=max(1.0, self.timeout)), wait_for_workers=False)
            s = PrefixStore(prefix_for(self.job), raw)
        except Exception:  # noqa: BLE001 - rank 0 then judges liveness by the process alone
            self.ok = False
            s = None
        while not self._stop.is_set():
            if self.ppid is not None and os.getppid() != self.ppid:
                self.on_orphan()
                return
            if s is not None:
                try:
                    s.add("hb/%d" % self.rank, 1)
                except Exception:  # noqa: BLE001 - the store host went away: the job is over
                    s = None
            self._stop.wait(HEARTBEAT_S)


class Liveness:
    """Rank 0's (or any rank's) view of who is still alive: heartbeat counters that
    move, and for ranks in this pid namespace, the process itself."""

    def __init__(self, ch: Channel, stale_s: float):
        self.ch = ch
        self.stale_s = stale_s
        self.seen: Dict[int, tuple] = {}  # rank -> (count, monotonic time it last moved)
        self.local: Dict[int, tuple] = {}  # rank -> (pid, create_time) when in our pid namespace

    def watch_local(self, rank: int, pid: int) -> None:
        try:
            import psutil
            self.local[rank] = (pid, psutil.Process(pid).create_time())
        except Exception:  # noqa: BLE001 - gone already, or not ours to see
            pass

    def dead(self, ranks: Iterable[int]) -> Dict[int, str]:
        """{rank: why} for the ranks that are gone."""
        out: Dict[int, str] = {}
        now = time.monotonic()
        for r in ranks:
            if r in self.local:
                pid, ctime = self.local[r]
                try:
                    import psutil
                    p = psutil.Process(pid)
                    alive = p.create_time() == ctime and p.status() != psutil.STATUS_ZOMBIE
                except Exception:  # noqa: BLE001 - NoSuchProcess
                    alive = False
                if not alive:
                    out[r] = "its process %d has exited" % pid
                    continue
            try:
                n = self.ch.count("hb/%d" % r)
            except Exception:  # noqa: BLE001
                continue
            last = self.seen.get(r)
            if last is None or n != last[0]:
                self.seen[r] = (n, now)
            elif now - last[1] > self.stale_s:
                out[r] = "no heartbeat for %.0f s" % (now - last[1])
        return out
