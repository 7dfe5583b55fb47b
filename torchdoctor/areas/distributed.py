"""torch.distributed: NCCL missing or misused, and the settings of multi-rank jobs.
"""

from typing import Optional

from ..advice import install_advice
from ..model.facts import UNKNOWN, Facts
from ..model import derived as F
from .registry import WARNING, Tailored, rule, finding, hook, installed_torch_note
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
    groups = match.groups or {}
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
