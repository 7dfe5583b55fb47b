"""The corpus (redact_corpus.py): every real-shaped secret is hidden in every format
of a report, through the real path (Report -> redact_report -> renderers, and one
`torchdoctor report --python sys.executable` with the secrets planted in its
environment); every secret-free look-alike comes out byte-identical."""

import json
import os
import subprocess
import sys

import pytest

from conftest import TORCH_PYTHON, make_facts, needs_torch
from redact_corpus import LOOKALIKES, SECRETS
from torchdoctor.verbs.report import render_report
from torchdoctor.model.facts import Facts
from torchdoctor.model.findings import Finding, Fix
from torchdoctor.redact import Redactor, redact_report
from torchdoctor.redact.tokens import TOKEN_RE, TOKEN_RULES, token_rule
from torchdoctor.model.report import Report

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FORMATS = ("markdown", "json", "text")


def test_corpus_is_big_enough():
    assert len(SECRETS) >= 40 and len(LOOKALIKES) >= 40
    assert len({s[0] for s in SECRETS}) == len(SECRETS)


@pytest.mark.parametrize("id_,value,expected,fragments", SECRETS, ids=[s[0] for s in SECRETS])
def test_secret_is_redacted_exactly(id_, value, expected, fragments):
    r = Redactor()
    out = r.text(value)
    assert out == expected
    for frag in fragments:
        assert frag in value and frag not in out, frag
    assert r.counts.get("secret", 0) >= 1


@pytest.mark.parametrize("name,value", LOOKALIKES, ids=["%02d-%s" % (i, n) for i, (n, _) in enumerate(LOOKALIKES)])
def test_lookalike_is_untouched(name, value):
    r = Redactor()
    assert r.value(value, name) == value
    assert r.text(value) == value
    assert r.counts == {}


def test_every_token_rule_fires_on_the_corpus():
    fired = set()
    for _, value, _, _ in SECRETS:
        for m in TOKEN_RE.finditer(value):
            fired.add(token_rule(m)[0]["id"])
    never = [r["id"] for r in TOKEN_RULES if r["id"] not in fired]
    # Rules whose shape the corpus does not carry: each has its own synthetic value here.
    extra = {
        "aws-bedrock-api-key": "ABSK" + "QmVkcm9ja0FQSUtleS1" * 7,
        "flyio-token": "fo1_" + "a1B2c3D4e5" * 4 + "xyz",
        "heroku-api-key-v2": "HRKU-AA" + "0a1B2c3D4e" * 5 + "12345678",
        "gitlab-pipeline-trigger-token": "glptt-" + "0123456789abcdef0123456789abcdef01234567",
        "gitlab-runner-registration-token": "GR1348941" + "a1B2c3D4e5F6g7H8i9J0",
        "rubygems-token": "rubygems_" + "0123456789abcdef" * 3,
        "artifactory-api-key": "AKCp" + "a1B2c3D4e5" * 6 + "f6G7h8I9j",
        "atlassian-api-token": "ATATT3" + "xFfGF0a1B2c3D4e5F6g7H8i9J0" * 7 + "k1L2",
        "pulumi-token": "pul-" + "0123456789abcdef0123456789abcdef01234567",
        "doppler-token": "dp.pt." + "a1b2c3d4e5" * 4 + "f6g",
        "postman-api-key": "PMAK-" + "0123456789abcdef01234567" + "-" + "0123456789abcdef0123456789abcdef01",
        "shopify-token": "shpat_" + "0123456789abcdef" * 2,
        "sentry-user-token": "sntryu_" + "0123456789abcdef" * 4,
        "sentry-org-token": "sntrys_eyJpYXQiOjE2ODQ" + "xMjM0NTY3ODkwLCJ1cmwiOiJodHRwczovL3NlbnRyeS5pbyJ9" + "_abc",
        "grafana-token": "glc_" + "eyJvIjoiMTIzNDU2IiwibiI6InN0YWNrIiwiayI6ImFiYyJ9",
        "linear-api-key": "lin_api_" + "a1b2c3d4e5" * 4,
        "age-secret-key": "AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L" + "QPZRY9X8GF2TVDW0S3JN54KHCE",
        "1password-service-account-token": "ops_eyJ" + "c2lnbkluQWRkcmVzcyI6Im15LjFwYXNzd29yZC5jb20i" * 7,
        "slack-token": "xoxe-1-" + "A1B2C3D4E5" * 14,
    }
    for rule_id in never:
        assert rule_id in extra, "no corpus value fires %s" % rule_id
        out = Redactor().text("x " + extra[rule_id] + " y")
        assert out == "x <secret> y", (rule_id, out)


# -- through the report path -------------------------------------------------------------------
def _secret_report():
    env = {"TORCH_CORPUS_%02d" % i: value for i, (_, value, _, _) in enumerate(SECRETS)}
    every = "\n".join(value for _, value, _, _ in SECRETS)
    facts = make_facts(schema_version=1, source="probe", env=env, probe={"completed": True, "stderr_tail": every},
                       os={"system": "Linux", "distro": "Ubuntu 22.04.4 LTS"})
    finding = Finding(id="planted", category="config", severity="warning", title="planted secrets",
                      detail=every, fix=Fix(summary="rotate them", commands=[v for _, v, _, _ in SECRETS[:20]]),
                      links=["https://example.com/x?sig=%s" % SECRETS[0][1]])
    return Report(facts, [finding])


