"""Run a command as if the doctor were not there, watching its output (`torchdoctor run`).

* Output passes through live and in order: a pty where our stream is a terminal (the
  program still sees a TTY: colours, line buffering, progress bars redrawing with `\\r`),
  a pipe otherwise; when our stdout and stderr are the same file (a terminal, `> log 2>&1`)
  the program gets one channel for both, so their interleaving is exactly its own.
* stdin is the program's own (inherited, never read here). The program runs in its own
  process group; when we hold the terminal, that group is made the terminal's foreground
  (as a shell does), so Ctrl-C / Ctrl-Z reach it directly and it can read the terminal;
  SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2 sent to us are forwarded to its group.
* Every byte is scanned and the last TAIL bytes are kept (evidence.py); the output itself
  is never held, and passes through even if the scan fails.
* Nothing is lost: the output is read to its end (a grandchild's too, after the program
  exited), however slowly our reader takes it. Descriptors we inherited (`3>file`) are the
  program's too (ours are close-on-exec); a stream closed for us is closed for it. The
  program never outlives the doctor (lifeline.Lifeline).
"""

import errno
import os
import signal
import time
from ...model.records import field, record
from typing import Any, Dict, List, Optional

from . import terminal
from ...children.lifeline import Lifeline
from .evidence import TAIL, Evidence
from .command import StartError, resolve_command, start_error  # noqa: F401 - StartError is part of this API

READ = 1024 * 1024  # as much as the pipe holds: fewer wake-ups, fewer and larger scans
PIPE_SIZE = 1024 * 1024  # Linux: room for the program to run ahead while a chunk is scanned
COALESCE_BELOW = 16 * 1024  # a read smaller than this from a pipe ...
COALESCE_S = 0.002  # ... waits this long before the next one (bounded wake-ups, invisible latency)
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
# Stops that come from the terminal (Ctrl-Z, a background read or write): the job stops,
# as it would without the doctor. Any other stop (someone's SIGSTOP) leaves the doctor
# running: stopped itself, it could not see a later SIGCONT of the program.
JOB_STOPS = ("SIGTSTP", "SIGTTIN", "SIGTTOU")
ENDING = ("SIGINT", "SIGTERM", "SIGHUP")  # after the program exited: stop waiting for its output
HELD_NOTE_S = 5.0  # after the program exited, its output still open this long: say why we wait


@record
class Result:
    argv: List[str]
    returncode: int = 0  # as subprocess gives it: -N when killed by signal N
    duration_s: float = 0.0
    output_bytes: int = 0
    tail: bytes = b""
    matches: list = field(default_factory=list)
    scan_error: Optional[str] = None
    forwarded: Optional[int] = None  # the last signal passed on to the program
    channels: Dict[str, str] = field(default_factory=dict)  # stdout/stderr -> pty|pipe|merged|inherited
    reader_left: bool = False  # our reader closed its end (`| head`): the program's output was cut there
    abandoned: bool = False  # a signal ended the wait for output a grandchild still held after the exit

    @property
    def exit_status(self) -> int:
        return 128 - self.returncode if self.returncode < 0 else self.returncode

    @property
    def broken_pipe(self) -> bool:
        """The program died of SIGPIPE because our reader left: as `cmd | head` ends, nothing
        to explain."""
        return self.reader_left and self.returncode == -getattr(signal, "SIGPIPE", 13)

    @property
    def signal_name(self) -> Optional[str]:
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return "signal %d" % -self.returncode


class _Abandoned(Exception):
    """From the signal handler: leave a write that blocks, once the wait is abandoned."""


class _Channel:
    def __init__(self, name: str, read_fd: int, dest_fd: int, kind: str):
        self.name, self.fd, self.dest, self.kind = name, read_fd, dest_fd, kind
        self.open = True
        self.dest_broken = False


