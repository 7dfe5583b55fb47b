"""The matcher on what people actually paste: retyped case, CJK punctuation,
escaped quotes, a whole traceback logged as one string."""

from torchdoctor.match.matcher import match_text
from torchdoctor.match.normalize import normalize


def top(text):
    found = match_text(text)
    return found[0].entry.category if found else None


def test_lower_case_retyped_message_still_matches_but_ranks_below_exact():
    exact = match_text("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB")[0]
    folded = match_text("runtimeerror: cuda out of memory. tried to allocate 2.00 gib")[0]
    assert exact.entry.category == folded.entry.category == "oom"
    assert folded.score < exact.score


def test_lower_case_fallback_adds_no_diagnosis_to_unrelated_text():
    assert match_text("keyerror: 'learning_rate'") == []
    assert match_text("modulenotfounderror: no module named 'pandas'") == []


def test_full_width_punctuation_is_folded():
    assert normalize("AssertionError\uff1aTorch not compiled with CUDA enabled") == \
        "AssertionError:Torch not compiled with CUDA enabled"
    assert top("AssertionError\uff1a Torch not compiled with CUDA enabled") == "cpu-only-build"


def test_escaped_quotes_of_a_repr_are_unescaped():
    assert top("RuntimeError: operator torchvision::nms does not exist\\'") == "torchvision-mismatch"
    assert "'" in normalize("No module named \\'torch\\'") and "\\'" not in normalize("No module named \\'torch\\'")


def test_traceback_logged_as_one_string():
    line = ('{"level": "error", "msg": "Traceback (most recent call last):\\n  File \\"x.py\\", line 1\\n'
            'AssertionError: Torch not compiled with CUDA enabled\\n"}')
    found = match_text(line)
    assert found and found[0].entry.category == "cpu-only-build"


# Another framework's log: the same cuDNN line as torch prints, from TensorFlow's own code.
TF_LOG = ("2021-03-02 10:11:12.000001: I tensorflow/stream_executor/platform/default/dso_loader.cc:49] "
          "Successfully opened dynamic library libcudnn.so.8\n"
          "2021-03-02 10:11:13.000002: E tensorflow/stream_executor/cuda/cuda_dnn.cc:336] "
          "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR\n")


def test_another_frameworks_error_gets_no_diagnosis():
    assert match_text(TF_LOG) == []
    # the same line from torch is diagnosed
    assert top("RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR") is not None


def test_a_torch_error_beside_another_frameworks_log_is_still_diagnosed():
    text = TF_LOG + ('  File "/venv/lib/python3.10/site-packages/torch/nn/modules/conv.py", line 456\n'
                     "RuntimeError: cuDNN error: CUDNN_STATUS_INTERNAL_ERROR\n")
    assert top(text) is not None


def test_log_scan_applies_the_same_rule_across_chunks():
    import io
    from torchdoctor.match.logscan import scan_stream
    filler = b"step 1 loss 0.5\n" * 20000  # the marker and the error land in different chunks
    data = TF_LOG.encode()[:200] + b"\n" + filler + TF_LOG.encode()
    assert scan_stream(io.BytesIO(data), chunk_size=4096) == []
    with_torch = data + b'  File "/x/site-packages/torch/nn/functional.py", line 1\n'
    assert scan_stream(io.BytesIO(with_torch), chunk_size=4096) != []


WINERR127 = "OSError: [WinError 127] The specified procedure could not be found"
TORCHAUDIO_FRAME = ('  File "C:\\venv\\Lib\\site-packages\\torchaudio\\_extension\\utils.py", line 61, in _load_lib\n'
                    "    torch.ops.load_library(path)\n")


def test_an_entry_with_context_applies_only_beside_it():
    assert top(WINERR127) == "windows-dll-load"
    assert top(TORCHAUDIO_FRAME + WINERR127) == "torchaudio-mismatch"
    # the generic entry it refines is not listed beside it
    assert [m.entry.category for m in match_text(TORCHAUDIO_FRAME + WINERR127)] == ["torchaudio-mismatch"]


