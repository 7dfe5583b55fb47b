"""The process group and the collective checks of one rank (torch imported here only).

Every check sends known values and verifies what comes back exactly, so that a wrong
result names the rank whose data arrived wrong:

* all_reduce / reduce_scatter: the tensor holds one *slot* per rank, where only rank s
  puts a value (s+1), and a bulk part where every rank puts r+1; slot s wrong after the
  sum means rank s's contribution arrived wrong;
* all_gather: chunk j must hold rank j's pattern ((j+1)*1000 + i % 997);
* broadcast: from rank 0 and from the last rank, every receiver checks the root's pattern;
* all_gather_object: the pickled path users call (needs NumPy on the receiving side).

Values are small integers in float32, exact on every backend. Each function returns a
JSON-able result: {"status": "ok" | "wrong" | "unsupported" | "error", ...}.
"""

import time
from datetime import timedelta
from typing import Any, Dict, List, Optional

BULK = 1024


class Comm:
    def __init__(self, torch, backend: str, rank: int, world: int, device_index: Optional[int], store, timeout: float):
        self.torch = torch
        import torch.distributed as dist
        self.dist = dist
        self.backend = backend
        self.rank, self.world = rank, world
        self.timeout = timeout
        self.store = store
        self.device = torch.device("cuda", device_index) if backend == "nccl" and device_index is not None \
            else torch.device("cpu")
        self.groups: List[Any] = []

    # -- helpers -------------------------------------------------------------
    def bind(self) -> None:
        """The CUDA current device is per thread, and every step runs in a thread of its own:
        set it again, or an object collective would pick cuda:0 on every rank."""
        if self.device.type == "cuda":
            self.torch.cuda.set_device(self.device)

    def _sync(self) -> None:
        if self.device.type == "cuda":
            self.torch.cuda.synchronize(self.device)

    def _full(self, n: int, value: float) -> Any:
        return self.torch.full((n,), float(value), dtype=self.torch.float32, device=self.device)

    def _pattern(self, who: int, n: int) -> Any:
        base = self.torch.arange(n, dtype=self.torch.float32, device=self.device).remainder_(997)
        return base.add_((who + 1) * 1000.0)

    # -- steps ------------------------------------------------------------------
    def init(self) -> Dict[str, Any]:
        kwargs: Dict[str, Any] = {"backend": self.backend, "store": self.store, "rank": self.rank,
                                  "world_size": self.world, "timeout": timedelta(seconds=self.timeout + 30)}
        if self.device.type == "cuda":
            self.bind()
            import inspect
            try:
                if "device_id" in inspect.signature(self.dist.init_process_group).parameters:
                    kwargs["device_id"] = self.device  # eager NCCL init: communicator errors show up here
            except (TypeError, ValueError):
                pass
        self.dist.init_process_group(**kwargs)
        return {"status": "ok", "backend": self.dist.get_backend(), "device": str(self.device)}

    def barrier(self) -> Dict[str, Any]:
        self.bind()
        if self.device.type == "cuda":
            t = self._full(1, 1)
            self.dist.all_reduce(t)
            self._sync()
        else:
            self.dist.barrier()
        return {"status": "ok"}

    def _check_slots(self, got, n: int, bulk_expected: float) -> List[Dict[str, Any]]:
        wrong = []
        vals = got.detach().cpu().tolist()
        for s in range(n):
            if vals[s] != float(s + 1):
                wrong.append({"from": s, "what": "slot %d is %g, expected %d (rank %d's contribution)" % (
                    s, vals[s], s + 1, s)})
        bad = [i for i, v in enumerate(vals[n:]) if v != bulk_expected]
        if bad and not wrong:
            wrong.append({"from": None, "what": "%d of %d summed elements wrong (first: index %d is %g, expected %g)"
                          % (len(bad), len(vals) - n, bad[0], vals[n + bad[0]], bulk_expected)})
        return wrong

    def _contribution(self, n: int, scale: float = 1.0) -> Any:
        x = self.torch.zeros(n + BULK, dtype=self.torch.float32, device=self.device)
        x[self.rank] = self.rank + 1
        x[n:] = (self.rank + 1) * scale
        return x

    def all_reduce(self) -> Dict[str, Any]:
        self.bind()
        n = self.world
        x = self._contribution(n)
        self.dist.all_reduce(x)
        self._sync()
        wrong = self._check_slots(x, n, n * (n + 1) / 2.0)
        return {"status": "wrong" if wrong else "ok", "wrong": wrong}

    def all_gather(self) -> Dict[str, Any]:
        self.bind()
        n = self.world
        mine = self._pattern(self.rank, BULK)
        outs = [self.torch.empty(BULK, dtype=self.torch.float32, device=self.device) for _ in range(n)]
        self.dist.all_gather(outs, mine)
        self._sync()
        wrong = []
        for j, t in enumerate(outs):
            if not self.torch.equal(t.cpu(), self._pattern(j, BULK).cpu()):
                wrong.append({"from": j, "what": "chunk %d (from rank %d) differs from rank %d's pattern" % (j, j, j)})
        return {"status": "wrong" if wrong else "ok", "wrong": wrong}

    def broadcast(self) -> Dict[str, Any]:
        self.bind()
        wrong = []
        for root in sorted({0, self.world - 1}):
            t = self._pattern(root, BULK) if self.rank == root else self._full(BULK, -1)
            self.dist.broadcast(t, src=root)
            self._sync()
            if not self.torch.equal(t.cpu(), self._pattern(root, BULK).cpu()):
                wrong.append({"from": root, "what": "the broadcast from rank %d arrived wrong here" % root})
        return {"status": "wrong" if wrong else "ok", "wrong": wrong}

    def reduce_scatter(self) -> Dict[str, Any]:
        self.bind()
        n = self.world
        chunk = n + BULK
        inp = self.torch.zeros(n * chunk, dtype=self.torch.float32, device=self.device)
        for j in range(n):
            base = j * chunk
            inp[base + self.rank] = self.rank + 1
            inp[base + n: base + chunk] = (self.rank + 1) * (j + 1)
        out = self.torch.empty(chunk, dtype=self.torch.float32, device=self.device)
        fn = getattr(self.dist, "reduce_scatter_single", None) or getattr(self.dist, "reduce_scatter_tensor", None)
        try:
            if fn is not None:
                fn(out, inp)
            else:
                self.dist.reduce_scatter(out, list(inp.chunk(n)))
        except (RuntimeError, NotImplementedError, AttributeError) as e:
            text = str(e)
            if any(w in text.lower() for w in ("not supported", "unsupported", "does not support",
                                               "not implemented")):
                return {"status": "unsupported", "error": "%s: %s" % (type(e).__name__, text.splitlines()[0][:300])}
            raise
        self._sync()
        wrong = self._check_slots(out, n, (self.rank + 1) * n * (n + 1) / 2.0)
        return {"status": "wrong" if wrong else "ok", "wrong": wrong}

    def all_gather_object(self) -> Dict[str, Any]:
        self.bind()
        objs: List[Any] = [None] * self.world
        self.dist.all_gather_object(objs, {"rank": self.rank, "check": "torchdoctor"})
        wrong = [{"from": j, "what": "object %d is %r" % (j, o)} for j, o in enumerate(objs)
                 if not (isinstance(o, dict) and o.get("rank") == j)]
        return {"status": "wrong" if wrong else "ok", "wrong": wrong}

    # -- bandwidth -----------------------------------------------------------------
    def timed(self, op: str, size: int, iters: int, warmup: int, group=None, members: Optional[List[int]] = None) \
            -> Dict[str, Any]:
        """Seconds per `op` of `size` bytes on this rank (the whole array, nccl-tests' S)."""
        self.bind()
        n = len(members) if members else self.world
        if op == "all_reduce":
            elems = max(1, size // 4)
            x = self.torch.ones(elems, dtype=self.torch.float32, device=self.device)

            def run():
                self.dist.all_reduce(x, group=group)
            actual = elems * 4
        elif op == "all_gather":
            per = max(1, size // 4 // n)
            x = self.torch.ones(per, dtype=self.torch.float32, device=self.device)
            out = self.torch.empty(per * n, dtype=self.torch.float32, device=self.device)
            into = getattr(self.dist, "all_gather_single", None) or getattr(self.dist, "all_gather_into_tensor", None)
            outs = list(out.chunk(n))

            def run():
                if into is not None:
                    into(out, x, group=group)
                else:
                    self.dist.all_gather(outs, x, group=group)
            actual = per * n * 4
        else:
            raise ValueError(op)
        for _ in range(warmup):
            run()
        self._sync()
        sync = self._full(1, 1)
        self.dist.all_reduce(sync, group=group)  # start together
        self._sync()
        t0 = time.perf_counter()
        for _ in range(iters):
            run()
        self._sync()
        dt = (time.perf_counter() - t0) / max(1, iters)
        return {"status": "ok", "seconds": dt, "bytes": actual, "ranks": n}

    def new_groups(self, pairs: List[List[int]]) -> Dict[str, Any]:
        self.bind()
        self.groups = [self.dist.new_group(ranks=sorted(p)) for p in pairs]
        return {"status": "ok", "groups": len(self.groups)}
