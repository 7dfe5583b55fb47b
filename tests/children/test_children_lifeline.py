"""torchdoctor/children/lifeline.py for real: a "doctor" process (python) starts a program in a
process group of its own under a Lifeline, then dies in various ways; the program's whole
group ends unless the doctor released it, even a group that ignores SIGTERM or is stopped."""

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="process groups")

# argv: kill_after, how the doctor ends (release | exit | kill), the program's shell command
DOCTOR = r"""
import os, signal, subprocess, sys
from torchdoctor.children.lifeline import Lifeline
kill_after, how, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3]
line = Lifeline(kill_after)
line.start()
prog = subprocess.Popen(["sh", "-c", cmd], start_new_session=True)
line.watch(prog.pid)
print(prog.pid, flush=True)
sys.stdin.readline()  # the test says when
if how == "release":
    line.release()
    os._exit(0)
if how == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
os._exit(3)  # gone without a word: a crash
"""


def _group_alive(pgid):
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    # members that are zombies still count for kill(); look at their states
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else []:
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % pid) as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            return True
    return not os.path.isdir("/proc")


def _doctor(how, cmd, kill_after=30.0):
    p = subprocess.Popen([sys.executable, "-c", DOCTOR, repr(kill_after), how, cmd], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE)
    pgid = int(p.stdout.readline())
    time.sleep(0.3)  # the program is up and, where it says so, has set its traps
    return p, pgid


def _gone_within(pgid, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not _group_alive(pgid):
            return True
        time.sleep(0.05)
    return False


def _end(p, pgid):
    p.stdin.close()
    p.wait(timeout=30)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass


def _group_ends(how, cmd, kill_after=30.0, stop_first=False):
    """Whether the program's group is gone within 10 s of the doctor's end."""
    p, pgid = _doctor(how, cmd, kill_after)
    try:
        if stop_first:
            os.killpg(pgid, signal.SIGSTOP)
        p.stdin.write(b"go\n")
        p.stdin.flush()
        p.wait(timeout=30)
        return _gone_within(pgid, 10)
    finally:
        _end(p, pgid)


@pytest.mark.parametrize("how", ["kill", "exit"])
def test_a_doctor_gone_without_releasing_ends_the_whole_group(how):
    assert _group_ends(how, "sleep 60; true")  # a shell and its child (sleep): both


def test_a_released_group_lives_on():
    p, pgid = _doctor("release", "sleep 60; true")
    try:
        p.stdin.write(b"go\n")
        p.stdin.flush()
        p.wait(timeout=30)
        time.sleep(0.5)
        assert _group_alive(pgid)
    finally:
        _end(p, pgid)


def test_a_group_that_ignores_sigterm_is_killed_after_the_grace():
    assert _group_ends("kill", "trap '' TERM; sleep 60; true", kill_after=0.5)


def test_a_stopped_group_is_continued_to_take_its_sigterm():
    # a stopped shell keeps a SIGTERM it handles pending until it is continued
    assert _group_ends("kill", "trap 'exit 0' TERM; sleep 60 & wait", stop_first=True)
