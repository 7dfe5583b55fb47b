"""Every text and Markdown renderer, fed data whose every string holds every control
character (all ~2,300 code points of Cc, Cf, Cs, Zl, Zp), writes none of them raw (a
report or a log is someone else's text, shown in someone's terminal); a hypothesis property does the same with random strings and random trees.

Renderers: check text (plain and coloured), Markdown report, `report --format text`,
collect_env view, triage text (JSON report, collect_env paste, error text), diff text,
explain text (tailored with the hostile facts), lint text and GitHub output, tune text,
Markdown, HTML and --list-settings, dist text and Markdown.
"""

import copy
import json
import os
import sys

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import hostile
from hostile import BASE, PAYLOAD, assert_no_raw, every_hidden_char, evil_facts, poison, report_renderings

from torchdoctor.diagnose import diagnose
from torchdoctor.model.facts import Facts
from torchdoctor.render import safe
from torchdoctor.render.style import Style

TESTS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FUZZ = settings(max_examples=int(os.environ.get("TORCHDOCTOR_FUZZ_EXAMPLES", "60")), deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

def _assert_all_clean(renderings):
    for name, text in renderings:
        assert_no_raw(text, name)


# ------------------------------------------------------------ every character --
def test_every_hidden_character_covers_the_known_terminal_and_bidi_tricks():
    chars = set(every_hidden_char())
    for c in "\x00\x07\x08\x0b\x0c\r\x1b\x7f\x9b\x9c\x9d\u202a\u202e\u2066\u2069\u200b\u200e\ufeff\u2028\U000e0041":
        assert c in chars, hex(ord(c))
    assert "\n" in chars and "\t" in chars  # Cc, but kept where the layout needs them
    assert not chars & set(" abc\u00e9\u4e2d\u2713\ufe0f\u00a0")  # letters, our own marks, NBSP stay


def test_visible_escapes_each_and_is_idempotent():
    s = "a" + every_hidden_char() + "\n\tb"
    once = safe.visible(s)
    assert not hostile.raw_controls(once)
    assert safe.visible(once) == once
    assert once.endswith("\n\tb") and "\\x1b" in once and "\\u202e" in once and "\\U000e0041" in once
    assert "\\n" in safe.line("a\nb") and "\\t" in safe.line("a\tb")
    assert safe.visible("plain ascii, \u2713 and \u4e2d stay") == "plain ascii, \u2713 and \u4e2d stay"


@pytest.mark.parametrize("where", ["append", "prepend", "replace"])
def test_every_report_renderer_with_every_character_in_every_string(where):
    payload = every_hidden_char()
    facts = evil_facts(payload, where=where)
    finding = hostile.evil_report(payload)["findings"][0]
    _assert_all_clean(report_renderings(facts, [finding]))


def test_keys_carry_it_too():
    facts = poison(copy.deepcopy(BASE), PAYLOAD, keys=True)
    facts["schema_version"] = 1
    _assert_all_clean(report_renderings(facts))


def test_json_renderings_keep_the_values_exactly():
    from torchdoctor.render.json_out import render_json
    from torchdoctor.render.markdown import render_markdown
    from torchdoctor.gather.saved import facts_from_markdown
    # (without surrogates: JSON reads an escaped high+low pair back as one astral character)
    facts = evil_facts("".join(c for c in every_hidden_char() if not 0xD800 <= ord(c) <= 0xDFFF))
    rep = diagnose(Facts(copy.deepcopy(facts)))
    text = render_json(rep)
    assert_no_raw(text, "json")
    assert json.loads(text)["facts"]["env"] == facts["env"]
    small = evil_facts(hostile.PAYLOAD_SHORT)
    md = render_markdown(diagnose(Facts(copy.deepcopy(small))))
    assert_no_raw(md, "markdown")
    assert facts_from_markdown(md).to_dict()["torch"] == small["torch"]  # the facts block is exact


# ------------------------------------------------------------ lint, tune, dist --
def test_lint_text_and_github(tmp_path):
    from torchdoctor.verbs.lint import output as O

    class F:
        path = str(tmp_path / ("m" + PAYLOAD + ".py"))
        line, col, end_line, end_col, cell, code = 1, 1, 1, 5, None, "TD001"
        message = "torch.cuda.amp.autocast(" + PAYLOAD + ") is deprecated"
        fix, replacement = None, None
    F.code = sorted(__import__("torchdoctor.verbs.lint.rules", fromlist=["x"]).all_codes())[0]
    summary = {"files": 1, "target": "torch 2.5" + PAYLOAD}
    assert_no_raw(O.text([F()], summary, Style(color=False)), "lint text")
    assert_no_raw(O.github([F()], summary), "lint github")


def _tune_result(payload):
    sys.path.insert(0, os.path.join(TESTS, "verbs", "tune"))
    from test_verbs_tune_analysis import check, finish, plan, result, setting, times
    from torchdoctor.children.timed import ProcResult
    from torchdoctor.verbs.tune.runner import TuneOptions
    model = "m:" + payload
    recs = finish([
        plan(workload=model, settings=[setting("threads=1", "threads", "threads", label="threads=1" + payload)]),
        check("default", workload=model), check("threads=1", workload=model),
        times("default", 1e-3, workload=model), times("threads=1", 5e-4, workload=model),
        {"type": "setting_error", "workload": model, "setting": "threads=1", "phase": "check",
         "error": "RuntimeError: " + payload, "t": 4.0}], workload=model)
    return result(recs, TuneOptions(model=model, inputs="m:inputs", tolerance=1e-3), ProcResult(argv=[], returncode=0))


def test_tune_renderers():
    from torchdoctor.verbs.tune.html import render_html
    from torchdoctor.verbs.tune.render import render_list, render_markdown, render_text
    r = _tune_result(PAYLOAD)
    for name, text in (("tune text", render_text(r, Style(color=False))), ("tune markdown", render_markdown(r)),
                       ("tune html", render_html(r)), ("tune list", render_list(r, Style(color=False)))):
        assert_no_raw(text, name)


def test_tune_from_a_poisoned_saved_result(tmp_path):
    """`tune --from RESULT.json` renders a file that may come from someone else."""
    clean = _tune_result("x")
    r = poison(clean, PAYLOAD)
    r["kind"] = clean["kind"]  # what makes it a tune result at all
    path = tmp_path / "r.json"
    path.write_text(json.dumps(r))
    p = hostile.run("tune", "--from", str(path))
    hostile.no_traceback(p)
    assert p.returncode in (0, 1) and b"torchdoctor tune" in p.stdout, p.stderr
    assert_no_raw(p.stdout, "tune --from")
    assert_no_raw(p.stderr, "tune --from stderr")


def test_dist_renderers():
    sys.path.insert(0, os.path.join(TESTS, "verbs", "dist", "conditions"))
    from test_verbs_dist_conditions import _exited, _mismatch
    from torchdoctor.verbs.dist import conditions as C
    from torchdoctor.verbs.dist import render as R
    for job in (_mismatch("env.NCCL_DEBUG", "INFO" + PAYLOAD), _exited()):
        job = poison(job, PAYLOAD)
        job["findings"] = [f.to_dict() for f in C.diagnose(job)]
        for name, text in (("dist text", R.render_text(job, Style(color=False))),
                           ("dist markdown", R.render_markdown(job))):
            assert_no_raw(text, name)


# ------------------------------------------------------------------ property --
hidden = st.sampled_from(sorted(set(every_hidden_char()) - set("\n\t")))
nasty_text = st.lists(st.one_of(hidden, st.characters(), st.sampled_from(list(hostile.VECTORS.values()))),
                      max_size=12).map("".join)


@FUZZ
@given(nasty_text, st.sampled_from(["append", "prepend", "replace"]))
@example(PAYLOAD, "append")
def test_property_any_payload_in_every_field(payload, where):
    facts = evil_facts(payload, where=where)
    _assert_all_clean(report_renderings(facts, [hostile.evil_report(payload)["findings"][0]]))


json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True), nasty_text)
json_tree = st.recursive(json_leaf, lambda c: st.lists(c, max_size=4) | st.dictionaries(nasty_text, c, max_size=4),
                         max_leaves=25)


@FUZZ
@given(st.dictionaries(st.sampled_from(sorted(BASE)), json_tree, max_size=8), nasty_text)
def test_property_random_trees(sections, payload):
    facts = poison(copy.deepcopy(BASE), payload)
    facts.update(sections)
    facts["schema_version"] = 1
    _assert_all_clean(report_renderings(facts))
