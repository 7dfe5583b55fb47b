"""A whole tune run inside the child: pick the device, describe the environment, and per
workload plan the settings, run the strict baseline, check every setting's drift and
reproducibility, then time them interleaved."""

import json
import os
import sys
import time

from .compare import drift, same_runs
from .ops import NEED_WORDS, detect_ops, needs_of
from .output import Clock, Fatal, Out, attempt, describe_error
from .runner import Device, Runner
from .settings import (Setting, control_setting, cpu_settings, cuda_settings, default_setting, mps_settings,
                       strict_context, strict_enter)
from .state import State, fp32_api
from .timing import Timing
from .workloads import BUILTIN, BUILTIN_OPS, SIZES, build_builtin, build_user

CHECK_SHARE = 0.6  # of a workload's time: the drift checks stop there, timing gets the rest


def load_average():
    """The machine's 1-minute load average (None where the OS has none): how busy it was,
    said beside the verdicts."""
    return attempt(lambda: round(os.getloadavg()[0], 2))


class Tuner(object):
    def __init__(self, torch, cfg, out, clock):
        self.torch, self.cfg, self.out, self.clock = torch, cfg, out, clock
        self.mode = cfg.get("mode", "train")
        self.repro_runs = max(2, int(cfg.get("repro_runs", 2)))

    # ---------------------------------------------------------------- setup --
    def env(self, device):
        torch = self.torch
        env = {"torch": str(torch.__version__), "git": str(getattr(getattr(torch, "version", None), "git_version", "")),
               "device": device, "python": sys.version.split()[0], "threads": torch.get_num_threads(),
               "interop_threads": torch.get_num_interop_threads() if hasattr(torch, "get_num_interop_threads") else None,
               "cores": self.cfg.get("cores") or {}}
        env["cpu_capability"] = attempt(lambda: torch.backends.cpu.get_cpu_capability())
        env["mkldnn"] = attempt(lambda: bool(torch.backends.mkldnn.is_available()))
        env["cpu_bf16"] = attempt(lambda: bool(torch.ops.mkldnn._is_mkldnn_bf16_supported()))
        env["cudnn_version"] = None
        env["fp32_precision_api"] = fp32_api(torch, "matmul")
        env["float32_matmul_precision"] = attempt(torch.get_float32_matmul_precision)
        env["env"] = dict((k, os.environ[k]) for k in (
            "OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUBLAS_WORKSPACE_CONFIG", "NVIDIA_TF32_OVERRIDE",
            "TORCH_ALLOW_TF32_CUBLAS_OVERRIDE", "PYTORCH_ENABLE_MPS_FALLBACK", "CUDA_VISIBLE_DEVICES")
            if k in os.environ)
        if device == "cuda":
            env["name"] = attempt(lambda: torch.cuda.get_device_name(0))
            env["capability"] = attempt(lambda: list(torch.cuda.get_device_capability(0)))
            env["cuda"] = str(getattr(torch.version, "cuda", None))
            env["cuda_bf16"] = attempt(lambda: bool(torch.cuda.is_bf16_supported()))
            env["cudnn_version"] = attempt(lambda: torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None)
            env["memory_gib"] = attempt(lambda: round(torch.cuda.get_device_properties(0).total_memory / 2 ** 30, 1))
        elif device == "mps":
            import platform
            mac = platform.mac_ver()[0]
            env["name"] = "Apple GPU (MPS)" + (", macOS %s" % mac if mac else "")
        else:
            env["name"] = self.cfg.get("cpu_name") or "CPU"
        return env

    def pick_device(self):
        torch, want = self.torch, self.cfg.get("device") or "auto"
        cuda = attempt(lambda: bool(torch.cuda.is_available())) is True
        mps = attempt(lambda: bool(torch.backends.mps.is_available())) is True
        if want == "auto":
            return "cuda" if cuda else ("mps" if mps else "cpu")
        if want == "cuda" and not cuda:
            raise Fatal("device", {"error": "--device cuda: torch.cuda.is_available() is False in this interpreter "
                                            "(torch %s, built for CUDA %s)" % (torch.__version__, torch.version.cuda)})
        if want == "mps" and not mps:
            raise Fatal("device", {"error": "--device mps: torch.backends.mps.is_available() is False in this "
                                            "interpreter (torch %s)" % torch.__version__})
        return want

    def size(self, device):
        size = self.cfg.get("size") or "auto"
        if size != "auto":
            return size
        if device == "cuda":
            return "large"
        return "tiny" if float(self.cfg.get("budget", 60)) < 40 else "small"

    def settings_for(self, device, env, work):
        torch = self.torch
        if device == "cuda":
            items = cuda_settings(torch, env, varying_ok=work.shape_fn is not None)
        elif device == "mps":
            items = mps_settings(torch, env)
        else:
            items = cpu_settings(torch, env, self.cfg.get("cores") or {}, self.mode)
        have = needs_of(work.ops)
        shapes = work.shapes(torch)
        for s in items:
            if s.id == "cudnn.benchmark=True" and shapes > 1:  # the user's inputs vary: they are what it meets
                s.label = "cudnn.benchmark=True (your %d input shapes)" % shapes
        for s in items:
            if s.status == "planned" and s.needs and have is not None and not (s.needs & have):
                s.status = "not_applicable"
                s.reason = "the model calls no %s" % " or ".join(sorted(NEED_WORDS.get(n, n) for n in s.needs))
            if s.status == "planned" and s.layout == "channels_last":
                if not any(isinstance(a, torch.Tensor) and a.dim() == 4
                           for a in list(work.args) + list(work.kwargs.values())):
                    s.status, s.reason = "not_applicable", "no 4-d input tensor to put in channels_last"
        ids = set(s.id for s in items if s.status == "planned")
        for s in items:  # a setting measured against a reference that is not measured is not measured
            if s.status == "planned" and s.reference not in (None, "default") and s.reference not in ids:
                s.status, s.reason = "not_applicable", "its reference (%s) is not measured here" % s.reference
        return [default_setting(torch, device), control_setting(torch)] + items

    # ----------------------------------------------------------------- main --
    def run(self):
        torch, out = self.torch, self.out
        device = self.pick_device()
        env = self.env(device)
        dev = Device(torch, device)
        size = self.size(device)
        env["size"] = size
        env["load"] = load_average()
        out.rec("env", **env)
        state = State(torch)
        self.base_state = state.snapshot()
        if self.cfg.get("model"):
            names = [None]
        else:
            names = [n for n in (self.cfg.get("workloads") or BUILTIN)]
        for index, name in enumerate(names):
            left = self.clock.left()
            if left <= 0:
                for rest in names[index:]:
                    out.rec("workload_skipped", workload=rest or self.cfg.get("model"), reason="budget")
                break
            share_end = time.time() + left / (len(names) - index)
            try:
                if name is None:
                    work = build_user(torch, self.cfg, dev.device, out)
                else:
                    out.stage("%s: build" % name, workload=name, calls_model=False)
                    work = build_builtin(torch, name, SIZES[size][name], dev.device)
            except Fatal:
                raise
            except Exception as e:  # noqa: BLE001
                if name is None:  # the user's model is the only workload: it cannot be skipped
                    raise Fatal("model_error", dict(describe_error(e), stage="build %s" % self.cfg["model"]))
                out.rec("workload_error", workload=name, phase="build", **describe_error(e))
                continue
            self.workload(work, dev, env, state, share_end)
            del work
            if device == "cuda":
                attempt(torch.cuda.empty_cache)
        out.rec("done")

    def workload(self, work, dev, env, state, share_end):
        torch, out, name = self.torch, self.out, work.name
        runner = Runner(torch, dev, self.mode, work)
        default = default_setting(torch, dev.kind)
        if self.cfg.get("list_only") and work.builtin:
            work.ops = BUILTIN_OPS[name]
            settings = self.settings_for(dev.kind, env, work)
            out.rec("plan", workload=name, description=work.description, input=work.input_desc, builtin=True,
                    mode=self.mode, ops=work.ops, shapes=work.shapes(torch), first_run_s=None, settings=[s.plan() for s in settings])
            return
        out.stage("%s: first run" % name, workload=name, setting="default", calls_model=True)
        try:
            t0 = time.perf_counter()
            work.ops, _ = detect_ops(torch, runner.step_for(default))
            dev.sync()
            first = time.perf_counter() - t0
        except Exception as e:  # noqa: BLE001
            info = dict(describe_error(e), workload=name, stage="first run of %s with the default settings" % name)
            if not work.builtin:
                raise Fatal("model_error", info)
            out.rec("workload_error", phase="first run", **info)
            return
        changed = state.differs(self.base_state)
        if changed:  # the model sets global flags itself: a setting of the same flag measures nothing
            out.rec("model_changes_flags", workload=name, keys=changed,
                    values=dict((k, state.snapshot().get(k)) for k in changed))
            state.restore(self.base_state)
        settings = self.settings_for(dev.kind, env, work)
        out.rec("plan", workload=name, description=work.description, input=work.input_desc, builtin=work.builtin,
                mode=self.mode, ops=work.ops, shapes=work.shapes(torch), first_run_s=first, settings=[s.plan() for s in settings])
        if self.cfg.get("list_only"):
            return
        active = [s for s in settings if s.status == "planned"]
        # -- strict baseline: what every setting's drift is measured against
        out.stage("%s: strict baseline" % name, workload=name, setting="strict", calls_model=True)
        strict = Setting("strict", "strict", "strict baseline", "", enter=strict_enter(torch, dev.kind),
                         context=strict_context(torch, dev.kind) if "sdpa" in (needs_of(work.ops) or ()) else None)
        baseline = None
        check_end = time.time() + CHECK_SHARE * max(0.0, share_end - time.time())
        # The check time is dealt out in slots, one per setting and one for the baseline: a
        # second (reproducibility) run only when it fits its slot, so a slow model still
        # gets a drift check of every setting rather than two runs of the first few.
        slots = [1 + sum(1 for s in active if not (s.varying or s.role == "control"))]

        def slot_end():
            end = time.time() + max(0.0, check_end - time.time()) / max(1, slots[0])
            slots[0] -= 1
            return end
        try:
            runs = self.check_runs(runner, strict, state, first, slot_end(), share_end)
            if runs:
                baseline = runs[0]
                out.rec("baseline", workload=name, reproducible=same_runs(torch, runs),
                    runs=len(runs), step_s=max(r[2] for r in runs),
                    description="float32, TF32 off, float32_matmul_precision=highest, deterministic algorithms "
                                "(warn only), cudnn.deterministic=True, benchmark=False, math SDPA")
        except Exception as e:  # noqa: BLE001
            out.rec("baseline_error", workload=name, **describe_error(e))
        # -- drift and reproducibility of each setting, alone
        est = {}
        checked = []
        for s in active:
            if s.varying or s.role == "control":  # no drift check of their own: timed only
                checked.append(s)
                est[s.id] = first
                continue
            end = slot_end()
            if self.clock.left() <= 0 or time.time() > check_end:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="check")
                continue
            out.stage("%s: check %s" % (name, s.label), workload=name, setting=s.id, calls_model=True)
            try:
                runs = self.check_runs(runner, s, state, first, end, check_end)
            except Exception as e:  # noqa: BLE001
                out.rec("setting_error", workload=name, setting=s.id, phase="check", **describe_error(e))
                if dev.kind == "cuda":
                    attempt(torch.cuda.empty_cache)
                continue
            if not runs:
                out.rec("not_measured", workload=name, setting=s.id, reason="budget", phase="check")
                continue
            rec = {"reproducible": same_runs(torch, runs), "runs": len(runs), "step_s": max(r[2] for r in runs)}
            if baseline is not None:
                rec["drift_output"] = drift(torch, runs[0][0], baseline[0])
                rec["drift_grad"] = drift(torch, runs[0][1], baseline[1]) if self.mode == "train" else None
            out.rec("check", workload=name, setting=s.id, **rec)
            est[s.id] = rec["step_s"]
            checked.append(s)
        # -- timing, interleaved
        Timing(self.torch, self.out, self.clock, self.base_state).run(runner, checked, state, est, share_end, work)
        out.rec("workload_done", workload=name, load=load_average())

    def check_runs(self, runner, setting, state, first, slot_end, hard_end):
        """Seeded runs of one setting: the first whenever it fits before `hard_end`, more
        (for reproducibility) while they fit in the setting's slot."""
        runs = []
        for i in range(self.repro_runs):
            last = runs[-1][2] if runs else first
            if self.clock.left() < last * 1.5 or time.time() + last > (slot_end if i else hard_end):
                break
            snap = runner.enter(setting, state)
            try:
                runs.append(runner.capture(runner.step_for(setting)))
            finally:
                leaked = runner.leave(setting, state, snap)
            if leaked:
                self.out.rec("leak", workload=runner.work.name, setting=setting.id, keys=leaked)
        return runs


