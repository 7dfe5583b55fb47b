"""Every diagnosis of a distributed job: pure functions, job facts -> findings.

Each condition takes the job result rank 0 assembled (see jobfacts) and returns a list of
findings; none reads the machine, imports torch or prints. `diagnose(job)` runs them all,
in the order of CONDITIONS; a condition that raises becomes one `dist-condition-crashed`
finding instead of a traceback.

One module per family of conditions, imported below in the order they run:

* ``ranks``       - join and fates: ranks that never joined, exited, the launcher, the gather;
* ``mismatch``    - facts that must be equal on every rank and differ (torch, CUDA, NCCL, env...);
* ``placement``   - where ranks run: two ranks on one GPU, LOCAL_RANK beyond the visible GPUs;
* ``config``      - node and NCCL settings: debug switches left set, NCCL_SOCKET_IFNAME, OMP, /dev/shm;
* ``collectives`` - the process group and the collective steps that did not pass;
* ``bandwidth``   - measured bus bandwidth against what the topology should reach.

``registry`` holds CONDITIONS and the decorator that fills it, ``common`` what several
families read. The package's API: ``CONDITIONS`` and ``diagnose``.

Ranks are named as jobfacts names them: "rank 5 (node b, local 1)", "ranks 0-4,6-7".
"""

from typing import Any, Dict, List

from ....model.findings import INFO, Finding, sort_findings
# The families register their conditions as they are imported: this order is the run order.
from . import ranks, mismatch, placement, config, collectives, bandwidth  # noqa: F401
from .registry import CONDITIONS, finding

__all__ = ["CONDITIONS", "diagnose"]


def diagnose(job: Dict[str, Any]) -> List[Finding]:
    out: List[Finding] = []
    for cid, fn in CONDITIONS.items():
        try:
            out.extend(fn(job) or [])
        except Exception as e:  # noqa: BLE001 - a broken condition is a finding, not a traceback
            out.append(finding("dist-condition-crashed", INFO, "internal", "torchdoctor's %s condition crashed" % cid,
                               "%s: %s" % (type(e).__name__, e)))
    return sort_findings(out)
