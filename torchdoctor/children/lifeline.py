"""A guard that ends the process group the doctor started when the doctor dies without
releasing it (SIGKILL, an OOM kill, a crash): `torchdoctor run` and the `dist` launcher
never leave the program they started running on its own.

The guard is a small separate process in a session of its own, so that whatever kills
the doctor's process group (`timeout -s KILL`, a closed terminal) spares it. It holds the
read end of a pipe whose only write end the doctor holds (close-on-exec, so the program
never inherits it): the doctor writes the group to watch, then, when it is done, the
word "release". End of file without "release" means the doctor is gone: the guard sends
SIGTERM and SIGCONT (a stopped group would never see the SIGTERM) to the group, waits
up to KILL_AFTER_S for it to end, then sends SIGKILL.

Why not PR_SET_PDEATHSIG: it reaches the direct child only (not the grandchildren in
its group, such as the worker a shell script or torchrun started), it exists on Linux
only, and it fires when the thread that forked exits, not the process.

The guard runs as a script, `python -I -S lifeline.py FD KILL_AFTER_S`: the standard
library only, Python 3.8+.
"""

import os
import signal
import sys
import time

# torchrun gives its workers 30 s after a SIGTERM before it kills them: time for that,
# so a launcher can still end its own workers (they run in sessions of their own).
KILL_AFTER_S = 35.0
RELEASE = b"release"


class Lifeline:
    """`start()` before the program starts, `watch(pgid)` once it runs, `release()` when
    the doctor has seen it end. Without a guard (not POSIX, no interpreter to run it,
    out of processes) all three do nothing: the run goes on unguarded."""

    def __init__(self, kill_after: float = KILL_AFTER_S):
        self.kill_after = kill_after
        self.fd = None
        self.proc = None

    def start(self) -> None:
        if os.name != "posix" or not sys.executable:
            return
        import subprocess
        r, w = os.pipe()
        try:
            self.proc = subprocess.Popen([sys.executable, "-I", "-S", os.path.abspath(__file__), str(r),
                                          repr(self.kill_after)],
                                         pass_fds=(r,), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True)
        except (OSError, ValueError):
            os.close(w)
            return
        finally:
            os.close(r)
        self.fd = w

    def _say(self, data: bytes) -> None:
        if self.fd is None:
            return
        try:
            os.write(self.fd, data)
        except OSError:  # the guard is gone (killed by someone): nothing more it can do
            self._close()

    def _close(self) -> None:
        if self.fd is not None:
            try:
                os.close(self.fd)
            except OSError:
                pass
            self.fd = None

    def watch(self, pgid: int) -> None:
        self._say(b"%d\n" % pgid)

    def release(self) -> None:
        self._say(RELEASE + b"\n")
        self._close()
        if self.proc is not None:
            try:
                self.proc.wait(timeout=1)  # it exits at once: reap it rather than leave a zombie
            except Exception:  # noqa: BLE001 - a slow guard exits by itself later
                pass
            self.proc = None


def end_group(pgid: int, kill_after: float) -> None:
    try:
        os.killpg(pgid, signal.SIGTERM)
        os.killpg(pgid, signal.SIGCONT)
    except OSError:
        return  # no such group left (or not ours to signal)
    deadline = time.monotonic() + kill_after
    while time.monotonic() < deadline:
        time.sleep(0.05)
        try:
            os.killpg(pgid, 0)
        except OSError:
            return
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def guard(fd: int, kill_after: float) -> None:
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            break
        data += chunk
    words = data.split()
    if RELEASE in words:
        return
    groups = [int(w) for w in words if w.isdigit() and int(w) > 1]
    for pgid in groups:
        end_group(pgid, kill_after)


if __name__ == "__main__":
    guard(int(sys.argv[1]), float(sys.argv[2]))
