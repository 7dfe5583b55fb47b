"""torchdoctor diff A B: reports and pastes, "works on my machine"."""

import copy
import json
import os
import subprocess
import sys

import pytest

from torchdoctor.verbs.diff import diff_reports, load_any, render_diff_text
from torchdoctor.model.facts import Facts
from torchdoctor.diagnose import diagnose
from torchdoctor.verbs.triage import TriageError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "collect_env")

BASE = {
    "schema_version": 1, "source": "probe", "tool": {"name": "torchdoctor", "version": "0"},
    "probe": {"completed": True, "last_stage": "done"},
    "torch_import": {"ok": True},
    "torch": {"version": "2.5.1+cu121", "cuda": "12.1", "hip": {"_absent": "not built with it"}, "debug": False},
    "cuda": {"is_available": True, "device_count": 1, "arch_list": ["sm_50", "sm_80", "sm_86", "sm_90"]},
    "backends": {"cudnn": {"is_available": True, "version": 90100, "enabled": True, "benchmark": False}},
    "driver": {"present": True, "driver_version": "550.54.14", "cuda_driver_version": "12.4",
               "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 4090", "capability": [8, 9]}]},
    "os": {"system": "Linux", "distro": "Ubuntu 22.04.4 LTS", "machine": "x86_64", "release": "6.5.0-41-generic"},
    "python": {"version": "3.11.9", "implementation": "CPython", "executable": "/usr/bin/python3"},
    "packages": {"installed": {"torch": {"version": "2.5.1+cu121"}, "torchvision": {"version": "0.20.1+cu121"},
                               "numpy": {"version": "1.26.4"}, "triton": {"version": "3.1.0"}}},
    "env": {"CUDA_VISIBLE_DEVICES": {"_absent": "not set"}, "OMP_NUM_THREADS": "8"},
}


def write_report(tmp_path, name, data):
    rep = diagnose(Facts(copy.deepcopy(data)))
    p = tmp_path / name
    p.write_text(json.dumps(rep.to_dict(), default=str))
    return str(p)


def other_machine():
    b = copy.deepcopy(BASE)
    b["torch"].update(version="2.5.1+cpu", cuda={"_absent": "not built with it"})
    b["cuda"].update(is_available=False, device_count=0)
    b["backends"]["cudnn"].update(is_available=False, version=None)
    b["driver"]["driver_version"] = "535.104.05"
    b["packages"]["installed"]["torch"]["version"] = "2.5.1+cpu"
    b["packages"]["installed"]["torchvision"]["version"] = "0.20.1+cpu"
    del b["packages"]["installed"]["triton"]
    b["env"]["CUDA_VISIBLE_DEVICES"] = "1"
    del b["env"]["OMP_NUM_THREADS"]
    return b


def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "torchdoctor"] + list(args), capture_output=True, text=True,
                          env=env, timeout=120, cwd=ROOT)


def test_diff_finds_torch_cuda_driver_packages_env_findings(tmp_path):
    a = write_report(tmp_path, "a.json", BASE)
    b = write_report(tmp_path, "b.json", other_machine())
    d = diff_reports(load_any(a), load_any(b), a, b)
    got = {(c.area, c.key): (c.a, c.b) for c in d.changes}
    assert got[("torch", "version")] == ("2.5.1+cu121", "2.5.1+cpu")
    assert got[("torch", "CUDA build")] == ("12.1", "(none)")
    assert got[("CUDA", "torch.cuda.is_available()")] == ("yes", "no")
    assert got[("driver", "NVIDIA driver")] == ("550.54.14", "535.104.05")
    assert got[("cuDNN", "loaded by torch")] == ("90100", "(none)")
    assert got[("packages", "torchvision")] == ("0.20.1+cu121", "0.20.1+cpu")
    assert got[("packages", "triton")] == ("3.1.0", "(not installed)")
    assert got[("env", "CUDA_VISIBLE_DEVICES")] == ("(unset)", "1")
    assert got[("env", "OMP_NUM_THREADS")] == ("8", "(unset)")
    assert ("packages", "numpy") not in got and ("OS", "distribution") not in got
    assert any(f["id"] == "cpu-only-build" for f in d.findings_only_b)
    assert ("findings", "cpu-only-build") in got
    text = render_diff_text(d)
    assert "2.5.1+cu121" in text and "->" in text and "difference(s)" in text


def test_identical_reports_and_json_vs_markdown_of_the_same(tmp_path):
    from torchdoctor.verbs.report import render_report
    a = write_report(tmp_path, "a.json", BASE)
    md = tmp_path / "a.md"
    md.write_text(render_report(diagnose(Facts(copy.deepcopy(BASE))), "markdown"))
    d = diff_reports(load_any(a), load_any(str(md)))
    assert d.changes == [] and d.same > 10
    r = run_cli("diff", a, str(md))
    assert r.returncode == 0, r.stderr
    assert "No differences" in r.stdout


def test_cli_diff_exit_code_and_json(tmp_path):
    a = write_report(tmp_path, "a.json", BASE)
    b = write_report(tmp_path, "b.json", other_machine())
    r = run_cli("diff", a, b, "--json")
    assert r.returncode == 1, r.stderr
    out = json.loads(r.stdout)
    assert out["schema_version"] == 1 and out["a"]["format"] == "json-report"
    assert {"area": "torch", "key": "version", "a": "2.5.1+cu121", "b": "2.5.1+cpu"} in out["changes"]
    assert any(f["id"] == "cpu-only-build" for f in out["findings"]["only_b"])