def test_context_seen_in_an_earlier_chunk_of_a_log_counts():
    import io
    from torchdoctor.match.logscan import scan_stream
    data = (TORCHAUDIO_FRAME + "step 1 loss 0.5\n" * 5000 + WINERR127 + "\n").encode()
    found = scan_stream(io.BytesIO(data), chunk_size=4096)
    assert found[0].entry.category == "torchaudio-mismatch"
    assert scan_stream(io.BytesIO(data[len(TORCHAUDIO_FRAME):]), chunk_size=4096)[0].entry.category == "windows-dll-load"


def test_a_benign_warning_does_not_outrank_the_crash_after_it():
    text = ("[W NNPACK.cpp:64] Could not initialize NNPACK! Reason: Unsupported hardware.\n"
            "Illegal instruction (core dumped)\n")
    assert top(text) == "illegal-instruction"
    assert top(text.splitlines()[0]) == "nnpack-unsupported"  # alone, it is still explained


def test_log_scan_normalises_lines_of_a_crlf_log_as_a_paste_is():
    # The scan strips CRs of a whole chunk first; the rest of normalize() (escaped quotes
    # of a repr()'d message) must still apply to its lines.
    import io
    from torchdoctor.match.logscan import scan_stream
    text = "ModuleNotFoundError: No module named \\'torch.backends.cudnn\\'\r\n"
    want = [m.id for m in match_text(text)]
    assert want and [m.id for m in scan_stream(io.BytesIO(text.encode()))] == want


# ------------------------------------------------------ confidence floor ---
from torchdoctor.match import logscan as LS  # noqa: E402
from torchdoctor.match import matcher as M  # noqa: E402
from torchdoctor.kb.errors import Entry, Pattern, literal_anchor  # noqa: E402


def _entry(eid, pattern, priority=0, refines=(), symptom=False):
    return Entry(id=eid, category="cuda-not-available", title=eid, cause="c", fix={}, priority=priority,
                 patterns=[Pattern(pattern, literal_anchor(pattern))], refines=list(refines), symptom=symptom)


def test_confidence_of_a_specific_exact_match_is_high():
    m = match_text("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB")[0]
    assert m.confidence == M.HIGH and m.score >= M.POSSIBLE_BELOW and m.evidence >= M.EVIDENCE_FLOOR


def test_near_miss_on_a_catch_all_entry_is_only_possible():
    # Not a problem report: the sentence only says what a CPU runner does. It lands on
    # the catch-all cuda-not-available (priority -3), with a negative score.
    found = match_text("On the CI runner torch.cuda.is_available() returns False, as expected without a GPU")
    assert [m.id for m in found] == ["cuda-not-available"]
    assert found[0].score < 0 and found[0].confidence == M.POSSIBLE


def test_a_symptom_is_never_a_high_diagnosis_and_never_ranks_first_over_one():
    idx = M.Index([_entry("weak", r"widget is slow", priority=-3, symptom=True),
                   _entry("strong", r"widget exploded at step \d+")])
    both = match_text("the widget is slow\nwidget exploded at step 12", idx)
    assert [m.id for m in both] == ["strong", "weak"]
    assert both[0].confidence == M.HIGH and both[1].confidence == M.POSSIBLE
    alone = match_text("the widget is slow", idx)
    assert [m.id for m in alone] == ["weak"] and alone[0].score < 0 and alone[0].confidence == M.POSSIBLE


def test_a_negative_priority_ranks_a_generic_entry_low_but_an_exact_hit_stays_high():
    # A family entry (the undefined torch symbol of any extension) ranks below what refines
    # or outscores it; what the text shows decides how sure it is.
    idx = M.Index([_entry("family", r"gadget symbol _ZN3c10\w{1,40} missing", priority=-1),
                   _entry("specific", r"gadget exploded at step \d+")])
    both = match_text("gadget symbol _ZN3c105Error missing\ngadget exploded at step 3", idx)
    assert [m.id for m in both] == ["specific", "family"]
    alone = match_text("gadget symbol _ZN3c105Error missing", idx)
    assert alone[0].score < M.POSSIBLE_BELOW <= alone[0].evidence and alone[0].confidence == M.HIGH


