"""Mangled pastes: spaces lost (copied from a GUI dialog), lines wrapped at odd places,
HTML-escaped. The knowledge base's own real examples, mangled the way pastes are, must still
land on their own entry; unrelated text mangled the same way must still match nothing."""

import html
import time

import pytest

from torchdoctor.kb.errors import load_entries
from torchdoctor.match import despaced as D
from torchdoctor.match import matcher as M
from torchdoctor.match.normalize import normalize, unmarkup

# Entries marked `exact` opt out of this pass (an underscore or a space carries their meaning).
EXAMPLES = [(e.id, x["text"]) for e in load_entries() if not e.exact for x in e.examples]


def _read_only_by_a_generic_pattern(eid, text):
    found = M.match_text(text)
    return bool(found) and found[0].id == eid and M.GENERIC_GROUP in found[0].groups


# Generic patterns (one cause of several: a bare `Killed`, pip's conflict line) stay out of the
# despaced pass by design, so the examples only they read are not asked to survive lost spaces:
# 9 of 1,712 when they were set aside (three of older entries), which took the no-spaces share
# from 97.9% of all examples to 98.3% of the rest.
DESPACED_EXAMPLES = [(eid, text) for eid, text in EXAMPLES if not _read_only_by_a_generic_pattern(eid, text)]


def no_spaces(text):
    return "\n".join(ln.replace(" ", "").replace("\t", "") for ln in text.splitlines())


def wrapped(width):
    def cut(text):
        out = []
        for ln in text.splitlines():
            while len(ln) > width:
                out.append(ln[:width])
                ln = ln[width:]
            out.append(ln)
        return "\n".join(out)
    return cut


def escaped(text):
    return html.escape(text, quote=True)


def markdown(text):
    # What a Markdown renderer leaves of identifiers: a pair of underscores taken for emphasis
    # and lost, or shown as asterisks when the source is copied from an editor that escapes them.
    out = text.replace("_", " ", 2)
    return out.replace("_", "*")


# The share of examples whose top match is still their own entry. Measured when the second pass
# came: spaces removed 98.8% (6.8% before), wrapped at 37 columns 97.6% (72.3%), at 61 columns
# 99.3% (96.4%), HTML-escaped 100% (78.0%); underscores lost to Markdown's emphasis, measured when
# the pass learnt them, 97.2% of all examples (72.0%), 95.8% of the 872 that hold an underscore
# (58.3%). The rest: patterns whose anchor has fewer than four characters once spaces are gone,
# and symptom entries whose exact hit on a fragment outranks.
@pytest.mark.parametrize("mangle,least", [(no_spaces, 0.98), (wrapped(37), 0.96), (wrapped(61), 0.98),
                                          (escaped, 1.0), (lambda t: escaped(no_spaces(t)), 0.98), (markdown, 0.96)],
                         ids=["no-spaces", "wrapped-37", "wrapped-61", "html-escaped", "html-escaped-no-spaces",
                              "markdown"])
def test_mangled_real_examples_still_land_on_their_entry(mangle, least):
    examples = DESPACED_EXAMPLES if mangle(" ") == "" else EXAMPLES  # the mangles that lose spaces
    misses = []
    for eid, text in examples:
        found = M.match_text(mangle(text))
        if not found or found[0].id != eid:
            misses.append(eid)
    assert 1 - len(misses) / len(examples) >= least, misses


UNRELATED = [
    "KeyError: 'labels'",
    "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'",
    "ValueError: invalid literal for int() with base 10: 'abc'",
    "Epoch 3/10 - loss: 0.2311 - accuracy: 0.9123",
    "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='example.com', port=443)",
    "PermissionError: [Errno 13] Permission denied: '/var/log/app.log'",
    "AttributeError: 'DataFrame' object has no attribute 'to_tensor'",
    "fatal: not a git repository (or any of the parent directories): .git",
]


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_text_without_spaces_matches_nothing(text):
    assert M.match_text(no_spaces(text)) == []
    assert M.match_text(wrapped(11)(text)) == []


