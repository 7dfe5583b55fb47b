"""Redaction: planted, real-looking secrets and identities must not survive into
any output format - neither through the pure function nor through the real
`torchdoctor report` (real probe against the cpu venv)."""

import json
import os
import platform
import subprocess
import sys

import pytest

from conftest import TORCH_PYTHON, needs_torch
from torchdoctor.model.facts import Facts
from torchdoctor.model.findings import Finding, Fix
from torchdoctor.redact import Redactor, mark_unredacted, redact_report, redaction_summary
from torchdoctor.model.report import Report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# Real-looking, never real. Each must vanish from every output.
GH_TOKEN = "ghp_" + "R8x2LmQ9vTz4KpW7nYb3Jc6Hd1Fs5Ga0Ue8Xo"
GH_PAT = "github_pat_11ABCDEFG0" + "x" * 60
HF_TOKEN = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNm12345678"
OPENAI_KEY = "sk-proj-" + "Zx9Yw8Vu7Ts6Rq5Po4Nm3Lk2Ji1Hg0FeDcBa"
AWS_KEY = "AKIAIOSFODNN7EXAMPL3"
JWT = ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFsaWNlIn0."
       "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c")
URL_PASSWORD = "hunter2-S3cret"
URL_WITH_CREDS = "https://bob.builder:%s@pypi.internal.example.com/simple" % URL_PASSWORD
PLAIN_PASSWORD = "correct-horse-battery-staple"  # only its variable's name says it is secret
USER = "alice.smith"
HOST = "gpu-box-17.corp.example.net"
IPV4 = "10.20.30.40"
PUBLIC_IP = "203.0.113.77"
IPV6 = "2001:db8:85a3::8a2e:370:7334"
GPU_UUID = "GPU-6a6a4bb0-1b2c-3d4e-5f60-718293a4b5c6"
EMAIL = "alice.smith@example.org"
SERIAL = "1562420012345"

SECRETS = [GH_TOKEN, GH_PAT, HF_TOKEN, OPENAI_KEY, AWS_KEY, JWT, URL_PASSWORD, PLAIN_PASSWORD, USER, HOST,
           HOST.split(".")[0], IPV4, PUBLIC_IP, IPV6, GPU_UUID, EMAIL, SERIAL, "6a6a4bb0-1b2c"]


def planted_report() -> Report:
    facts = Facts({
        "schema_version": 1,
        "tool": {"name": "torchdoctor", "version": "0"},
        "source": "probe",
        "probe": {"python": "/home/%s/venvs/ml/bin/python" % USER, "completed": True,
                  "stderr_tail": "Traceback: connecting to %s (%s) as %s failed, token=%s" % (HOST, PUBLIC_IP, EMAIL, GH_TOKEN)},
        "python": {"version": "3.11.7", "executable": "/home/%s/venvs/ml/bin/python" % USER,
                   "sys_path": ["/home/%s/venvs/ml/lib/python3.11/site-packages" % USER,
                                "C:\\Users\\%s\\AppData\\Roaming\\Python" % USER, "/Users/%s/src" % USER]},
        "os": {"system": "Linux", "hostname": HOST, "distro": "Ubuntu 22.04.4 LTS"},
        "env": {
            "HF_TOKEN": HF_TOKEN, "PYTORCH_NOTE": AWS_KEY, "TORCH_JWT_FOR_HUB": JWT,
            "PIP_INDEX_URL": URL_WITH_CREDS, "KINETO_DB_PASSWORD": PLAIN_PASSWORD, "MASTER_ADDR": IPV4,
            "NCCL_SOCKET_ADDR": IPV6, "CUDA_VISIBLE_DEVICES": GPU_UUID, "OPENAI_API_KEY": OPENAI_KEY,
            "TORCH_HOME": "/home/%s/.cache/torch" % USER, "GH_PAT_HOLDER": GH_PAT,
            "CUDNN_VERSION": "8.9.7.29", "NV_CUDNN_PACKAGE": "libcudnn8=8.9.0.131-1+cuda12.1",
            "NCCL_COMM_HOST": HOST.split(".")[0] + ":29500", "LOCAL_RANK": "0",
        },
        "driver": {"present": True, "driver_version": "535.104.05",
                   "gpus": [{"index": 0, "name": "NVIDIA A100-SXM4-80GB", "uuid": GPU_UUID, "serial": SERIAL}]},
        "packages": {"installed": {"nvidia-cudnn-cu12": {"version": "8.9.2.26", "location": "/home/%s/x" % USER}}},
    })
    findings = [Finding(
        id="planted", category="config", severity="warning", title="%s on %s cannot reach %s" % (USER, HOST, IPV4),
        detail="The hub token %s and %s in /home/%s/.netrc; mail %s" % (HF_TOKEN, URL_WITH_CREDS, USER, EMAIL),
        fix=Fix(summary="Rotate %s" % OPENAI_KEY,
                commands=["export HF_TOKEN=%s" % HF_TOKEN, "curl -H 'Authorization: Bearer %s' https://%s/" % (JWT, HOST),
                          "ssh %s@%s" % (USER, PUBLIC_IP), "/home/%s/venvs/ml/bin/python -m pip install torch" % USER]),
        links=["https://%s:%s@git.example.com/repo" % (USER, URL_PASSWORD)])]
    return Report(facts, findings)


