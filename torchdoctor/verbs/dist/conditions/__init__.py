"""Every diagnosis of a distributed job: pure functions, job facts -> findings.

Each condition is a ``@rule("dist", ...)`` (model/rules.py) that takes the job result rank 0
assembled (see jobfacts) and returns a list of findings; none reads the machine, imports
torch or prints. ``CONDITIONS`` lists them in the order ``diagnose`` runs them; a condition
that raises becomes a ``rule-crashed`` finding, as a crashed check does, never a traceback.

One module per family of conditions:

* ``ranks``       - join and fates: ranks that never joined, exited, the launcher, the gather;
* ``mismatch``    - facts that must be equal on every rank and differ (the Python environment,
                    torch, CUDA, NCCL, env...), read through ``differ``; what follows from
                    another difference is said under its root cause (``causes``);
* ``placement``   - where ranks run: two ranks on one GPU, LOCAL_RANK beyond the visible GPUs;
* ``config``      - node and NCCL settings: debug switches left set, NCCL_SOCKET_IFNAME, OMP, /dev/shm;
* ``collectives`` - the process group and the collective steps that did not pass (``hangs``: which
                    rank a hang is to be blamed on);
* ``bandwidth``   - measured bus bandwidth against what the topology should reach.

``common`` holds what several families read, and the Finding they return. The package's API:
``CONDITIONS``, ``BY_ID`` and ``diagnose``, which orders the findings root causes first: by
severity, then what became of ranks, then the facts that differ between them, then the
settings, then what failed in the collectives because of them.

Ranks are named as jobfacts names them: "rank 5 (node b, local 1)", "ranks 0-4,6-7".
"""

from typing import Any, Dict, List

from ....model import rules
from ....model.findings import Finding, severity_rank
from ....model.rules import rules_of
from . import bandwidth, collectives, config, mismatch, placement, ranks

__all__ = ["CONDITIONS", "BY_ID", "diagnose"]

CONDITIONS = rules_of((
    ranks.rank_never_joined,
    ranks.rank_exited,
    ranks.launcher_failed,
    ranks.interrupted,
    ranks.gather_failed,
    mismatch.environment_mismatch,
    mismatch.torch_mismatch,
    mismatch.cuda_mismatch,
    mismatch.nccl_mismatch,
    mismatch.driver_mismatch,
    mismatch.python_mismatch,
    mismatch.package_mismatch,
    mismatch.env_mismatch,
    mismatch.gpu_mismatch,
    mismatch.shm_mismatch,
    mismatch.numpy_missing,
    placement.gpu_shared,
    placement.device_outside_visible,
    config.nccl_debug_left_set,
    config.nccl_socket_ifname,
    config.omp_unset,
    config.shm_small,
    collectives.init_failed,
    collectives.collectives,
    collectives.object_collective,
    bandwidth.bandwidth_below_topology,
    bandwidth.slow_pair,
))
BY_ID = {r.id: r for r in CONDITIONS}


# Within a severity, causes before what they cause.
ORDER = {"dist-rank": 0, "dist-mismatch": 1, "dist-placement": 2, "dist-config": 3, "dist-collective": 4}


def diagnose(job: Dict[str, Any]) -> List[Finding]:
    found = rules.run(CONDITIONS, job).findings
    return sorted(found, key=lambda f: (-severity_rank(f.severity), ORDER.get(f.category, 9)))
