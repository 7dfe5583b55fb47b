"""The notebook HTML shows a finding's and a known error's verify step, evidence and
confidence, escaped like everything else."""

from torchdoctor.model.findings import Finding, Fix, Verify
from torchdoctor.render.html import render_finding, render_match_html


def test_finding_html_has_verify_evidence_and_possibly():
    f = Finding(id="cpu-only-build", category="cpu-only-build", severity="error", title="CPU-only <torch>",
                detail="d", fix=Fix("install", ["pip install torch"]), evidence=["torch.version: 2.13.0+cpu"],
                confidence="possible", verify=Verify('python -c "import torch"', "True & done"))
    out = render_finding(f)
    assert "Possibly: CPU-only &lt;torch&gt;" in out
    assert "<b>Verify:</b>" in out and "True &amp; done" in out and "import torch" in out
    assert "Evidence (confidence: possible)" in out and "torch.version: 2.13.0+cpu" in out


def test_match_html_has_verify_and_severity_colour():
    d = {"id": "x", "title": "T", "category": "config", "severity": "warning", "confidence": "high",
         "matched_text": "m", "cause": "c", "fix": {"summary": "s", "commands": []},
         "verify": {"command": "nvidia-smi", "expect": "a table"}}
    out = render_match_html(d)
    assert "#b26a00" in out and "nvidia-smi" in out and "a table" in out and "Possibly" not in out
