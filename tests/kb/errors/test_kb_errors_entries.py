"""The knowledge base of known errors: shape, provenance, and that every real
example lands on its own entry first."""

import os
import re
import time

import pytest

from regex_shape import repeats
from torchdoctor.match.matcher import match_text
from torchdoctor.kb.errors import _sre_c, load_entries
from torchdoctor.kb.taxonomy import CATEGORIES

ENTRIES = load_entries()
IDS = [e.id for e in ENTRIES]
URL = re.compile(r"^https?://\S+$")
# A file at a tag or commit, with its line where the catalogue knows it (a Python raise site;
# a message found in a compiled library is cited by its source file): what a raise-site
# example points at.
PERMALINK = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/blob/[\w.-]+/[^\s#]+(?:#L\d+|)$")


def test_ids_are_stable_kebab_case():
    for e in ENTRIES:
        assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", e.id), e.id


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_entry_shape_and_sources(entry):
    assert entry.category in CATEGORIES, "unknown category %s" % entry.category
    assert entry.title and entry.cause and entry.fix.get("summary")
    assert isinstance(entry.fix.get("commands", []), list)
    assert entry.sources, "every entry cites where its facts come from"
    assert entry.examples, "every entry carries at least one real example"
    for ex in entry.examples:
        assert ex.get("text", "").strip()
        assert URL.match(ex.get("source", "")), "example source must be a URL: %r" % ex.get("source")
        # An example is copied from a public report, unless it says it was reproduced with
        # public code (only where no report exists), and then how, or is the message as its
        # raise site in the library's source prints it (only where no report exists and the
        # machine to reproduce it is not at hand), with the values it fills in named.
        assert ex.get("kind", "report") in ("report", "reproduced", "raise-site"), ex.get("kind")
        if ex.get("kind") == "reproduced":
            assert ex.get("command") and ex.get("note"), "a reproduced example says how and why"
        if ex.get("kind") == "raise-site":
            assert PERMALINK.match(ex["source"]), "a raise-site example cites the raising file at a release: %r" % ex["source"]
            assert ex["source"] in entry.sources, "the raise site is a source of the entry's facts"
            assert ex.get("note"), "a raise-site example says which values it fills in"
    kinds = [ex.get("kind", "report") for ex in entry.examples]
    assert "report" in kinds or kinds == ["reproduced"] or set(kinds) == {"raise-site"}, \
        "reproduced examples only stand alone, raise-site ones only beside each other"
    for link in entry.links:
        assert URL.match(link), link
    for lit in entry.context:  # anchors of the log scan: short ones would mark most lines
        assert isinstance(lit, str) and len(lit) >= 4, "context literal too short: %r" % lit
    for other in entry.refines:
        assert other in IDS and other != entry.id, "refines an unknown entry: %r" % other


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_patterns_are_linear_time_safe(entry):
    for p in entry.patterns:
        assert "(?i" not in p.source, "case-insensitive patterns defeat the literal prefilter; use [Xx]"
        assert len(p.anchor) >= 4, "pattern %r needs a literal anchor of 4+ characters" % p.source
        assert p.anchor.strip(), p.source
        for hi, nested, _ in repeats(p.source):
            assert hi != _sre_c.MAXREPEAT, "unbounded repeat in %r: use a bound like .{0,200}" % p.source
            assert not nested, "nested repeat in %r" % p.source


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_every_example_ranks_its_own_entry_first(entry):
    for ex in entry.examples:
        found = match_text(ex["text"])
        assert found, "example from %s matched nothing" % ex["source"]
        assert found[0].id == entry.id, "example from %s ranked %s first" % (ex["source"], [m.id for m in found[:3]])


UNRELATED = [
    "KeyError: 'learning_rate'",
    "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "TypeError: unsupported operand type(s) for +: 'int' and 'str'",
    "Epoch 3/10 - loss: 0.2311 - accuracy: 0.9123",
    "ZeroDivisionError: division by zero",
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='example.com', port=443)",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "PermissionError: [Errno 13] Permission denied: '/var/log/app.log'",
    "AttributeError: 'DataFrame' object has no attribute 'to_tensor'",
    "IndexError: list index out of range",
    "RecursionError: maximum recursion depth exceeded while calling a Python object",
    "SyntaxError: invalid syntax",
    "tensorflow.python.framework.errors_impl.ResourceExhaustedError: OOM when allocating tensor",
    "npm ERR! code ERESOLVE",
    "fatal: not a git repository (or any of the parent directories): .git",
    # Windows DLL failures of other programs (github.com/HNIdesu/BakinExtractor/issues/4,
    # github.com/philippj/SteamworksPy/issues/43): the same Python message as a torch DLL's
    "FileNotFoundError: Could not find module 'C:\\Users\\{username}\\Downloads\\BakinExtractor-1.0.1\\utility.dll' "
    "(or one of its dependencies). Try using the full path with constructor syntax.",
    "FileNotFoundError: Could not find module 'C:\\Users\\andre\\PycharmProjects\\my_project\\SteamworksPy.dll'. "
    "Try using the full path with constructor syntax.",
    # another framework's cuDNN failure (github.com/tensorflow/tensorflow/issues/14111 style)
    "2017-10-30 17:55:23.525428: E tensorflow/stream_executor/cuda/cuda_dnn.cc:371] could not create cudnn handle: "
    "CUDNN_STATUS_INTERNAL_ERROR",
]


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_errors_match_nothing(text):
    assert [m.id for m in match_text(text)] == []