def renders(report: Report):
    from torchdoctor.verbs.report import render_report
    return {fmt: render_report(report, fmt) for fmt in ("markdown", "json", "text")}


def test_no_planted_secret_survives_any_format():
    report = planted_report()
    before = json.dumps(report.to_dict())
    for s in SECRETS:
        assert s in before or s in str([f.to_dict() for f in report.findings]), s  # planted for real
    red = redact_report(report)
    for fmt, text in renders(red).items():
        for s in SECRETS:
            assert s not in text, "%s leaked into %s" % (s, fmt)
        assert "<secret>" in text and "<user>" in text and "<host>" in text and "<ip>" in text, fmt
    assert json.dumps(report.to_dict()) == before, "redaction must not modify the original report"


def test_redaction_keeps_what_diagnosis_needs():
    red = redact_report(planted_report())
    f = red.facts
    assert f.value("env.CUDNN_VERSION") == "8.9.7.29"  # a version, not an IP address
    assert f.value("env.NV_CUDNN_PACKAGE") == "libcudnn8=8.9.0.131-1+cuda12.1"
    assert f.value("packages.installed.nvidia-cudnn-cu12.version") == "8.9.2.26"
    assert f.value("driver.driver_version") == "535.104.05"
    assert f.value("driver.gpus.0.name") == "NVIDIA A100-SXM4-80GB"
    assert f.value("env.LOCAL_RANK") == "0"
    assert f.value("python.executable") == "/home/<user>/venvs/ml/bin/python"
    assert f.value("os.hostname") == "<host>"
    assert f.value("env.KINETO_DB_PASSWORD") == "<secret>"
    assert f.value("env.PIP_INDEX_URL") == "https://<secret>@pypi.internal.example.com/simple"
    assert red.findings[0].id == "planted" and red.findings[0].severity == "warning"


def test_redaction_is_recorded_with_counts_only():
    red = redact_report(planted_report())
    rec = red.facts.value("redaction")
    assert rec["enabled"] is True
    counts = rec["counts"]
    for kind in ("secret", "user", "home_path", "hostname", "ip", "gpu_uuid", "email", "serial"):
        assert counts.get(kind, 0) >= 1, kind
    assert all(isinstance(v, int) for v in counts.values())
    assert "Redacted:" in redaction_summary(red.facts)
    # Redacting twice changes nothing more and keeps the record.
    again = redact_report(red)
    assert again.facts.value("env") == red.facts.value("env")
    assert again.facts.value("redaction.enabled") is True


def test_no_redact_says_so():
    rep = mark_unredacted(planted_report())
    assert rep.facts.value("redaction.enabled") is False
    for fmt, text in renders(rep).items():
        assert "NOT REDACTED" in text or '"enabled": false' in text, fmt
        assert HF_TOKEN in text  # nothing was hidden


