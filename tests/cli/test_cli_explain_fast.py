"""explain's click-free fast path (cli/explain_fast.py) against the click command it stands in
for: the same parameters for every command line it accepts, the same bytes and exit codes in a
real process, and no click import when it runs."""

import json
import os
import subprocess
import sys

import pytest
from hypothesis import given, settings, strategies as st

from torchdoctor.cli import explain_fast
from torchdoctor.cli import explain_common as explain_run

TOKENS = ["--file", "-f", "--json", "--all", "--list", "--probe", "--python", "--no-env", "--color",
          "--no-color", "-", "--", "--json=1", "--no-env=", "-fLOG", "-f=LOG", "--file=", "--file=a=b",
          "--python=/usr/bin/python3", "-h", "--help", "--bogus", "-x", "-1", "-jf", "", " ", "word",
          "RuntimeError: CUDA error: no kernel image", "log.txt", "--fil", "--jso", "-- ", "---"]


def click_params(argv):
    """What the click command parses `argv` into, or None where click refuses it."""
    import click

    from torchdoctor.cli.explain import explain
    try:
        ctx = explain.make_context("explain", list(argv), resilient_parsing=False)
    except click.exceptions.Exit:  # --help
        return None
    except click.ClickException:
        return None
    return dict(ctx.params)


@settings(max_examples=600, deadline=None)
@given(st.lists(st.sampled_from(TOKENS), max_size=7))
def test_every_command_line_the_fast_path_takes_parses_as_click_parses_it(argv):
    fast = explain_fast.parse(argv)
    if fast is not None:
        assert click_params(argv) == fast, argv


@pytest.mark.parametrize("argv", [
    ["RuntimeError: CUDA error: no kernel image"],
    ["--json", "some", "words"],
    ["words", "--no-env", "--all", "--color"],
    ["--file", "log.txt"], ["-flog.txt"], ["--file=log.txt", "--no-color"], ["-"],
    ["--python", "/usr/bin/python3", "text"], ["--list", "--json"], ["--", "--json", "-x"],
    ["--probe", "text"], ["--color", "--no-color", "t"], ["--json", "--json", "t"],
])
def test_the_plain_command_lines_take_the_fast_path(argv):
    # the fast path must not quietly decline what users type (that would make it dead code)
    assert explain_fast.parse(argv) == click_params(argv) and explain_fast.parse(argv) is not None


@pytest.mark.parametrize("argv", [["--help"], ["-h", "x"], ["--bogus", "x"], ["--json=1"], ["--file"],
                                  ["--python", "--json", "x"], ["-1"], ["--fil", "x"]])
def test_what_it_is_not_sure_of_goes_to_click(argv):
    assert explain_fast.parse(argv) is None


def test_the_click_command_is_built_from_the_same_option_table():
    from torchdoctor.cli.explain import explain
    assert {p.name for p in explain.params} == set(explain_run.defaults())
    flags = {f for p in explain.params for f in p.opts + p.secondary_opts if f.startswith("-")}
    assert flags == {f for o in explain_run.OPTIONS for f in o[0]}


# -- in real processes ------------------------------------------------------------------------

CHILD = r"""
import json, sys
import torchdoctor.cli as c
from torchdoctor.cli import explain_fast
argv, force_click = json.loads(sys.argv[1]), sys.argv[2] == "click"
if force_click:
    explain_fast.run = lambda args: None  # main() then hands the command line to click
try:
    c.main(["explain"] + argv)
finally:
    sys.stderr.write("\n[click imported: %s]" % ("click" in sys.modules))
"""


def child(argv, how, stdin=b"", env=None):
    e = dict(os.environ, PYTHONIOENCODING="utf-8")
    e.pop("NO_COLOR", None)
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", CHILD, json.dumps(argv), how], input=stdin,
                       capture_output=True, env=e, timeout=120)
    err, _, imported = p.stderr.decode("utf-8", "replace").rpartition("\n[click imported: ")
    return p.returncode, p.stdout, err, imported.rstrip("]")


@pytest.fixture(scope="module")
def log_file(tmp_path_factory):
    p = tmp_path_factory.mktemp("fast") / "train.log"
    p.write_text("step 1\nImportError: numpy.core.multiarray failed to import\nstep 2\n", encoding="utf-8")
    return str(p)


CASES = [
    (["RuntimeError: CUDA error: no kernel image is available for execution on the device"], b""),
    (["--json", "RuntimeError: CUDA error: out of memory. Tried to allocate 2.00 GiB"], b""),
    (["--no-env", "--all", "ImportError: libcudnn.so.8: cannot open shared object file"], b""),
    (["--color", "--no-env", "torch.cuda.OutOfMemoryError: CUDA out of memory."], b""),
    (["cuda-no-kernel-image"], b""),
    (["--json", "cuda-no-kernel-image"], b""),
    (["nothing torch would ever say"], b""),
    (["-"], b"Traceback (most recent call last):\nModuleNotFoundError: No module named 'torch'\n"),
    (["-"], b""),
    (["a", "--file", "x.log"], b""),
    (["--file", "/nonexistent/dir/x.log"], b""),
    (["--list", "--json"], b""),
]


@pytest.mark.parametrize("argv,stdin", CASES, ids=[" ".join(a)[:40] for a, _ in CASES])
def test_fast_and_click_give_the_same_bytes_and_exit_code(argv, stdin):
    fast, slow = child(argv, "fast", stdin), child(argv, "click", stdin)
    assert fast[:3] == slow[:3], argv
    assert (fast[3], slow[3]) == ("False", "True")  # each path was the one taken


def test_a_file_gives_the_same_answer_both_ways(log_file):
    fast, slow = child(["--file", log_file], "fast"), child(["--file", log_file], "click")
    assert fast[:3] == slow[:3] and fast[0] == 0 and b"numpy" in fast[1].lower()


def test_a_plain_explain_never_imports_click():
    rc, out, err, imported = child(["--json", "RuntimeError: CUDA error: no kernel image is available for execution on the device"],
                                 "fast")
    assert rc == 0 and json.loads(out)["matches"] and imported == "False", err


def test_help_and_bad_options_still_come_from_click():
    rc, out, err, imported = child(["--bogus"], "fast")
    assert rc == 2 and "No such option" in err and imported == "True"
    rc, out, err, imported = child(["--help"], "fast")
    assert rc == 0 and b"--no-env" in out and imported == "True"


def test_an_ascii_stdout_goes_to_click_which_rewraps_it():
    # click.echo re-wraps an ASCII stream as UTF-8; the fast path declines there rather than differ
    env = {"PYTHONIOENCODING": "ascii"}
    fast = child(["--no-env", "cuda-no-kernel-image"], "fast", env=env)
    slow = child(["--no-env", "cuda-no-kernel-image"], "click", env=env)
    assert fast[:3] == slow[:3] and fast[3] == "True"


def test_a_full_disk_is_one_line_and_exit_2_on_the_fast_path():
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    with open("/dev/full", "wb") as full:
        p = subprocess.run([sys.executable, "-m", "torchdoctor", "explain", "--no-env", "cuda-no-kernel-image"],
                           stdout=full, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 2 and p.stderr.decode().strip().startswith("torchdoctor: error: cannot write")
    assert b"Traceback" not in p.stderr
