"""Progress on stderr while the child measures: a bar on a terminal (what is being
measured, how much of the budget is left), plain lines otherwise (one per phase)."""

import shutil
from typing import Any, Dict, Optional


class Progress:
    def __init__(self, stream, budget: float, tty: Optional[bool] = None):
        self.stream, self.budget = stream, float(budget)
        self.tty = bool(getattr(stream, "isatty", lambda: False)()) if tty is None else tty
        self.what = "starting"
        self.phase: Optional[tuple] = None
        self.drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed or broken stderr must not stop the run
            pass

    def record(self, rec: Dict[str, Any], elapsed: float) -> None:
        if rec.get("type") != "stage":
            return
        self.what = str(rec.get("what") or "")
        if self.tty:
            self.tick(elapsed)
            return
        # Plain lines: one per phase (workload + first word after the colon), not per block.
        head, _, tail = self.what.partition(": ")
        phase = (head, tail.split(" ")[0] if tail else "")
        if phase != self.phase:
            self.phase = phase
            label = self.what if phase[1] not in ("check", "timing") else "%s: %s" % (
                head, "drift and reproducibility checks" if phase[1] == "check" else "timing, settings interleaved")
            self._write("[%5.1f s of %.0f s] %s\n" % (elapsed, self.budget, label))

    def tick(self, elapsed: float) -> None:
        if not self.tty:
            return
        width = max(40, shutil.get_terminal_size((80, 20)).columns - 1)
        frac = min(1.0, max(0.0, elapsed / self.budget)) if self.budget > 0 else 1.0
        bar_w = 20
        filled = int(round(frac * bar_w))
        left = max(0.0, self.budget - elapsed)
        line = "[%s%s] %4.0f s left  %s" % ("#" * filled, "." * (bar_w - filled), left, self.what)
        self._write("\r\x1b[K" + line[:width])
        self.drawn = True

    def close(self) -> None:
        if self.tty and self.drawn:
            self._write("\r\x1b[K")
