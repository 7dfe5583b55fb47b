"""Where a step's thread is when the step runs out of time: its Python stack, and whether it
is waiting inside torch's collective or has not reached it.

A collective that never completes holds every rank that entered it; the rank that is to
blame is the one that never called it (stuck in something else, or slow). Each rank looks
at its own step thread (sys._current_frames) when its deadline passes, so rank 0 can name
the ranks that never entered the collective apart from those that waited in it.
"""

import os
import sys
from typing import Any, Dict, List, Optional

# torch's own collective API: a thread with a frame here has called the collective
TORCH_DIST = os.sep + os.path.join("torch", "distributed") + os.sep
HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
FRAMES = 6


def _short(path: str) -> str:
    return os.path.basename(path)


def where(thread_id: Optional[int]) -> Optional[Dict[str, Any]]:
    """{"in_torch": bool, "at": "file.py:57 in hang", "stack": [innermost first]} for the
    thread, or None when it is gone. Frames of torchdoctor's own rank program are left out
    of `stack` (the collective it was about to call is the step's name)."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    if frame is None:
        return None
    frames: List[Any] = []
    while frame is not None:
        frames.append(frame)
        frame = frame.f_back
    in_torch = any(TORCH_DIST in os.path.abspath(f.f_code.co_filename) for f in frames)
    shown = [f for f in frames if not os.path.abspath(f.f_code.co_filename).startswith(HERE)
             and "threading.py" not in f.f_code.co_filename] or frames[:1]
    stack = ["%s:%d in %s" % (_short(f.f_code.co_filename), f.f_lineno, f.f_code.co_name) for f in shown[:FRAMES]]
    return {"in_torch": in_torch, "at": stack[0] if stack else None, "stack": stack}
