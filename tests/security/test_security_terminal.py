"""Terminal escape injection (#16 part 1): a report, paste or log from a stranger cannot
drive the maintainer's terminal through any verb, in text or Markdown.

Real runs of `python -m torchdoctor` on files built in tmp: every vector of
hostile.VECTORS (OSC 0/52/8, CSI, ESC c, ESC ( 0, ESC 7/8, ESC # 8, 8-bit C1 CSI/OSC/DCS,
backspace, CR, DEL, bidi overrides and isolates, zero-width and tag characters) in every
string of the report, and in the names of env vars and packages.
"""

import json
import re

import pytest

import hostile
from hostile import (PAYLOAD, PAYLOAD_SHORT, PAYLOAD_TEXT, VECTORS, assert_no_raw, evil_report, good_report,
                     no_traceback, run, run_tty, write_json)

from torchdoctor.render.style import COLORS


def _evil(tmp_path, payload=PAYLOAD, where="append", name="evil.json"):
    return write_json(tmp_path / name, evil_report(payload, where))


def _evil_md(tmp_path, payload=PAYLOAD_SHORT):
    from torchdoctor.diagnose import diagnose
    from torchdoctor.model.facts import Facts
    from torchdoctor.render.markdown import render_markdown
    p = tmp_path / "evil.md"
    p.write_text(render_markdown(diagnose(Facts(evil_report(payload)["facts"]))), encoding="utf-8")
    return str(p)


def _clean(p, codes=(0, 1)):
    no_traceback(p)
    assert p.returncode in codes, (p.returncode, p.stderr[-2000:])
    assert_no_raw(p.stdout, "stdout")
    assert_no_raw(p.stderr, "stderr")
    return p.stdout.decode("utf-8")


@pytest.mark.parametrize("vector", sorted(VECTORS))
def test_check_from_each_vector(tmp_path, vector):
    out = _clean(run("check", "--from", _evil(tmp_path, VECTORS[vector])))
    assert "Findings" in out or "No problems" in out
    # the attempt is visible, not silently dropped
    assert re.search(r"\\(?:x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8}|r)", out)


@pytest.mark.parametrize("where", ["append", "prepend", "replace"])
def test_check_from_every_field(tmp_path, where):
    out = _clean(run("check", "--from", _evil(tmp_path, where=where)))
    if where == "append":
        assert "\\x1b]0;pwned\\x07" in out  # the torch version line shows what was tried


def test_check_from_markdown_report(tmp_path):
    path = _evil_md(tmp_path)
    assert "torchdoctor:facts" in open(path, encoding="utf-8").read()
    out = _clean(run("check", "--from", path))
    assert "\\x1b]0;t\\x07" in out


OWN_SGR = re.compile(r"\x1b\[(?:%s)m" % "|".join(re.escape(c) for c in set(COLORS.values()) | {"0"}))


def _clean_tty(rc, out, err, codes=(0, 1)):
    assert rc in codes, (rc, err[-2000:])
    assert b"Traceback" not in err, err[-3000:]
    assert OWN_SGR.search(out), "a terminal gets colour"
    assert_no_raw(OWN_SGR.sub("", out), "terminal output, less torchdoctor's own colour codes")
    assert_no_raw(err, "stderr")
    return out


@pytest.mark.parametrize("verb", ["check --from", "triage", "diff", "explain"])
def test_on_a_real_terminal(tmp_path, verb):
    """On a terminal click strips nothing and colour is on: the maintainer's real case."""
    evil = _evil(tmp_path)
    args = {"check --from": ["check", "--from", evil], "triage": ["triage", evil],
            "diff": ["diff", evil, good_report(tmp_path)],
            "explain": ["explain", "--no-env", "RuntimeError: Torch not compiled with CUDA enabled" + PAYLOAD_TEXT]}
    rc, out, err = run_tty(*args[verb])
    if verb == "diff":  # plain text: no colour to tell apart
        assert rc == 1 and b"Traceback" not in err
        assert_no_raw(out, "terminal output")
    else:
        _clean_tty(rc, out, err)


def test_forced_colour_on_a_pipe_adds_only_its_own_codes(tmp_path):
    p = run("check", "--from", _evil(tmp_path), "--color")
    no_traceback(p)
    out = p.stdout.decode("utf-8")
    assert OWN_SGR.search(out), "--color colours a pipe too"
    assert_no_raw(OWN_SGR.sub("", out), "coloured stdout without torchdoctor's own SGR codes")


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_triage_report(tmp_path, fmt):
    path = _evil(tmp_path) if fmt == "json" else _evil_md(tmp_path)
    out = _clean(run("triage", path))
    assert "Triage of" in out


def test_triage_collect_env_paste_and_error_text(tmp_path):
    paste = ("PyTorch version: 2.4.1+cu124%s\nIs debug build: False\nCUDA used to build PyTorch: 12.4%s\n"
             "OS: Ubuntu 22.04%s\nPython version: 3.11%s\nIs CUDA available: False\n"
             "Versions of relevant libraries:\n[pip3] numpy%s==1.26\n[pip3] torch==2.4.1\n"
             "RuntimeError: CUDA error: no kernel image is available for execution on the device%s\n"
             % ((PAYLOAD_SHORT,) * 6))
    p = tmp_path / "paste.txt"
    p.write_text(paste, encoding="utf-8")
    out = _clean(run("triage", str(p)))
    assert "collect_env" in out
    out = _clean(run("triage", "-", stdin=("RuntimeError: Torch not compiled with CUDA enabled" + PAYLOAD_TEXT).encode()))
    assert "Known errors in the paste" in out