@pytest.mark.parametrize("text,expected", [
    ("nvidia-cudnn-cu12==9.1.0.70", "nvidia-cudnn-cu12==9.1.0.70"),
    ("at 14:51:19 in c10::cuda::add", "at 14:51:19 in c10::cuda::add"),
    ("bind 0.0.0.0 and 127.0.0.1", "bind 0.0.0.0 and 127.0.0.1"),
    ("token is invalid", "token is invalid"),
    ("http://192.168.1.20:8000/x", "http://<ip>:8000/x"),
    ("10.0.0.0/8", "<ip>/8"),
    ("C:/Users/Bob/envs", "C:/Users/<user>/envs"),
    ("Authorization: Bearer abcdefghijklmnop1234567", "Authorization: Bearer <secret>"),
    ("--api-key abc123456xyz", "--api-key <secret>"),
    ("ssh://git:pw@host/x", "ssh://<secret>@host/x"),
])
def test_text_patterns(text, expected):
    assert Redactor().text(text) == expected


# -- the real command ----------------------------------------------------------------
def _fake_home_venv(tmp_path):
    """A venv reachable through /…/home/alice.smith/venv, so the user name is in real paths."""
    venv = tmp_path / "home" / USER / "venv"
    (venv / "bin").mkdir(parents=True)
    # A view of the test interpreter's own environment (where the `test` extra put torch).
    os.symlink(os.path.realpath(TORCH_PYTHON), str(venv / "bin" / "python"))
    os.symlink(os.path.join(sys.prefix, "lib"), str(venv / "lib"))
    cfg = os.path.join(sys.prefix, "pyvenv.cfg")
    with open(str(venv / "pyvenv.cfg"), "w") as dst:
        if os.path.exists(cfg):  # the test venv: the same home, the same site-packages
            with open(cfg) as src:
                dst.write(src.read())
        else:  # a plain interpreter: its own site-packages through the system ones
            dst.write("home = %s\ninclude-system-site-packages = true\n" % os.path.dirname(os.path.realpath(TORCH_PYTHON)))
    return str(venv / "bin" / "python")


def _run_report(python, fmt, extra_env, *args):
    env = dict(os.environ)
    env.update(extra_env)
    env["PYTHONPATH"] = ROOT + os.pathsep + extra_env.get("PYTHONPATH", "")
    return subprocess.run([sys.executable, "-m", "torchdoctor", "report", "--python", python, "--format", fmt]
                          + list(args), capture_output=True, text=True, env=env, timeout=180, cwd=ROOT)


PLANTED_ENV = {
    "PYTORCH_HF_TOKEN": HF_TOKEN,
    "TORCH_HUB_AUTH": GH_TOKEN,
    "TORCHINDUCTOR_REMOTE_CACHE_URL": URL_WITH_CREDS,
    "KINETO_PASSWORD": PLAIN_PASSWORD,
    "TORCH_NOTE": AWS_KEY,
    "TRITON_JWT": JWT,
    "OMP_SECRET_HOLDER": OPENAI_KEY,
    "MASTER_ADDR": PUBLIC_IP,
    "NCCL_SOCKET_ADDR": IPV6,
    "CUDA_VISIBLE_DEVICES": GPU_UUID,
    "TORCH_OWNER": EMAIL,
    "TRITON_CACHE_DIR": "/home/%s/.triton" % USER,
    "PYTHONPATH": "/home/%s/projects/secret-model" % USER,
    # A finding whose fix runs the interpreter, so the user name reaches a fix command too.
    "KMP_DUPLICATE_LIB_OK": "TRUE",
}


@pytest.fixture(scope="module")
def real_reports(tmp_path_factory):
    python = _fake_home_venv(tmp_path_factory.mktemp("fakehome"))
    out = {}
    for fmt in ("markdown", "json", "text"):
        r = _run_report(python, fmt, PLANTED_ENV)
        assert r.returncode == 0, r.stderr
        out[fmt] = r.stdout
    raw = _run_report(python, "json", PLANTED_ENV, "--no-redact")
    assert raw.returncode == 0, raw.stderr
    out["unredacted"] = raw.stdout
    return out


@needs_torch
def test_real_report_planted_secrets_reach_the_facts(real_reports):
    """Without redaction they are there: the test below can fail."""
    raw = real_reports["unredacted"]
    for s in (HF_TOKEN, GH_TOKEN, URL_PASSWORD, PLAIN_PASSWORD, AWS_KEY, JWT, OPENAI_KEY, PUBLIC_IP, GPU_UUID,
              EMAIL, "/home/%s/" % USER):
        assert s in raw, s
    data = json.loads(raw)
    assert data["facts"]["redaction"]["enabled"] is False
    assert USER in data["facts"]["python"]["executable"]
    assert any(USER in c for f in data["findings"] for c in f["fix"]["commands"]), "a finding carries the path"


