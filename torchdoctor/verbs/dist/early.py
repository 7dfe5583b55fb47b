"""A stop signal that arrives before the rank program runs (stdlib only, imported first).

Under torchrun a rank that fails at once makes the launcher SIGTERM every other rank, often
while they are still starting: Python's default action would end rank 0 silently, with no
report of what it knows. The command line calls `catch` first thing for `dist` under a
launcher; the signal is recorded here, and the rank program answers as soon as it starts.
"""

import os
import signal
import time

STARTED = time.monotonic()  # about when this process started: what "N s after start" counts from
RECEIVED = []  # [(signal name, time.monotonic())]


def _record(signum, frame) -> None:
    RECEIVED.append((signal.Signals(signum).name, time.monotonic()))


def catch(environ=None) -> None:
    """Record SIGTERM and SIGHUP instead of dying of them, in a process that is one rank of a
    launched job (the rank program installs its own handlers later and reads RECEIVED)."""
    env = os.environ if environ is None else environ
    if "RANK" not in env and "SLURM_PROCID" not in env:
        return
    for name in ("SIGTERM", "SIGHUP"):
        if hasattr(signal, name):
            try:
                signal.signal(getattr(signal, name), _record)
            except (OSError, ValueError):  # not the main thread, or not here
                pass
