"""Which launcher started this process, read from its environment variables (pure).

* torchrun (and torch.distributed.launch): ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``,
  ``LOCAL_WORLD_SIZE``, ``GROUP_RANK``, ``MASTER_ADDR``/``MASTER_PORT`` (the agent's
  store when ``TORCHELASTIC_USE_AGENT_STORE=True``), ``TORCHELASTIC_RUN_ID``;
* any launcher that exports the env:// variables (mpirun, a hand-written srun line):
  ``RANK``, ``WORLD_SIZE``, ``MASTER_ADDR``, ``MASTER_PORT`` (``LOCAL_RANK`` optional);
* srun: ``SLURM_PROCID``, ``SLURM_NTASKS``, ``SLURM_LOCALID``, ``SLURM_NODEID``,
  ``SLURM_STEP_TASKS_PER_NODE``, inside a job step (``SLURM_STEP_ID``); the store host
  is ``MASTER_ADDR`` or else the first host of ``SLURM_STEP_NODELIST``, its port
  ``MASTER_PORT`` or else 20000 + SLURM_JOB_ID % 10000.

The env:// variables win over SLURM's: torchrun inside an allocation sets both.
"""

import re
from ...model.records import asdict, record
from typing import Any, Dict, List, Mapping, Optional



@record
class JobEnv:
    launcher: str                      # "torchrun", "env" (RANK/WORLD_SIZE only) or "slurm"
    rank: int
    world_size: int
    master_addr: str
    master_port: int
    local_rank: Optional[int] = None
    local_world_size: Optional[int] = None
    node_rank: Optional[int] = None
    agent_store: bool = False          # the launcher hosts the store; every rank is a client
    run_id: str = "none"
    restart: int = 0

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def _int(environ: Mapping[str, str], name: str, required: bool = False, minimum: int = 0) -> Optional[int]:
    raw = environ.get(name)
    if raw is None or raw.strip() == "":
        if required:
            raise ValueError("%s is not set" % name)
        return None
    try:
        v = int(raw.strip())
    except ValueError:
        raise ValueError("%s=%r is not a whole number" % (name, raw))
    if v < minimum:
        raise ValueError("%s=%d is below %d" % (name, v, minimum))
    return v


def under_launcher(environ: Mapping[str, str]) -> bool:
    """Whether this process looks like one rank of a launched job."""
    if "RANK" in environ or "WORLD_SIZE" in environ:
        return True
    return "SLURM_PROCID" in environ and ("SLURM_STEP_ID" in environ or "SLURM_STEPID" in environ)


def first_host(nodelist: str) -> Optional[str]:
    """The first host of a SLURM hostlist ("gpu[01-04,07],cpu3" -> "gpu01")."""
    text = (nodelist or "").strip()
    if not text:
        return None
    depth, cut = 0, len(text)
    for i, ch in enumerate(text):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            cut = i
            break
    head = text[:cut]
    return re.sub(r"\[([^\]\-,]*)[^\]]*\]", lambda m: m.group(1), head) or None


def tasks_on_node(spec: str, node: int) -> Optional[int]:
    """SLURM_STEP_TASKS_PER_NODE ("2(x3),1") -> the task count of node `node`."""
    counts: List[int] = []
    for part in (spec or "").split(","):
        m = re.fullmatch(r"\s*(\d+)(?:\(x(\d+)\))?\s*", part)
        if not m:
            return None
        counts.extend([int(m.group(1))] * int(m.group(2) or 1))
    return counts[node] if 0 <= node < len(counts) else None


def detect(environ: Mapping[str, str]) -> Optional[JobEnv]:
    """The launch this process belongs to, None when there is none; ValueError when the
    variables contradict each other (a one-line usage error for the caller)."""
    if "RANK" in environ or "WORLD_SIZE" in environ:
        rank = _int(environ, "RANK", required=True)
        world = _int(environ, "WORLD_SIZE", required=True, minimum=1)
        if rank >= world:
            raise ValueError("RANK=%d is not below WORLD_SIZE=%d" % (rank, world))
        addr = (environ.get("MASTER_ADDR") or "").strip()
        if not addr:
            raise ValueError("MASTER_ADDR is not set (the host of the rendezvous store)")
        port = _int(environ, "MASTER_PORT", required=True, minimum=1)
        if port > 65535:
            raise ValueError("MASTER_PORT=%d is not a TCP port" % port)
        torchrun = "TORCHELASTIC_RUN_ID" in environ or "GROUP_RANK" in environ
        local = _int(environ, "LOCAL_RANK")
        local_world = _int(environ, "LOCAL_WORLD_SIZE", minimum=1)
        if local is not None and local_world is not None and local >= local_world:
            raise ValueError("LOCAL_RANK=%d is not below LOCAL_WORLD_SIZE=%d" % (local, local_world))
        return JobEnv(
            launcher="torchrun" if torchrun else "env", rank=rank, world_size=world, master_addr=addr,
            master_port=port, local_rank=local, local_world_size=local_world,
            node_rank=_int(environ, "GROUP_RANK"),
            agent_store=environ.get("TORCHELASTIC_USE_AGENT_STORE") == "True",
            run_id=environ.get("TORCHELASTIC_RUN_ID") or "none",
            restart=_int(environ, "TORCHELASTIC_RESTART_COUNT") or 0)
    if not under_launcher(environ):
        return None
    rank = _int(environ, "SLURM_PROCID", required=True)
    world = _int(environ, "SLURM_NTASKS", minimum=1) or _int(environ, "SLURM_NPROCS", minimum=1)
    if world is None:
        raise ValueError("SLURM_NTASKS is not set")
    if rank >= world:
        raise ValueError("SLURM_PROCID=%d is not below SLURM_NTASKS=%d" % (rank, world))
    node = _int(environ, "SLURM_NODEID")
    addr = (environ.get("MASTER_ADDR") or "").strip() or first_host(
        environ.get("SLURM_STEP_NODELIST") or environ.get("SLURM_JOB_NODELIST") or "")
    if not addr:
        raise ValueError("MASTER_ADDR is not set and SLURM_STEP_NODELIST names no host")
    port = _int(environ, "MASTER_PORT", minimum=1)
    job = _int(environ, "SLURM_JOB_ID")
    if port is None:
        port = 20000 + (job or 0) % 10000
    step = environ.get("SLURM_STEP_ID") or environ.get("SLURM_STEPID") or "0"
    return JobEnv(
        launcher="slurm", rank=rank, world_size=world, master_addr=addr, master_port=port,
        local_rank=_int(environ, "SLURM_LOCALID"),
        local_world_size=tasks_on_node(environ.get("SLURM_STEP_TASKS_PER_NODE", ""), node or 0),
        node_rank=node, agent_store=False, run_id="slurm-%s.%s" % (job if job is not None else "?", step))
