"""Plumbing for `torchdoctor run`: a pty that passes bytes unchanged, pipes with room to
run ahead, the descriptors a program inherits, job control as a shell does it (the
program's process group gets the terminal; the doctor takes it back when the program
stops or exits), the signal handlers that pass on what is to be forwarded, with a
wake-up pipe for select(), and dying of the program's signal as a shell would."""

import os
import signal
import sys
from typing import Any, Callable, Dict, Iterable, List, Optional

# The signals that end a job from outside (a terminal's Ctrl-C or hangup, kill's default,
# a pipeline's reader that left), none of which dumps core. A program that died of one:
# the doctor dies of the same after its diagnosis, so whoever started it sees what it
# would have seen without the doctor (bash ends a loop when its child died of SIGINT, not
# when it exited with status 130). Others (SIGKILL, SIGSEGV...) stay an exit status of
# 128 + N: nobody acts on them otherwise, and a core file of the doctor would mislead.
RERAISED = ("SIGHUP", "SIGINT", "SIGPIPE", "SIGTERM")


def fd_identity(fd: int):
    """(device, inode) of an open descriptor, None when it is closed: two streams with the
    same identity are one file (a terminal, `> log 2>&1`)."""
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def passed_on(fd: int):
    """fd_identity of a stream the program is to get: None where it is closed, or taken by
    the doctor alone (close-on-exec: a standard stream closed when the doctor started is
    held by /dev/null that way, cli/streams.py), so that it is closed for the program too."""
    try:
        if fd <= 2 and not os.get_inheritable(fd):
            return None
    except OSError:
        return None
    return fd_identity(fd)


def inherited_fds() -> List[int]:
    """The descriptors above 2 that this process was given (`3>file`, a job server's
    pipe), for the program to inherit in turn: every one a child would inherit, i.e. not
    close-on-exec. Python opens its own close-on-exec (PEP 446), so the doctor's pipes,
    pty and files are not among them."""
    names: Iterable[Any] = ()
    for folder in ("/proc/self/fd", "/dev/fd"):
        try:
            names = os.listdir(folder)
            break
        except OSError:
            continue
    else:
        names = range(3, 1024)
    out = []
    for name in names:
        try:
            fd = int(name)
            if fd > 2 and os.get_inheritable(fd):
                out.append(fd)
        except (ValueError, OSError):  # the listing's own descriptor, closed by now
            continue
    return sorted(out)


def wait_writable(fd: int) -> None:
    import select
    try:
        select.select([], [fd], [])
    except (OSError, ValueError):
        pass


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


def _stat_fields(pid) -> Optional[List[bytes]]:
    """The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...)."""
    try:
        with open("/proc/%s/stat" % pid, "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return None


def shares_job() -> bool:
    """Whether a process that is not one of our ancestors is in our process group: the
    other side of a pipeline (`torchdoctor run -- x | less`), which reads the terminal as
    the job's foreground. Handing the terminal to the program's group then would stop that
    reader (SIGTTIN) and with it the job. Our ancestors in the group (`sh -c`, a subshell)
    only wait for us. False where /proc cannot say (not Linux): the terminal goes to the
    program as before."""
    me, group = os.getpid(), os.getpgrp()
    ancestors, pid = set(), me
    while pid > 1 and pid not in ancestors:
        ancestors.add(pid)
        fields = _stat_fields(pid)
        if fields is None or len(fields) < 3:
            break
        pid = int(fields[1])
    try:
        names = os.listdir("/proc")
    except OSError:
        return False
    for name in names:
        if not name.isdigit() or int(name) in ancestors:
            continue
        fields = _stat_fields(name)
        if fields is not None and len(fields) > 2 and int(fields[2]) == group:
            return True
    return False


def give(pgid: int) -> None:
    try:
        os.tcsetpgrp(0, pgid)
    except OSError:
        pass


def holds_foreground() -> bool:
    """Whether our stdin is a terminal whose foreground is our process group."""
    try:
        return os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
    except OSError:
        return False


def foreground() -> Optional[int]:
    try:
        return os.tcgetpgrp(0)
    except OSError:
        return None


def stop_job(pgid: int) -> None:
    """The program's group (which holds the terminal) was stopped by the terminal: stop
    our own group with SIGTSTP, as Ctrl-Z would have stopped it without the doctor, so the
    shell sees the job stopped. Back here once the shell continues it (`fg`, `bg`), or at
    once where no shell can (the kernel discards SIGTSTP in an orphaned process group).
    The terminal goes back to the program only where the job is in the foreground again."""
    if foreground() == pgid:
        take()
    try:
        os.killpg(os.getpgrp(), signal.SIGTSTP)
    except OSError:
        pass
    if foreground() == os.getpgrp():
        give(pgid)


def die_by(sig: int) -> None:
    """End this process by `sig`, as the program ended, where that is one of RERAISED
    (and return otherwise): restore its default action, unblock it, send it to ourselves
    (as `timeout --preserve-status` and shells do)."""
    try:
        name = signal.Signals(sig).name
    except ValueError:
        return
    if name not in RERAISED or os.name != "posix":
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    try:
        signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    except (OSError, ValueError):
        return


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
