"""`torchdoctor report` end to end (the real probe against the cpu venv), the
Markdown layout, parity with torch.utils.collect_env, `check --from` and the
facts -> JSON -> facts round trip."""

import json
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from conftest import TORCH_PYTHON, needs_torch
from torchdoctor.model.facts import Facts
from torchdoctor.render import collect_env_view as CE
from torchdoctor.diagnose import diagnose
from torchdoctor.model.report import Report
from torchdoctor.gather.saved import facts_from_markdown, facts_from_report, load_report_facts

pytestmark = needs_torch
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run_cli(*args, env_extra=None, input=None, timeout=180):
    env = dict(os.environ)
    env.update(env_extra or {})
    env["PYTHONPATH"] = ROOT + (os.pathsep + env_extra["PYTHONPATH"] if env_extra and "PYTHONPATH" in env_extra else "")
    return subprocess.run([sys.executable, "-m", "torchdoctor"] + list(args), capture_output=True, text=True,
                          env=env, timeout=timeout, cwd=ROOT, input=input)


FAKE_TORCH = {
    "torch/__init__.py": """
        __version__ = "2.5.1+cu121"
        from . import version, cuda, backends
        """,
    "torch/version.py": """
        __version__ = "2.5.1+cu121"
        cuda = "12.1"
        hip = None
        debug = False
        git_version = "a8d6afb511a69687bbb2b7e88a3cf67917e1697e"
        """,
    "torch/cuda/__init__.py": """
        def is_available():
            return False
        def device_count():
            return 0
        def get_arch_list():
            return []
        """,
    "torch/backends/__init__.py": "",
    "torch/backends/cudnn.py": """
        enabled = True
        benchmark = False
        deterministic = False
        def is_available():
            return True
        def version():
            return 90100
        """,
}


@pytest.fixture(scope="module")
def fake_torch_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("faketorch")
    for rel, body in FAKE_TORCH.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(textwrap.dedent(body))
    return str(root)


@pytest.fixture(scope="module")
def markdown_report(tmp_path_factory):
    out = tmp_path_factory.mktemp("md") / "report.md"
    r = run_cli("report", "--python", TORCH_PYTHON, "--output", str(out))
    assert r.returncode == 0, r.stderr
    assert "wrote" in r.stderr and r.stdout == ""
    return out.read_text(encoding="utf-8")


# -- Markdown ------------------------------------------------------------------------
def test_markdown_summary_findings_details(markdown_report):
    md = markdown_report
    lines = md.splitlines()
    assert lines[0] == "## torchdoctor report"
    head = "\n".join(lines[:20])
    for label in ("torch", "CUDA build", "GPU(s)", "NVIDIA driver", "cuDNN", "OS", "Python", "Findings"):
        assert "| **%s** |" % label in head, label
    assert "| **torch** | 2.13.0+cpu |" in head
    assert "| **CUDA build** | none (CPU-only build) |" in head
    assert md.index("### Findings") < md.index("### Details") < md.index("<details>")
    assert md.count("<details>") == md.count("</details>") >= 8
    assert "Redacted:" in head
    # Every <summary> section the terminal shows is there, plus collect_env's layout and the raw facts.
    for title in ("Python &amp; OS", "torch build", "torch.backends", "GPU &amp; driver", "Companion packages",
                  "Configuration", "collect\\_env fields", "Raw facts"):
        assert "<summary>%s" % title in md, title
    assert len(md) < 65536, "GitHub rejects issue bodies over 65536 characters"


def test_markdown_facts_block_reads_back(markdown_report, tmp_path):
    facts = facts_from_markdown(markdown_report, "report.md")
    assert facts.value("torch.version") == "2.13.0+cpu"
    assert facts.value("redaction.enabled") is True
    p = tmp_path / "r.md"
    p.write_text(markdown_report, encoding="utf-8")
    assert load_report_facts(str(p)).to_dict() == facts.to_dict()


