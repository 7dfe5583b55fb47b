"""What a user names as input or output: pipes and process substitution
(whose size of 0 is not "empty"), standard input as `-`, /dev/zero and other devices,
a FIFO with no writer (a time limit, said), a FIFO whose writer is slow (no limit),
directories, empty names; and `report -o`: `-` is stdout, `""` an error, a symlink or
a non-regular file is refused unless --force, a regular file is replaced atomically.
Real runs of `python -m torchdoctor`, real pipes and FIFOs."""

import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from hostile import ROOT, good_report, no_traceback, run

from torchdoctor import userfiles
from torchdoctor.gather import saved

FAST_PROBE = ["--python", "/bin/false", "--timeout", "10"]
needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes on this system")


def _bash(script, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT, TD="%s -m torchdoctor" % sys.executable)
    return subprocess.run(["bash", "-c", script], capture_output=True, env=env, cwd=ROOT, timeout=timeout)


def _error(p, *words):
    no_traceback(p)
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    err = p.stderr.decode()
    assert err.startswith("torchdoctor: error: ") and err.count("\n") == 1, err
    for w in words:
        assert w in err, err
    return err


# ---------------------------------------------------------- pipes and `-` --
@pytest.mark.parametrize("verb", ["check --from", "triage", "diff", "explain --file"])
def test_process_substitution(tmp_path, verb):
    good = good_report(tmp_path)
    cmd = {"check --from": '$TD check --from <(cat "%s")' % good,
           "triage": '$TD triage <(cat "%s")' % good,
           "diff": '$TD diff <(cat "%s") "%s"' % (good, good),
           "explain --file": '$TD explain --no-env --file <(echo "RuntimeError: Torch not compiled with CUDA enabled")'}
    p = _bash(cmd[verb])
    no_traceback(p)
    assert p.returncode in (0, 1), p.stderr
    assert b"empty" not in p.stderr, p.stderr
    assert {"check --from": b"re-diagnosed from /dev/fd/", "triage": b"Triage of /dev/fd/",
            "diff": b"No differences", "explain --file": b"matched line 1"}[verb] in p.stdout


def test_process_substitution_of_a_slow_writer(tmp_path):
    """A writer that is there but slow (`<(torchdoctor report --format json)`) is waited for."""
    good = good_report(tmp_path)
    p = _bash('$TD check --from <(sleep 3; cat "%s")' % good)
    assert p.returncode in (0, 1) and b"re-diagnosed from" in p.stdout, p.stderr


def test_an_empty_pipe_is_empty(tmp_path):
    _error(_bash("$TD check --from <(true)"), "is empty")


@pytest.mark.parametrize("verb", [["check", "--from", "-"], ["diff", "-", None], ["triage", "-"]])
def test_standard_input_as_dash(tmp_path, verb):
    good = good_report(tmp_path)
    args = [a if a is not None else good for a in verb]
    p = run(*args, stdin=open(good, "rb").read())
    no_traceback(p)
    assert p.returncode in (0, 1), p.stderr
    if verb[0] == "check":
        assert b"re-diagnosed from standard input" in p.stdout


def test_standard_input_that_is_empty():
    _error(run("check", "--from", "-", stdin=b""), "standard input is empty")


# -------------------------------------------------------------- devices --
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("verb", [["check", "--from"], ["triage"], ["diff"], ["explain", "--no-env", "--file"],
                                  ["tune", "--from"]])
@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom", "/dev/null"])
def test_a_device_is_refused(tmp_path, verb, device):
    """/dev/zero never ends (explain --file streams any size), a terminal waits for typing."""
    if not os.path.exists(device):
        pytest.skip("no %s" % device)
    args = verb + [device] + ([good_report(tmp_path)] if verb == ["diff"] else [])
    _error(run(*args, timeout=120), device, "is a device")


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
@pytest.mark.parametrize("verb", ["check --from", "triage", "diff", "tune --from"])
def test_an_endless_pipe_is_read_bounded(tmp_path, verb):
    """`<(cat /dev/zero)`: the first bytes say binary, the read stops, cat gets SIGPIPE."""
    good = good_report(tmp_path)
    cmd = {"check --from": "$TD check --from <(cat /dev/zero)", "triage": "$TD triage <(cat /dev/zero)",
           "diff": '$TD diff <(cat /dev/zero) "%s"' % good, "tune --from": "$TD tune --from <(cat /dev/zero)"}[verb]
    err = _error(_bash(cmd, timeout=120), "/dev/fd/")
    assert "binary" in err or "over" in err, err


def test_a_pipe_of_text_past_the_limit(tmp_path):
    """More than the limit, not binary: 'over N MB', having read only the limit."""
    err = _error(_bash("$TD check --from <(yes '{\"schema_version\": 1,')", timeout=120), "over 64 MB")
    assert "/dev/fd/" in err


