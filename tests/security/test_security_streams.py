"""A standard output that fails (#16 part 3), for real, through every verb: a full disk
(/dev/full), a closed descriptor (`1>&-`), a reader that left (a pipe whose read end is
closed), an encoding that lacks characters. A failed write is one line on stderr and
exit 2; a reader that left is a silent exit 0; an unencodable character is a visible
escape and one note. Never a traceback, never exit 1 ("findings")."""

import codecs
import os
import subprocess
import sys

import pytest

from conftest import has_torch
from hostile import ROOT, good_report

ERROR_FULL = b"torchdoctor: error: cannot write to standard output: No space left on device"
ERROR_CLOSED = b"torchdoctor: error: cannot write to standard output: it is closed"
FAST_PROBE = ["--python", "/bin/false", "--timeout", "10"]  # stdout handling does not need torch


def verbs(tmp):
    good = good_report(tmp)
    log = os.path.join(str(tmp), "log.txt")
    with open(log, "w") as fh:
        fh.write("RuntimeError: Torch not compiled with CUDA enabled\n")
    tune = os.path.join(str(tmp), "tune.json")
    with open(tune, "w") as fh:
        fh.write(_tune_json())
    return {
        "check": ["check"] + FAST_PROBE,
        "check --json": ["check", "--json"] + FAST_PROBE,
        "check --from": ["check", "--from", good],
        "check --list-checks": ["check", "--list-checks"],
        "explain": ["explain", "--no-env", "RuntimeError: Torch not compiled with CUDA enabled"],
        "explain --file --json": ["explain", "--no-env", "--json", "--file", log],
        "explain --list": ["explain", "--list"],
        "report": ["report"] + FAST_PROBE,
        "report --format json": ["report", "--format", "json"] + FAST_PROBE,
        "report --format text": ["report", "--format", "text"] + FAST_PROBE,
        "triage": ["triage", good],
        "triage --json": ["triage", "--json", good],
        "diff": ["diff", good, good],
        "lint": ["lint", "--torch", "2.5", os.path.join(ROOT, "torchdoctor", "cli")],
        "tune --from": ["tune", "--from", tune],
        "--help": ["--help"],
        "check --help": ["check", "--help"],
        "--version": ["--version"],
        "dist": ["dist", "--nproc-per-node", "1", "--no-collectives", "--join-timeout", "60"],
    }


def _tune_json():
    import json
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "verbs", "tune"))
    from test_verbs_tune_analysis import check, finish, plan, result, setting, times
    from torchdoctor.children.timed import ProcResult
    from torchdoctor.verbs.tune.runner import TuneOptions
    recs = finish([plan(settings=[setting("threads=1", "threads", "threads")]), check("default"), check("threads=1"),
                   times("default", 1e-3), times("threads=1", 5e-4)])
    return json.dumps(result(recs, TuneOptions(), ProcResult(argv=[], returncode=0)))


VERB_NAMES = [
    "check", "check --json", "check --from", "check --list-checks", "explain", "explain --file --json",
    "explain --list", "report", "report --format json", "report --format text", "triage", "triage --json",
    "diff", "lint", "tune --from", "--help", "check --help", "--version", "dist"]


def _env(extra=None):
    e = dict(os.environ, PYTHONPATH=ROOT)
    e.update(extra or {})
    return e


def _run(argv, stdout, env=None, shell_prefix=None):
    if argv[0] == "dist" and not has_torch(sys.executable):
        pytest.skip("dist runs torch.distributed: torch is not importable here")
    cmd = [sys.executable, "-m", "torchdoctor"] + argv
    if shell_prefix:
        cmd = ["sh", "-c", shell_prefix + ' exec "$@"', "sh"] + cmd
    return subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, env=_env(env),
                          cwd=ROOT, timeout=300)


def _one_error_line(stderr, line):
    assert b"Traceback" not in stderr, stderr[-3000:]
    errors = [ln for ln in stderr.splitlines() if ln.startswith(b"torchdoctor: error:")]
    assert errors == [line], stderr[-2000:]


