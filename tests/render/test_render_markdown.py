"""Markdown says what text and HTML say about a known error: "Possibly:" for a weak match,
and how to verify the fix."""

from torchdoctor.render.markdown import render_match


def _match(**kw):
    d = {"id": "cuda-not-available", "title": "torch.cuda.is_available() is False", "category": "no-gpu-driver",
         "confidence": "high", "matched_text": "m", "cause": "c", "fix": {"summary": "s", "commands": ["nvidia-smi"]},
         "verify": {"command": 'python -c "import torch; print(torch.cuda.is_available())"', "expect": "True"}}
    d.update(kw)
    return "\n".join(render_match(d))


def test_markdown_match_has_verify_and_says_possibly_for_a_weak_match():
    out = _match()
    assert "**Verify:** `python -c \"import torch; print(torch.cuda.is_available())\"` \u2192 True" in out
    assert "Possibly" not in out
    assert "#### Possibly: torch.cuda.is\\_available() is False" in _match(confidence="possible")  # escaped Markdown


def test_markdown_match_without_verify_has_no_verify_line():
    assert "Verify" not in _match(verify=None)