def test_a_missing_module_of_any_program_is_only_a_possibility():
    # Python's words for any module: the interpreter that ran lacks it, said "possibly"
    assert [(m.id, m.confidence) for m in match_text("ModuleNotFoundError: No module named 'pandas'")] == [
        ("python-package-missing", "possible")]


def test_foreign_framework_markers_are_specific_and_sourced():
    from torchdoctor.kb.errors import foreign_frameworks
    data = foreign_frameworks()
    assert data["sources"] and data["own"]
    for name, markers in data["frameworks"].items():
        assert name and markers
        for m in markers:
            assert len(m) >= 4 and "torch" not in m.lower(), m
    for name, markers in data["namesakes"].items():  # frameworks named like torch
        assert name and all(len(m) >= 6 for m in markers), markers
    for layer in data["neutral"]:  # who prints each kind of generic message, and its cause anywhere
        assert layer["by"] and layer["cause"] and layer["sources"] and all(len(w) >= 5 for w in layer["wording"])


def test_every_negative_priority_entry_says_whether_it_names_a_symptom():
    # A negative priority ranks an entry low; whether a match of it is only a possibility is
    # a separate fact (Match.confidence), so a generic entry must state it.
    undeclared = [e.id for e in ENTRIES if e.priority < 0 and not isinstance(e.raw.get("symptom"), bool)]
    assert not undeclared, "entries with a negative priority and no \"symptom\": true/false: %s" % undeclared


def test_categories_all_have_an_entry():
    have = {e.category for e in ENTRIES}
    # dist-*: conditions of a whole job (torchdoctor dist), seen in the ranks' facts only.
    job_only = {c for c in CATEGORIES if c.startswith("dist-")}
    # slow-import: a measurement of check's, not a message anyone pastes. foreign-library: what
    # check sees in the libraries a process loaded; the messages it causes are filed by what they
    # say (undefined symbol, version not found).
    missing = sorted(set(CATEGORIES) - have - {"internal", "cuda-toolkit-mismatch", "slow-import", "foreign-library"}
                     - job_only)
    assert not missing, "categories without a known error: %s" % missing


def test_hostile_lines_finish_fast():
    # Anchors of every pattern repeated without the rest of the message: the
    # worst input for a pattern with a bounded gap. Linear patterns finish
    # in well under a second even on a slow machine; a backtracking one would not.
    anchors = " ".join(p.anchor for e in ENTRIES for p in e.patterns)
    hostile = (anchors + " ") * 20 + "x" * 60000
    t0 = time.perf_counter()
    match_text(hostile)
    assert time.perf_counter() - t0 < 30


def test_every_tailor_names_a_registered_hook():
    from torchdoctor.areas.registry import all_hooks as hooks
    registered = hooks()
    missing = sorted({e.tailor for e in ENTRIES if e.tailor and e.tailor not in registered})
    assert not missing, "entries name hooks that do not exist: %s" % missing


def test_anchor_cache_is_fresh():
    # The cache only saves start-up time (a missing pattern is derived at run time),
    # but a stale one would silently slow `explain` down.
    import json
    from torchdoctor.kb.errors import ANCHOR_CACHE, derived_anchors
    with open(ANCHOR_CACHE, encoding="utf-8") as fh:
        cached = json.load(fh)
    assert cached == derived_anchors(), "run: python -m torchdoctor.kb.errors"


def test_a_shipped_knowledge_base_derives_no_anchor_at_run_time():
    """Every pattern's anchor comes from the generated cache: the regex parser, tens of ms
    of explain's start-up, runs only for a pattern edited since (python -m torchdoctor.kb.errors)."""
    import subprocess
    import sys
    code = ("import torchdoctor.kb.errors as K\n"
            "def refuse(p):\n    raise AssertionError('derived at run time: %r' % p)\n"
            "K.literal_anchor = refuse\n"
            "print(len(K.load_entries()), sum(len(e.patterns) for e in K.load_entries()))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr[-2000:]
    entries, patterns = map(int, p.stdout.split())
    assert entries > 100 and patterns > entries


def test_docs_state_no_stale_count_of_the_knowledge_base():
    """A count of known errors in the docs is either generated or absent: README once said 212
    while `explain --list` said 215. Benchmark records name the count of their own run."""
    import re
    from conftest import ROOT
    n = len(load_entries())
    for name in ("README.md", os.path.join("docs", "knowledge-base.md")):
        with open(os.path.join(ROOT, name), encoding="utf-8") as fh:
            for line in fh:
                for m in re.finditer(r"knowledge base (?:holds|has|contains) (\d+)", line):
                    assert int(m.group(1)) == n, "%s says %s known errors; there are %d" % (name, m.group(1), n)


def test_no_anchor_spans_a_line_break():
    # the log scan and grep -F -f search anchors within one line (a pattern written across lines
    # is read by match_text, whose passes join adjacent lines; the log scan reads single lines)
    from torchdoctor.match.matcher import Index
    assert [a for a in Index(load_entries()).anchors if "\n" in a] == []
