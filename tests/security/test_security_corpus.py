"""The hostile-report corpus (tests/security/hostile_corpus.py) through every verb that
reads a report — `check --from`, `triage`, `diff` (both sides), in text and JSON — and
through `report`'s renderers in every format, after redaction as `report` does it: a
diagnosis with nothing raw on the screen, or one error line and exit 2; never a
traceback. A fuzz test does the same with hypothesis-made documents and bytes."""

import json
import os

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hostile
from hostile import BASE, PAYLOAD, assert_no_raw, good_report, no_traceback, run
from hostile_corpus import CORPUS, ERROR_WORDS, OK, build

from torchdoctor.cli import cli

FUZZ = settings(max_examples=int(os.environ.get("TORCHDOCTOR_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
# Entries that need a real file descriptor (a FIFO, a device, a 200 MB file): real processes.
REAL = {"200 MB", "FIFO with a writer", "directory", "/dev/zero"}
VERBS = {
    "check --from": lambda p, g: ["check", "--from", p],
    "check --from --json": lambda p, g: ["check", "--from", p, "--json"],
    "triage": lambda p, g: ["triage", p],
    "triage --json": lambda p, g: ["triage", p, "--json"],
    "diff A B": lambda p, g: ["diff", p, g],
    "diff B A --json": lambda p, g: ["diff", g, p, "--json"],
}


def _answer(rc, out, err, expected, what):
    if isinstance(out, str):
        out, err = out.encode("utf-8", "surrogateescape"), err.encode("utf-8", "surrogateescape")
    assert b"Traceback" not in err, (what, err[-3000:])
    assert_no_raw(out, "%s stdout" % what)
    assert_no_raw(err, "%s stderr" % what)
    if expected == OK:
        assert rc in (0, 1), (what, rc, err[-2000:])
        return
    assert rc == 2, (what, rc, out[-500:], err[-2000:])
    lines = err.decode("utf-8", "replace").splitlines()
    assert len(lines) == 1 and lines[0].startswith("torchdoctor: error: "), (what, lines)
    assert any(w in lines[0] for w in ERROR_WORDS), (what, lines)


def _invoke(args):
    r = CliRunner().invoke(cli, args, catch_exceptions=True)
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        raise r.exception
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("verb", sorted(VERBS))
@pytest.mark.parametrize("name", sorted(set(CORPUS) - REAL))
def test_corpus_through_every_reading_verb(tmp_path, name, verb):
    path, expected = build(name, tmp_path)
    good = good_report(tmp_path)
    args = VERBS[verb](path, good)
    if verb.startswith("diff") and expected == OK and name == "escapes, Markdown report":
        pass  # a Markdown report diffs like any other
    rc, out, err = _invoke(args)
    _answer(rc, out, err, expected, "%s: %s" % (name, verb))
    if expected == OK and "--json" in verb:
        json.loads(out)  # JSON output stays JSON


@pytest.mark.parametrize("verb", ["check --from", "triage", "diff A B"])
@pytest.mark.parametrize("name", sorted(REAL))
def test_corpus_entries_that_need_a_real_process(tmp_path, name, verb):
    path, expected = build(name, tmp_path)
    if path is None:
        pytest.skip("not on this system")
    p = run(*VERBS[verb](path, good_report(tmp_path)), timeout=120)
    no_traceback(p)
    _answer(p.returncode, p.stdout, p.stderr, expected, "%s: %s" % (name, verb))


def test_a_real_process_of_the_worst_entry(tmp_path):
    path, _ = build("every control character", tmp_path)
    for args in (["check", "--from", path], ["triage", path], ["diff", path, good_report(tmp_path), "--all"]):
        p = run(*args)
        _answer(p.returncode, p.stdout, p.stderr, OK, " ".join(args[:1]))


@pytest.mark.parametrize("name", sorted(n for n, (_, e) in CORPUS.items() if e == OK and n not in REAL))
def test_report_renderers_in_every_format_after_redaction(tmp_path, name):
    """What `report` does with facts: redact, then Markdown, JSON or text."""
    from torchdoctor.verbs.report import render_report
    from torchdoctor.diagnose import diagnose
    from torchdoctor.redact import redact_report
    from torchdoctor.gather.saved import load_report_facts
    path, _ = build(name, tmp_path)
    rep = redact_report(diagnose(load_report_facts(path)), extra_users=["alice"], extra_hosts=["gpu-node-1"])
    for fmt in ("markdown", "text", "json"):
        out = render_report(rep, fmt)
        assert_no_raw(out, "%s as %s" % (name, fmt))
        if fmt == "json":
            json.loads(out)


def test_the_corpus_holds_every_kind_of_hostile_report():
    names = " ".join(CORPUS)
    for word in ("escapes", "huge numbers", "deep nesting", "wrong types", "NaN", "future", "binary", "200 MB",
                 "FIFO", "directory", "/dev/zero"):
        assert word in names, word


# -------------------------------------------------------------------- fuzz --
leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True),
                 st.text(max_size=20), st.sampled_from(list(hostile.VECTORS.values())))
tree = st.recursive(leaf, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=10) | st.sampled_from(
    sorted(BASE)), c, max_size=4), max_leaves=30)


@st.composite
def documents(draw):
    facts = dict(BASE) if draw(st.booleans()) else {}
    for k in draw(st.lists(st.sampled_from(sorted(BASE) + ["env", "packages", "probe"]), max_size=5)):
        facts[k] = draw(tree)
    doc = {"schema_version": draw(st.sampled_from([1, 1, 1, 2, "1", None])), "facts": facts}
    if draw(st.booleans()):
        doc["findings"] = draw(tree)
    return json.dumps(doc).encode()


@FUZZ
@given(st.one_of(documents(), st.binary(max_size=3000)))
@example(json.dumps(hostile.evil_report(PAYLOAD)).encode())
@example(b'{"schema_version": 1, "facts": {"torch": {"version": NaN}, "env": {"\\u001b]0;x\\u0007": 1e999}}}')
def test_fuzz_the_loader_and_every_renderer(tmp_path_factory, data):
    """The loader raises only ValueError; whatever it loads, every renderer draws without
    an exception and without a raw control character; triage likewise."""
    from test_security_renderers import report_renderings
    from torchdoctor.gather.saved import load_report_facts
    from torchdoctor.verbs.triage import TriageError, render_triage_text, triage_bytes
    from torchdoctor.render.style import Style
    path = tmp_path_factory.mktemp("fuzz") / "r.json"
    path.write_bytes(data)
    try:
        facts = load_report_facts(str(path))
    except ValueError:
        facts = None
    if facts is not None:
        for name, text in report_renderings(facts.to_dict()):
            assert_no_raw(text, name)
    try:
        result = triage_bytes(data, "fuzz")
    except TriageError:
        return
    assert_no_raw(render_triage_text(result, Style(color=False)), "triage text")
    json.dumps(result.to_dict(), default=str)
