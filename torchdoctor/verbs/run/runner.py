"""Run a command as if the doctor were not there, watching its output (`torchdoctor run`).

* Output passes through live and in order: a pty where our stream is a terminal (the
  program still sees a TTY: colours, line buffering, progress bars redrawing with `\\r`),
  a pipe otherwise; when our stdout and stderr are the same file (a terminal, `> log 2>&1`)
  the program gets one channel for both, so their interleaving is exactly its own.
* stdin is the program's own (inherited, never read here). The program runs in its own
  process group; when we hold the terminal, that group is made the terminal's foreground
  (as a shell does), so Ctrl-C / Ctrl-Z reach it directly and it can read the terminal;
  SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1/2 sent to us are forwarded to its group.
* Every byte is scanned with logscan.LogScan (bounded memory) and the last TAIL bytes are
  kept as evidence; the output itself is never held.
* If scanning fails, the output still passes through and the failure is recorded.
"""

import errno
import os
import signal
import time
from ...model.records import field, record
from typing import Any, Dict, List, Optional

from . import terminal
from .command import StartError, resolve_command  # noqa: F401 - StartError is part of this API

TAIL = 64 * 1024
READ = 256 * 1024
PIPE_SIZE = 1024 * 1024  # Linux: room for the program to run ahead while a chunk is scanned
COALESCE_BELOW = 16 * 1024  # a read smaller than this from a pipe ...
COALESCE_S = 0.002  # ... waits this long before the next one (bounded wake-ups, invisible latency)
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")
GRACE_S = 0.2  # after the program exits, how long a grandchild holding its output may be silent
MAX_AFTER_S = 2.0  # ... and how long it is read at most


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

    @property
    def exit_status(self) -> int:
        return 128 - self.returncode if self.returncode < 0 else self.returncode

    @property
    def signal_name(self) -> Optional[str]:
        if self.returncode >= 0:
            return None
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return "signal %d" % -self.returncode


class _Tail:
    def __init__(self, limit: int):
        from collections import deque
        self.limit, self.parts, self.size = limit, deque(), 0

    def add(self, data: bytes) -> None:
        self.parts.append(data)
        self.size += len(data)
        while self.size - len(self.parts[0]) >= self.limit:
            self.size -= len(self.parts.popleft())

    def value(self) -> bytes:
        return b"".join(self.parts)[-self.limit:]


class _Channel:
    def __init__(self, name: str, read_fd: int, dest_fd: int, kind: str):
        self.name, self.fd, self.dest, self.kind = name, read_fd, dest_fd, kind
        self.scanner = None
        self.open = True
        self.dest_broken = False


