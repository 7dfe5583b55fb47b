"""Terminal plumbing for `torchdoctor run`: a pty that passes bytes unchanged, and job
control as a shell does it (the program's process group gets the terminal; the doctor
takes it back when the program stops or exits)."""

import os
import signal


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
