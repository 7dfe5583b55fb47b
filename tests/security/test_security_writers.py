"""Every report file a surface writes (`run --report` and `run --json PATH`, pytest's
`--torchdoctor-report`, IPython's `%torchdoctor report -o`) goes through userfiles.write_output:
a random temporary name in the target's folder, so a link planted at a name it could guess is
never followed; a symbolic link at the target is refused (these have no --force), its target
untouched; a file replaced keeps its mode (a 0600 report stays 0600). Real runs: `torchdoctor
run` exec'd by a shell that planted links at its process id, pytest with a conftest that does,
the IPython extension's own function in this process."""

import os
import stat
import subprocess
import sys
import textwrap

import pytest

from hostile import ROOT, no_traceback

from torchdoctor import userfiles

QUICK_FAIL = [sys.executable, "-c", "import sys; sys.exit(3)"]


def _victim(tmp_path):
    victim = tmp_path / "bashrc"
    victim.write_text("keep me\n")
    return victim


def _td_run_planted(tmp_path, args, planted):
    """`torchdoctor run ARGS` exec'd by a shell that first planted links to the victim at the
    names `planted` holds, with {pid} the process id torchdoctor runs as (exec keeps the shell's)."""
    links = " ".join('ln -s "%s" "%s";' % (tmp_path / "bashrc", p.replace("{pid}", "$$")) for p in planted)
    script = '%s exec "%s" -m torchdoctor run "$@"' % (links, sys.executable)
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run(["sh", "-c", script, "sh"] + list(args), capture_output=True, env=env, cwd=str(tmp_path),
                          timeout=300, stdin=subprocess.DEVNULL)


@pytest.mark.parametrize("option,name", [("--report", "run.md"), ("--json", "run.json")])
def test_run_never_writes_through_a_link_planted_at_its_temporary_name(tmp_path, option, name):
    victim = _victim(tmp_path)
    out = tmp_path / name
    planted = [str(out) + ".tmp-{pid}", str(out) + ".tmp"]
    p = _td_run_planted(tmp_path, [option, str(out), "--"] + QUICK_FAIL, planted)
    no_traceback(p)
    assert p.returncode == 3, p.stderr
    assert victim.read_text() == "keep me\n"
    assert out.is_file() and not out.is_symlink() and out.stat().st_size > 100
    assert not [x for x in os.listdir(str(tmp_path)) if x.startswith("." + name)]  # no temporary file left


@pytest.mark.parametrize("option", ["--report", "--json"])
def test_run_refuses_a_symlink_before_the_program_runs(tmp_path, option):
    victim = _victim(tmp_path)
    link = tmp_path / "out.md"
    link.symlink_to(victim)
    marker = tmp_path / "ran"
    p = _td_run_planted(tmp_path, [option, str(link), "--", sys.executable, "-c", "open(%r, 'w')" % str(marker)], [])
    no_traceback(p)
    assert p.returncode == 2 and not marker.exists()
    err = p.stderr.decode()
    assert err.startswith("torchdoctor: error: ") and "symbolic link" in err and "--force" not in err, err
    assert link.is_symlink() and victim.read_text() == "keep me\n"


def test_run_report_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    out = tmp_path / "run.md"
    out.write_text("old\n")
    os.chmod(str(out), 0o600)
    p = _td_run_planted(tmp_path, ["--report", str(out), "--"] + QUICK_FAIL, [])
    assert p.returncode == 3, p.stderr
    assert out.read_text().startswith("## torchdoctor report")
    assert stat.S_IMODE(out.stat().st_mode) == 0o600


CONFTEST = '''
import os

def pytest_sessionstart(session):
    report = session.config.getoption("torchdoctor_report")
    for name in (report + ".tmp-%d" % os.getpid(), report + ".tmp"):
        os.symlink(VICTIM, name)
'''


def test_pytest_report_never_writes_through_a_planted_link(tmp_path):
    victim = _victim(tmp_path)
    (tmp_path / "test_one.py").write_text("def test_fails():\n    assert False\n")
    (tmp_path / "conftest.py").write_text("VICTIM = %r\n" % str(victim) + textwrap.dedent(CONFTEST))
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--torchdoctor-report", "r.md"], cwd=str(tmp_path), capture_output=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT), stdin=subprocess.DEVNULL)
    assert p.returncode == 1, p.stdout[-3000:]
    assert b"torchdoctor: wrote r.md" in p.stdout
    assert victim.read_text() == "keep me\n"
    assert (tmp_path / "r.md").read_text().startswith("## torchdoctor report")


def test_pytest_report_refuses_a_symlink(tmp_path):
    victim = _victim(tmp_path)
    (tmp_path / "test_one.py").write_text("def test_passes():\n    pass\n")
    (tmp_path / "r.md").symlink_to(victim)
    p = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:randomly",
                        "--torchdoctor-report", "r.md"], cwd=str(tmp_path), capture_output=True, timeout=300,
                       env=dict(os.environ, PYTHONPATH=ROOT), stdin=subprocess.DEVNULL)
    assert p.returncode == 0, p.stdout[-3000:]
    line = [ln for ln in p.stdout.decode().splitlines() if ln.startswith("torchdoctor: could not write r.md")]
    assert line and "symbolic link" in line[0] and "Error" not in line[0], p.stdout[-2000:]
    assert victim.read_text() == "keep me\n" and (tmp_path / "r.md").is_symlink()


def test_ipython_report_output_never_writes_through_a_link(tmp_path):
    from torchdoctor.surfaces import ipython
    victim = _victim(tmp_path)
    out = tmp_path / "nb.md"
    for name in (str(out) + ".tmp-%d" % os.getpid(), str(out) + ".tmp"):
        os.symlink(str(victim), name)
    ipython.report("markdown", str(out), python="/bin/false")
    assert victim.read_text() == "keep me\n"
    assert out.read_text().startswith("## torchdoctor report") and not out.is_symlink()
    os.unlink(str(out))
    out.symlink_to(victim)
    with pytest.raises(ValueError, match="symbolic link"):
        ipython.report("markdown", str(out), python="/bin/false")
    assert victim.read_text() == "keep me\n" and out.is_symlink()


def test_every_writer_of_a_user_named_file_is_write_output():
    """The surfaces' own writer is gone: nothing else in the package opens a user's path for
    writing through a name of its own."""
    offenders = []
    for folder, _, files in os.walk(os.path.join(ROOT, "torchdoctor")):
        for f in files:
            if not f.endswith(".py"):
                continue
            path = os.path.join(folder, f)
            text = open(path, encoding="utf-8").read()
            if ".tmp-%d" in text or '.tmp-" +' in text:
                offenders.append(path)
    assert offenders == []


def test_write_output_into_a_fifo_never_follows_a_link_swapped_in(tmp_path, monkeypatch):
    """--force into a pipe or device opens it without following a link that replaced it since
    the check (the race a planted link would win)."""
    if not hasattr(os, "mkfifo"):
        pytest.skip("no named pipes")
    victim = _victim(tmp_path)
    fifo = tmp_path / "out.fifo"
    os.mkfifo(str(fifo))
    real_check = userfiles.check_output

    def check_then_swap(path, *a, **kw):
        st = real_check(path, *a, **kw)
        os.unlink(path)
        os.symlink(str(victim), path)
        return st
    monkeypatch.setattr(userfiles, "check_output", check_then_swap)
    with pytest.raises(ValueError, match="cannot write"):
        userfiles.write_output(str(fifo), "text", force=True)
    assert victim.read_text() == "keep me\n"
