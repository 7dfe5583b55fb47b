"""Progress on a terminal and Ctrl-C during a log scan (torchdoctor/verbs/explain_progress.py).

The progress line is tested on a real pseudo-terminal (the stdlib `pty`
module) with the CLI in a child process; Ctrl-C is a real SIGINT to a child
that scans a file or waits on a slow pipe. Child scripts lower the size
threshold (and slow the scan down) through the module's constants, so the
tests need megabytes, not the hundreds of MB a user's log has.
"""

import io
import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from torchdoctor.verbs import explain_progress as PG

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ERROR = b"RuntimeError: Torch not compiled with CUDA enabled\n"
ERROR_ID = "torch-not-compiled-with-cuda"
FILLER = b"[2026-01-01 10:00:00] epoch 3 step 1200 loss 0.4312 lr 1.0e-04 grad_norm 0.91\n"
posix_only = pytest.mark.skipif(os.name != "posix", reason="pty and SIGINT to a child are POSIX")


def log_file(tmp_path, mb, name="train.log"):
    path = tmp_path / name
    block = FILLER * (1024 * 1024 // len(FILLER))
    with open(path, "wb") as fh:
        fh.write(ERROR)
        for _ in range(int(mb)):
            fh.write(block)
    return path


# -------------------------------------------------------------- the meter --
class FakeTTY(io.StringIO):
    def __init__(self, tty=True):
        super().__init__()
        self.tty = tty

    def isatty(self):
        return self.tty


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_big_file_shows_bytes_percent_rate_and_eta_at_once():
    tty, clock = FakeTTY(), Clock()
    m = PG.Meter("train.log", 4 * PG.PROGRESS_MIN_BYTES, tty, clock)
    clock.t += 1.0
    m.update(512 * 1024 * 1024)
    out = tty.getvalue()
    assert out.startswith("\rscanning train.log: 512.0 MB of 1.0 GB (50%), 512.0 MB/s, ETA 0:01"), out
    m.clear()
    assert tty.getvalue().endswith("\r" + " " * len(out.strip("\r")) + "\r")


def test_small_fast_input_shows_nothing_and_a_slow_one_shows_progress_later():
    tty, clock = FakeTTY(), Clock()
    m = PG.Meter("standard input", None, tty, clock)
    clock.t += PG.PROGRESS_AFTER_S / 2
    m.update(10 * 1024 * 1024)
    assert tty.getvalue() == ""
    clock.t += PG.PROGRESS_AFTER_S
    m.update(30 * 1024 * 1024)
    out = tty.getvalue()
    assert out.startswith("\rscanning standard input: 30.0 MB, ") and "/s" in out
    assert "ETA" not in out and "%" not in out  # the end of a pipe is not known


def test_redraws_are_throttled():
    tty, clock = FakeTTY(), Clock()
    m = PG.Meter("x.log", PG.PROGRESS_MIN_BYTES, tty, clock)
    m.update(1)
    clock.t += PG.PROGRESS_EVERY_S / 4
    m.update(2)
    assert tty.getvalue().count("\r") == 1
    clock.t += PG.PROGRESS_EVERY_S
    m.update(3)
    assert tty.getvalue().count("\r") == 2


def test_ctrl_c_while_the_first_line_is_drawn_still_erases_it():
    # Ctrl-C lands on whatever line runs: here right after the text reached the terminal and
    # before the meter noted its width, so the note that follows must still start on a clean line
    class InterruptedAfterWriting(FakeTTY):
        def flush(self):
            if not getattr(self, "hit", False):
                self.hit = True
                raise KeyboardInterrupt
    tty, clock = InterruptedAfterWriting(), Clock()
    m = PG.Meter("train.log", PG.PROGRESS_MIN_BYTES, tty, clock)
    with pytest.raises(KeyboardInterrupt):
        m.update(1024)
    drawn = tty.getvalue()
    m.clear()
    assert tty.getvalue() == drawn + "\r" + " " * len(drawn.strip("\r")) + "\r"


def test_no_progress_when_stderr_is_not_a_terminal_or_breaks():
    tty, clock = FakeTTY(tty=False), Clock()
    m = PG.Meter("x.log", 10 * PG.PROGRESS_MIN_BYTES, tty, clock)
    clock.t += 10
    m.update(PG.PROGRESS_MIN_BYTES)
    m.clear()
    assert tty.getvalue() == ""

    class Broken(FakeTTY):
        def write(self, s):
            raise OSError("EIO")
    m = PG.Meter("x.log", 10 * PG.PROGRESS_MIN_BYTES, Broken(), clock)
    m.update(1)  # no exception, and no more tries
    assert not m.enabled


def test_human_units():
    assert PG.human_bytes(512) == "512 B"
    assert PG.human_bytes(1536) == "1.5 KB"
    assert PG.human_bytes(3 * 1024 ** 4) == "3072.0 GB"
    assert PG.human_duration(59.6) == "1:00"
    assert PG.human_duration(3725) == "1:02:05"


@posix_only
def test_input_size_knows_files_not_pipes(tmp_path):
    path = log_file(tmp_path, 0)
    assert PG.input_size(str(path)) == len(ERROR)
    fifo = tmp_path / "fifo"
    os.mkfifo(str(fifo))
    assert PG.input_size(str(fifo)) is None
    assert PG.input_size(str(tmp_path / "missing")) is None


# ------------------------------------------------------ scan_log in-process --
class Interrupting(io.RawIOBase):
    """A stream that hands over `blocks`, then acts as if Ctrl-C was pressed."""

    def __init__(self, blocks):
        self.blocks = list(blocks)

    def read(self, n=-1):
        if not self.blocks:
            raise KeyboardInterrupt
        return self.blocks.pop(0)

    def readable(self):
        return True


def test_scan_log_returns_what_was_found_before_ctrl_c():
    err = FakeTTY(tty=False)
    blocks = [FILLER * 1000 + ERROR, FILLER * 1000]
    matches, interrupted, other = PG.scan_log(Interrupting(blocks), None, stderr=err)
    assert interrupted
    assert [m.id for m in matches] == [ERROR_ID] and matches[0].line == 1001
    assert err.getvalue().startswith("torchdoctor: interrupted after ")
    assert "(2,001 lines); what was found so far" in err.getvalue()


def test_scan_log_to_the_end_is_the_log_scan():
    from torchdoctor.match.logscan import scan_stream
    data = FILLER * 5000 + ERROR + FILLER * 10
    err = FakeTTY(tty=False)
    matches, interrupted, other = PG.scan_log(io.BytesIO(data), None, stderr=err)
    assert not interrupted and err.getvalue() == ""
    want = scan_stream(io.BytesIO(data))
    assert [(m.id, m.line, m.count) for m in matches] == [(m.id, m.line, m.count) for m in want]


# ------------------------------------------------------- the CLI, for real --
CHILD = r'''
import sys, time
from torchdoctor.match import logscan
from torchdoctor.verbs import explain_progress as progress
progress.PROGRESS_MIN_BYTES = int(sys.argv[1])
pause = float(sys.argv[2])
if pause:  # a slow disk
    feed = logscan.LogScan.feed
    def slow_feed(self, data):
        time.sleep(pause)
        feed(self, data)
    logscan.LogScan.feed = slow_feed
from torchdoctor.cli import main
main(sys.argv[3:])
'''


def start_child(args, min_bytes, pause, stdin=subprocess.DEVNULL, tty=True):
    """The CLI in a child; its stderr is a pseudo-terminal (returned: master fd) or a pipe."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    master = slave = None
    if tty:
        master, slave = os.openpty()
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(min_bytes), str(pause)] + args, stdin=stdin,
                         stdout=subprocess.PIPE, stderr=slave if tty else subprocess.PIPE, env=env, cwd=ROOT)
    if slave is not None:
        os.close(slave)
    return p, master


def read_tty(master, until=None, timeout=120.0):
    """What the child wrote on its terminal: until `until` shows up, or it closes."""
    out, end = b"", time.monotonic() + timeout
    while time.monotonic() < end:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed its end
                break
            if not data:
                break
            out += data
            if until is not None and until in out:
                break
    return out.decode("utf-8", "replace")


@posix_only
def test_progress_on_a_terminal_then_the_result(tmp_path):
    path = log_file(tmp_path, 6)
    p, master = start_child(["explain", "--no-env", "--json", "--file", str(path)], 1024 * 1024, 0)
    screen = read_tty(master)
    out, _ = p.communicate(timeout=300)
    os.close(master)
    assert p.returncode == 0
    assert "\rscanning train.log: " in screen and " of 6.0 MB (" in screen and "MB/s" in screen
    assert "ETA" in screen or "(100%)" in screen
    assert screen.endswith("\r"), repr(screen[-200:])  # the line is erased: nothing left on screen
    assert "Traceback" not in screen
    assert [m["id"] for m in json.loads(out)["matches"]] == [ERROR_ID]


@posix_only
def test_no_progress_for_a_small_fast_file_even_on_a_terminal(tmp_path):
    path = log_file(tmp_path, 3)
    p, master = start_child(["explain", "--no-env", "--json", "--file", str(path)], PG.PROGRESS_MIN_BYTES, 0)
    screen = read_tty(master)
    out, _ = p.communicate(timeout=300)
    os.close(master)
    assert p.returncode == 0 and screen == ""
    assert [m["id"] for m in json.loads(out)["matches"]] == [ERROR_ID]


def test_no_progress_when_stderr_is_a_pipe(tmp_path):
    path = log_file(tmp_path, 3)
    p, _ = start_child(["explain", "--no-env", "--json", "--file", str(path)], 0, 0, tty=False)
    out, err = p.communicate(timeout=300)
    assert p.returncode == 0 and err == b""
    assert [m["id"] for m in json.loads(out)["matches"]] == [ERROR_ID]


@posix_only
def test_ctrl_c_on_a_large_file_prints_what_was_found_so_far(tmp_path):
    path = log_file(tmp_path, 64)
    # 0.1 s a block: 64 blocks take 6 s or more; Ctrl-C comes at the first progress line
    p, master = start_child(["explain", "--no-env", "--file", str(path)], 1024 * 1024, 0.1)
    screen = read_tty(master, until=b"MB/s")
    assert "scanning train.log" in screen, screen
    p.send_signal(signal.SIGINT)
    screen += read_tty(master)
    out, _ = p.communicate(timeout=300)
    os.close(master)
    assert p.returncode == 130, screen[-2000:]
    assert "\rtorchdoctor: interrupted after " in screen and " of 64.0 MB (" in screen
    assert "what was found so far" in screen and "Traceback" not in screen
    assert b"Torch not compiled with CUDA" in out and b"[torch-not-compiled-with-cuda" in out


@posix_only
@pytest.mark.parametrize("how", ["stdin", "fifo"])
def test_ctrl_c_on_a_slow_pipe_prints_what_was_found_so_far(tmp_path, how):
    # More than explain reads at once (1 MiB), so it streams; then the writer stalls.
    head = ERROR + FILLER * (3 * 1024 * 1024 // len(FILLER))
    if how == "stdin":
        r, w = os.pipe()
        p, _ = start_child(["explain", "--no-env", "--json", "-"], PG.PROGRESS_MIN_BYTES, 0, stdin=r, tty=False)
        os.close(r)
    else:
        fifo = tmp_path / "live.log"
        os.mkfifo(str(fifo))
        p, _ = start_child(["explain", "--no-env", "--json", "--file", str(fifo)], PG.PROGRESS_MIN_BYTES, 0,
                           tty=False)
        w = os.open(str(fifo), os.O_WRONLY)  # blocks until the child opens it
    with os.fdopen(w, "wb") as writer:
        # The write returns once the child has taken all but a pipe buffer (64 KiB)
        # of it; it scans each MiB before reading the next, so the error is matched.
        writer.write(head)
        writer.flush()
        time.sleep(0.5)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=300)
    assert p.returncode == 130, err[-2000:]
    assert err.startswith(b"torchdoctor: interrupted after "), err[-2000:]
    assert b"Traceback" not in err
    matches = json.loads(out)["matches"]
    assert [m["id"] for m in matches] == [ERROR_ID] and matches[0]["line"] == 1