def test_report_against_a_paste_marks_unknowns_not_comparable(tmp_path):
    a = write_report(tmp_path, "a.json", BASE)
    paste = os.path.join(FIXTURES, "torch2.4_wsl2_rtx4070.txt")  # no package list in this paste
    d = diff_reports(load_any(a), load_any(paste))
    keys = {(c.area, c.key) for c in d.changes}
    assert ("torch", "version") in keys and ("driver", "NVIDIA driver") in keys and ("driver", "GPUs") in keys
    assert not any(c.area == "packages" for c in d.changes), "the paste says nothing about packages"
    assert any(c.area == "packages" for c in d.not_comparable)


def test_two_pastes_of_different_eras():
    d = diff_reports(load_any(os.path.join(FIXTURES, "torch1.1_linux_cuda9_rtx2060.txt")),
                     load_any(os.path.join(FIXTURES, "torch2.6_rtx5090_sm120_warning.txt")))
    got = {(c.area, c.key): (c.a, c.b) for c in d.changes}
    assert got[("torch", "version")] == ("1.1.0", "2.6.0+cu126")
    assert got[("torch", "CUDA build")] == ("9.0.176", "12.6")
    assert got[("python", "version")] == ("3.6", "3.12.9")


def test_show_all_compares_every_fact(tmp_path):
    a = write_report(tmp_path, "a.json", BASE)
    b2 = copy.deepcopy(BASE)
    b2["backends"]["cudnn"]["enabled"] = False
    b2["backends"]["cudnn"]["benchmark"] = True
    b2["cuda"]["nccl_version"] = "2.21.5"
    b = write_report(tmp_path, "b.json", b2)
    keys = {(c.area, c.key) for c in diff_reports(load_any(a), load_any(b)).changes}
    assert ("cuDNN", "enabled") in keys and ("all", "backends.cudnn.benchmark") not in keys
    d = diff_reports(load_any(a), load_any(b), show_all=True)
    keys = {(c.area, c.key) for c in d.changes}
    assert ("cuDNN", "enabled") in keys and ("all", "backends.cudnn.benchmark") in keys
    # Known on one side only: not a difference, but listed.
    assert ("CUDA", "NCCL") not in keys and ("CUDA", "NCCL") in {(c.area, c.key) for c in d.not_comparable}


@pytest.mark.parametrize("content,message", [
    (b"", "empty"),
    (b"not a report, just words\n", "no collect_env output"),
    (b'{"other": "tool"}', "not a torchdoctor report"),
    (b"\x00\x01\x02binary" * 50, "binary"),
    (b"RuntimeError: CUDA error: no kernel image is available for execution on the device\n", "only error text"),
])
def test_cli_bad_input(tmp_path, content, message):
    good = write_report(tmp_path, "good.json", BASE)
    bad = tmp_path / "bad"
    bad.write_bytes(content)
    r = run_cli("diff", good, str(bad))
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1 and message in r.stderr, r.stderr


def test_missing_file():
    with pytest.raises(TriageError):
        load_any("/nonexistent/report.json")
    r = run_cli("diff", "/nonexistent/a.json", "/nonexistent/b.json")
    assert r.returncode == 2 and "no such file" in r.stderr


def test_collect_env_lists_only_some_packages(tmp_path):
    # collect_env lists only packages whose names hold torch/numpy/... : a package it never
    # lists (psutil) is "not listed", not "not installed"; one it always lists (numpy,
    # torch*) and that is missing really is absent.
    data = copy.deepcopy(BASE)
    data["packages"]["installed"]["psutil"] = {"version": "5.9.8"}
    data["packages"]["installed"]["torchaudio"] = {"version": "2.5.1+cu121"}
    a = write_report(tmp_path, "a.json", data)
    d = diff_reports(load_any(a), load_any(os.path.join(FIXTURES, "torch1.1_linux_cuda9_rtx2060.txt")))
    changed = {c.key: (c.a, c.b) for c in d.changes if c.area == "packages"}
    unknown = {c.key: (c.a, c.b) for c in d.not_comparable if c.area == "packages"}
    assert changed["torchaudio"] == ("2.5.1+cu121", "(not installed)")
    assert changed["numpy"] == ("1.26.4", "1.18.0")
    assert unknown["psutil"] == ("5.9.8", "(not listed)")
    assert "psutil" not in changed


def test_a_name_an_older_listing_did_not_cover_is_not_listed_there(tmp_path):
    # a report made before pyarrow joined the listing (rules 2) against one that lists it: not comparable, not
    # "installed since"; a name both rules cover, missing from the old listing, is still absent there
    old = copy.deepcopy(BASE)
    old["packages"]["reported"] = 2
    new = copy.deepcopy(BASE)
    new["packages"]["reported"] = 3
    new["packages"]["installed"]["pyarrow"] = {"version": "15.0.0"}
    new["packages"]["installed"]["xformers"] = {"version": "0.0.28"}
    d = diff_reports(load_any(write_report(tmp_path, "a.json", old)), load_any(write_report(tmp_path, "b.json", new)))
    unknown = {c.key: (c.a, c.b) for c in d.not_comparable if c.area == "packages"}
    changed = {c.key: (c.a, c.b) for c in d.changes if c.area == "packages"}
    assert unknown["pyarrow"] == ("(not listed)", "15.0.0") and "pyarrow" not in changed
    assert changed["xformers"] == ("(not installed)", "0.0.28")