def test_a_directory(tmp_path):
    for args in (["check", "--from", str(tmp_path)], ["triage", str(tmp_path)], ["diff", str(tmp_path), str(tmp_path)],
                 ["explain", "--file", str(tmp_path)], ["tune", "--from", str(tmp_path)]):
        _error(run(*args), "is a directory")


@pytest.mark.parametrize("args", [["check", "--from", ""], ["triage", ""], ["diff", "", "x"],
                                  ["explain", "--file", ""], ["tune", "--from", ""]])
def test_an_empty_name(args):
    _error(run(*args), "empty file name")


def test_a_missing_file():
    _error(run("check", "--from", "/nonexistent/report.json"), "no such file")


# ------------------------------------------------------------------ FIFOs --
@needs_fifo
def test_fifo_with_no_writer_says_so_after_the_time_limit(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(str(fifo))
    t0 = time.monotonic()
    err = _error(run("check", "--from", str(fifo), timeout=120), "no writer", "%g s" % userfiles.FIFO_WAIT_S)
    assert time.monotonic() - t0 >= userfiles.FIFO_WAIT_S - 0.5, err


@needs_fifo
@pytest.mark.parametrize("reader", ["open_input", "read_report_bytes", "read_head"])
def test_fifo_with_no_writer_in_process(tmp_path, reader, monkeypatch):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    monkeypatch.setattr(userfiles, "FIFO_WAIT_S", 0.3)
    with pytest.raises(ValueError, match="no writer"):
        {"open_input": lambda: userfiles.open_input(fifo), "read_report_bytes": lambda: userfiles.read_report_bytes(fifo),
         "read_head": lambda: userfiles.read_head(fifo, 100)}[reader]()


def _write_later(path, data, delay, hold=0.0):
    def go():
        time.sleep(delay)
        with open(path, "wb") as fh:  # blocks until the reader has it open
            time.sleep(hold)
            fh.write(data)
    t = threading.Thread(target=go, daemon=True)
    t.start()
    return t


@needs_fifo
def test_fifo_whose_writer_comes_late(tmp_path):
    good = good_report(tmp_path)
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    t = _write_later(fifo, open(good, "rb").read(), delay=1.0)
    p = run("check", "--from", fifo)
    t.join(30)
    assert p.returncode in (0, 1) and b"re-diagnosed from" in p.stdout, p.stderr


@needs_fifo
def test_fifo_whose_writer_is_there_but_slow(tmp_path, monkeypatch):
    """A writer that holds the FIFO open is waited for past the limit: it is still writing."""
    good = good_report(tmp_path)
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    monkeypatch.setattr(userfiles, "FIFO_WAIT_S", 0.5)
    w = os.open(fifo, os.O_RDWR)  # a writer end, there before the reader (O_RDWR does not block)
    try:
        def late():
            time.sleep(1.5)
            os.write(w, open(good, "rb").read())
            os.close(w)
        threading.Thread(target=late, daemon=True).start()
        facts = saved.load_report_facts(fifo)
    finally:
        try:
            os.close(w)
        except OSError:
            pass
    assert facts.value("torch.version") == "2.5.1+cu121"


# --------------------------------------------------------------- report -o --
def _report(tmp_path, *args):
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "report"] + list(args) + FAST_PROBE,
                       capture_output=True, cwd=str(tmp_path), env=dict(os.environ, PYTHONPATH=ROOT), timeout=300)
    no_traceback(p)
    return p


def test_output_dash_is_standard_output(tmp_path):
    p = _report(tmp_path, "-o", "-")
    assert p.returncode == 0 and p.stdout.startswith(b"## torchdoctor report"), p.stderr
    assert not (tmp_path / "-").exists()


def test_output_empty_name_is_an_error_before_the_probe(tmp_path):
    p = _report(tmp_path, "-o", "")
    _error(p, "--output needs a file name")
    assert p.stdout == b""


def test_output_refuses_a_symlink_and_leaves_its_target(tmp_path):
    target = tmp_path / "bashrc"
    target.write_text("keep me\n")
    link = tmp_path / "report.md"
    link.symlink_to(target)
    _error(_report(tmp_path, "-o", str(link)), "symbolic link", "--force")
    assert target.read_text() == "keep me\n" and link.is_symlink()
    p = _report(tmp_path, "-o", str(link), "--force")
    assert p.returncode == 0, p.stderr
    assert not link.is_symlink() and link.read_text().startswith("## torchdoctor report")
    assert target.read_text() == "keep me\n"  # the link was replaced, not followed


def test_output_refuses_a_dangling_symlink(tmp_path):
    link = tmp_path / "r.md"
    link.symlink_to(tmp_path / "not-there" / "x")
    _error(_report(tmp_path, "-o", str(link)), "symbolic link")


