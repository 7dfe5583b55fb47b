"""Redaction gaps: identities that reached every output format."""

from torchdoctor.verbs.report import render_report
from torchdoctor.model.facts import Facts
from torchdoctor.model.findings import Finding, Fix
from torchdoctor.redact import redact_report
from torchdoctor.model.report import Report


def _report(facts, findings=()):
    base = {"schema_version": 1, "source": "probe", "os": {"system": "Windows", "hostname": "DESKTOP-1"}}
    base.update(facts)
    return Report(Facts(base), list(findings))


def test_windows_profile_folder_with_a_space_is_redacted_whole():
    # C:\Users\Jane Doe\...: the name stopped at the space, so "Doe" (the surname) stayed.
    exe = "C:\\Users\\Jane Doe\\AppData\\Local\\Programs\\Python\\Python312\\python.exe"
    rep = _report({"python": {"executable": exe, "sys_path": ["C:/Users/Jane Doe/proj"]}},
                  [Finding("x", "config", "info", "t", detail="at %s" % exe,
                           fix=Fix(commands=['"%s" -m pip install torch' % exe]))])
    red = redact_report(rep)
    for fmt, text in ((f, render_report(red, f)) for f in ("markdown", "json", "text")):
        assert "Doe" not in text and "Jane" not in text, fmt
        assert "<user>" in text, fmt
    assert red.facts.value("python.executable") == "C:\\Users\\<user>\\AppData\\Local\\Programs\\Python\\Python312\\python.exe"


def test_distributed_rendezvous_host_name_is_redacted_everywhere():
    # MASTER_ADDR holds a cluster host name (IP addresses were already hidden).
    rep = _report({"env": {"MASTER_ADDR": "dgx-node-0417.cluster.acme.internal", "MASTER_PORT": "29500"},
                   "probe": {"stderr_tail": "connect to dgx-node-0417:29500 timed out"}})
    red = redact_report(rep)
    for fmt in ("markdown", "json", "text"):
        text = render_report(red, fmt)
        assert "dgx-node-0417" not in text and "acme" not in text, fmt
    assert red.facts.value("env.MASTER_ADDR") == "<host>"
    assert red.facts.value("env.MASTER_PORT") == "29500"