def _collect_env_output():
    r = subprocess.run([TORCH_PYTHON, "-m", "torch.utils.collect_env"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_report_carries_every_collect_env_field(markdown_report):
    """Field by field against the real torch.utils.collect_env of the same interpreter."""
    from torchdoctor.gather.paste.collect_env import parse
    from torchdoctor.gather.paste.fields import LABELS, split_fields
    theirs_text = _collect_env_output()
    block = markdown_report.split("<summary>collect\\_env fields", 1)[1].split("```text\n", 1)[1].split("\n```", 1)[0]
    theirs, _, _, _ = split_fields(theirs_text)
    ours, _, _, _ = split_fields(block)
    assert len(theirs) >= 20
    missing = sorted(set(theirs) - set(ours))
    assert not missing, "collect_env fields the report lacks: %s" % missing
    for label, field_name, _path in CE.FIELDS:
        assert label.lower() in LABELS, label
    # The facts both say must agree.
    a, b = Facts(parse(theirs_text).facts), Facts(parse(block).facts)
    for path in ("torch.version", "torch.debug", "torch.cuda", "torch.hip", "os.system", "os.distro", "os.machine",
                 "os.libc", "os.release", "python.version", "python.sys_version", "python.bits", "cuda.is_available",
                 "toolkit.nvcc_full", "build_tools.gcc", "build_tools.clang", "build_tools.cmake",
                 "accelerators.xpu.is_available", "backends.xnnpack.enabled", "driver.driver_version", "cpu.model",
                 "cpu.logical_cores"):
        assert a.state(path) == b.state(path), path
        assert a.value(path) == b.value(path), path
    theirs_pkgs = a.value("packages.installed")
    ours_pkgs = b.value("packages.installed")
    for name, rec in theirs_pkgs.items():
        if isinstance(rec, dict) and "version" in rec:
            assert ours_pkgs.get(name, {}).get("version") == rec["version"], name


def test_markdown_over_githubs_limit_leaves_the_raw_facts_out():
    from torchdoctor.render.markdown import GITHUB_LIMIT, render_markdown
    big = Facts({"schema_version": 1, "source": "probe", "cpu": {"model": "x", "lscpu": "Flags: " + "avx " * 20000}})
    md = render_markdown(Report(big, []))
    assert "torchdoctor:facts" not in md and "Raw facts left out" in md
    small = render_markdown(Report(Facts({"schema_version": 1, "source": "probe"}), []))
    assert "torchdoctor:facts" in small and len(small) < GITHUB_LIMIT


# -- JSON, check --from, round trip ------------------------------------------------------
def _findings(report):
    return [f.to_dict() for f in report.findings]


def test_round_trip_facts_json_facts_same_findings(fake_torch_dir, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", fake_torch_dir)
    from torchdoctor.gather.probe import gather
    facts = gather(python=TORCH_PYTHON, timeout=60)
    assert facts.value("torch.version") == "2.5.1+cu121", facts.describe("torch_import")
    r1 = diagnose(facts)
    ids = {f.id for f in r1.findings}
    assert "torch-shadowed" in ids and "no-gpu-driver" in ids, ids  # the fake torch gives real findings
    text = json.dumps(r1.to_dict(), default=str)
    r2 = diagnose(facts_from_report(json.loads(text), "saved"))
    assert _findings(r2) == _findings(r1)
    assert json.loads(json.dumps(r2.facts.to_dict(), default=str)) == json.loads(text)["facts"]


@pytest.fixture(scope="module")
def fake_torch_json(fake_torch_dir, tmp_path_factory):
    d = tmp_path_factory.mktemp("json")
    out = {}
    for name, extra in (("raw", ["--no-redact"]), ("redacted", [])):
        p = d / ("%s.json" % name)
        r = run_cli("report", "--python", TORCH_PYTHON, "--format", "json", "-o", str(p), *extra,
                    env_extra={"PYTHONPATH": fake_torch_dir})
        assert r.returncode == 0, r.stderr
        out[name] = str(p)
    return out


@pytest.mark.parametrize("which", ["raw", "redacted"])
def test_check_from_gives_the_reports_findings(fake_torch_json, which):
    saved = json.load(open(fake_torch_json[which]))
    r = run_cli("check", "--from", fake_torch_json[which], "--json", "--fail-on", "never")
    assert r.returncode == 0, r.stderr
    again = json.loads(r.stdout)
    assert [f["id"] for f in again["findings"]] == [f["id"] for f in saved["findings"]]
    if which == "raw":
        assert again["findings"] == saved["findings"]
    # This machine has the real cpu torch; the report's fake cu121 torch must win.
    assert again["facts"]["torch"]["version"] == "2.5.1+cu121"


def test_check_from_uses_the_reports_machine_not_this_one(fake_torch_json, tmp_path):
    data = json.load(open(fake_torch_json["raw"]))
    facts = data["facts"]
    facts["torch"]["version"] = "2.1.1+cpu"
    facts["torch"]["cuda"] = {"_absent": "not built with it"}
    facts["driver"].update({"present": True, "driver_version": "535.104.05", "cuda_driver_version": "12.2",
                            "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "capability": [8, 6]}]})
    p = tmp_path / "elsewhere.json"
    p.write_text(json.dumps(data))
    r = run_cli("check", "--from", str(p), "--json")
    assert r.returncode == 1, r.stderr  # an error-level finding
    found = {f["id"]: f for f in json.loads(r.stdout)["findings"]}
    assert "cpu-only-build" in found
    assert "RTX 3090" in found["cpu-only-build"]["detail"] and "535.104.05" in found["cpu-only-build"]["detail"]


def test_json_report_shape(fake_torch_json):
    data = json.load(open(fake_torch_json["redacted"]))
    assert data["schema_version"] == 1 and set(data) >= {"facts", "findings"}
    assert data["facts"]["redaction"]["enabled"] is True
    for key in ("build_tools", "system_libs"):
        assert key in data["facts"], key
    assert isinstance(data["facts"]["python"].get("sys_version"), str)


# -- --no-redact, --copy, --output ---------------------------------------------------------
def test_no_redact_is_stated_in_markdown():
    r = run_cli("report", "--python", TORCH_PYTHON, "--no-redact")
    assert r.returncode == 0, r.stderr
    assert "NOT REDACTED" in r.stdout.split("### Findings")[0]


def _fake_clipboard(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    sink = tmp_path / "clipboard.txt"
    script = bindir / "xclip"
    script.write_text("#!/bin/sh\ncat > '%s'\n" % sink)
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(bindir), sink


def test_copy_puts_the_report_on_the_clipboard(tmp_path):
    bindir, sink = _fake_clipboard(tmp_path)
    r = run_cli("report", "--python", TORCH_PYTHON, "--copy",
                env_extra={"PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "DISPLAY": ":0",
                           "WAYLAND_DISPLAY": ""})
    assert r.returncode == 0, r.stderr
    assert "copied the report to the clipboard (xclip" in r.stderr
    assert r.stdout == ""
    assert sink.read_text().startswith("## torchdoctor report")


def test_copy_without_a_clipboard_says_so_and_prints(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    env = {"PATH": str(empty), "DISPLAY": "", "WAYLAND_DISPLAY": "", "WSL_DISTRO_NAME": "", "WSL_INTEROP": ""}
    r = run_cli("report", "--python", TORCH_PYTHON, "--copy", env_extra=env)
    assert r.returncode == 0, r.stderr
    assert "no clipboard here" in r.stderr and "--output" in r.stderr
    assert r.stdout.startswith("## torchdoctor report")
    assert "Traceback" not in r.stderr


def test_output_into_missing_directory_is_an_input_error(tmp_path):
    r = run_cli("report", "--python", TORCH_PYTHON, "-o", str(tmp_path / "no" / "such" / "dir" / "r.md"))
    assert r.returncode == 2
    assert r.stderr.startswith("torchdoctor: error: cannot write") and "Traceback" not in r.stderr


# -- bad input to check --from -------------------------------------------------------------
@pytest.mark.parametrize("content,message", [
    (b"", "is empty"),
    (b"this is not json\n", "not a torchdoctor report"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00" + bytes(range(256)), "binary"),
    (b'{"schema_version": 99, "facts": {}}', "schema_version 99"),
    (b'{"name": "some-other-tool", "results": [1, 2]}', "not a torchdoctor report"),
    (b'[1, 2, 3]', "not a torchdoctor report"),
    (b'{"schema_version": 1, "facts": {"torch": ', "not JSON"),
    (b"## torchdoctor report\n<!-- torchdoctor:facts schema_version=1 -->\n```json\n{\"schema_", "cut off"),
])
def test_check_from_bad_input_is_one_line_and_exit_2(tmp_path, content, message):
    p = tmp_path / "bad"
    p.write_bytes(content)
    r = run_cli("check", "--from", str(p))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert message in r.stderr, r.stderr


def test_check_from_directory_and_missing_file(tmp_path):
    for path in (str(tmp_path), str(tmp_path / "missing.json")):
        r = run_cli("check", "--from", path)
        assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1
