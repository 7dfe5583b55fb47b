"""`torchdoctor run` is never the second thing that breaks: real programs (seq, sh, python)
with a reader far slower than they write, a background grandchild that writes late, the
doctor SIGKILLed, a Ctrl-C in a shell loop, inherited descriptors, closed streams, a stop
and continue, a downstream reader that leaves, an exit status above 128 that is no signal."""

import os
import pty
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time

import pytest

TD = [sys.executable, "-m", "torchdoctor", "run"]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("bash") is None,
                                reason="reads /proc, runs bash: Linux")

# Reads 4 KiB every 25 ms (about 160 KB/s, hundreds of times slower than seq writes),
# then says how many bytes it got and their last line.
SLOW_READER = r"""
import os, sys, time
got = bytearray()
while True:
    b = os.read(0, 4096)
    if not b:
        break
    got += b
    time.sleep(0.025)
sys.stdout.write("%d %s" % (len(got), bytes(got[-7:]).decode()))
"""


def _state(pid):
    """The process's state letter (R, S, T, Z...), None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            return fh.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def _alive(pid):
    return _state(pid) not in (None, "Z", "X")


def _wait_for(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.05)
    return pred()


def _reap(p, sig=signal.SIGKILL):
    if p.poll() is None:
        try:
            os.killpg(p.pid, sig)
        except OSError:
            p.kill()
        p.wait(timeout=30)


def test_a_reader_far_slower_than_the_program_gets_every_byte():
    direct = subprocess.run(["seq", "1", "100000"], capture_output=True, timeout=30).stdout
    assert len(direct) == 588895
    doctor = subprocess.Popen(TD + ["--", "seq", "1", "100000"], stdout=subprocess.PIPE, stdin=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    reader = subprocess.run([sys.executable, "-c", SLOW_READER], stdin=doctor.stdout, capture_output=True,
                            timeout=60)
    doctor.stdout.close()
    err = doctor.stderr.read()
    assert doctor.wait(timeout=30) == 0, err
    assert reader.stdout.decode() == "%d %s" % (len(direct), direct[-7:].decode())
    assert err == b""


def test_a_background_grandchild_that_writes_late_is_read_to_the_end():
    r = subprocess.run(TD + ["--", "sh", "-c", "(sleep 1; echo late) & echo early"], capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert (r.returncode, r.stdout, r.stderr) == (0, b"early\nlate\n", b"")


@pytest.mark.skipif(shutil.which("setsid") is None, reason="needs setsid(1)")
def test_output_held_after_the_exit_is_waited_for_with_a_note_and_a_signal_ends_the_wait():
    # the sleeper leaves the program's process group (so a forwarded signal misses it) but keeps its stdout
    doctor = subprocess.Popen(TD + ["--", "sh", "-c", "setsid sleep 30 & echo $!"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    sleeper = int(doctor.stdout.readline())
    try:
        note = doctor.stderr.readline()
        assert note.startswith(b"torchdoctor: sh -c 'setsid sleep 30 & echo $!' exited with status 0, but a "
                               b"process it started still holds its output open"), note
        assert doctor.poll() is None and _alive(sleeper)
        doctor.send_signal(signal.SIGTERM)
        assert doctor.wait(timeout=10) == 0  # the program's status
    finally:
        _reap(doctor)
        if _alive(sleeper):
            os.kill(sleeper, signal.SIGKILL)


def test_signals_pass_while_the_reader_stops_reading_and_a_second_one_ends_the_wait():
    r, w = os.pipe()  # read by nobody: the doctor blocks writing to it
    prog = "import sys; sys.stdout.buffer.write(b'x' * (3 << 20))"
    doctor = subprocess.Popen(TD + ["--", sys.executable, "-c", prog], stdout=w, stderr=subprocess.PIPE,
                              stdin=subprocess.DEVNULL)
    os.close(w)
    try:
        time.sleep(1.5)
        doctor.send_signal(signal.SIGTERM)  # passed on at once: the program ends
        time.sleep(0.5)
        assert doctor.poll() is None  # its output is still being passed on
        doctor.send_signal(signal.SIGTERM)  # the program is gone: this one ends the wait
        assert doctor.wait(timeout=10) == -signal.SIGTERM
    finally:
        _reap(doctor)
        os.close(r)


PROGRAM_WITH_A_CHILD = r"""
import os, subprocess, sys, time
kid = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(os.getpid(), kid.pid, flush=True)
time.sleep(60)
"""


def test_a_killed_doctor_leaves_no_program_running():
    doctor = subprocess.Popen(TD + ["--", sys.executable, "-c", PROGRAM_WITH_A_CHILD], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    pids = []
    try:
        pids = [int(x) for x in doctor.stdout.readline().split()]
        assert len(pids) == 2 and all(_alive(p) for p in pids)
        doctor.send_signal(signal.SIGKILL)
        doctor.wait(timeout=30)
        assert _wait_for(lambda: not any(_alive(p) for p in pids), 10), [(p, _state(p)) for p in pids]
    finally:
        _reap(doctor)
        for p in pids:
            if _alive(p):
                os.kill(p, signal.SIGKILL)


def test_ctrl_c_in_a_shell_loop_stops_the_loop():
    """As a terminal's Ctrl-C does: SIGINT to the whole foreground group (here, a bash
    running a loop, the doctor and, forwarded, the program). bash ends the loop only when
    its child died of SIGINT, not when it exited with status 130."""
    prog = "print('go', flush=True); import time; time.sleep(10)"
    loop = "for i in 1 2; do %s -- %s -c \"%s\"; echo \"after $i\"; done" % (
        " ".join(TD), sys.executable, prog)
    sh = subprocess.Popen(["bash", "-c", loop], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        assert sh.stdout.readline() == b"go\n"
        os.killpg(sh.pid, signal.SIGINT)
        out = sh.stdout.read()  # (communicate() would miss what readline() buffered)
        err = sh.stderr.read()
        sh.wait(timeout=30)
    finally:
        _reap(sh)
    assert sh.returncode == -signal.SIGINT, (out, err)
    assert b"after" not in out and b"go" not in out
    assert b"killed by SIGINT" in err  # the doctor still said what happened, before it went


def test_the_doctor_dies_of_the_signal_that_ended_the_program_after_its_diagnosis():
    r = subprocess.run(TD + ["--", sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGTERM)"],
                       capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == -signal.SIGTERM
    assert b"was killed by SIGTERM (exit status 143)" in r.stderr and b"The program was stopped by SIGTERM" in r.stderr


def _in_bash(script, argv):
    """argv run by bash as `"$@"` inside `script` (which adds redirections)."""
    return subprocess.run(["bash", "-c", script, "bash"] + list(argv), stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=60)


def test_inherited_descriptors_reach_the_program_and_the_doctors_own_do_not(tmp_path):
    listing = tmp_path / "fds"
    code = ("import os; os.write(3, b'x'); "
            "open(%r, 'w').write(' '.join(sorted(os.listdir('/proc/self/fd'), key=int)))" % str(listing))
    three = tmp_path / "three"
    r = _in_bash("\"$@\" 3>%s" % three, TD + ["--", sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr
    assert three.read_bytes() == b"x"
    # 0-2, the inherited 3, and the file and directory the program opened (4, 5): no pipe,
    # pty or file of the doctor
    assert listing.read_text() == "0 1 2 3 4 5"
    # a descriptor the doctor writes its --json to is its own
    js = tmp_path / "d.json"
    r = _in_bash('"$@" 3>%s' % js, TD + ["--json", "3", "--", sys.executable, "-c", "import os; os.write(3, b'x')"])
    assert r.returncode == 1 and b"Bad file descriptor" in r.stderr
    assert js.read_text().startswith("{")


@pytest.mark.parametrize("redirect, code", [
    ("1>&-", "import os; os.write(1, b'x')"),
    ("2>&-", "import os; os.write(2, b'x')"),
    ("1>&- 2>&-", "import os; os.write(1, b'x')"),
    ("0<&-", "import os; os.read(0, 1)"),
])
def test_a_closed_stream_is_closed_for_the_program_too(redirect, code):
    cmd = [sys.executable, "-c", code]
    direct = _in_bash('"$@" %s' % redirect, cmd)
    doctor = _in_bash('"$@" %s' % redirect, TD + ["--"] + cmd)
    assert direct.returncode == 1
    assert doctor.returncode == direct.returncode, doctor.stderr


def test_a_stopped_and_continued_program_does_not_stop_the_doctor():
    prog = ("import os, time\nprint(os.getpid(), flush=True)\n"
            "for i in range(20):\n    print(i, flush=True); time.sleep(0.05)\n")
    doctor = subprocess.Popen(TD + ["--", sys.executable, "-c", prog], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
    try:
        pid = int(doctor.stdout.readline())
        os.kill(pid, signal.SIGSTOP)
        assert _wait_for(lambda: _state(pid) == "T", 5)
        time.sleep(0.5)
        assert _state(doctor.pid) != "T"
        os.kill(pid, signal.SIGCONT)
        out = doctor.stdout.read()  # (communicate() would miss what readline() buffered)
        err = doctor.stderr.read()
        doctor.wait(timeout=30)
    finally:
        if doctor.poll() is None:
            os.kill(doctor.pid, signal.SIGCONT)
        _reap(doctor)
    assert doctor.returncode == 0 and out == b"".join(b"%d\n" % i for i in range(20)), err


class _Shell:
    """An interactive bash on a pty of its own (its controlling terminal): job control as
    a user at a terminal has it."""

    def __init__(self):
        self.pid, self.master = pty.fork()
        if self.pid == 0:
            env = dict(os.environ, PS1="PROMPT> ", TERM="dumb")
            os.execve("/bin/bash", ["bash", "--norc", "--noprofile", "-i"], env)
        self.seen = b""
        self.pos = 0

    def until(self, pattern, timeout=30):
        """Read the terminal until `pattern` (a regular expression) shows after the last
        match; its match."""
        find = re.compile(pattern).search
        end = time.monotonic() + timeout
        while not find(self.seen, self.pos) and time.monotonic() < end:
            if select.select([self.master], [], [], 0.2)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                self.seen += chunk
        found = find(self.seen, self.pos)
        assert found, self.seen[-2000:]
        self.pos = found.end()
        return found

    def type(self, text):
        os.write(self.master, text)

    def close(self):
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except OSError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.master)


def test_on_a_terminal_ctrl_z_stops_the_job_and_someone_elses_sigstop_does_not():
    # 'P' 'ID' and 'GO' 'T': what the program prints is not what the terminal echoes of the command
    prog = ("import os, sys\nprint('P' + 'ID', os.getpid(), flush=True)\n"
            "for line in sys.stdin:\n    print('GO' + 'T', line.strip(), flush=True)\n"
            "    if line.strip() == 'end': break\n")
    sh = _Shell()
    doctor = child = None
    try:
        sh.until(b"PROMPT> ")
        sh.type(("%s -- %s -c %s\n" % (" ".join(TD), sys.executable, shlex.quote(prog))).encode())
        child = int(sh.until(rb"PID (\d+)\s").group(1))
        doctor = int(open("/proc/%d/stat" % child).read().rsplit(")", 1)[1].split()[1])
        # someone else's SIGSTOP, then SIGCONT: the doctor runs on, the program reads the terminal again
        os.kill(child, signal.SIGSTOP)
        assert _wait_for(lambda: _state(child) == "T", 5)
        time.sleep(0.3)
        assert _state(doctor) != "T"
        os.kill(child, signal.SIGCONT)
        sh.type(b"one\n")
        sh.until(b"GOT one")
        # Ctrl-Z: the shell sees the job stopped, doctor and program; `fg` continues both
        sh.type(b"\x1a")
        sh.until(b"Stopped")
        assert _state(doctor) == "T" and _state(child) == "T"
        sh.until(b"PROMPT> ")
        sh.type(b"fg\n")
        assert _wait_for(lambda: _state(child) not in ("T", None), 10)
        sh.type(b"end\n")
        sh.until(b"GOT end")
        sh.type(b"echo status=$?\n")
        sh.until(b"status=0")
    finally:
        for pid in (child, doctor):
            if pid and _alive(pid):
                os.kill(pid, signal.SIGKILL)
        sh.close()


def test_a_reader_that_leaves_gets_no_sigpipe_note():
    p = subprocess.Popen(TD + ["--", "yes"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         stdin=subprocess.DEVNULL)
    assert p.stdout.readline() == b"y\n"
    p.stdout.close()
    err = p.stderr.read()
    p.wait(timeout=60)
    assert p.returncode == -signal.SIGPIPE and err == b""


def test_an_exit_status_above_128_is_not_a_signal_unless_one_was_reported():
    r = subprocess.run(TD + ["--", sys.executable, "-c", "import sys; sys.exit(139)"], capture_output=True,
                       stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 139
    assert b"SIGSEGV" not in r.stderr and b"exited with status 139" in r.stderr
    # a shell that says its child died of a signal, then exits 128 + N: explained
    crash = "%s -c 'import os, signal; os.kill(os.getpid(), signal.SIGSEGV)'; exit $?" % sys.executable
    r = subprocess.run(TD + ["--", "sh", "-c", crash], capture_output=True, stdin=subprocess.DEVNULL, timeout=60)
    assert r.returncode == 139
    assert b"A process it ran was killed by SIGSEGV" in r.stderr


def test_output_is_byte_exact_binary_invalid_utf8_progress_bars_and_50_mb():
    code = ("import os, sys\nw = sys.stdout.buffer.write\n"
            "w(bytes(range(256)) * 4 + b'\\xff\\xfe\\xc3(\\xed\\xa0\\x80')\n"
            "for i in range(100):\n    w(b'\\r%3d%%' % i)\n"
            "block = bytes(range(256)) * 4096\n"
            "for i in range(50):\n    w(block)\n")
    direct = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60).stdout
    r = subprocess.run(TD + ["--", sys.executable, "-c", code], capture_output=True, stdin=subprocess.DEVNULL,
                       timeout=120)
    assert r.returncode == 0 and r.stderr == b""
    assert len(direct) > 50 * 1024 * 1024 and r.stdout == direct


def _prog(code):
    return "%s -c %s" % (sys.executable, shlex.quote(code))


def test_in_a_pipeline_the_reader_keeps_the_terminal_and_the_job_runs_on():
    # `run -- x | less`: less reads keys from the terminal while x writes. Were the terminal
    # handed to x's group, less would be stopped (SIGTTIN) and the whole job with it.
    program = _prog("import time\nprint('x', flush=True)\ntime.sleep(3)\nprint('done')\n")
    reader = _prog("import sys, time\ntime.sleep(1)\nkey = open('/dev/tty').readline().strip()\n"
                   "print('K' + 'EY', key, flush=True)\nprint('RE' + 'AD', len(sys.stdin.read()), flush=True)\n")
    sh = _Shell()
    try:
        sh.until(b"PROMPT> ")
        sh.type(("%s -- %s | %s\n" % (" ".join(TD), program, reader)).encode())
        time.sleep(1.8)
        sh.type(b"k\n")
        sh.until(rb"KEY k")
        sh.until(rb"READ 7")
        assert b"Stopped" not in sh.seen
        sh.type(b"echo status=$?\n")
        sh.until(b"status=0")
    finally:
        sh.close()


def test_in_a_pipeline_a_program_that_reads_the_terminal_gets_it():
    program = _prog("print('Q' + '1', flush=True)\nline = open('/dev/tty').readline()\n"
                    "print('GO' + 'T', line.strip(), flush=True)\n")
    sh = _Shell()
    try:
        sh.until(b"PROMPT> ")
        sh.type(("%s -- %s | cat\n" % (" ".join(TD), program)).encode())
        sh.until(b"Q1")
        time.sleep(0.5)
        sh.type(b"z\n")
        sh.until(rb"GOT z")
        assert b"Stopped" not in sh.seen
        sh.type(b"echo status=$?\n")
        sh.until(b"status=0")
    finally:
        sh.close()
