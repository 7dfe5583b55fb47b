"""Plumbing for `torchdoctor run`: a pty that passes bytes unchanged, pipes with room to
run ahead, job control as a shell does it (the program's process group gets the
terminal; the doctor takes it back when the program stops or exits), and the signal
handlers that queue what is to be forwarded, with a wake-up pipe for select()."""

import os
import signal
from typing import Any, Callable, Dict, Iterable, Optional


def fd_identity(fd: int):
    """(device, inode) of an open descriptor, None when it is closed: two streams with the
    same identity are one file (a terminal, `> log 2>&1`)."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def grow_pipe(fd: int, size: int) -> None:
    try:
        import fcntl
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), size)
    except (ImportError, OSError, ValueError):
        pass  # not Linux, or over /proc/sys/fs/pipe-max-size: the default size works too


class Signals:
    """Handlers that queue the signals named (SIGTTOU is ignored meanwhile: the doctor
    writes to, and takes back, a terminal the program's group holds), and a wake-up pipe
    that select() can wait on. Only in the main thread; elsewhere nothing is installed."""

    def __init__(self, names: Iterable[str], queue: Callable[[int], Any]):
        self.names, self.queue = tuple(names), queue
        self.saved: Dict[int, Any] = {}
        self.old_wake: Optional[int] = None
        self.wake_r = self.wake_w = None

    def install(self) -> None:
        import threading
        if threading.current_thread() is not threading.main_thread():
            return
        if os.name == "posix":
            self.wake_r, self.wake_w = os.pipe()
            os.set_blocking(self.wake_r, False)
            os.set_blocking(self.wake_w, False)

        def handler(signum, frame):
            self.queue(signum)

        for name in self.names:
            sig = getattr(signal, name, None)
            if sig is None:
                continue
            try:
                self.saved[sig] = signal.signal(sig, handler)
            except (OSError, ValueError):
                pass
        if hasattr(signal, "SIGTTOU"):
            self.saved[signal.SIGTTOU] = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        if self.wake_w is not None:
            try:
                self.old_wake = signal.set_wakeup_fd(self.wake_w, warn_on_full_buffer=False)
            except (ValueError, OSError):
                self.old_wake = None

    def drain(self) -> None:
        try:
            while os.read(self.wake_r, 512):
                pass
        except OSError:
            pass

    def restore(self) -> None:
        if self.old_wake is not None:
            try:
                signal.set_wakeup_fd(self.old_wake)
            except (ValueError, OSError):
                pass
            self.old_wake = None
        for sig, h in self.saved.items():
            try:
                signal.signal(sig, h if h is not None else signal.SIG_DFL)
            except (OSError, ValueError, TypeError):
                pass
        self.saved = {}
        for fd in (self.wake_r, self.wake_w):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self.wake_r = self.wake_w = None


def pty_pair():
    """(master, slave) of a new pty whose output side leaves bytes as written (no
    "\\n" -> "\\r\\n"): our own terminal does that translation once."""
    import pty
    import termios
    master, slave = pty.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.OPOST
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
    except (termios.error, OSError):
        pass
    return master, slave


def child_setup(give_tty: bool):
    """preexec_fn of the program: its own process group, the terminal's foreground when
    the doctor held it, and SIGTTOU back to its default (the doctor ignores it)."""
    def setup():  # runs in the child between fork and exec
        os.setpgid(0, 0)
        signal.signal(signal.SIGTTOU, signal.SIG_IGN)
        if give_tty:
            try:
                os.tcsetpgrp(0, os.getpgrp())
            except OSError:
                pass
        signal.signal(signal.SIGTTOU, signal.SIG_DFL)
    return setup


def give(pgid: int) -> None:
    try:
        os.tcsetpgrp(0, pgid)
    except OSError:
        pass


def take() -> None:
    try:
        old = signal.signal(signal.SIGTTOU, signal.SIG_IGN)
    except (OSError, ValueError):
        old = None
    try:
        os.tcsetpgrp(0, os.getpgrp())
    except OSError:
        pass
    finally:
        if old is not None:
            try:
                signal.signal(signal.SIGTTOU, old)
            except (OSError, ValueError):
                pass