def _lookalike_report():
    env = {"%s_%02d" % (name, i) if i else name: value for i, (name, value) in enumerate(LOOKALIKES)}
    return Report(make_facts(schema_version=1, source="probe", env=env,
                             probe={"completed": True, "stderr_tail": "\n".join(v for _, v in LOOKALIKES)}), []), env


def test_no_corpus_secret_survives_any_format():
    report = _secret_report()
    raw = {fmt: render_report(report, fmt) for fmt in FORMATS}
    red = redact_report(report)
    for fmt in FORMATS:
        text = render_report(red, fmt)
        for id_, _, _, fragments in SECRETS:
            for frag in fragments:
                assert frag in raw[fmt] or json.dumps(frag)[1:-1] in raw[fmt], (id_, fmt)  # it was there
                assert frag not in text and json.dumps(frag)[1:-1] not in text, "%s leaked into %s" % (id_, fmt)
    env = red.facts.value("env")
    for i, (id_, _, expected, _) in enumerate(SECRETS):
        assert env["TORCH_CORPUS_%02d" % i] == expected, id_
    assert red.facts.value("redaction.counts.secret") >= len(SECRETS)


def test_lookalikes_come_out_byte_identical_in_every_format():
    report, env = _lookalike_report()
    red = redact_report(report)
    assert red.facts.value("env") == env
    assert red.facts.value("redaction.counts") == {}
    assert red.facts.value("probe.stderr_tail") == report.facts.value("probe.stderr_tail")
    data = json.loads(render_report(red, "json"))
    assert data["facts"]["env"] == env
    # The same report with only the redaction record added renders to the same bytes.
    same = report.facts.to_dict()
    same["redaction"] = red.facts.value("redaction")
    for fmt in FORMATS:
        assert render_report(red, fmt) == render_report(Report(Facts(same), []), fmt), fmt


# -- the real command --------------------------------------------------------------------------
SECRET_ENV = {"TORCH_CORPUS_%02d" % i: value for i, (_, value, _, _) in enumerate(SECRETS) if "\n" not in value}
LOOKALIKE_ENV = {"TORCH_LOOKALIKE_%02d" % i: value for i, (_, value) in enumerate(LOOKALIKES)}


@pytest.fixture(scope="module")
def real_reports():
    env = dict(os.environ)
    env.update(SECRET_ENV)
    env.update(LOOKALIKE_ENV)
    env["PYTHONPATH"] = ROOT
    out = {}
    for fmt in FORMATS:
        r = subprocess.run([sys.executable, "-m", "torchdoctor", "report", "--python", TORCH_PYTHON, "--format", fmt],
                           capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
        assert r.returncode == 0, r.stderr
        out[fmt] = r.stdout
    return out


@needs_torch
@pytest.mark.parametrize("fmt", FORMATS)
def test_real_report_hides_every_planted_secret(real_reports, fmt):
    text = real_reports[fmt]
    for i, (id_, value, _, fragments) in enumerate(SECRETS):
        if "TORCH_CORPUS_%02d" % i in SECRET_ENV:
            for frag in fragments:
                assert frag not in text and json.dumps(frag)[1:-1] not in text, "%s leaked into %s" % (id_, fmt)
    assert "TORCH_CORPUS_00" in text and "<secret>" in text


@needs_torch
def test_real_report_keeps_lookalikes_and_structure(real_reports):
    env = json.loads(real_reports["json"])["facts"]["env"]
    for name, value in LOOKALIKE_ENV.items():
        assert env[name] == value, name
    for i, (id_, value, expected, _) in enumerate(SECRETS):
        name = "TORCH_CORPUS_%02d" % i
        if name in SECRET_ENV:
            assert env[name] == expected, id_


# -- real texts from public reports -------------------------------------------------------------
def _public_texts():
    """Every error text of tests/eval/*.jsonl and every knowledge-base example: copied from public
    issues and forums (each with its source URL there), none holding a credential."""
    import glob
    from torchdoctor.kb.errors import load_entries
    out = []
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "eval", "*.jsonl"))):
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if line.strip():
                    out.append(("%s:%d" % (os.path.basename(path), n), json.loads(line)["text"]))
    for entry in load_entries():
        for ex in entry.examples:
            out.append((entry.id, ex["text"]))
    return out


def test_thousands_of_public_error_texts_keep_every_byte():
    """Over-redaction on real text: code (`pad_token = tokenizer.eos_token`), gdb frames
    (`sig=sig@entry=6`), Hydra's `full_key: train.lr`, llama.cpp's `EOG token = 248065`."""
    texts = _public_texts()
    assert len(texts) > 1000
    changed = [(where, line) for where, text in texts if Redactor().secrets(text) != text
               for line in text.splitlines() if Redactor().secrets(line) != line]
    assert not changed, changed[:5]
