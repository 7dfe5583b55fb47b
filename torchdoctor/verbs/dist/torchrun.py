"""What torchrun prints about ranks that failed (its ChildFailedError summary), read back: who
failed, with which exit code or signal, and which failure it calls the root cause. Read by
`dist` (a self-launched job) and by `run` (a job the user launched under the doctor)."""

import re
from typing import Any, Dict

_ENTRY = re.compile(r"rank\s*:\s*(\d+)\s*\(local_rank:\s*(\d+)\)\s*\n\s*exitcode\s*:\s*(-?\d+)\s*\(pid:\s*(\d+)\)"
                    r"[^\n]*(?:\n\s*error_file\s*:[^\n]*)?(?:\n\s*traceback\s*:\s*([^\n]*))?")


def parse_torchrun_failures(text: str) -> Dict[int, Dict[str, Any]]:
    """torchrun's ChildFailedError summary -> {rank: {exitcode, pid, local_rank, root, signal}}."""
    out: Dict[int, Dict[str, Any]] = {}
    root_at = text.find("Root Cause")
    for m in _ENTRY.finditer(text or ""):
        r = int(m.group(1))
        code = int(m.group(3))
        tb = (m.group(5) or "").strip()
        sig = re.search(r"Signal (\d+) \((\w+)\) received", tb)
        out[r] = {"exitcode": code, "pid": int(m.group(4)), "local_rank": int(m.group(2)),
                  "root": root_at >= 0 and m.start() > root_at,
                  "signal": sig.group(2) if sig else None}
    for m in re.finditer(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)", text or ""):
        lr = int(m.group(2))
        if lr not in out:  # standalone: one node, rank == local rank
            out[lr] = {"exitcode": int(m.group(1)), "pid": int(m.group(3)), "local_rank": lr, "root": True,
                       "signal": None}
    return out
