"""torch.distributed: NCCL missing or misused, and the settings of multi-rank jobs.
"""

import re
from typing import Any, Dict, List, Optional, Tuple

from ..advice import install_advice
from ..advice.commands import torch_command
from ..model.facts import UNKNOWN, Facts
from ..model import derived as F
from .registry import WARNING, Remedy, Tailored, rule, finding, hook, installed_torch_note, match_groups
from .config import MANY_CORES, THREADS_URL, torch_threads
from .cuda.arch import tailor_arch_unsupported



@rule("check", "omp-threads-distributed", category="config", severity=WARNING)
def omp_threads_distributed(facts):
    """Several ranks on a many-core machine with OMP_NUM_THREADS unset: each rank uses every core."""
    if F.env(facts, "OMP_NUM_THREADS") is not None:
        return None
    world, local_rank = F.env_int(facts, "WORLD_SIZE"), F.env(facts, "LOCAL_RANK")
    if world is None and local_rank is None:
        return None
    local = F.env_int(facts, "LOCAL_WORLD_SIZE") or world
    usable = F.usable_cores(facts)
    threads = torch_threads(facts) or usable
    if not local or local < 2 or not usable or usable < MANY_CORES or not threads or threads * local <= usable:
        return None
    per_rank = max(1, usable // local)
    return finding(
        "OMP_NUM_THREADS is unset under a distributed launch: %d ranks x %d threads on %d cores" % (local, threads, usable),
        detail="WORLD_SIZE=%s%s%s and OMP_NUM_THREADS is not set, so every process starts %d CPU threads. torchrun "
               "sets OMP_NUM_THREADS=1 itself when it starts several processes per node; other launchers (srun, "
               "mpirun, plain scripts) do not, and the ranks then fight over %d cores (%s)."
               % (F.env(facts, "WORLD_SIZE") or "?",
                  ", LOCAL_WORLD_SIZE=%s" % F.env(facts, "LOCAL_WORLD_SIZE") if F.env(facts, "LOCAL_WORLD_SIZE") else "",
                  ", LOCAL_RANK=%s" % local_rank if local_rank is not None else "", threads, usable,
                  F.cpu_limits_text(facts)),
        fix="Give each rank its share of the cores: OMP_NUM_THREADS = cores / ranks per machine (%d here)." % per_rank,
        commands=[F.set_env_cmd(facts, "OMP_NUM_THREADS", str(per_rank))], links=[THREADS_URL])


@hook("nccl-missing")
def nccl_missing(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_name(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % os_]
    if os_ in ("windows", "macos"):
        return Tailored(summary="NCCL exists only on Linux: on %s use the gloo backend "
                                "(dist.init_process_group(backend='gloo'); with accelerate/lightning choose gloo or a "
                                "single process), or train under Linux/WSL2." % {"windows": "Windows", "macos": "macOS"}[os_],
                        notes=notes)
    if F.is_cuda_build(facts) is False:
        if not F.has_nvidia_driver(facts):
            if facts.state("driver.present") == UNKNOWN:
                return None
            return Tailored(summary="torch %s is a CPU-only build and this machine has no NVIDIA GPU driver, so NCCL cannot "
                                    "work here: use the gloo backend for CPU training (backend='gloo')."
                                    % F.torch_version_str(facts), notes=notes + ["no NVIDIA driver found"])
        adv = install_advice(facts)
        return Tailored(summary="torch %s is a CPU-only build, which has no NCCL: %s" % (F.torch_version_str(facts), adv.why or
                                "install a CUDA build"), commands=adv.commands, notes=notes)
    return None


@hook("nccl-duplicate-gpu")
def nccl_duplicate_gpu(match, facts: Facts) -> Optional[Tailored]:
    gpus = F.driver_gpus(facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if not gpus and cvd is None:
        return None
    ids = [x.strip() for x in (cvd or "").split(",") if x.strip()]
    n = len(ids) if ids else len(gpus)
    notes = ["the driver sees %d GPU(s)" % len(gpus)] if gpus else []
    if cvd is not None:
        notes.append("CUDA_VISIBLE_DEVICES=%r" % cvd)
    groups = match_groups(match)
    clash = ("ranks %s and %s" % (groups["rank"], groups["other"])) if groups.get("rank") and groups.get("other") else "two ranks"
    return Tailored(summary="%s landed on the same GPU. This node exposes %d GPU(s)%s: start at most %d ranks per node and bind "
                            "each to its own GPU before creating the process group, with "
                            "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))."
                            % (clash.capitalize(), n, " (CUDA_VISIBLE_DEVICES=%s)" % cvd if ids else "", n),
                    commands=["nvidia-smi -L", "torchrun --nproc_per_node=%d your_script.py" % max(n, 1)], notes=notes)


@hook("nccl-cuda-failure")
def nccl_cuda_failure(match, facts: Facts) -> Optional[Tailored]:
    """NCCL's "unhandled cuda error" is, on a GPU torch has no kernels for, the architecture's doing."""
    return tailor_arch_unsupported(match, facts)


# -- the rendezvous port (c10d TCPStore server) ------------------------------------------
DEFAULT_MASTER_PORT = 29500
FIRST_UNPRIVILEGED_PORT = 1024
JOB_WORDS = ("torchrun", "torch.distributed", "deepspeed", "accelerate", "python")


def _port(match) -> Optional[int]:
    """The port the store failed on: the pattern's group, else the first 'host:port (errno'."""
    g = match_groups(match).get("port")
    if not g:
        m = re.search(r":(\d{1,5}) \((?:errno|system error)", getattr(match, "text", "") or "")
        g = m.group(1) if m else None
    return int(g) if g and 0 < int(g) < 65536 else None


def _listening(facts: Facts) -> Optional[List[Dict[str, Any]]]:
    """This machine's listening TCP sockets now; None when that is unknown."""
    rows = facts.value("network.tcp")
    return rows if isinstance(rows, list) else None


def _owner_command(facts: Facts, port: int) -> str:
    os_ = F.os_name(facts)
    if os_ == "windows":
        return "netstat -ano | findstr :%d" % port
    if os_ == "macos":
        return "lsof -nP -iTCP:%d -sTCP:LISTEN" % port
    return "ss -ltnp 'sport = :%d'" % port


def _free_port(listening: Optional[List[Dict[str, Any]]], after: int) -> int:
    """The first port above `after` (and above the privileged range) that nothing here listens
    on; without the list, simply the next one."""
    taken = {r.get("port") for r in listening or ()}
    port = max(after + 1, DEFAULT_MASTER_PORT if after < FIRST_UNPRIVILEGED_PORT else after + 1)
    while port in taken and port < 65535:
        port += 1
    return port


# The launcher whose port option the advice names: the error came from it, so its option is the one to change.
PORT_OPTIONS = {"torchrun": "--master_port", "accelerate launch": "--main_process_port"}


def rendezvous_port_remedy(facts: Facts, port: Optional[int], refused: bool,
                           launcher: str = "torchrun") -> Tuple[Remedy, List[str]]:
    """What to do about a store port that could not be bound, and the facts it rests on.
    refused: the OS refused the port itself (EACCES), rather than another socket holding it."""
    listening = _listening(facts)
    shown = port if port is not None else DEFAULT_MASTER_PORT
    free = _free_port(listening, shown)
    option = "%s=%d" % (PORT_OPTIONS[launcher], free)
    launch = "%s %s ..." % (launcher, option)
    notes: List[str] = ["the store's port: %s" % (port if port is not None else "not in the text")]
    commands = [_owner_command(facts, shown), launch]
    if refused:
        if F.os_name(facts) == "windows":
            summary = ("Windows refuses port %d: it lies in a range reserved by Hyper-V, WSL2 or Docker (or a firewall "
                       "policy denies it). Pick a port outside the excluded ranges netsh lists, e.g. %s."
                       % (shown, option))
            commands = ["netsh interface ipv4 show excludedportrange protocol=tcp", launch]
        elif shown < FIRST_UNPRIVILEGED_PORT:
            summary = ("Port %d is privileged (below %d): only root may listen on it. Use an unprivileged port, e.g. "
                       "MASTER_PORT=%d / %s." % (shown, FIRST_UNPRIVILEGED_PORT, free, option))
            commands = [launch]
        else:
            summary = ("Port %d is above the privileged range, yet the system refused it: a security policy (SELinux, "
                       "AppArmor, a container's seccomp or network policy) denies binding it. Try another port, e.g. "
                       "%s, or ask for the policy to allow it." % (shown, option))
        return Remedy(summary, commands), notes + ["OS: %s" % F.os_name(facts)]
    if listening is None:
        why = facts.reason("network.tcp")
        notes.append("who listens here is unknown%s" % (": %s" % why if why else ""))
        return Remedy("Another process listens on port %d. Find it, stop it if it is a leftover job, or give this job "
                      "another port (e.g. %s)." % (shown, option), commands), notes
    owners = [r for r in listening if r.get("port") == shown]
    if not owners:
        notes.append("nothing listens on port %d on this machine now" % shown)
        return Remedy("Nothing listens on port %d on this machine now: the job that held it has ended (re-run), or the "
                      "error came from another machine. Jobs that run at the same time each need their own port "
                      "(e.g. %s)." % (shown, option), [launch]), notes
    held = ["pid %s (%s)" % (r.get("pid"), r.get("process") or "process name not readable") if r.get("pid") is not None
            else "a process of another user" for r in owners]
    notes.append("port %d is held now by %s" % (shown, ", ".join(sorted(set(held)))))
    pids = sorted({r["pid"] for r in owners if r.get("pid") is not None and
                   any(w in (r.get("process") or "") for w in JOB_WORDS)})
    stop = ["kill %s" % " ".join(str(p) for p in pids)] if pids else []
    privileged = (" Ports below %d also need root; use one above it." % FIRST_UNPRIVILEGED_PORT
                  if shown < FIRST_UNPRIVILEGED_PORT else "")
    return Remedy("Port %d is in use on this machine now by %s. If that is an earlier run of this job, stop it; "
                  "otherwise give this job its own port, e.g. %s.%s"
                  % (shown, ", ".join(sorted(set(held))), option, privileged),
                  [_owner_command(facts, shown)] + stop + [launch]), notes


@hook("rendezvous-port-in-use")
def rendezvous_port_in_use(match, facts: Facts) -> Optional[Tailored]:
    remedy, notes = rendezvous_port_remedy(facts, _port(match), refused=False)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("accelerate-port-in-use")
def accelerate_port_in_use(match, facts: Facts) -> Optional[Tailored]:
    remedy, notes = rendezvous_port_remedy(facts, _port(match), refused=False, launcher="accelerate launch")
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("rendezvous-port-privileged")
def rendezvous_port_privileged(match, facts: Facts) -> Optional[Tailored]:
    remedy, notes = rendezvous_port_remedy(facts, _port(match), refused=True)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("store-barrier-timeout")
def store_barrier_timeout(match, facts: Facts) -> Optional[Tailored]:
    """The barrier's own numbers say which way it went wrong: too few processes or too many."""
    g = match_groups(match)
    world, joined = g.get("world"), g.get("joined")
    if not world or not joined:
        return None
    world_n, joined_n = int(world), int(joined)
    notes = ["world_size=%d, processes that checked in: %d" % (world_n, joined_n)]
    if joined_n > world_n:
        return Tailored(cause="%d processes checked in for a world of %d: more processes than the job expects use this "
                              "store. Two jobs share one MASTER_ADDR:MASTER_PORT, or every process started by the "
                              "launcher starts workers of its own (mp.spawn, or torch.distributed.launch around a "
                              "script that spawns)." % (joined_n, world_n),
                        summary="Start each process once (either torchrun or mp.spawn, not both) and give every "
                                "concurrent job its own MASTER_PORT.", notes=notes)
    return Tailored(cause="Only %d of %d processes checked in: %d never arrived (not started: nnodes x nproc_per_node "
                          "is smaller than the world size; or crashed before this point: see their own logs)."
                          % (joined_n, world_n, world_n - joined_n),
                    summary="Start all %d processes (on every node, with the same MASTER_ADDR/MASTER_PORT), and read "
                            "the log of the ranks that did not arrive." % world_n, notes=notes)


# -- torch 2.2.0's TCPStore on Windows ----------------------------------------------------
BROKEN_WINDOWS_STORE = "2.2.0"
FIXED_WINDOWS_STORE = "2.2.1"


@hook("windows-tcpstore-unknown")
def windows_tcpstore_unknown(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts) + ["OS: %s" % (F.os_of(facts) or "unknown")]
    if base == BROKEN_WINDOWS_STORE:
        return Tailored(summary="This environment has torch %s, the release with the broken Windows TCPStore: upgrade "
                                "to %s or later (with the matching torchvision/torchaudio)."
                                % (BROKEN_WINDOWS_STORE, FIXED_WINDOWS_STORE),
                        commands=torch_command(facts, FIXED_WINDOWS_STORE, companions=True), notes=notes)
    return Tailored(summary="Here torch is %s, not 2.2.0: if the error comes from this machine, the failing program "
                            "runs another interpreter or environment (an embedded/portable Python, another venv); check "
                            "torch.__version__ there." % base, notes=notes)


# The argparse line that takes the local rank in either spelling (torch's own launcher docs).
BOTH_SPELLINGS = 'parser.add_argument("--local-rank", "--local_rank", type=int, default=0)'


@hook("launcher-local-rank")
def launcher_local_rank(match, facts: Facts) -> Optional[Tailored]:
    """Which side spells the local rank how: the dashed form comes from torch 2's launcher, the
    underscored one from torch 1's (or a launcher told to pass it to a torchrun-style script)."""
    g = match_groups(match)
    if g.get("dash"):
        return Tailored(cause="The launcher here is torch 2.0 or newer's (it passed --local-rank) and the script "
                              "declares only the older --local_rank.",
                        summary="Replace the script's --local_rank argument with `%s` (argparse stores either "
                                "spelling in args.local_rank), or launch with torchrun and read "
                                "int(os.environ[\"LOCAL_RANK\"]); going back to torch 1.x is not needed."
                                % BOTH_SPELLINGS,
                        commands=['grep -rn "local_rank" --include=*.py .'])
    return Tailored(cause="The launcher passed the older --local_rank (torch.distributed.launch of torch 1.x) to a script "
                          "that does not declare it: scripts written for torchrun read the LOCAL_RANK environment "
                          "variable instead.",
                    summary="Launch with torchrun (it sets LOCAL_RANK and passes no argument), or add `%s` to the "
                            "script's parser." % BOTH_SPELLINGS,
                    commands=["torchrun --nproc-per-node <gpus> <script.py> <its arguments>"])