def test_an_undefined_torch_symbol_in_a_third_party_extension_is_a_high_diagnosis():
    # Exact hits of the family entry's own message, from the knowledge base's real examples.
    from torchdoctor.kb.errors import get_entry
    for ex in get_entry("extension-undefined-torch-symbol").examples:
        m = match_text(ex["text"])[0]
        assert m.id == "extension-undefined-torch-symbol" and m.confidence == M.HIGH, ex["source"]


def test_a_short_anchor_found_only_by_case_folding_is_dropped():
    # ".cuda()" retyped as ".CUDA()": evidence below the floor, no diagnosis at all ...
    assert match_text("a.CUDA() hangs") == []
    # ... while the same words in their own case still match.
    assert [m.id for m in match_text("a_gpu = a.cuda() # hangs forever here")] == ["cuda-call-hangs"]


def test_floor_drops_by_evidence_not_by_priority():
    idx = M.Index([_entry("boosted", r"zap\b", priority=3), _entry("plain", r"zap zap zap zap zap")])
    # An exact hit of a 3-character anchor: evidence 3.3 + 20*3 priority -> still dropped.
    assert match_text("zap", idx) == []
    # The longer pattern's own evidence is enough; the boosted one's stays 3.3 in any text.
    found = match_text("zap zap zap zap zap", idx)
    assert [m.id for m in found] == ["plain"] and found[0].evidence >= M.EVIDENCE_FLOOR


def test_a_match_below_the_floor_hides_no_broader_entry():
    idx = M.Index([_entry("generic", r"engine failed with code \d+"),
                   _entry("narrow", r"cod", refines=["generic"])])
    found = match_text("engine failed with code 7", idx)
    assert [m.id for m in found] == ["generic"]


def test_floor_applies_to_the_log_scan_too():
    import io
    idx = M.Index([_entry("boosted", r"zap\b", priority=3), _entry("plain", r"zap zap zap zap zap")])
    assert LS.scan_stream(io.BytesIO(b"zap\n"), idx) == []
    assert [m.id for m in LS.scan_stream(io.BytesIO(b"zap zap zap zap zap\n"), idx)] == ["plain"]


# ------------------------------------------- loading only the files the text selects --
def _corpus():
    import glob
    import json
    import os
    from conftest import ROOT
    here = os.path.join(ROOT, "tests", "eval")
    for path in sorted(glob.glob(os.path.join(here, "*.jsonl"))):
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    yield json.loads(line)["text"]
    from torchdoctor.kb.errors import load_entries
    for e in load_entries():
        for ex in e.examples:
            yield ex["text"]


def _key(found):
    return [(m.id, m.line, m.text, m.count, round(m.score, 6), sorted(m.groups.items())) for m in found]


def test_a_text_loads_only_the_kb_files_its_anchors_select():
    from torchdoctor.kb import errors as K
    line = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    files = K.files_for(line)
    assert files and len(files) < len(K._kb_files()) and "cuda.json" in files
    assert M._index_for([line]).entries != list(K.load_entries())
    assert K.files_for("KeyError: 'learning_rate'") == ()


def test_selected_index_gives_what_the_whole_kb_gives_on_every_eval_text_and_example():
    whole = M.default_index()
    texts = list(_corpus())
    assert len(texts) > 2000
    differ = [t[:80] for t in texts if _key(match_text(t)) != _key(match_text(t, whole))]
    assert not differ, differ[:5]


def test_retyped_and_wrapped_texts_still_load_the_file_that_matches():
    whole = M.default_index()
    for text in ("ASSERTIONERROR: TORCH NOT COMPILED WITH CUDA ENABLED",  # retyped: only the folded match
                 "AssertionError: Torch not compiled with\n   CUDA enabled"):  # wrapped at the anchor
        assert _key(match_text(text)) == _key(match_text(text, whole)) != []


def test_a_stale_entry_index_means_the_whole_kb(monkeypatch):
    from torchdoctor.kb import errors as K
    monkeypatch.setattr(K, "entry_index", lambda: None)
    assert M._index_for(["anything"]) is M.default_index()
    assert K.get_entry("torch-not-compiled-with-cuda").id == "torch-not-compiled-with-cuda"