def test_a_despaced_hit_ranks_below_the_exact_one():
    line = "AssertionError: Torch not compiled with CUDA enabled"
    exact, despaced = M.match_text(line)[0], M.match_text(no_spaces(line))[0]
    assert exact.id == despaced.id == "torch-not-compiled-with-cuda"
    assert despaced.score < exact.score and despaced.confidence == M.HIGH


def test_the_second_pass_runs_only_when_the_first_found_no_diagnosis():
    # A diagnosis from the exact pass stands: the despaced pass adds nothing beside it.
    text = "AssertionError: Torch not compiled with CUDA enabled\nnvccfatal:Unsupportedgpuarchitecture'compute_86'"
    assert [m.id for m in M.match_text(text)] == ["torch-not-compiled-with-cuda"]
    # Without it, the despaced line is found.
    assert M.match_text(text.splitlines()[1])[0].id == "nvcc-unsupported-gpu-architecture"


def test_a_text_cut_at_one_width_is_read_across_its_lines():
    line = ("ImportError: /opt/conda/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
            "undefined symbol: _ZN3c104cuda9SetDeviceEi")
    assert M.match_text(line)[0].id == "flash-attn-built-for-other-torch"
    assert M.match_text(wrapped(30)(line))[0].id == "flash-attn-built-for-other-torch"


@pytest.mark.parametrize("pattern,want", [
    (r"nvcc fatal\s{0,8}: Unsupported gpu (?P<a>compute_ ?\d{2})", r"nvccfatalUnsupportedgpu(?P<a>compute\d{2})"),
    (r"version [`'‘]?GLIBCXX_\d['’]? not found", r"version[`'‘]?GLIBCXX\d['’]?notfound"),
    # underscores and asterisks go too (Markdown's emphasis marks), but not from group names
    (r"(?P<so_name>lib_x)\*?[_*a-c]{1,3}(?P=so_name)\_", r"(?P<so_name>libx)[a-c]{1,3}(?P=so_name)"),
    (r"(?<!dlerror: )lib\w{1,9}: cannot open", r"(?<!dlerror)lib\w{1,9}cannotopen"),
    # a group's own syntax keeps its colon: (?:, (?i:
    (r"(?:a|b): x(?i:c)", r"(?:a|b)x(?i:c)"),
    (r"[ \t]{1,4}x[\w ]y", r"x[\w]y"),  # a class of spaces goes with its quantifier; a space leaves a class
    (r"[^ ]{1,9} a[ -~]b", r"[^ ]{1,9}a[ -~]b"),  # negated classes and ranges from a space stay
    (r"\bcuda\b (?: |)z", r"cuda(?:|)z"),  # word boundaries go: the words run together now
    (r"a\ b\s+?c", r"abc"),
])
def test_despace_pattern(pattern, want):
    assert D.despace_pattern(pattern) == want


def test_despace_pattern_refuses_what_python_would_not_compile():
    # Alternatives of one width in a look-behind differ once a space is gone.
    assert D.despace_pattern(r"(?<!a b|cde)x") is None


def test_html_escaping_is_undone_for_the_whole_paste():
    assert unmarkup("No module named &#39;torch&#39; &amp;&lt;br&gt;<br/>x&#x27;") == "No module named 'torch' &<br>\nx'"
    assert unmarkup("no markup & nothing; here") == "no markup & nothing; here"
    assert unmarkup("&#0; &#xD800;") == "&#0; &#xD800;"  # not characters: kept as written
    assert M.match_text("ModuleNotFoundError: No module named &#39;torch&#39;")[0].id == "torch-module-not-found"


