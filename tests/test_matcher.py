"""The matcher on what people actually paste: retyped case, CJK punctuation,
escaped quotes, a whole traceback logged as one string."""

from torchdoctor.explain.matcher import match_text, normalize


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