class Runner:
    def __init__(self, argv: List[str], scan: bool = True, tail: int = TAIL,
                 stdout_fd: int = 1, stderr_fd: int = 2, use_pty: Optional[bool] = None):
        self.argv = list(argv)
        self.scan = scan
        self.tail = _Tail(tail)
        self.out_fd, self.err_fd = stdout_fd, stderr_fd
        self.use_pty = use_pty  # None: where our stream is a terminal
        self.result = Result(self.argv)
        self.pending: List[int] = []
        self.sigchld = False
        self.channels: List[_Channel] = []
        self.proc = None
        self.gave_tty = False
        self.winsize = None

    # -- start ---------------------------------------------------------------------------
    def _wants_pty(self, fd: int) -> bool:
        if self.use_pty is not None:
            return self.use_pty and os.isatty(fd)
        return os.isatty(fd)

    def _plan(self):
        """(child stdout, child stderr, fds to close after the fork) and self.channels."""
        child_out = child_err = None
        close_after = []
        out_id, err_id = terminal.fd_identity(self.out_fd), terminal.fd_identity(self.err_fd)
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
        child_out, child_err, close_after = self._plan()
        kw: Dict[str, Any] = {}
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
        self.signals = terminal.Signals(FORWARDED + ("SIGCHLD", "SIGWINCH"), self.pending.append)
        self.signals.install()
        self.wake_r = self.signals.wake_r
        t0 = time.monotonic()
        try:
            self.proc = subprocess.Popen([path] + self.argv[1:], executable=path, stdin=None,
                                         stdout=child_out, stderr=child_err, **kw)
        except OSError as e:
            self._close_all(close_after)
            self.signals.restore()
            if isinstance(e, FileNotFoundError):
                raise StartError(127, "%s: %s" % (self.argv[0], e.strerror or e))
            if isinstance(e, PermissionError):
                raise StartError(126, "%s: %s" % (self.argv[0], e.strerror or e))
            # ENOEXEC (no shebang, another architecture), E2BIG, ...
            raise StartError(126, "%s: cannot execute: %s" % (self.argv[0], e.strerror or e))
        finally:
            for fd in close_after:
                try:
                    os.close(fd)
                except OSError:
                    pass
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

    def _handle_pending(self) -> None:
        while self.pending:
            sig = self.pending.pop(0)
            if sig == getattr(signal, "SIGCHLD", None):
                self.sigchld = True
                continue
            if sig == getattr(signal, "SIGWINCH", None):
                self._sync_winsize()
                continue
            self.result.forwarded = sig
            self._signal_group(sig)

    # -- output ----------------------------------------------------------------------------
    def _deliver(self, ch: _Channel, data: bytes) -> None:
        if not ch.dest_broken:
            view = memoryview(data)
            while view:
                try:
                    n = os.write(ch.dest, view)
                except InterruptedError:
                    continue
                except OSError as e:
                    if e.errno in (errno.EPIPE, errno.EBADF, errno.EIO, errno.ENOSPC):
                        # Our reader left (`| head`): so does the program's, as it would directly.
                        ch.dest_broken = True
                        self._close(ch)
                        break
                    raise
                view = view[n:]
        self.result.output_bytes += len(data)
        self.tail.add(data)
        if self.scan and self.result.scan_error is None:
            try:
                if ch.scanner is None:
                    from ...match.logscan import LogScan
                    ch.scanner = LogScan()
                ch.scanner.feed(data)
            except Exception as e:  # noqa: BLE001 - the output matters more than the scan
                self.result.scan_error = "%s: %s" % (type(e).__name__, e)

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
                self._stopped()
                if not block:
                    return None
                continue
            self.result_code = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") \
                else (-os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status))
            self.proc.returncode = self.result_code
            return self.result_code

    def _stopped(self) -> None:
        """The program was stopped (Ctrl-Z): stop ourselves too, so the shell sees the job
        stopped; on `fg` give the terminal back to the program and continue it."""
        if self.gave_tty:
            terminal.take()
        try:
            os.kill(os.getpid(), signal.SIGSTOP)
        except OSError:
            pass
        if self.gave_tty:
            terminal.give(self.proc.pid)
        self._signal_group(signal.SIGCONT)

    def _prepare_scanners(self) -> None:
        """Load the knowledge base while the program starts up, not on its first output."""
        if not self.scan:
            return
        try:
            from ...match.logscan import LogScan
            for ch in self.channels:
                ch.scanner = LogScan()
        except Exception as e:  # noqa: BLE001
            self.result.scan_error = "%s: %s" % (type(e).__name__, e)

    def wait(self) -> Result:
        self.result_code = None
        self._prepare_scanners()
        try:
            if os.name == "posix":
                self._loop()
            else:
                self._threads()
            self._reap(block=True)
        finally:
            for ch in self.channels:
                self._close(ch)
            if self.gave_tty:
                terminal.take()
            self.signals.restore()
        res = self.result
        res.returncode = self.result_code
        res.duration_s = time.monotonic() - self.t0
        res.tail = self.tail.value()
        res.matches = self.matches()
        return res

    def _loop(self) -> None:
        import select
        wake_r = self.wake_r
        exited_at = last_data = None
        synced = time.monotonic()
        check_exit = True
        while True:
            self._handle_pending()
            live = [ch for ch in self.channels if ch.open]
            if not live:
                if exited_at is not None or self._reap(block=False) is not None:
                    break
                # The program closed its output but runs on: keep forwarding signals to it.
                self._wait_quietly(wake_r)
                continue
            if self.sigchld or wake_r is None:
                self.sigchld, check_exit = False, True
            if check_exit and exited_at is None and self._reap(block=False) is not None:
                exited_at = last_data = time.monotonic()
            check_exit = False
            timeout = 0.25
            if exited_at is not None:
                timeout = max(0.0, GRACE_S - (time.monotonic() - last_data))
            fds = [ch.fd for ch in live] + ([wake_r] if wake_r is not None else [])
            try:
                ready, _, _ = select.select(fds, [], [], timeout)
            except InterruptedError:
                continue
            if not ready:
                check_exit = True
            if wake_r is not None and wake_r in ready:
                self.signals.drain()
            got, small = 0, True
            for ch in live:
                if ch.fd in ready and ch.open:
                    n = self._read(ch)
                    got += n
                    small = small and ch.kind == "pipe" and n < COALESCE_BELOW
            if exited_at is not None:
                now = time.monotonic()
                # The program is gone but a grandchild still holds its output: read what
                # comes promptly (for at most MAX_AFTER_S), then stop.
                if not got or now - exited_at > MAX_AFTER_S:
                    if now - last_data >= GRACE_S or now - exited_at > MAX_AFTER_S:
                        break
                else:
                    last_data = now
            elif got and small:
                # A program writing line by line (PYTHONUNBUFFERED, print(flush=True)) would
                # wake us per line; its pipe holds 1 MiB, so gather a little first.
                time.sleep(COALESCE_S)
            if self.winsize is not None and time.monotonic() - synced > 0.2:
                # The program's group holds the terminal, so a resize signals it, not us:
                # follow the terminal's size into the pty (and tell the program again).
                synced = time.monotonic()
                self._sync_winsize()

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
            t.join(GRACE_S * 5)

    def matches(self) -> list:
        if not self.scan or self.result.scan_error is not None:
            return []
        try:
            from ...match.matcher import rank
            best: Dict[str, Any] = {}
            for ch in self.channels:
                for m in (ch.scanner.close() if ch.scanner is not None else []):
                    have = best.get(m.id)
                    if have is None or m.score > have.score:
                        if have is not None:
                            m.count += have.count
                        best[m.id] = m
                    else:
                        have.count += m.count
            return rank(list(best.values()))
        except Exception as e:  # noqa: BLE001
            self.result.scan_error = "%s: %s" % (type(e).__name__, e)
            return []


def run(argv: List[str], **kw) -> Result:
    r = Runner(argv, **kw)
    r.start()
    return r.wait()