def test_the_entry_index_is_fresh_and_rejects_a_kb_file_it_does_not_know(tmp_path, monkeypatch):
    import json
    from torchdoctor.kb import errors as K
    with open(K.ENTRY_INDEX, encoding="utf-8") as fh:
        assert json.load(fh) == K.derived_entry_index(), "run: python -m torchdoctor.kb.errors"
    K.entry_index.cache_clear()
    monkeypatch.setattr(K, "_kb_files", lambda: ["cuda.json", "new.json"])
    try:
        assert K.entry_index() is None
    finally:
        K.entry_index.cache_clear()


TORCH_RAISE = '''Traceback (most recent call last):
  File "train.py", line 3, in <module>
    x = torch.zeros(1).cuda()
  File "/venv/lib/python3.12/site-packages/torch/cuda/__init__.py", line 310, in _lazy_init
    raise AssertionError("Torch not compiled with CUDA enabled")
AssertionError: Torch not compiled with CUDA enabled
'''


def test_the_source_line_of_a_raise_is_not_the_error_nor_a_second_one():
    """A traceback quotes torch's `raise AssertionError("...")`: the line quoted is the
    exception's, and the error counts once, in a paste and in a log file alike."""
    import io
    from torchdoctor.match.logscan import scan_stream
    for m in (match_text(TORCH_RAISE)[0], scan_stream(io.BytesIO(TORCH_RAISE.encode()))[0]):
        assert m.text.startswith("AssertionError: Torch not compiled") and m.line == 6 and m.count == 1, m
    twice = match_text(TORCH_RAISE + TORCH_RAISE.splitlines()[-1] + "\n")[0]
    assert twice.count == 2 and twice.line == 6


IPYTHON_LISTING = '''KeyError                                  Traceback (most recent call last)
/usr/lib/python3.10/site-packages/somelib/dispatch.py in <module>()
    328         # util.py:84: UserWarning: torch.symeig is deprecated in favor of torch.linalg.eigh
    329         # and will be removed in a future PyTorch release.
--> 330         del REGISTRY["torch", "linalg.eigh"]
KeyError: ('torch', 'linalg.eigh')
'''


FAILED_IMPORT = ('  File "/venv/lib/python3.10/site-packages/basicsr/data/degradations.py", line 8, in <module>\n'
                 "    from torchvision.transforms.functional_tensor import rgb_to_grayscale\n"
                 "ModuleNotFoundError: No module named 'torchvision.transforms.functional_tensor'\n")


def test_the_import_a_traceback_quotes_is_not_the_error_nor_a_second_one():
    """The failed import's source line names the module too: the message is the line quoted,
    and the error counts once per traceback, in a paste and in a log file alike."""
    import io
    from torchdoctor.match.logscan import scan_stream
    twice = FAILED_IMPORT + "step 1\n" + FAILED_IMPORT
    for m in (match_text(twice)[0], scan_stream(io.BytesIO(twice.encode()))[0]):
        assert m.text.startswith("ModuleNotFoundError") and m.line == 3 and m.count == 2, m
    # cut before its error, the quoted import is all there is
    cut = match_text("\n".join(FAILED_IMPORT.splitlines()[:2]))[0]
    assert cut.id == "torchvision-functional-tensor-removed" and cut.line == 2


def test_a_comment_in_ipythons_source_listing_is_no_output():
    """IPython quotes the source around the failing line: an author's comment there names a
    warning of another run, alone or joined with the line above it."""
    assert match_text(IPYTHON_LISTING) == []
    # the same words printed are the warning
    printed = "util.py:84: UserWarning: torch.symeig is deprecated in favor of torch.linalg.eigh"
    assert match_text(printed)[0].id == "linalg-legacy-functions-deprecated"