@needs_fifo
def test_output_refuses_a_fifo_unless_forced(tmp_path):
    fifo = str(tmp_path / "out.fifo")
    os.mkfifo(fifo)
    _error(_report(tmp_path, "-o", fifo), "not a regular file")
    got = []

    def read():
        with open(fifo, "rb") as fh:
            got.append(fh.read())
    t = threading.Thread(target=read, daemon=True)
    t.start()
    p = _report(tmp_path, "-o", fifo, "--force")
    t.join(60)
    assert p.returncode == 0, p.stderr
    assert got and got[0].startswith(b"## torchdoctor report")
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # still the FIFO, written into


def test_output_refuses_a_device(tmp_path):
    _error(_report(tmp_path, "-o", os.devnull), "not a regular file")


def test_output_replaces_a_regular_file_atomically_keeping_its_mode(tmp_path):
    out = tmp_path / "report.md"
    out.write_text("old\n")
    os.chmod(str(out), 0o640)
    other = tmp_path / "hardlink.md"
    os.link(str(out), str(other))
    p = _report(tmp_path, "-o", str(out))
    assert p.returncode == 0, p.stderr
    assert out.read_text().startswith("## torchdoctor report")
    assert stat.S_IMODE(os.stat(str(out)).st_mode) == 0o640
    assert other.read_text() == "old\n"  # a new file was renamed in: other names keep the old one
    assert sorted(x.name for x in tmp_path.iterdir()) == ["hardlink.md", "report.md"]  # no temp file left


def test_output_new_file_gets_the_umask_mode(tmp_path):
    out = tmp_path / "new.md"
    p = subprocess.run(["sh", "-c", 'umask 027; exec "$@"', "sh", sys.executable, "-m", "torchdoctor", "report",
                        "-o", str(out)] + FAST_PROBE, capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT),
                       timeout=300)
    assert p.returncode == 0, p.stderr
    assert stat.S_IMODE(os.stat(str(out)).st_mode) == 0o640


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes into read-only directories")
def test_output_in_a_read_only_directory(tmp_path):
    d = tmp_path / "ro"
    d.mkdir()
    os.chmod(str(d), 0o500)
    try:
        _error(_report(tmp_path, "-o", str(d / "r.md")), "cannot write")
        assert list(d.iterdir()) == []
    finally:
        os.chmod(str(d), 0o700)


def test_output_in_a_missing_directory_fails_before_the_probe(tmp_path):
    p = subprocess.run([sys.executable, "-m", "torchdoctor", "report", "-o", str(tmp_path / "no" / "r.md")],
                       capture_output=True, env=dict(os.environ, PYTHONPATH=ROOT), timeout=60)
    _error(p, "no such directory")


def test_write_output_cleans_up_when_the_rename_fails(tmp_path, monkeypatch):
    out = tmp_path / "r.md"

    def boom(src, dst):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(ValueError, match="No space left"):
        userfiles.write_output(str(out), "text")
    assert list(tmp_path.iterdir()) == []


# -- the other verbs that write a file: lint -o, tune --report, dist --report -----------
def _linked(tmp_path, name):
    target = tmp_path / "bashrc"
    target.write_text("keep me\n")
    link = tmp_path / name
    link.symlink_to(target)
    return target, link


def test_lint_output_refuses_a_symlink_before_scanning_and_force_replaces_the_link(tmp_path):
    (tmp_path / "train.py").write_text("import torch\ntorch.backends.cuda.matmul.allow_tf32 = True\n")
    target, link = _linked(tmp_path, "lint.json")
    _error(run("lint", str(tmp_path / "train.py"), "--torch", "2.13", "--format", "json", "-o", str(link)),
           "symbolic link", "--force")
    assert target.read_text() == "keep me\n" and link.is_symlink()
    p = run("lint", str(tmp_path / "train.py"), "--torch", "2.13", "--format", "json", "-o", str(link), "--force")
    no_traceback(p)
    assert p.returncode in (0, 1), p.stderr
    assert not link.is_symlink() and link.read_text().lstrip().startswith("{")
    assert target.read_text() == "keep me\n"


def test_tune_report_refuses_a_symlink_before_measuring(tmp_path):
    target, link = _linked(tmp_path, "tune.md")
    _error(run("tune", "--report", str(link), "--list-settings"), "symbolic link", "--force")
    assert target.read_text() == "keep me\n" and link.is_symlink()


def test_dist_report_refuses_a_symlink_before_starting_ranks(tmp_path):
    target, link = _linked(tmp_path, "dist.md")
    _error(run("dist", "--nproc-per-node", "1", "--report", str(link)), "symbolic link", "--force")
    assert target.read_text() == "keep me\n" and link.is_symlink()


def test_dist_report_is_written_atomically_through_write_output(tmp_path):
    from torchdoctor.verbs.dist import render as R
    from torchdoctor.verbs.dist.common import Options
    target, link = _linked(tmp_path, "dist.md")
    job = {"schema_version": 1, "ranks": [], "findings": [], "world_size": 0}
    import io
    code = R.emit(job, Options(report=str(link)), 0, stream=io.StringIO())
    assert code == 2 and target.read_text() == "keep me\n"