def main(argv):
    import faulthandler
    # A segfault or abort in the model prints the Python stack to stderr, which the
    # parent keeps: the finding can say which line of the model was running.
    faulthandler.enable()
    out = Out(argv[1])
    # The parent stops this process group by this id if it is interrupted (Ctrl-C).
    out.rec("start", pid=os.getpid())
    cfg = json.loads(argv[2])
    clock = Clock(cfg["deadline"], cfg.get("reserve", 0.3))
    out.stage("import torch", calls_model=False)
    t0 = time.time()
    try:
        import torch
    except BaseException as e:  # noqa: BLE001 - SystemExit and friends from a broken install too
        out.rec("fatal", kind="import", stage="import torch", **describe_error(e))
        return 3
    out.rec("imported", seconds=round(time.time() - t0, 3), torch=str(torch.__version__))
    tuner = Tuner(torch, cfg, out, clock)
    try:
        tuner.run()
    except Fatal as f:
        out.rec("fatal", kind=f.kind, **f.info)
        return 3
    except Exception as e:  # noqa: BLE001 - a bug here must still end as a record, not a lost run
        out.rec("fatal", kind="internal", stage="tune worker", **describe_error(e))
        return 3
    return 0


def exit_now(rc):
    """Leave without interpreter shutdown (seconds of torch teardown, and a broken model
    can hang in it); every record is already written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(rc)


