"""The profiler's GPU side (CUPTI): who may read the GPU's performance counters here, and which
libcupti the library path offers first.
"""

from typing import List, Optional

from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook


@hook("cupti-unavailable")
def cupti_unavailable(match, facts: Facts) -> Optional[Tailored]:
    notes: List[str] = []
    steps: List[str] = []
    cmds: List[str] = []
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if ld and "cupti" in ld.lower():
        notes.append("LD_LIBRARY_PATH=%s" % ld)
        steps.append("LD_LIBRARY_PATH names a CUPTI directory, so its libcupti is loaded instead of the one for "
                     "torch's CUDA %s: drop it from LD_LIBRARY_PATH" % (F.torch_cuda(facts) or "release"))
        cmds.append('env -u LD_LIBRARY_PATH %s your_script.py' % F.python_cmd(facts))
    box = F.container(facts)
    if box:
        notes.append("running in a container (%s)" % box)
        steps.append("in a container the profiling counters also need the SYS_ADMIN capability "
                     "(docker run --cap-add SYS_ADMIN) besides the host driver's permission")
    if not steps:
        return None
    return Tailored(summary="; ".join(steps) + ".", commands=cmds or None, notes=notes)