@pytest.mark.parametrize("order", ["evil first", "evil second", "--all"])
def test_diff(tmp_path, order):
    evil, good = _evil(tmp_path), good_report(tmp_path)
    args = {"evil first": [evil, good], "evil second": [good, evil], "--all": [evil, good, "--all"]}[order]
    out = _clean(run("diff", *args), codes=(1,))
    assert "difference(s)" in out


def test_diff_of_file_names_with_escapes(tmp_path):
    """The names a maintainer types are echoed too; a file called ESC]0;x BEL cannot retitle the window."""
    good = good_report(tmp_path)
    odd = tmp_path / ("r\x1b]0;t\x07\u202e.json")
    odd.write_text(open(good).read())
    _clean(run("diff", str(odd), good), codes=(0,))


def test_json_output_stays_exact(tmp_path):
    """JSON is escaped by the format: the values come back exactly as the report had them."""
    doc = evil_report()
    path = write_json(tmp_path / "e.json", doc)
    for args in (["check", "--from", path, "--json"], ["triage", path, "--json"]):
        p = run(*args)
        no_traceback(p)
        assert_no_raw(p.stdout)
        back = json.loads(p.stdout)["facts"]
        assert back["torch"]["version"] == doc["facts"]["torch"]["version"]
        assert back["env"] == doc["facts"]["env"]


@pytest.mark.parametrize("how", ["argument", "--file", "stdin"])
def test_explain_matched_line(tmp_path, how):
    """The 'matched line' echo: explain strips 7-bit CSI/OSC to match, and every other
    control (ESC c, ESC ( 0, ESC 7/8, ESC # 8, C1, BS, DEL, bidi) is shown escaped."""
    # first what the old 7-bit CSI/OSC stripping let through (the echo shows 300 characters)
    line = ("RuntimeError: Torch not compiled with CUDA enabled \x1bc\x1b(0\x1b7\x1b8\x1b#8\x9b2J\x9d0;t\x9c"
            "\x08\x7f\u202e " + PAYLOAD_TEXT)
    if how == "argument":
        p = run("explain", "--no-env", line)
    elif how == "--file":
        f = tmp_path / "log.txt"
        f.write_text("epoch 1\n" + line + "\n", encoding="utf-8")
        p = run("explain", "--no-env", "--file", str(f))
    else:
        p = run("explain", "--no-env", "-", stdin=line.encode("utf-8"))
    out = _clean(p, codes=(0,))
    assert "matched line" in out
    assert "\\x1bc" in out and "\\x9b2J" in out and "\\u202e" in out


def test_explain_big_log_stream(tmp_path):
    """A log past explain's small-input size goes through the stream scanner: same rule."""
    f = tmp_path / "big.log"
    f.write_bytes((b"noise line\n" * 200000) + ("CUDA error: out of memory" + PAYLOAD + "\n").encode("utf-8"))
    out = _clean(run("explain", "--no-env", "--all", "--file", str(f)), codes=(0, 1))
    assert "matched line" in out


@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_report_of_an_environment_with_escapes(tmp_path, fmt):
    """The reporter's own env vars reach `report`; what it prints is safe too (JSON is exact)."""
    p = run("report", "--format", fmt, "--python", "/bin/false", "--timeout", "10",
            env={"PYTORCH_CUDA_ALLOC_CONF": "bogus\x1b]52;c;eA==\x07:1", "CUDA_VISIBLE_DEVICES": "0\x9b2J\u202e"})
    out = _clean(p, codes=(0,))
    assert "\\x1b]52;c;eA==\\x07" in out or "\\\\x1b]52;c;eA==\\\\x07" in out


def test_report_json_keeps_the_value_exactly(tmp_path):
    value = "bogus\x1b]52;c;eA==\x07:1"
    p = run("report", "--format", "json", "--python", "/bin/false", "--timeout", "10",
            env={"PYTORCH_CUDA_ALLOC_CONF": value})
    no_traceback(p)
    assert_no_raw(p.stdout)
    assert json.loads(p.stdout)["facts"]["env"]["PYTORCH_CUDA_ALLOC_CONF"] == value


def test_error_messages_on_stderr(tmp_path):
    """An input error names the file; its name and anything quoted from it are escaped."""
    bad = tmp_path / "x\x1b]0;t\x07.json"
    bad.write_text('{"schema_version": "\x1b[2J", "facts": {}}')
    p = run("check", "--from", str(bad))
    assert p.returncode == 2
    assert_no_raw(p.stderr, "stderr")
    assert p.stderr.decode().startswith("torchdoctor: error: ")


def test_the_payload_covers_every_terminal_and_bidi_vector():
    for ch in ("\x1b]0;", "\x1b]52;", "\x1b[2J", "\x1bc", "\x1b(0", "\x1b7", "\x1b8", "\x1b#8", "\x9b", "\x9d",
               "\x9c", "\x08", "\x7f", "\u202a", "\u202e", "\u2066", "\u2069", "\u200b"):
        assert ch in PAYLOAD, ch
    assert hostile.raw_controls(PAYLOAD)