def test_context_literals_are_found_through_their_rarest_character_exactly_as_by_testing_each():
    from torchdoctor.match.matcher import Context, default_index
    ix = default_index()
    assert sorted(lit for _, g in ix.context_buckets for lit in g) == sorted(ix.context_literals)
    assert all(c in lit for c, g in ix.context_buckets for lit in g)
    lines = list(ix.context_literals) + ["x %s y" % lit for lit in ix.context_literals[::3]] + [
        "nothing here", "C:\\Users\\me\\AppData\\Local\\torch\\lib", "Collecting torch==2.13.0+cu130"]
    for line in lines:
        ctx = Context(ix)
        ctx.feed(line)
        assert ctx.seen == {lit for lit in ix.context_literals if lit in line}, line


# -- notices: harmless on their own, never the diagnosis of a failure beside them ----------
import re  # noqa: E402

from torchdoctor.match.confidence import FAILURE_LINE, failure_lines  # noqa: E402
OMP_NOTE = ("Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your "
            "system being overloaded, please further tune the variable for optimal performance in your "
            "application as needed.")


def test_a_notice_alone_is_said_plainly():
    (m,) = match_text(OMP_NOTE)
    assert (m.id, m.confidence) == ("torchrun-omp-num-threads-default", "high")


def test_a_notice_beside_an_unexplained_failure_is_only_possible():
    text = OMP_NOTE + "\n[rank0]: Traceback (most recent call last):\n[rank0]: ValueError: something of the user's\n"
    (m,) = match_text(text)
    assert (m.id, m.confidence) == ("torchrun-omp-num-threads-default", "possible")


def test_a_failure_ranks_before_a_notice_that_scores_higher():
    # A real torchrun run of two gloo ranks, one of which never joined the all_reduce (torch 2.13).
    text = (OMP_NOTE + "\n[rank0]:     work.wait()\n[rank0]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/"
            "gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 5000ms for recv operation to complete\n")
    first, second = match_text(text)
    assert (first.id, first.confidence) == ("gloo-collective-timeout", "high")
    assert (second.id, second.confidence) == ("torchrun-omp-num-threads-default", "possible")
    assert second.score > first.score  # the order is the notice rule's, not the score's


def test_a_notice_whose_own_line_reads_like_an_exception_stays_a_notice_of_itself():
    from torchdoctor.model.records import replace
    note = replace(_entry("plan-notice", r"PlanWarningException: plan \d{1,3} skipped"), notice=True)
    idx = M.Index([note])
    line = "PlanWarningException: plan 7 skipped, trying the next one"
    assert re.search(FAILURE_LINE, line, re.M)  # the notice's own line reads as a failure line...
    (m,) = match_text(line, idx)
    assert m.confidence == "high"  # ...and is not a failure beside it
    (m,) = match_text(line + "\nKeyError: 'label'\n", idx)
    assert m.confidence == "possible"


def test_failure_lines_of_launchers_and_test_runners():
    for line in ("Exception: boom", "[default0]:Traceback (most recent call last):", "E   RuntimeError: x",
                 "[rank3]: torch.OutOfMemoryError: CUDA out of memory",
                 # a tool that stops: ptxas and nvcc print no exception, a compiler says "fatal error:"
                 "ptxas fatal   : Value 'sm_121a' is not defined for option 'gpu-name'",
                 "nvcc fatal   : Unsupported gpu architecture 'compute_120'",
                 "csrc/ops.cu:12:10: fatal error: cuda_runtime.h: No such file or directory",
                 "C:\\ext\\ops.cpp(12): fatal error C1083: Cannot open include file: 'cuda.h'",
                 "LINK : fatal error LNK1181: cannot open input file 'c10.lib'",
                 "Illegal instruction (core dumped)"):
        assert list(failure_lines(line)) == [line], line
    for line in ("UserWarning: Plan failed with a cudnnException: X", "Errors: 0", '  File "x", line 1',
                 "the fatal flaw of this design: none", "set fatal_on_warning=1",
                 # git's fatal: (pip's builds run git describe; ComfyUI's dubious ownership) is no failure
                 "fatal: No names found, cannot describe anything.", "fatal: detected dubious ownership in repository",
                 "Non fatal: retrying", "HINT: fatal: see above"):
        assert list(failure_lines(line)) == [], line
    assert list(failure_lines(b"step 1 loss 0.5\n" * 100)) == []


