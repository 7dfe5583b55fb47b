"""CPU kernels that need an instruction set this CPU may lack (AVX-512 for oneDNN's bf16
paths, AMX for brgemm, AVX2 for FBGEMM): the CPU's flags decide.
"""

import re
from typing import List, Optional

from ..model.facts import Facts
from .registry import Tailored, hook

# Flag names as the message writes them -> as /proc/cpuinfo (and the cpu.flags fact) does;
# only flags the fact records can be judged.
_FLAG = {"avx512bw": "avx512bw", "avx512vl": "avx512vl", "avx512": "avx512f", "amx": "amx_tile",
         "amx_fp16": "amx_fp16", "avx2": "avx2", "avx": "avx", "fbgemm": "avx2",
         "sse4.2": "sse4_2", "sse4_2": "sse4_2"}


def wanted_flags(text: str) -> List[str]:
    """The cpuinfo flags a message asks for (those the cpu.flags fact records)."""
    low = text.lower().replace("(r)", "")
    out = []
    if "fbgemm" in low:
        out.append("avx2")
    for word in re.findall(r"\b(avx512bw|avx512vl|avx512|amx_fp16|amx|avx2|avx|sse4[._]2)\b", low):
        flag = _FLAG.get(word)
        if flag and flag not in out:
            out.append(flag)
    if "advanced vector extensions" in low and "avx" not in out:
        out.append("avx")
    return out


@hook("cpu-lacks-isa")
def cpu_lacks_isa(match, facts: Facts) -> Optional[Tailored]:
    flags = facts.value("cpu.flags")
    wanted = wanted_flags(getattr(match, "text", ""))
    if not isinstance(flags, list) or not wanted:
        return None
    model = facts.value("cpu.model")
    name = model if isinstance(model, str) and model else "this CPU"
    missing = [f for f in wanted if f not in flags]
    notes = ["%s: %s" % (name, " ".join(flags) or "none of the recorded flags")]
    if missing:
        return Tailored(summary="%s has no %s: run this path in float32 (or without quantized FBGEMM kernels) here, or "
                                "on a CPU that has %s." % (name, ", ".join(missing), ", ".join(missing)), notes=notes)
    return Tailored(summary="%s has %s, so the failing run was on another machine (or in a VM that hides these flags)."
                            % (name, ", ".join(wanted)), notes=notes)
