"""Run a child process with a hard time limit, surviving anything it does.

Output goes to temporary files rather than pipes: a child that prints
megabytes can neither deadlock us nor fill our memory, and we keep only the
tail, which is where the real error is.
"""

import os
import signal
import time
from ..model.records import field, record
from typing import TYPE_CHECKING, Any, Dict, List, Mapping, Optional

if TYPE_CHECKING:
    import subprocess

TAIL_BYTES = 64 * 1024

# subprocess.Popen and shutil.which as they were when a surface inside someone else's
# process was set up (pin()): a test that patches them (monkeypatch.setattr(subprocess,
# "Popen", fake)) must neither decide what the doctor runs nor see it run.
_PINNED: Dict[str, Any] = {}


def pin() -> None:
    import shutil
    import subprocess
    _PINNED.setdefault("Popen", subprocess.Popen)
    _PINNED.setdefault("which", shutil.which)


def which(name: str, path: Optional[str] = None) -> Optional[str]:
    pinned = _PINNED.get("which")
    if pinned is None and os.name != "nt":
        return _which_posix(name, path)
    import shutil
    return (pinned or shutil.which)(name, path=path)


def _which_posix(name: str, path: Optional[str]) -> Optional[str]:
    """shutil.which on POSIX, without importing shutil (it imports bz2 and lzma, a few
    milliseconds of explain's start-up). Windows' PATHEXT rules stay with shutil."""
    def ok(fn: str) -> bool:
        return os.path.exists(fn) and os.access(fn, os.F_OK | os.X_OK) and not os.path.isdir(fn)
    if os.path.dirname(name):
        return name if ok(name) else None
    if path is None:
        path = os.environ.get("PATH", None)
        if path is None:
            try:
                path = os.confstr("CS_PATH")
            except (AttributeError, ValueError):
                path = os.defpath
    if not path:
        return None
    seen = set()
    for d in path.split(os.pathsep):
        if d in seen:
            continue
        seen.add(d)
        fn = os.path.join(d, name)
        if ok(fn):
            return fn
    return None


@record
class ProcResult:
    argv: List[str]
    returncode: Optional[int] = None
    signal: Optional[str] = None  # e.g. "SIGSEGV" when killed by a signal
    timed_out: bool = False
    stdout: str = ""
    stderr: str = ""
    duration_s: float = 0.0
    start_error: Optional[str] = None  # could not start at all (ENOENT, EACCES...)
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    extra: dict = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.start_error is None and not self.timed_out and self.returncode == 0


def signal_name(returncode: Optional[int]) -> Optional[str]:
    if returncode is None or returncode >= 0:
        # Windows reports access violations as large positive codes.
        if returncode in (3221225477, -1073741819):
            return "ACCESS_VIOLATION"
        return None
    try:
        return signal.Signals(-returncode).name
    except (ValueError, AttributeError):
        return "signal %d" % -returncode


def _tail(fh) -> tuple:
    fh.seek(0, os.SEEK_END)
    size = fh.tell()
    fh.seek(max(0, size - TAIL_BYTES))
    data = fh.read()
    return data.decode("utf-8", "replace"), size > TAIL_BYTES


def _kill_tree(p: "subprocess.Popen") -> None:
    try:
        if os.name == "posix":
            os.killpg(p.pid, signal.SIGKILL)
        else:
            p.kill()
    except (OSError, ProcessLookupError):
        try:
            p.kill()
        except OSError:
            pass


def _wait(p: "subprocess.Popen", timeout: float) -> int:
    """p.wait(timeout) without its polling latency.

    Popen.wait(timeout=...) polls with sleeps that grow to 50 ms, so a child
    that exits is noticed up to 50 ms late. On Linux a pidfd becomes readable
    the moment the child exits; elsewhere (or on old kernels) fall back.
    """
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is not None:
        try:
            fd = pidfd_open(p.pid)
        except OSError:
            fd = None
        if fd is not None:
            try:
                import select
                poller = select.poll()
                poller.register(fd, select.POLLIN)
                ready = poller.poll(max(0.0, timeout) * 1000.0)
            except (OSError, ValueError, AttributeError, OverflowError):
                ready = [fd]  # let Popen.wait decide
            finally:
                os.close(fd)
            if not ready:
                import subprocess
                raise subprocess.TimeoutExpired(p.args, timeout)
            return p.wait(timeout=timeout)
    return p.wait(timeout=timeout)


def _scratch_file():
    """An anonymous file for a child's output (a file, not a pipe: a grandchild that keeps
    a pipe open cannot make us wait; only the last TAIL_BYTES are read back). On Linux a
    memfd, which spares `explain` the import of tempfile and random (~2 ms)."""
    memfd_create = getattr(os, "memfd_create", None)
    if memfd_create is not None:
        try:
            return os.fdopen(memfd_create("torchdoctor-child-output", getattr(os, "MFD_CLOEXEC", 1)), "w+b")
        except OSError:
            pass
    import tempfile
    return tempfile.TemporaryFile()


def run(argv: List[str], timeout: float, env: Optional[Mapping[str, str]] = None,
        cwd: Optional[str] = None) -> ProcResult:
    # Imported here: `explain` loads this module for its cheap facts and, on a machine
    # without nvidia-smi, never starts a process (subprocess + tempfile cost ~7 ms).
    import subprocess
    res = ProcResult(argv=list(argv))
    t0 = time.monotonic()
    with _scratch_file() as out, _scratch_file() as err:
        try:
            kw = {"start_new_session": True} if os.name == "posix" else {
                "creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
            popen = _PINNED.get("Popen", subprocess.Popen)
            p = popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                      env=dict(env) if env is not None else None, cwd=cwd, **kw)
        except (OSError, ValueError) as e:
            res.start_error = "%s: %s" % (type(e).__name__, e)
            res.duration_s = time.monotonic() - t0
            return res
        try:
            res.returncode = _wait(p, timeout)
        except subprocess.TimeoutExpired:
            res.timed_out = True
            _kill_tree(p)
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass
        else:
            # The child is gone, but a grandchild may still hold the group.
            if os.name == "posix":
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except (OSError, ProcessLookupError):
                    pass
        res.duration_s = time.monotonic() - t0
        res.signal = signal_name(res.returncode)
        res.stdout, res.stdout_truncated = _tail(out)
        res.stderr, res.stderr_truncated = _tail(err)
    return res


def last_lines(text: str, n: int = 15) -> str:
    lines = [ln for ln in text.replace("\r\n", "\n").split("\n") if ln.strip()]
    return "\n".join(lines[-n:])