@pytest.mark.parametrize("text,plain,entry,kept", [
    # Copied out of a search URL or a link: every space is %20. A log line that merely holds an
    # escaped URL keeps it as written.
    ("libtorch_cuda.so:%20undefined%20symbol:%20ncclCommRegister",
     "libtorch_cuda.so: undefined symbol: ncclCommRegister", "nccl-undefined-symbol-import",
     "Downloading https://example.org/a%20b/c%20d.pt to /root/.cache/torch/hub/checkpoints"),
    # GitHub's editor links `libcudnn.so` as a host name when a paste is copied back as Markdown; a
    # real link, whose text is not its own host, stays as written.
    ("ImportError: [libcudnn.so](http://libcudnn.so/).8: cannot open shared object file: No such file or directory",
     "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory", "cudnn-so-cannot-open",
     "see [the docs](https://pytorch.org/get-started/locally/) for the index URL"),
])
def test_url_escapes_and_autolinks_are_undone_where_they_are_the_pastes(text, plain, entry, kept):
    assert unmarkup(text) == plain
    assert M.match_text(text)[0].id == entry
    assert unmarkup(kept) == kept


def test_no_break_spaces_are_spaces():
    assert normalize("Torch\u00a0not compiled with CUDA enabled") == "Torch not compiled with CUDA enabled"


def test_the_second_pass_stays_linear_on_hostile_pastes():
    # Every anchor without its spaces, run together and cut into lines of one width: each
    # line and join holds many triggers, and the joined runs hold many anchors.
    anchors = "".join(D.despace_text(p.anchor) for e in load_entries() for p in e.patterns)
    text = wrapped(40)((anchors * 4)[:60000])
    t0 = time.perf_counter()
    M.match_text(text)
    assert time.perf_counter() - t0 < 30


def test_an_exact_entry_is_not_read_without_its_whitespace_and_underscores():
    # torch.fx is public; without underscores it would read like torch._fx, a private module.
    text = "import torchvision.transforms as transforms\nModuleNotFoundError: No module named 'torch.fx'"
    assert all(m.id != "torch-private-module-missing" for m in M.match_text(text))
    private = "ModuleNotFoundError: No module named 'torch._C._nativert'"
    assert M.match_text(private)[0].id == "torch-private-module-missing"
    assert M.match_text(no_spaces(private)) == [] or M.match_text(no_spaces(private))[0].id != "torch-private-module-missing"


# Entries whose context literals hold spaces: a paste that lost them still shows the context,
# read without its spaces too (Context.feed_despaced), so no entry carries a despaced twin.
# Two are not read without spaces whatever their context: auto-gptq's warning needs a separator
# between logger and message (its colon goes too), and pip's `Killed` line is under four characters.
UNREAD_DESPACED = {"autogptq-cuda-extension-not-loaded", "pip-install-torch-oom-killed"}
CONTEXT_SPACED = sorted({e.id for e in load_entries() if not e.exact and e.examples
                         and any(" " in c and len(D.despace_text(c)) >= 8 for c in e.context)} - UNREAD_DESPACED)


@pytest.mark.parametrize("eid", CONTEXT_SPACED)
def test_context_literals_hold_in_a_paste_that_lost_its_spaces(eid):
    entry = next(e for e in load_entries() if e.id == eid)
    texts = [x["text"] for x in entry.examples]
    assert any((M.match_text(no_spaces(t)) or [None])[0] is not None
               and M.match_text(no_spaces(t))[0].id == eid for t in texts), eid


def test_a_short_context_literal_is_not_read_across_words():
    from torchdoctor.match.context import DESPACED_MIN, Context
    index = M.default_index()
    ctx = Context(index)
    short = [c for c in index.context_literals if " " in c and len(D.despace_text(c)) < DESPACED_MIN]
    assert short, "no short spaced context literal to test with"
    lit = short[0]
    ctx.feed_despaced(D.despace_text(lit))
    assert lit not in ctx.seen
    longer = [c for c in index.context_literals if " " in c and len(D.despace_text(c)) >= DESPACED_MIN][0]
    ctx.feed_despaced(D.despace_text("xx " + longer + " yy"))
    assert longer in ctx.seen
