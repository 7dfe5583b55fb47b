"""Real `torchdoctor dist` jobs under the user's own torchrun (CPU torch, gloo, ranks on
127.0.0.1), with faults injected from outside the product, started together and watched:
when rank 0's answer arrived on stdout, when the job's last rank and last process left.

Faults come from a sitecustomize that acts in the ranks where TDTEST_FAULTS is set (and,
with TDTEST_FAULT_RANK, only in that RANK), and from a per-rank wrapper that torchrun runs
with --no-python: its own env, PYTHONPATH and interpreter per rank, or a rank that never
starts, or one that exits as soon as rank 0 can catch the launcher's SIGTERM.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid

from conftest import ROOT, TORCH_PYTHON

FAULTS = r'''
import os, sys
FAULTS = set(filter(None, os.environ.get("TDTEST_FAULTS", "").split(",")))
ONLY = os.environ.get("TDTEST_FAULT_RANK")
if FAULTS and (ONLY is None or os.environ.get("RANK") == ONLY):
    import importlib.machinery

    PATCHED = {"corrupt_all_reduce", "exit_in_broadcast", "hang_in_sweep", "hang_in_all_gather",
               "stop_in_all_reduce", "kill_in_all_gather"}

    class _Finder:
        def find_spec(self, name, path=None, target=None):
            if "hide_numpy" in FAULTS and (name == "numpy" or name.startswith("numpy.")):
                # what a torch without NumPy sees; torch then says "Numpy is not available"
                raise ModuleNotFoundError("No module named %r" % name, name=name)
            wanted = (name == "torch.distributed" and FAULTS & PATCHED) or (name == "torch" and "other_torch" in FAULTS)
            if wanted:
                spec = importlib.machinery.PathFinder.find_spec(name, path, target)
                if spec is None or spec.loader is None:
                    return spec
                real = spec.loader.exec_module

                def exec_module(module, real=real, name=name):
                    real(module)
                    (_other_torch if name == "torch" else _patch)(module)
                spec.loader.exec_module = exec_module
                return spec
            return None

    def _flag():
        flag = os.environ.get("TDTEST_HANG_FLAG")
        if flag:  # the test waits for this before it acts
            open("%s.%s" % (flag, os.environ.get("RANK")), "w").close()

    def _other_torch(torch):
        # another torch build on this rank, as its facts read: a CUDA 12.6 build of 2.12 (the CPU
        # kernels underneath are this venv's; only what the rank reports differs)
        torch.__version__ = torch.version.__version__ = "2.12.0+cu126"
        torch.version.cuda = "12.6"
        torch.version.git_version = "1eba9b3aa3c43f86f4a2c807ac8e12c4a7767340"

    def _patch(d):
        import signal
        import time
        if "corrupt_all_reduce" in FAULTS:
            orig = d.all_reduce

            def all_reduce(tensor, *a, **k):
                r = int(os.environ.get("RANK", "0"))
                if tensor.numel() > r:
                    tensor.view(-1)[r] += 1   # this rank's own slot: its contribution is off by one
                return orig(tensor, *a, **k)
            d.all_reduce = all_reduce
        if "exit_in_broadcast" in FAULTS:
            def broadcast(*a, **k):
                os._exit(7)
            d.broadcast = broadcast
        if "hang_in_sweep" in FAULTS:   # the all_gather of the bandwidth sweep never returns here
            def hang(*a, **k):
                _flag()
                time.sleep(600)
            for name in ("all_gather_single", "all_gather_into_tensor"):
                if hasattr(d, name):
                    setattr(d, name, hang)
        if "hang_in_all_gather" in FAULTS:  # stuck before it ever calls torch's all_gather
            def hang(*a, **k):
                _flag()
                time.sleep(600)
            d.all_gather = hang
        if "stop_in_all_reduce" in FAULTS:   # the whole process stops (SIGSTOP), heartbeat and all
            orig_ar = d.all_reduce

            def all_reduce(*a, **k):
                _flag()
                os.kill(os.getpid(), signal.SIGSTOP)
                return orig_ar(*a, **k)
            d.all_reduce = all_reduce
        if "kill_in_all_gather" in FAULTS:   # killed from outside, as the OOM killer does
            def all_gather(*a, **k):
                os.kill(os.getpid(), signal.SIGKILL)
            d.all_gather = all_gather

    sys.meta_path.insert(0, _Finder())
'''

# Per-rank wrapper for `torchrun --no-python`: rank-dependent env, then exec the real command.
WRAPPER = r'''
import json, os, sys, time
here = os.path.dirname(os.path.abspath(__file__))
cfg = json.load(open(os.path.join(here, "ranks.json"))).get(os.environ["LOCAL_RANK"], {})
env = dict(os.environ)
env.update(cfg.get("env", {}))
if cfg.get("pythonpath"):
    env["PYTHONPATH"] = os.pathsep.join([cfg["pythonpath"]] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
if cfg.get("sleep"):
    time.sleep(cfg["sleep"])      # never joins
    sys.exit(0)
if cfg.get("exit_when_rank0_catches") is not None:
    # exits at once, but only when rank 0 has a handler for SIGTERM (what the test looks at is
    # what rank 0 then reports, not a race with its interpreter's start)
    me = os.getpid()
    end = time.time() + 120
    while time.time() < end:
        for pid in os.listdir("/proc"):
            try:
                if not pid.isdigit() or int(pid) == me:
                    continue
                with open("/proc/%s/status" % pid) as fh:
                    st = dict(line.split(":", 1) for line in fh if ":" in line)
                if int(st["PPid"]) != os.getppid():
                    continue
                with open("/proc/%s/environ" % pid, "rb") as fh:
                    if b"LOCAL_RANK=0\0" not in b"\0" + fh.read():
                        continue
                if int(st["SigCgt"].strip(), 16) & (1 << (15 - 1)):
                    sys.exit(cfg["exit_when_rank0_catches"])
            except (OSError, KeyError, ValueError):
                pass
        time.sleep(0.01)
    sys.exit(99)
if cfg.get("exit_when_rank0_connected") is not None:
    # exits before joining, once rank 0 is in the store (its channel and its heartbeat: two
    # connections to MASTER_PORT), so that rank 0 can say who had joined
    import psutil
    port = int(os.environ["MASTER_PORT"])
    end = time.time() + 300
    while time.time() < end:
        for p in psutil.Process().parent().children():
            try:
                conns = getattr(p, "net_connections", None) or p.connections
                if p.pid != os.getpid() and p.environ().get("LOCAL_RANK") == "0" and len(
                        [c for c in conns("tcp") if c.raddr and c.raddr.port == port]) >= 2:
                    time.sleep(1.0)
                    sys.exit(cfg["exit_when_rank0_connected"])
            except psutil.Error:
                pass
        time.sleep(0.05)
    sys.exit(99)
cmd = json.load(open(os.path.join(here, "cmd.json")))
if cfg.get("python"):
    cmd = [cfg["python"]] + cmd[1:]
os.execve(cmd[0], cmd + sys.argv[1:], env)
'''

FAST = ["--sizes", "64K,256K", "--iters", "2", "--warmup", "0"]


def faults_dir(root):
    d = root / "faults"
    d.mkdir(exist_ok=True)
    (d / "sitecustomize.py").write_text(FAULTS)
    return str(d)


def other_venv(root):
    """A second, real virtualenv (another interpreter, another sys.prefix) that reaches this one's
    torch through a .pth file, and torchdoctor through PYTHONPATH (the rank's own, below)."""
    import site
    venv = root / "venv2"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = venv / "bin" / "python"
    site_dir = subprocess.run([str(py), "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                              text=True, check=True).stdout.strip()
    with open(os.path.join(site_dir, "outer.pth"), "w") as fh:
        fh.write("\n".join(site.getsitepackages()) + "\n")
    return str(py)


def dist_infos(root, packages):
    """A folder of installed-package records (name -> version), put on one rank's PYTHONPATH."""
    d = root / "companions"
    for name, version in packages.items():
        info = d / ("%s-%s.dist-info" % (name.replace("-", "_"), version))
        info.mkdir(parents=True, exist_ok=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version))
    return str(d)


class Job:
    """One torchrun job of `torchdoctor dist`, started now. ranks: {local rank: {env, pythonpath,
    python, sleep, exit_when_rank0_catches}}; env: for every rank."""

    def __init__(self, root, name, nproc, ranks, args, env=None):
        self.dir = root / name
        self.dir.mkdir(parents=True)
        (self.dir / "wrapper.py").write_text(WRAPPER)
        (self.dir / "ranks.json").write_text(json.dumps({str(k): v for k, v in ranks.items()}))
        (self.dir / "cmd.json").write_text(json.dumps([TORCH_PYTHON, "-m", "torchdoctor", "dist"]))
        self.mark = "torchdoctor-test-%s" % uuid.uuid4().hex
        e = {k: v for k, v in os.environ.items() if not k.startswith(("TDTEST_", "RANK", "WORLD_SIZE", "MASTER_",
                                                                       "LOCAL_RANK", "TORCHELASTIC_", "SLURM_"))}
        e.update({"TDTEST_MARK": self.mark, "PYTHONUNBUFFERED": "1", "OMP_NUM_THREADS": "1",
                  "TDTEST_HANG_FLAG": str(self.dir / "hanging")})
        e["PYTHONPATH"] = os.pathsep.join([ROOT] + ([e["PYTHONPATH"]] if e.get("PYTHONPATH") else []))
        e.update(env or {})
        self.err = open(str(self.dir / "torchrun.err"), "wb")
        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(
            [TORCH_PYTHON, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", str(nproc),
             "--no-python", TORCH_PYTHON, str(self.dir / "wrapper.py")] + list(args),
            env=e, cwd=str(self.dir), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.err)
        self.out = b""
        self.answered_at = None      # rank 0's answer: the first byte it printed
        self.ranks_gone_at = None    # every rank of the job has exited
        self.all_gone_at = None      # torchrun too
        self.signalled_at = None
        self.seen = {}               # pid -> (create time, is a rank)
        self.threads = [threading.Thread(target=f, daemon=True) for f in (self._read, self._watch)]
        for t in self.threads:
            t.start()

    def _read(self):
        while True:
            chunk = self.proc.stdout.read1(65536) if hasattr(self.proc.stdout, "read1") else self.proc.stdout.read(1)
            if not chunk:
                return
            if self.answered_at is None:
                self.answered_at = time.monotonic()
            self.out += chunk

    def _alive(self, ranks_only):
        import psutil
        n = 0
        for pid, (ctime, rank) in list(self.seen.items()):
            if ranks_only and not rank:
                continue
            try:
                p = psutil.Process(pid)
                if p.create_time() == ctime and p.status() != psutil.STATUS_ZOMBIE:
                    n += 1
            except psutil.Error:
                pass
        return n

    def _watch(self):
        import psutil
        while self.all_gone_at is None:
            try:
                root = psutil.Process(self.proc.pid)
                for p in [root] + root.children(recursive=True):
                    try:
                        if p.pid not in self.seen:
                            self.seen[p.pid] = (p.create_time(), p.pid != root.pid)
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
            now = time.monotonic()
            if self.ranks_gone_at is None and len(self.seen) > 1 and not self._alive(True):
                self.ranks_gone_at = now
            if self.proc.poll() is not None and not self._alive(False):
                self.ranks_gone_at = self.ranks_gone_at or now
                self.all_gone_at = now
            time.sleep(0.05)

    def flagged(self, rank):
        return os.path.exists("%s.%d" % (self.dir / "hanging", rank))

    def signal(self, sig=signal.SIGTERM):
        """As a scheduler stops a job: the signal to torchrun, which passes it to every rank."""
        self.signalled_at = time.monotonic()
        self.proc.send_signal(sig)

    def wait(self, timeout=420):
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise
        for t in self.threads:
            t.join(30)
        self.err.close()
        return self

    def kill(self):
        import psutil
        for pid in list(self.seen):
            try:
                psutil.Process(pid).kill()
            except psutil.Error:
                pass
        self.proc.kill()

    @property
    def stderr(self):
        return (self.dir / "torchrun.err").read_text(errors="replace")

    def job(self):
        return json.loads(self.out.decode("utf-8", "replace"))

    def after_answer(self):
        """Seconds from rank 0's answer to the last rank's exit."""
        return None if self.answered_at is None or self.ranks_gone_at is None else \
            round(self.ranks_gone_at - self.answered_at, 2)

    def after_signal(self):
        """Seconds from the signal to the last rank's exit."""
        return None if self.signalled_at is None or self.ranks_gone_at is None else \
            round(self.ranks_gone_at - self.signalled_at, 2)


def finding(job, fid, needle=""):
    hits = [f for f in job["findings"] if f["id"] == fid and needle in f["title"] + f["detail"]]
    assert hits, "no %s finding with %r in %s" % (fid, needle, [(f["id"], f["title"]) for f in job["findings"]])
    return hits[0]
