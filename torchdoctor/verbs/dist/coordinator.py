"""Rank 0: waits for the others at every step (each wait has a deadline), assembles the
job's facts, decides the plan (backend, sizes, steps), collects every step's per-rank
results, and ends with the report. When the launcher stops the job (SIGTERM), it still
reports what it knows: which step was running, who had left, who had not answered.
"""

import os
import time
from typing import Any, Dict, List

from ... import __version__
from ...model.findings import severity_rank
from . import bandwidth as B
from . import conditions as C
from . import jobfacts as J
from . import early
from .common import RESULT_ENV, SLACK, STALE_S, default_sizes, write_result
from .conditions.bandwidth import expected_bound
from .store import Liveness, Stopped

OBJECT_STEPS = ("init", "barrier", "all_reduce", "all_gather", "broadcast", "reduce_scatter", "all_gather_object")
MAX_ALL_PAIRS_NODES = 16
MAX_RANK_PAIRS = 64
STOP_REPORT_S = 1.0  # after a stop signal, how long rank 0 waits for the others' word on the running step


class Coordinator:
    def __init__(self, rank):  # a rank.Rank: the channel (None before it connected), options, its own steps
        self.R = rank
        self.ch = rank.ch
        self.n = rank.n
        self.opts = rank.opts
        self.live = Liveness(self.ch, STALE_S)
        self.result_path = os.environ.get(RESULT_ENV)
        self.job: Dict[str, Any] = {
            "schema_version": J.SCHEMA_VERSION, "kind": J.KIND,
            "tool": {"name": "torchdoctor", "version": __version__},
            "collected_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "complete": False,
            "launcher": {"name": rank.job.launcher, "run_id": rank.job.run_id, "restart": rank.job.restart,
                         "self_launched": bool(self.result_path)},
            "options": self.opts.to_dict(), "world_size": self.n, "backend": None,
            "ranks": [{"rank": r, "joined": False} for r in range(self.n)], "nodes": [], "steps": [],
            "bandwidth": {"rows": [], "formula": dict(B.FORMULA), "source": B.SOURCE}, "pairs": [],
            "timings": {}, "findings": [],
        }
        self.t0 = time.monotonic()

    # -- helpers ----------------------------------------------------------------
    def rec(self, r: int) -> Dict[str, Any]:
        return self.job["ranks"][r]

    def save(self) -> None:
        if self.result_path:
            try:
                write_result(self.result_path, self.job)
            except OSError:
                pass

    def fate(self, r: int, how: str, step: str, reason: str = "", **extra) -> None:
        rec = self.rec(r)
        if isinstance(rec.get("fate"), dict) and rec["fate"].get("how") != "terminated":
            return
        rec["fate"] = dict({"how": how, "step": step, "reason": reason}, **extra)

    def dead_among(self, ranks: List[int], step: str) -> List[int]:
        gone = self.live.dead([r for r in ranks if r != 0 and not self.rec(r).get("fate")])
        for r, why in gone.items():
            how = "exited" if why.startswith("its process") else "gone"  # seen to exit, or only silent
            self.fate(r, how, step if step in ("join", "gather") else self.step_of(r), why)
        return [r for r in ranks if self.rec(r).get("fate")]

    def wait_all(self, counter: str, expected: List[int], key_of, deadline: float, step: str) -> List[int]:
        """Wait for every rank in `expected` to publish `key_of(r)`; stop early once all
        the missing ones are gone. Returns the ranks that did publish."""
        last_tick = [0.0]

        def tick() -> bool:
            now = time.monotonic()
            if now - last_tick[0] < 0.5:
                return False
            last_tick[0] = now
            missing = [r for r in expected if not self.ch.has(key_of(r))]
            if not missing:
                return True
            gone = self.dead_among(missing, step)
            return set(missing) <= set(gone)

        self.ch.wait_count(counter, len(expected), deadline, tick=tick)
        return [r for r in expected if self.ch.has(key_of(r))]

    # -- the run -------------------------------------------------------------------
    def run(self) -> int:
        try:
            complete = self.join_phase()
            if self.gather_phase() and complete:
                plan = self.plan_phase()
                if plan.get("proceed"):
                    self.steps_phase(plan)
            else:
                self.ch.put("plan", {"proceed": False, "why": "not every rank joined and reported"})
        except Stopped as e:
            self.job["interrupted"] = str(e)
            self.mark_interrupted()
        return self.finish()

    def join_phase(self) -> bool:
        R = self.R
        R.join()
        t = self.join_t0 = time.monotonic()
        deadline = t + self.opts.join_timeout
        R.step_name = "join"
        self.ch.wait_count("n/join", self.n, deadline)
        self.mark_joined()
        missing = [r for r in range(self.n) if not self.rec(r)["joined"]]
        self.job["steps"].append({"name": "join", "kind": "join", "status": "ok" if not missing else "failed",
                                  "timeout_s": self.opts.join_timeout, "seconds": round(time.monotonic() - t, 3),
                                  "missing": missing})
        self.job["timings"]["join_s"] = round(time.monotonic() - t, 3)
        # The ranks that did join still report their facts (they are compared); no collectives without all.
        self.ch.put("plan/join", {"proceed": True, "collectives": not missing})
        self.save()
        return not missing

    def mark_joined(self) -> None:
        R = self.R
        joined = self.ch.which(["join/%d" % r for r in range(self.n)])
        ranks = sorted(int(k.split("/")[1]) for k in joined)
        for r, w in zip(ranks, self.ch.get_many(["join/%d" % r for r in ranks])):
            rec = self.rec(r)
            rec["joined"] = True
            rec["where"] = w
            if w.get("pidns") and w.get("pidns") == R.where.get("pidns") and r != 0:
                self.live.watch_local(r, int(w["pid"]))
        J.assign_nodes(self.job)

    def gather_phase(self) -> bool:
        R = self.R
        t = time.monotonic()
        own = R.gather()
        R.publish_summary(own)
        R.step_name = "gather"
        expected = [r for r in range(self.n) if self.rec(r)["joined"]]
        have = self.wait_all("n/sum", expected, lambda r: "sum/%d" % r, time.monotonic() + self.opts.timeout + SLACK,
                             "gather")
        tc = time.monotonic()
        for r, s in zip(have, self.ch.get_many(["sum/%d" % r for r in have])):
            rec = self.rec(r)
            rec["summary"] = s
            rec["gather"] = {"ok": bool((s.get("probe") or {}).get("ok")), "error": (s.get("probe") or {}).get("error"),
                             "seconds": s.get("gather_s")}
        self.job["timings"]["collect_s"] = round(time.monotonic() - tc, 4)
        self.job["timings"]["gather_s"] = {r: self.rec(r).get("summary", {}).get("gather_s") for r in have}
        missing = [r for r in expected if r not in have]
        for r in missing:
            if not self.rec(r).get("fate"):
                self.rec(r)["gather"] = {"ok": False, "error": "no facts within %g s" % self.opts.timeout}
        self.job["steps"].append({"name": "gather", "kind": "gather", "status": "ok" if not missing else "failed",
                                  "timeout_s": self.opts.timeout, "seconds": round(time.monotonic() - t, 3),
                                  "missing": missing})
        td = time.monotonic()
        C.diagnose(self.job)  # the diff costs this much (measured for the benchmark); findings come at the end
        self.job["timings"]["diff_s"] = round(time.monotonic() - td, 4)
        self.save()
        return not missing

    def choose_backend(self) -> str:
        sums = [self.rec(r).get("summary") or {} for r in range(self.n)]
        every_gpu = all((s.get("cuda") or {}).get("available") for s in sums)
        torch_has_nccl = all((s.get("torch") or {}).get("cuda") for s in sums)
        if self.opts.backend != "auto":
            self.job["backend_why"] = "--backend %s" % self.opts.backend
            return self.opts.backend
        if every_gpu and torch_has_nccl:
            self.job["backend_why"] = "every rank has a CUDA device"
            return "nccl"
        lacking = [r for r, s in enumerate(sums) if not (s.get("cuda") or {}).get("available")]
        self.job["backend_why"] = ("no rank has a CUDA device" if len(lacking) == self.n else
                                   "%s without a CUDA device" % J.ranks_phrase(self.job, lacking))
        return "gloo"

    def pairs(self) -> List[Dict[str, Any]]:
        nodes = self.job["nodes"]
        out = []
        if len(nodes) > 1:
            idx = range(len(nodes))
            combos = [(a, b) for a in idx for b in idx if a < b] if len(nodes) <= MAX_ALL_PAIRS_NODES else \
                [(i, (i + 1) % len(nodes)) for i in idx]
            for a, b in combos:
                out.append({"what": "node %s <-> node %s" % (nodes[a]["label"], nodes[b]["label"]),
                            "ranks": sorted(nodes[a]["ranks"] + nodes[b]["ranks"])})
        else:
            combos = [(a, b) for a in range(self.n) for b in range(self.n) if a < b][:MAX_RANK_PAIRS]
            for a, b in combos:
                out.append({"what": "rank %d <-> rank %d" % (a, b), "ranks": [a, b]})
        return out

    def plan_phase(self) -> Dict[str, Any]:
        backend = self.choose_backend()
        self.job["backend"] = backend
        sizes = B.parse_sizes(self.opts.sizes) if self.opts.sizes else default_sizes(backend)
        plan: Dict[str, Any] = {"proceed": self.opts.collectives, "backend": backend,
                                "iters": self.opts.iters or (20 if backend == "nccl" else 5),
                                "warmup": self.opts.warmup if self.opts.warmup is not None else
                                (5 if backend == "nccl" else 1), "steps": [], "pairs": []}
        if not self.opts.collectives:
            plan["why"] = "--no-collectives"
        steps = [{"name": s, "kind": s} for s in OBJECT_STEPS]
        if self.opts.bandwidth:
            for op in ("all_reduce", "all_gather"):
                for size in sizes:
                    steps.append({"name": "%s %s" % (op, B.human_size(size)), "kind": "sweep", "op": op,
                                  "bytes": size})
        if self.opts.pairs and self.n > 1:
            plan["pairs"] = self.pairs()
            if plan["pairs"]:
                steps.append({"name": "pair groups", "kind": "groups"})
                for i, p in enumerate(plan["pairs"]):
                    steps.append({"name": "pair %s" % p["what"], "kind": "pair", "pair": i, "bytes": max(sizes)})
        plan["steps"] = steps
        self.job["plan"] = {k: plan[k] for k in ("backend", "iters", "warmup")}
        self.job["plan"]["sizes"] = sizes
        self.ch.put("plan", plan)
        self.plan = plan
        return plan

    def steps_phase(self, plan: Dict[str, Any]) -> None:
        R = self.R
        R.comm = R.make_comm(plan)
        for i, step in enumerate(plan["steps"]):
            name = step["name"]
            t = time.monotonic()
            own = R.run_step(plan, step)
            everyone = list(range(self.n))
            have = self.wait_all("n/res/%s" % name, everyone, lambda r: "res/%s/%d" % (name, r),
                                 t + self.opts.timeout + SLACK, name)
            per = {0: own}
            others = [r for r in have if r != 0]
            for r, res in zip(others, self.ch.get_many(["res/%s/%d" % (name, r) for r in others])):
                per[r] = res
            for r in everyone:
                if r not in per:
                    gone = isinstance(self.rec(r).get("fate"), dict)
                    per[r] = {"status": "gone" if gone else "missing",
                              "entered": self.ch.has("enter/%s/%d" % (name, r))}
            status = self.judge(step, per)
            if status not in ("ok", "unsupported", "wrong"):
                self.add_progress(per)
            rec = {"name": name, "kind": step["kind"], "status": status, "timeout_s": self.opts.timeout,
                   "seconds": round(time.monotonic() - t, 4), "backend": plan["backend"],
                   "per_rank": {str(r): per[r] for r in sorted(per)}}
            if step["kind"] in ("sweep", "pair"):
                rec.update({k: step[k] for k in ("op", "bytes", "pair") if k in step})
            self.job["steps"].append(rec)
            self.record_bandwidth(plan, step, per, status)
            # A failed all_gather_object is local (unpickling after the gather), the group is intact.
            go = status in ("ok", "unsupported", "wrong") or (status == "error" and step["kind"] == "all_gather_object")
            self.ch.put("go/%s" % name, {"go": go})
            if not go:
                for later in plan["steps"][i + 1:]:
                    self.job["steps"].append({"name": later["name"], "kind": later["kind"], "status": "skipped",
                                              "detail": "not run after %s %s" % (name, status)})
                break
            self.save()

    def add_progress(self, per: Dict[Any, Dict[str, Any]]) -> None:
        """Each rank's last published progress (the step it last entered and left, how long
        ago), beside its result of a step that did not pass: what names the rank that never
        reached it."""
        now = time.time()
        for r, v in per.items():
            try:
                if not self.ch.has("at/%d" % int(r)):
                    continue
                at = self.ch.get("at/%d" % int(r))
            except Exception:  # noqa: BLE001 - the store may be going away with the job
                return
            if isinstance(at, dict):
                at["ago_s"] = round(max(0.0, now - float(at.get("t") or now)), 1)
                if at.get("last_left_t"):
                    at["last_left_ago_s"] = round(max(0.0, now - float(at["last_left_t"])), 1)
                v["at"] = at

    def judge(self, step: Dict[str, Any], per: Dict[int, Dict[str, Any]]) -> str:
        states = [v.get("status") for v in per.values() if v.get("status") != "skipped"]
        if any(s in ("timeout", "missing") for s in states):
            return "timeout"
        if any(s in ("error", "gone") for s in states):
            return "error"
        if any(s == "wrong" for s in states):
            return "wrong"
        if states and all(s == "unsupported" for s in states):
            return "unsupported"
        if any(s == "unsupported" for s in states):
            return "error"
        return "ok"

    def record_bandwidth(self, plan, step, per, status) -> None:
        if step["kind"] not in ("sweep", "pair") or status != "ok":
            return
        times = {r: v.get("seconds") for r, v in per.items() if v.get("status") == "ok" and v.get("seconds")}
        if not times:
            return
        slowest = max(times, key=lambda r: times[r])
        t = times[slowest]
        n = next(v.get("ranks") for v in per.values() if v.get("ranks"))
        size = next(v.get("bytes") for v in per.values() if v.get("bytes"))
        op = step.get("op", "all_reduce")
        row = {"op": op, "bytes": size, "requested_bytes": step.get("bytes", size), "time_s": t,
               "algbw": B.algbw(size, t), "busbw": B.busbw(op, size, t, n),
               "ranks": n, "slowest_rank": slowest, "iters": plan["iters"]}
        if step["kind"] == "sweep":
            self.job["bandwidth"]["rows"].append(row)
        else:
            p = plan["pairs"][step["pair"]]
            self.job["pairs"].append(dict(row, what=p["what"], members=p["ranks"]))

    def current_step(self) -> str:
        """The step that was running: the first planned one not recorded yet (the signal may
        land between recording one step and naming the next)."""
        recorded = {s.get("name") for s in self.job["steps"]}
        plan = getattr(self, "plan", None)
        if plan and plan.get("proceed") and self.R.step_name not in ("join", "gather", "start"):
            for st in plan["steps"]:
                if st["name"] not in recorded:
                    return st["name"]
        return self.R.step_name

    def step_of(self, r: int) -> str:
        """The first step rank `r` gave no good result for."""
        rec = self.rec(r)
        if not rec.get("joined"):
            return "join"
        if not isinstance(rec.get("summary"), dict):
            return "gather"
        plan = getattr(self, "plan", None)
        steps = {s.get("name"): s for s in self.job["steps"]}
        for st in (plan or {}).get("steps") or []:
            got = steps.get(st["name"])
            if got is None or (got.get("per_rank") or {}).get(str(r), {}).get("status") not in \
                    ("ok", "skipped", "unsupported", "wrong"):
                return st["name"]
        return self.current_step()

    def mark_interrupted(self) -> None:
        """SIGTERM (or SIGINT) arrived: record the running step as interrupted, quickly."""
        name = self.current_step()
        if name in ("join", "start"):
            if not any(s.get("name") == "join" for s in self.job["steps"]):
                try:
                    self.mark_joined()
                except Exception:  # noqa: BLE001 - the store may be going away with the job
                    pass
                t0 = getattr(self, "join_t0", self.t0)
                self.job["steps"].append({
                    "name": "join", "kind": "join", "status": "interrupted", "detail": self.job["interrupted"],
                    "seconds": round(time.monotonic() - t0, 3), "timeout_s": self.opts.join_timeout,
                    "missing": [r for r in range(self.n) if not self.rec(r)["joined"]]})
            return
        if name in ("gather", "plan", "done"):
            if not any(s.get("name") == name for s in self.job["steps"]):
                self.job["steps"].append({"name": name, "kind": name, "status": "interrupted",
                                          "detail": self.job["interrupted"]})
            return
        if any(s.get("name") == name for s in self.job["steps"]):
            return
        # Every rank got the signal too: give them a moment to say where they were in the step.
        end = time.monotonic() + STOP_REPORT_S
        try:
            while self.ch.count("n/res/%s" % name) < self.n and time.monotonic() < end:
                time.sleep(0.05)
        except Exception:  # noqa: BLE001 - the store may be going away with the job
            pass
        per = {}
        for r in range(self.n):
            try:
                if self.ch.has("res/%s/%d" % (name, r)):
                    per[str(r)] = self.ch.get("res/%s/%d" % (name, r))
                else:
                    per[str(r)] = {"status": "missing", "entered": self.ch.has("enter/%s/%d" % (name, r))}
            except Exception:  # noqa: BLE001 - the store may be going away with the job
                break
        self.add_progress(per)
        self.job["steps"].append({"name": name, "kind": name, "status": "interrupted",
                                  "detail": self.job["interrupted"], "per_rank": per})

    def collect_fates(self, step: str) -> None:
        for r in range(1, self.n):
            rec = self.rec(r)
            if not rec.get("joined"):
                continue
            try:
                if self.ch.has("exit/%d" % r):
                    e = self.ch.get("exit/%d" % r)
                    if not isinstance(rec.get("fate"), dict):
                        rec["fate"] = {"how": e.get("how"), "step": e.get("step"), "reason": e.get("reason") or
                                       ("%s from the launcher" % e["signal"] if e.get("signal") else "")}
            except Exception:  # noqa: BLE001
                break
        try:
            self.dead_among([r for r in range(self.n) if self.rec(r).get("joined")], step)
        except Exception:  # noqa: BLE001
            pass
        roots = [x for x in self.job["ranks"] if isinstance(x.get("fate"), dict) and x["fate"].get("how") != "terminated"]
        for x in self.job["ranks"]:
            f = x.get("fate")
            if isinstance(f, dict) and f.get("how") == "terminated" and (roots or self.job.get("interrupted")):
                f["victim"] = bool(roots)
        # a rank that left is "gone" in the step it did not answer, not merely late
        for st in self.job["steps"]:
            for r, v in (st.get("per_rank") or {}).items():
                f = self.rec(int(r)).get("fate")
                if v.get("status") == "missing" and isinstance(f, dict) and f.get("how") != "terminated":
                    v["status"] = "gone"

    def stopped_by(self) -> None:
        """What the stop signal was and when, for the report."""
        sig = getattr(self.R, "stop_signal", None)
        if sig:
            self.job["stopped"] = {"signal": sig, "during": getattr(self.R, "stop_step", None) or self.current_step(),
                                   "after_s": round(time.monotonic() - early.STARTED, 1)}

    def finish(self) -> int:
        running = self.current_step()
        self.stopped_by()
        self.R.step_name = "report"
        if self.ch is not None:
            self.collect_fates(running)
        self.job["expectation"] = expected_bound(self.job)
        self.job["complete"] = not self.job.get("interrupted")
        self.job["timings"]["total_s"] = round(time.monotonic() - self.t0, 3)
        findings = C.diagnose(self.job)
        self.job["findings"] = [f.to_dict() for f in findings]
        code = exit_code(findings, self.opts.fail_on)
        self.job["exit_code"] = code
        if self.result_path:
            self.save()
        else:
            from .render import emit
            code = emit(self.job, self.opts, code)
        if self.ch is None:
            return 0 if self.result_path else code
        try:
            self.ch.put("done", {"exit": code})
            if not self.R.job.agent_store:
                # rank 0 hosts the store: let the others read "done" before it goes
                alive = [r for r in range(1, self.n) if self.rec(r).get("joined") and not self.rec(r).get("fate")]
                self.ch.wait_count("bye", len(alive), time.monotonic() + 5)
        except Exception:  # noqa: BLE001
            pass
        return 0 if self.result_path else code


def answer_unconnected(rank) -> int:
    """Rank 0 was stopped before it reached the rendezvous store (the launcher's SIGTERM while
    it started or imported torch): the job's answer from what rank 0 alone knows."""
    from . import summary as S
    co = Coordinator(rank)
    co.rec(0)["where"] = S.where(0, rank.job.local_rank, rank.job.local_world_size, rank.job.node_rank)
    J.assign_nodes(co.job)
    co.job["interrupted"] = "%s before rank 0 reached the rendezvous store" % rank.stop_reason
    co.job["steps"].append({"name": "join", "kind": "join", "status": "interrupted", "unknown": True,
                            "detail": co.job["interrupted"], "seconds": round(time.monotonic() - early.STARTED, 3),
                            "timeout_s": rank.opts.join_timeout, "missing": None})
    return co.finish()


def exit_code(findings, fail_on: str) -> int:
    if fail_on == "never":
        return 0
    worst = max((severity_rank(f.severity) for f in findings), default=-1)
    return 1 if worst >= severity_rank(fail_on) else 0