class Runner:
    def __init__(self, argv: List[str], scan: bool = True, tail: int = TAIL,
                 stdout_fd: int = 1, stderr_fd: int = 2, use_pty: Optional[bool] = None):
        self.argv = list(argv)
        self.evidence = Evidence(scan, tail)
        self.out_fd, self.err_fd = stdout_fd, stderr_fd
        self.use_pty = use_pty  # None: where our stream is a terminal
        self.result = Result(self.argv)
        self.result_code: Optional[int] = None
        self.pending: List[int] = []
        self.sigchld = False
        self.channels: List[_Channel] = []
        self.proc = None
        self.gave_tty = False
        self.winsize = None
        self.lifeline = Lifeline()
        self.writing = False
        self.exited_at: Optional[float] = None

    # -- start ---------------------------------------------------------------------------
    def _wants_pty(self, fd: int) -> bool:
        if self.use_pty is not None:
            return self.use_pty and os.isatty(fd)
        return os.isatty(fd)

    def _plan(self, out_id, err_id):
        """(child stdout, child stderr, fds to close after the fork) and self.channels."""
        child_out = child_err = None
        close_after = []
        merged = out_id is not None and out_id == err_id
        for name, fd, ident in (("stdout", self.out_fd, out_id), ("stderr", self.err_fd, err_id)):
            if ident is None:
                self.result.channels[name] = "inherited"  # our stream is closed: so is the program's
                continue
            if name == "stderr" and merged:
                self.result.channels[name] = "merged"
                child_err = child_out
                continue
            if os.name == "posix" and self._wants_pty(fd):
                r, w = terminal.pty_pair()
                kind = "pty"
            else:
                r, w = os.pipe()
                terminal.grow_pipe(r, PIPE_SIZE)
                kind = "pipe"
            self.result.channels[name] = kind
            self.channels.append(_Channel(name, r, fd, kind))
            close_after.append(w)
            if name == "stdout":
                child_out = w
            else:
                child_err = w
        return child_out, child_err, close_after

    def start(self) -> None:
        import subprocess
        path = resolve_command(self.argv)
        out_id, err_id = terminal.passed_on(self.out_fd), terminal.passed_on(self.err_fd)
        kw: Dict[str, Any] = {}
        if os.name == "posix":
            kw["pass_fds"] = terminal.inherited_fds()
        child_out, child_err, close_after = self._plan(out_id, err_id)
        if os.name == "posix":
            give = False
            try:
                give = os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp()
            except OSError:
                give = False
            self.gave_tty = give
            kw["preexec_fn"] = terminal.child_setup(give)
        # (Windows: the program stays in our console group, so Ctrl-C reaches it directly.)
        self._sync_winsize()
        # Before the fork, so no signal is lost; Python-level handlers reset to the default
        # at exec, and the child resets SIGTTOU itself.
        self.signals = terminal.Signals(FORWARDED + ("SIGCHLD", "SIGWINCH"), self._on_signal)
        self.signals.install()
        self.wake_r = self.signals.wake_r
        self.lifeline.start()
        t0 = time.monotonic()
        try:
            self.proc = subprocess.Popen([path] + self.argv[1:], executable=path, stdin=None,
                                         stdout=child_out, stderr=child_err, **kw)
        except OSError as e:
            self._close_all(close_after)
            self.signals.restore()
            self.lifeline.release()
            raise start_error(self.argv[0], e)
        finally:
            for fd in close_after:
                try:
                    os.close(fd)
                except OSError:
                    pass
        if os.name == "posix":
            self.lifeline.watch(self.proc.pid)  # the program leads its own process group
        self.t0 = t0
        if self.gave_tty:
            terminal.give(self.proc.pid)

    def _close_all(self, fds) -> None:
        for fd in list(fds) + [ch.fd for ch in self.channels]:
            try:
                os.close(fd)
            except OSError:
                pass
        self.channels = []

    # -- terminal size ---------------------------------------------------------------------
    def _sync_winsize(self) -> None:
        ptys = [ch for ch in self.channels if ch.kind == "pty"]
        if not ptys:
            return
        import fcntl
        import termios
        for ch in ptys:
            try:
                ws = fcntl.ioctl(ch.dest, termios.TIOCGWINSZ, b"\0" * 8)
                fcntl.ioctl(ch.fd, termios.TIOCSWINSZ, ws)
            except OSError:
                continue
            if ch.name == "stdout" or self.winsize is None:
                changed = self.winsize is not None and ws != self.winsize
                self.winsize = ws
                if changed and self.proc is not None:
                    self._signal_group(signal.SIGWINCH)

    # -- signals -----------------------------------------------------------------------------
    def _signal_group(self, sig: int) -> None:
        try:
            if os.name == "posix":
                os.killpg(self.proc.pid, sig)
            else:
                self.proc.send_signal(sig)
        except (OSError, ValueError):
            try:
                self.proc.send_signal(sig)
            except (OSError, ValueError):
                pass

    def _on_signal(self, sig: int) -> None:
        """A signal to us. Forwarded at once, from the handler: the loop may be blocked
        writing to a slow reader, and the program must not wait for that."""
        if sig == getattr(signal, "SIGCHLD", None):
            self.sigchld = True
        elif sig == getattr(signal, "SIGWINCH", None) or self.proc is None:
            self.pending.append(sig)
        else:
            self._forward(sig)

    def _forward(self, sig: int) -> None:
        if self.result_code is None:
            self._reap(block=False)  # the loop may not have looked for a while (a blocked write)
        gone = self.result_code is not None  # before this signal, which may well end it
        self.result.forwarded = sig
        self._signal_group(sig)
        if gone and signal.Signals(sig).name in ENDING:
            # The program is gone and the user wants us gone too: stop waiting for output
            # that a process it left behind (outside its group, or ignoring this) holds,
            # even in a write that a reader who stopped reading blocks.
            self.result.abandoned = True
            if self.writing:
                raise _Abandoned()

    def _handle_pending(self) -> None:
        while self.pending:
            sig = self.pending.pop(0)
            if sig == getattr(signal, "SIGWINCH", None):
                self._sync_winsize()
            else:
                self._forward(sig)

    # -- output ----------------------------------------------------------------------------
    def _deliver(self, ch: _Channel, data: bytes) -> None:
        if not ch.dest_broken:
            view = memoryview(data)
            self.writing = True
            while view:
                try:
                    n = os.write(ch.dest, view)
                except BlockingIOError:
                    # Our stream is non-blocking (someone sharing it set O_NONBLOCK): wait for room.
                    terminal.wait_writable(ch.dest)
                    continue
                except InterruptedError:
                    continue
                except OSError as e:
                    if e.errno in (errno.EPIPE, errno.EBADF, errno.EIO, errno.ENOSPC):
                        # Our reader left (`| head`): so does the program's, as it would directly.
                        self.result.reader_left = self.result.reader_left or e.errno == errno.EPIPE
                        ch.dest_broken = True
                        self._close(ch)
                        break
                    raise
                view = view[n:]
            self.writing = False
        self.result.output_bytes += len(data)
        self.evidence.add(ch.name, data)

    def _close(self, ch: _Channel) -> None:
        if ch.open:
            ch.open = False
            try:
                os.close(ch.fd)
            except OSError:
                pass

    def _read(self, ch: _Channel) -> int:
        try:
            data = os.read(ch.fd, READ)
        except InterruptedError:
            return 0
        except OSError as e:
            if e.errno == errno.EIO:  # a pty whose every writer has gone
                data = b""
            else:
                raise
        if not data:
            self._close(ch)
            return 0
        self._deliver(ch, data)
        return len(data)

    # -- the loop ----------------------------------------------------------------------------
    def _reap(self, block: bool) -> Optional[int]:
        """The exit status once the program has exited (stops are handled like a shell)."""
        if self.result_code is not None:
            return self.result_code
        if os.name != "posix":
            code = self.proc.wait() if block else self.proc.poll()
            self.result_code = code
            return code
        flags = 0 if block else os.WNOHANG
        flags |= getattr(os, "WUNTRACED", 0)
        while True:
            try:
                pid, status = os.waitpid(self.proc.pid, flags)
            except ChildProcessError:
                self.result_code = self.proc.returncode if self.proc.returncode is not None else 0
                return self.result_code
            except InterruptedError:
                continue
            if pid == 0:
                return None
            if os.WIFSTOPPED(status):
                self._stopped(os.WSTOPSIG(status))
                if not block:
                    return None
                continue
            self.result_code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") \
                else (-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
            self.proc.returncode = self.result.returncode = self.result_code
            self.exited_at = time.monotonic()
            if self.gave_tty:
                # Back at once, as a shell takes it when its job ends: a Ctrl-C now reaches
                # us, while a process the program left behind may still hold its output.
                terminal.take()
            return self.result_code

    def _stopped(self, sig: int) -> None:
        """The program stopped. From the terminal (Ctrl-Z), where we had given it the
        terminal: the job stops as a whole, and on `fg` the program gets the terminal back
        and continues. Any other stop: nothing to do but wait for its SIGCONT (output and
        signals keep flowing meanwhile), as a shell without job control waits."""
        try:
            name = signal.Signals(sig).name
        except ValueError:
            return
        if self.gave_tty and name in JOB_STOPS:
            terminal.stop_job(self.proc.pid)
            self._signal_group(signal.SIGCONT)

    def wait(self) -> Result:
        self.evidence.start(ch.name for ch in self.channels)
        try:
            if os.name == "posix":
                self._loop()
            else:
                self._threads()
            self._reap(block=True)
            # Seen to its end: what of its group lives on was started to (`nohup x &`).
            # Not released on an error of ours: the lifeline then ends the group.
            self.lifeline.release()
        finally:
            for ch in self.channels:
                self._close(ch)
            if self.gave_tty:
                terminal.take()
            self.signals.restore()
            self.evidence.close()
        res = self.result
        res.returncode = self.result_code
        res.duration_s = time.monotonic() - self.t0
        res.tail = self.evidence.tail.value()
        res.matches = self.evidence.matches()
        res.scan_error = self.evidence.error
        return res

    def _loop(self) -> None:
        import select
        wake_r = self.wake_r
        synced = time.monotonic()
        check_exit = True
        while True:
            self._handle_pending()
            live = [ch for ch in self.channels if ch.open]
            if self.result.abandoned:
                break
            if not live:
                if self._reap(block=False) is not None:
                    break
                # The program closed its output but runs on: keep forwarding signals to it.
                self._wait_quietly(wake_r)
                continue
            if self.sigchld or wake_r is None:
                self.sigchld, check_exit = False, True
            if check_exit:
                self._reap(block=False)
            check_exit = False
            fds = [ch.fd for ch in live] + ([wake_r] if wake_r is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], 0.25)
            except InterruptedError:
                continue
            if not ready:
                check_exit = True
            if wake_r is not None and wake_r in ready:
                self.signals.drain()
            got, small = 0, True
            try:
                for ch in live:
                    if ch.fd in ready and ch.open:
                        n = self._read(ch)
                        got += n
                        small = small and ch.kind == "pipe" and n < COALESCE_BELOW
            except _Abandoned:
                break
            self._note_held(live)
            # After the program exited, its output is read to the end however long a
            # process it left behind holds it, as `cmd | cat` would: nothing is dropped.
            if got and small and self.result_code is None:
                # A program writing line by line (PYTHONUNBUFFERED, print(flush=True)) would
                # wake us per line; its pipe holds 1 MiB, so gather a little first.
                time.sleep(COALESCE_S)
            if self.winsize is not None and time.monotonic() - synced > 0.2:
                # The program's group holds the terminal, so a resize signals it, not us:
                # follow the terminal's size into the pty (and tell the program again).
                synced = time.monotonic()
                self._sync_winsize()

    def _note_held(self, live) -> None:
        """One line when the program is gone but its output is still open: why we wait."""
        if self.exited_at is None or not live or time.monotonic() - self.exited_at < HELD_NOTE_S:
            return
        self.exited_at = None  # said once
        import shlex
        line = ("torchdoctor: %s exited with status %d, but a process it started still holds its output "
                "open; passing that on until it is closed (Ctrl-C stops waiting)\n"
                % (shlex.join(self.argv)[:60], self.result.exit_status))
        try:
            os.write(self.err_fd, line.encode("utf-8", "replace"))
        except OSError:
            pass

    def _wait_quietly(self, wake_r) -> None:
        import select
        if wake_r is None:
            time.sleep(0.05)
            return
        try:
            if select.select([wake_r], [], [], 0.25)[0]:
                self.signals.drain()
        except InterruptedError:
            pass

    def _threads(self) -> None:
        """Where select() cannot wait on pipes (Windows): one reader thread per channel."""
        import threading
        lock = threading.Lock()

        def pump(ch):
            while ch.open:
                try:
                    data = os.read(ch.fd, READ)
                except OSError:
                    data = b""
                if not data:
                    break
                with lock:
                    self._deliver(ch, data)

        threads = [threading.Thread(target=pump, args=(ch,), daemon=True) for ch in self.channels]
        for t in threads:
            t.start()
        while True:
            try:
                self.proc.wait()
                break
            except KeyboardInterrupt:  # the console sent Ctrl-C to the program as well
                self.result.forwarded = signal.SIGINT
        for t in threads:
            t.join()  # to the end of the output, as on POSIX


def run(argv: List[str], **kw) -> Result:
    r = Runner(argv, **kw)
    r.start()
    return r.wait()
