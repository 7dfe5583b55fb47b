"""flashinfer's kernel packages (flashinfer-cubin, flashinfer-jit-cache) from another release than
flashinfer itself: the part moved to flashinfer's release, or flashinfer put back to the part's,
torch held."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import HIGH, match_text

from hook_facts import facts, top

ENTRY = "flashinfer-package-versions-differ"


def tailored(text, **kw):
    m = top(text)
    assert m.id == ENTRY and m.confidence == HIGH
    return hooks()[m.entry.tailor](m, facts(**kw))


def test_a_cubin_of_another_release_is_moved_to_flashinfers():
    t = tailored("RuntimeError: flashinfer-cubin version (0.6.8.post1) does not match flashinfer version (0.6.10). "
                 "Please install the same version of both packages.", torch="2.11.0+cu130")
    assert t.commands == ['/home/u/venv/bin/python -m pip install --no-deps "flashinfer-cubin==0.6.10"',
                          '/home/u/venv/bin/python -m pip install "flashinfer-python==0.6.8.post1" "torch==2.11.0+cu130"']
    assert t.summary.startswith("flashinfer-cubin 0.6.8.post1 beside flashinfer 0.6.10")


def test_a_jit_cache_keeps_its_cuda_tag_out_of_flashinfers_release():
    t = tailored("RuntimeError: flashinfer-jit-cache version (0.6.9+cu130) does not match flashinfer version (0.6.11).")
    assert t.commands == ['/home/u/venv/bin/python -m pip install --no-deps "flashinfer-jit-cache==0.6.11"',
                          '/home/u/venv/bin/python -m pip install "flashinfer-python==0.6.9"']
    assert "flashinfer's own index" in t.summary


def test_the_shorter_wording_reads_the_same():
    t = tailored("RuntimeError: flashinfer-cubin (0.6.8.post1) != flashinfer (0.6.10.post1) version mismatch")
    assert t.commands[0].endswith('"flashinfer-cubin==0.6.10.post1"')


@pytest.mark.parametrize("text", [
    "flashinfer version (0.6.10) does not match the required version",
    "RuntimeError: flashinfer-python version (0.6.8) does not match flashinfer version (0.6.10)",
])
def test_other_version_words_are_not_these(text):
    assert ENTRY not in [m.id for m in match_text(text)]