def test_the_log_scan_sees_the_failure_beside_a_notice(tmp_path):
    from torchdoctor.match.logscan import scan_stream
    log = tmp_path / "job.log"
    log.write_text(OMP_NOTE + "\n" + "step 1 loss 0.5\n" * 2000 + "Traceback (most recent call last):\n"
                   "KeyError: 'label'\n")
    with open(log, "rb") as fh:
        (m,) = scan_stream(fh, chunk_size=4096)
    assert (m.id, m.confidence) == ("torchrun-omp-num-threads-default", "possible")


def test_of_two_anchors_as_long_the_one_of_more_bytes_is_taken():
    # 'orch' would make every line of a log full of torch paths a candidate.
    assert literal_anchor("[Tt]orch ?无法使用 ?GPU") == "无法使用"
    assert literal_anchor("abcd ?efgh") == "abcd"  # as long and as many bytes: the first
    assert literal_anchor("abcde ?无法使用") == "abcde"  # longer in characters still wins


def test_a_warning_raised_as_an_error_is_its_own_traceback():
    # python -W error: the deprecation ends the traceback; nothing else failed.
    text = ("Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    s = torch.cuda.amp.GradScaler()\n"
            "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
            "`torch.amp.GradScaler('cuda', args...)` instead.\n")
    (m,) = match_text(text)
    assert (m.id, m.confidence) == ("amp-gradscaler-device-specific-deprecated", "high")
    (m,) = match_text(text + "Traceback (most recent call last):\nKeyError: 'label'\n")
    assert m.confidence == "possible"  # a second failure beside it


def test_run_judges_a_notice_against_the_failures_of_every_stream():
    from torchdoctor.verbs.run.evidence import Evidence
    ev = Evidence()
    ev.start(["stdout", "stderr"])
    ev.add("stdout", (OMP_NOTE + "\n").encode())
    ev.add("stderr", b"Traceback (most recent call last):\n  File \"t.py\", line 1\nKeyError: 'label'\n")
    ev.close()
    (m,) = ev.matches()
    assert (m.id, m.confidence) == ("torchrun-omp-num-threads-default", "possible")


def test_a_plain_hit_elsewhere_is_another_occurrence_of_a_marked_one():
    # a possibly-marked line, then two plain ones further on: three occurrences (the log scan's
    # count and the paste's agree); only a joined pair holding the marked line is the same one
    import io

    from torchdoctor.match.logscan import scan_stream

    text = ("step 1\npyarrow.lib.ArrowSerializationError: Cannot convert string: \"\" to int8_t\nstep 2\n"
            "AttributeError: module 'pyarrow' has no attribute 'serialize'\nstep 3\n"
            "AttributeError: module 'pyarrow' has no attribute 'serialize'\n")
    for found in (match_text(text), scan_stream(io.BytesIO(text.encode()))):
        m = found[0]
        assert m.id == "pyarrow-serialize-removed-or-format-mismatch" and m.count == 3 and m.confidence == "high"
    joined = match_text("  File \"train.py\", line 3, in <module>\n    rank = int(os.environ[\"RANK\"])\n"
                        "               ~~~~~~~~~~^^^^^^^^\nKeyError: 'RANK'")[0]
    assert joined.id == "dist-launch-endpoint-missing" and joined.count == 1 and joined.confidence == "high"


def test_a_later_line_holding_the_marked_lines_words_is_still_another_occurrence():
    # torch 1.6's bare wording is a prefix of 1.7's: the later line holds the marked line's text
    # without being a joined pair of it (the benchmark's naive count caught the undercount)
    import io

    from torchdoctor.match.logscan import scan_stream

    text = ("RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor\nstep 1\nstep 2\nstep 3\n"
            "RuntimeError: 'lengths' argument should be a 1D CPU int64 tensor, but got 1D cuda:0 Long tensor\n")
    for found in (match_text(text), scan_stream(io.BytesIO(text.encode()))):
        m = found[0]
        assert m.id == "pack-padded-sequence-lengths-not-cpu" and m.count == 2 and m.confidence == "high"
