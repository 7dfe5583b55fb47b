"""Start several `torchdoctor tune` runs at once and collect them: most of a tune test's
time is torch starting in the child and the budget running, so the tests of one file start
their runs together instead of one after another. Output goes to files, not pipes (a full
pipe would stall a run that is waited for later, and skew its wall time)."""

import os
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass

from conftest import TORCH_PYTHON


@dataclass
class Done:
    returncode: int
    stdout: str
    stderr: str
    wall: float  # seconds from start to exit, measured here


class Run:
    def __init__(self, args, cwd, pythonpath=None, env=None):
        e = dict(os.environ, OMP_NUM_THREADS="1")
        e.pop("NO_COLOR", None)
        if pythonpath:
            e["PYTHONPATH"] = str(pythonpath)
        e.update(env or {})
        self.out, self.err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
        self.t0 = time.monotonic()
        self.p = subprocess.Popen([sys.executable, "-m", "torchdoctor", "tune", "--python", TORCH_PYTHON] + list(args),
                                  cwd=str(cwd), env=e, stdout=self.out, stderr=self.err, stdin=subprocess.DEVNULL)
        self.done = None
        self.ended = None
        self.watcher = threading.Thread(target=self._watch, daemon=True)
        self.watcher.start()

    def _watch(self):
        self.p.wait()
        self.ended = time.monotonic()  # when it exited, not when a test got round to it

    def wait(self, timeout=240) -> Done:
        if self.done is None:
            self.watcher.join(timeout)
            if self.watcher.is_alive():
                self.p.kill()
                self.watcher.join()
            wall = self.ended - self.t0
            texts = []
            for fh in (self.out, self.err):
                fh.seek(0)
                texts.append(fh.read().decode("utf-8", "replace"))
                fh.close()
            self.done = Done(self.p.returncode, texts[0], texts[1], wall)
        return self.done