@needs_torch
@pytest.mark.parametrize("fmt", ["markdown", "json", "text"])
def test_real_report_redacts_every_format(real_reports, fmt):
    text = real_reports[fmt]
    for s in (HF_TOKEN, GH_TOKEN, URL_PASSWORD, PLAIN_PASSWORD, AWS_KEY, JWT, OPENAI_KEY, PUBLIC_IP, IPV6, GPU_UUID,
              EMAIL, USER):
        assert s not in text, "%s leaked into %s" % (s, fmt)
    host = platform.node()
    if host and len(host) >= 3 and host.lower() not in ("localhost",):
        assert host not in text, "host name leaked into %s" % fmt
    assert "<user>" in text and "<secret>" in text


@needs_torch
def test_real_report_json_records_redaction(real_reports):
    data = json.loads(real_reports["json"])
    red = data["facts"]["redaction"]
    assert red["enabled"] is True and red["counts"]["secret"] >= 6
    assert data["facts"]["env"]["KINETO_PASSWORD"] == "<secret>"
    assert data["facts"]["env"]["MASTER_ADDR"] == "<ip>"
    assert data["facts"]["python"]["executable"].count("<user>") == 1


def test_common_word_host_and_user_names_do_not_eat_the_report():
    """A host called 'ubuntu' and a user called 'root' stay hidden where they are, and nowhere else."""
    rep = Report(Facts({"schema_version": 1, "os": {"hostname": "ubuntu", "distro": "Ubuntu 22.04.4 LTS"},
                        "python": {"executable": "/root/venv/bin/python"},
                        "driver": {"gpus": [{"name": "NVIDIA DGX Spark"}]}}), [])
    red = redact_report(rep, extra_users=["root"], extra_hosts=["ubuntu", "dgx"])
    assert red.facts.value("os.hostname") == "<host>"
    assert red.facts.value("os.distro") == "Ubuntu 22.04.4 LTS"
    assert red.facts.value("python.executable") == "/root/venv/bin/python"
    assert red.facts.value("driver.gpus.0.name") == "NVIDIA DGX Spark"


# Every text a finding carries is redacted, and what is not text (its id, severity, confidence,
# the check's id) survives: a report once lost each finding's evidence, confidence and verify.
NOT_TEXT = {"id": "cpu-only-build", "category": "cpu-only-build", "severity": "error",
            "check": "cpu-only-build", "confidence": "possible"}


def _finding_with_a_secret_in_every_text(secret):
    import typing

    from torchdoctor.model import records
    from torchdoctor.model.findings import Verify
    kw = {}
    for f in records.fields(Finding):
        hint = typing.get_type_hints(Finding)[f.name]
        if f.name in NOT_TEXT:
            kw[f.name] = NOT_TEXT[f.name]
        elif hint is str:
            kw[f.name] = "see %s here" % secret
        elif hint == typing.List[str]:
            kw[f.name] = ["first %s" % secret, "second %s" % secret]
        elif hint is Fix:
            kw[f.name] = Fix(summary="use %s" % secret, commands=["export T=%s" % secret])
        elif hint == typing.Optional[Verify]:
            kw[f.name] = Verify(command="echo %s" % secret, expect="prints %s" % secret)
        else:
            raise AssertionError("Finding.%s (%s) is new: teach redact_report and this test about it" % (f.name, hint))
    return Finding(**kw)


def test_every_text_of_a_finding_is_redacted_and_the_rest_kept():
    secret = "ghp_" + "A1b2C3d4" * 4 + "E5f6"
    finding = _finding_with_a_secret_in_every_text(secret)
    out = redact_report(Report(Facts({"schema_version": 1}), [finding])).findings[0]
    dumped = json.dumps(out.to_dict())
    assert secret not in dumped
    assert {k: getattr(out, k) for k in NOT_TEXT} == NOT_TEXT
    assert len(out.evidence) == 2 and out.verify is not None and out.verify.command.startswith("echo ")
