"""Timing: every setting's timed blocks, interleaved in rounds (each round starts one
setting later), within the workload's share of the budget."""

import random
import time

from .output import attempt, describe_error
from .workloads import SEED

TIMER_OVERHEAD_S = 0.02  # per timed block: Timer set-up, block-size estimate, apply/undo
MIN_SLICE_S = 0.02
MAX_SLICE_S = 1.0
TARGET_ROUNDS = 6
MIN_ROUNDS = 2
MAX_ROUNDS = 50  # more interleaved rounds than this add little; the rest of the budget is left
VARYING_PER_BLOCK = 4
BLOCKS_PER_SLICE = 5  # timed blocks per slice where the timer synchronises a device


class Timing(object):
    def __init__(self, torch, out, clock, base_state):
        self.torch, self.out, self.clock, self.base_state = torch, out, clock, base_state

    def run(self, runner, settings, state, est, share_end, work):
        torch, out, name = self.torch, self.out, work.name
        if len([s for s in settings if s.role != "control"]) < 2 or not any(s.role == "default" for s in settings):
            # Nothing to compare against (the drift checks used the time up): leave the
            # time to the next workload rather than timing one setting alone.
            for s in settings:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="timing")
            return
        try:
            from torch.utils.benchmark import Timer
        except Exception:  # noqa: BLE001
            Timer = None
        n = len(settings)
        span = max(0.0, min(share_end - time.time(), self.clock.left()))
        slice_s = min(MAX_SLICE_S, max(MIN_SLICE_S, span / (n * TARGET_ROUNDS) - TIMER_OVERHEAD_S))
        shapes = self.shape_pool(work, settings)
        dropped = set()
        rnd = 0
        while True:
            order = settings[rnd % n:] + settings[:rnd % n]  # rotate: no setting always runs first
            measured_any = False
            for s in order:
                if s.id in dropped:
                    continue
                # A block is the Timer's block-size estimate (a step or more) plus steps
                # until slice_s: a slow step costs about three of itself.
                need = slice_s + 3 * est.get(s.id, 0.0) + TIMER_OVERHEAD_S
                # A block that does not fit is left out of this round; a quicker setting
                # may still fit, and the round ends the loop when none did.
                if self.clock.left() < need or (rnd >= MIN_ROUNDS and time.time() + need > share_end):
                    continue
                out.stage("%s: timing %s (round %d)" % (name, s.label, rnd + 1), workload=name, setting=s.id,
                          calls_model=True, round=rnd + 1)
                snap = runner.enter(s, state)
                try:
                    if s.varying:
                        times, number = self.time_varying(runner, s, shapes[s.id], Timer, slice_s, est)
                    else:
                        times, number = self.time_block(runner, s, Timer, slice_s)
                except Exception as e:  # noqa: BLE001
                    out.rec("setting_error", workload=name, setting=s.id, phase="timing", **describe_error(e))
                    dropped.add(s.id)
                    if runner.dev.kind == "cuda":  # an out-of-memory must not starve the next setting
                        attempt(torch.cuda.empty_cache)
                    continue
                finally:
                    leaked = runner.leave(s, state, snap)
                if leaked:
                    out.rec("leak", workload=name, setting=s.id, keys=leaked)
                if not times:
                    dropped.add(s.id)
                    out.rec("not_measured", workload=name, setting=s.id, reason="shape pool used up", phase="timing")
                    continue
                measured_any = True
                est[s.id] = max(est.get(s.id, 0.0), max(times) * (number or 1))
                out.rec("times", workload=name, setting=s.id, round=rnd + 1, times=times, number_per_run=number)
            rnd += 1
            if not measured_any or rnd >= MAX_ROUNDS:
                return

    def time_block(self, runner, s, Timer, slice_s):
        """(seconds per model call of each timed block, model calls per block)."""
        step, calls = runner.timed_step(s)
        if Timer is not None and runner.dev.kind == "cpu":
            threads = s.threads if s.threads is not None else self.base_state.get("threads", self.torch.get_num_threads())
            t = Timer(stmt="step()", globals={"step": step}, timer=runner.dev.timer, num_threads=threads)
            m = t.blocked_autorange(min_run_time=slice_s)
            return [float(x) / calls for x in m.times], int(m.number_per_run) * calls
        # A GPU's timer synchronises the device, which costs tens of microseconds; the Timer's
        # block-size estimate (timer overhead under 1e-4 of a block) then makes one block outlast
        # the slice, so each round gave one sample and most settings ended "too few samples" on a
        # real H200. Blocks of whole steps, BLOCKS_PER_SLICE of them per slice, instead.
        step()  # the first call after entering a setting may re-plan (cuDNN, cuBLAS): untimed
        t0 = runner.dev.timer()
        step()
        one = max(runner.dev.timer() - t0, 1e-6)
        k = max(1, int(slice_s / BLOCKS_PER_SLICE / one))
        times, t_end = [], time.perf_counter() + slice_s
        while not times or time.perf_counter() < t_end:
            t0 = runner.dev.timer()
            for _ in range(k):
                step()
            times.append((runner.dev.timer() - t0) / (k * calls))
        return times, k * calls

    def shape_pool(self, work, settings):
        varying = [s for s in settings if s.varying]
        if not varying or work.shape_fn is None:
            return {}
        _, n0, hw0 = work.shape_fn
        pool = [(n, hw) for n in range(max(1, n0 // 2), 2 * n0 + 1) for hw in range(max(8, hw0 // 2), hw0 * 3 // 2 + 1)
                if (n, hw) != (n0, hw0)]
        random.Random(SEED).shuffle(pool)
        # Deal the shapes out in turn: every shape is new to cuDNN's cache for whichever
        # setting gets it, and each setting's shapes have the same size distribution.
        return dict((s.id, iter(pool[i::len(varying)])) for i, s in enumerate(varying))

    def time_varying(self, runner, s, shapes, Timer, slice_s, est):
        fn = runner.work.shape_fn[0]

        def step():
            nn_, hw = next(shapes)
            x = fn(nn_, hw)
            return runner.step_for(s, (x,), {})()
        times = []
        t_end = time.perf_counter() + slice_s
        try:
            while not times or time.perf_counter() < t_end:
                if Timer is not None:
                    m = Timer(stmt="step()", globals={"step": step}, timer=runner.dev.timer,
                              num_threads=self.torch.get_num_threads()).timeit(number=VARYING_PER_BLOCK)
                    times.extend(float(x) for x in m.times)
                else:
                    t0 = runner.dev.timer()
                    for _ in range(VARYING_PER_BLOCK):
                        step()
                    times.append((runner.dev.timer() - t0) / VARYING_PER_BLOCK)
        except StopIteration:
            pass
        if times:
            est[s.id] = max(times)
        return times, VARYING_PER_BLOCK