@pytest.fixture(scope="module")
def verb_args(tmp_path_factory):
    args = verbs(tmp_path_factory.mktemp("verbs"))
    assert sorted(args) == sorted(VERB_NAMES)
    return args


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("verb", VERB_NAMES)
def test_full_disk(verb_args, verb, unbuffered):
    with open("/dev/full", "w") as full:
        p = _run(verb_args[verb], full, env={"PYTHONUNBUFFERED": unbuffered})
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    _one_error_line(p.stderr, ERROR_FULL)


@pytest.mark.parametrize("verb", VERB_NAMES)
def test_closed_stdout(verb_args, verb):
    p = _run(verb_args[verb], None, shell_prefix="exec 1>&-;")
    assert p.returncode == 2, (p.returncode, p.stderr[-2000:])
    _one_error_line(p.stderr, ERROR_CLOSED)


@pytest.mark.parametrize("verb", VERB_NAMES)
def test_reader_that_left(verb_args, verb):
    r, w = os.pipe()
    os.close(r)  # every write gets EPIPE, as when `| head -1` has exited
    try:
        p = _run(verb_args[verb], w)
    finally:
        os.close(w)
    assert p.returncode == 0, (p.returncode, p.stderr[-2000:])
    assert b"Traceback" not in p.stderr and b"Exception ignored" not in p.stderr, p.stderr[-2000:]
    assert b"error" not in p.stderr.lower(), p.stderr[-2000:]


def test_head_reads_one_line_of_a_long_output(verb_args):
    """The shell's own case: the reader takes a line and leaves while we still write."""
    cmd = "%s -m torchdoctor explain --list | head -n 1; echo \"status=${PIPESTATUS[0]}\"" % sys.executable
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, env=_env(), cwd=ROOT, timeout=300)
    assert p.stdout.count(b"\n") == 2 and p.stdout.endswith(b"status=0\n"), p.stdout[-500:]
    assert p.stderr == b"", p.stderr[-2000:]


def test_report_to_a_file_needs_no_stdout(tmp_path):
    out = tmp_path / "r.md"
    p = _run(["report", "-o", str(out)] + FAST_PROBE, None, shell_prefix="exec 1>&-;")
    assert p.returncode == 0, p.stderr[-2000:]
    assert out.read_text().startswith("## torchdoctor report")


def test_full_stdout_and_closed_stderr(verb_args):
    """Nowhere to say it: only the exit code tells."""
    with open(os.devnull if not os.path.exists("/dev/full") else "/dev/full", "w") as full:
        p = _run(verb_args["check --from"], full, shell_prefix="exec 2>&-;")
    assert p.returncode == (2 if os.path.exists("/dev/full") else 0)


@pytest.mark.parametrize("encoding", ["latin-1", "cp1252"])
def test_unencodable_characters_are_escaped_and_said(encoding):
    line = "RuntimeError: Torch not compiled with CUDA enabled \u2192 \u4e2d\u6587 \u2713"
    p = _run(["explain", "--no-env", line], subprocess.PIPE, env={"PYTHONIOENCODING": encoding})
    assert p.returncode == 0, p.stderr[-2000:]
    assert b"\\u4e2d\\u6587" in p.stdout  # visible, not '?'
    notes = [ln for ln in p.stderr.splitlines() if ln.startswith(b"torchdoctor: note: standard output's encoding")]
    assert len(notes) == 1 and codecs.lookup(encoding).name.encode() in notes[0], p.stderr


def test_ascii_output_is_written_as_utf8_by_click():
    """click treats an ASCII stdout as a misconfigured locale and writes UTF-8 to it."""
    line = "RuntimeError: Torch not compiled with CUDA enabled \u4e2d"
    p = _run(["explain", "--no-env", line], subprocess.PIPE, env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0 and b"Traceback" not in p.stderr, p.stderr
    assert "\u4e2d".encode("utf-8") in p.stdout


def test_an_encodable_output_says_nothing():
    p = _run(["explain", "--no-env", "RuntimeError: Torch not compiled with CUDA enabled"], subprocess.PIPE,
             env={"PYTHONIOENCODING": "ascii"})
    assert p.returncode == 0 and b"note: standard output" not in p.stderr, p.stderr
