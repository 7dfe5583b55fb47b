"""The command line as users run it: real processes, real exit codes."""

import json
import re
import os
import subprocess
import sys

import pytest

from fakes import fake_torch

PY = sys.executable


def run(*args, input=None, env=None, cwd=None, timeout=180):
    e = dict(os.environ)
    e.pop("NO_COLOR", None)
    if env:
        e.update(env)
    p = subprocess.run([PY, "-m", "torchdoctor"] + list(args), input=input, capture_output=True,
                       env=e, cwd=cwd, timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="module")
def check_json():
    rc, out, err = run("check", "--json")
    return rc, json.loads(out), err


def test_check_json_contract(check_json):
    rc, doc, err = check_json
    assert doc["schema_version"] == 1
    assert set(doc) == {"schema_version", "facts", "findings"}
    assert doc["facts"]["torch"]["version"].startswith("2.13.0")
    for f in doc["findings"]:
        assert set(f) >= {"id", "category", "severity", "title", "detail", "fix", "links"}
        assert set(f["fix"]) == {"summary", "commands", "resolved", "resolution"}
        assert f["fix"]["resolved"] in ("", "yes", "replaced", "no", "unverified")
        assert f["severity"] in ("error", "warning", "info")
    assert "Traceback" not in err


def test_check_flags_cpu_build_beside_the_toolkit(check_json):
    _, doc, _ = check_json
    nvcc = doc["facts"]["toolkit"].get("nvcc")
    if not isinstance(nvcc, str):
        pytest.skip("no nvcc on this machine")
    f = next(f for f in doc["findings"] if f["id"] == "cpu-only-build")
    assert nvcc in f["title"] and "CPU-only" in f["title"]
    if doc["facts"]["driver"].get("pci_gpus") or doc["facts"]["driver"].get("present"):
        assert any("pip install torch==2.13.0" in c for c in f["fix"]["commands"])
    else:  # no GPU at all: a note for later, nothing to run here
        assert f["severity"] == "info" and f["fix"]["commands"] == [] and "cu1" in f["fix"]["summary"]


def test_check_text_has_every_section_and_backend_rows():
    rc, out, err = run("check", "--no-color")
    for section in ("Python & OS", "torch build", "torch.backends", "GPU & driver", "Companion packages", "Configuration"):
        assert section in out
    for backend in ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum", "xnnpack", "nnpack", "cpu"):
        assert re.search(r"^  \S %s +\S" % backend, out, re.M), backend
    assert "\x1b[" not in out  # not a TTY: no colour


def test_fail_on_controls_the_exit_code(tmp_path):
    root = fake_torch(tmp_path, version="2.4.1+cpu", cuda=None)
    env = {"PYTHONPATH": root, "CUBLAS_WORKSPACE_CONFIG": ":4096:8"}
    rc_never, _, _ = run("check", "--fail-on", "never", env=env)
    assert rc_never == 0
    rc_info, out, _ = run("check", "--fail-on", "info", "--json", env=env)
    doc = json.loads(out)
    assert rc_info == (1 if doc["findings"] else 0)


def test_only_and_skip(tmp_path):
    rc, out, _ = run("check", "--json", "--only", "torch-shadowed,python-unsupported")
    assert {f["check"] for f in json.loads(out)["findings"]} <= {"torch-shadowed", "python-unsupported"}
    rc, out, _ = run("check", "--json", "--skip", "cpu-only-build")
    assert "cpu-only-build" not in {f["id"] for f in json.loads(out)["findings"]}


@pytest.mark.parametrize("args", [["check", "--only", "no-such-check"], ["check", "--timeout", "-1"],
                                  ["check", "--fail-on", "sometimes"], ["check", "--from", "/nonexistent.json"]])
def test_usage_errors_exit_2_without_traceback(args):
    rc, out, err = run(*args)
    assert rc == 2
    assert "Traceback" not in err and err.strip()


def test_list_checks():
    rc, out, _ = run("check", "--list-checks")
    assert rc == 0
    for cid in ("cpu-only-build", "no-gpu-driver", "driver-too-old", "arch-unsupported", "gpu-hidden", "torch-shadowed"):
        assert cid in out
    # one column per field, however long the longest id (expandable-segments-unsupported)
    rows = [ln for ln in out.splitlines() if ln.strip()]
    import re
    starts = {re.match(r"\S+ +(error|warning|info) ", ln).start(1) for ln in rows}
    assert len(starts) == 1, starts


def test_check_from_saved_report_uses_the_report_not_this_machine(tmp_path, check_json):
    _, doc, _ = check_json
    doc["facts"]["torch"]["version"] = "2.4.1+cu124"
    doc["facts"]["torch"]["cuda"] = "12.4"
    doc["facts"]["torch"]["local_tag"] = "cu124"
    doc["facts"]["driver"] = {"present": True, "driver_version": "470.82.01", "cuda_driver_version": "11.4",
                              "gpus": [{"index": 0, "name": "Tesla T4", "capability": [7, 5]}]}
    path = tmp_path / "report.json"
    path.write_text(json.dumps(doc))
    rc, out, err = run("check", "--from", str(path), "--json")
    found = {f["id"] for f in json.loads(out)["findings"]}
    assert "driver-too-old" in found
    assert rc == 1


# ---------------------------------------------------------------- explain --
@pytest.mark.parametrize("args, words", [
    (["chekc"], "no such command 'chekc'; did you mean check? (see `torchdoctor --help`)"),
    (["check", "--bogus"], "(see `torchdoctor check --help`)"),
    (["report", "--format", "yaml"], "(see `torchdoctor report --help`)"),
])
def test_click_usage_errors_are_one_line(args, words):
    rc, out, err = run(*args)
    assert rc == 2 and out == "" and err.startswith("torchdoctor: error: ") and words in err, err
    assert len(err.splitlines()) == 1, err


def test_no_kernel_image_verify_says_when_it_cannot_verify_here(tmp_path):
    """Its verify command runs on a machine without a GPU too, and says it cannot verify there
    rather than failing as if the fix had not worked."""
    rc, out, _ = run("explain", "--json", "RuntimeError: CUDA error: no kernel image is available for execution on "
                     "the device")
    verify = json.loads(out)["matches"][0]["verify"]
    assert verify and verify["expect"] == "1.0", verify
    r = subprocess.run(verify["command"], shell=True, capture_output=True, text=True, timeout=180, cwd=str(tmp_path))
    if "No module named 'torch'" in r.stderr:
        pytest.skip("the interpreter the command names has no torch")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.strip() == "1.0" or "not verifiable here" in r.stdout, r.stdout


def test_explain_text_argument():
    rc, out, err = run("explain", "AssertionError: Torch not compiled with CUDA enabled")
    assert rc == 0
    assert "torch-not-compiled-with-cuda" in out and "Fix:" in out


def test_explain_stdin_and_file(tmp_path):
    log = "epoch 1\r\n\x1b[31mRuntimeError: Torch not compiled with CUDA enabled\x1b[0m\r\n"
    rc, out, _ = run("explain", "-", input=log.encode())
    assert rc == 0 and "line 2" in out
    p = tmp_path / "train.log"
    p.write_bytes(log.encode("utf-16"))  # what PowerShell's `>` writes
    rc, out, _ = run("explain", "--file", str(p), "--json")
    m = json.loads(out)["matches"][0]
    assert m["id"] == "torch-not-compiled-with-cuda" and m["line"] == 2


def test_explain_json_contract():
    rc, out, _ = run("explain", "--json", "AssertionError: Torch not compiled with CUDA enabled")
    doc = json.loads(out)
    assert doc["schema_version"] == 1
    m = doc["matches"][0]
    assert {"id", "category", "title", "cause", "fix", "links", "line", "count", "score"} <= set(m)
    assert set(m["fix"]) == {"summary", "commands"}


def test_explain_nothing_recognised_exits_1():
    rc, out, _ = run("explain", "KeyError: 'learning_rate'")
    assert rc == 1 and "No known" in out


@pytest.mark.parametrize("args,stdin", [(["explain", "   "], None), (["explain", "-"], b""),
                                        (["explain", "--file", "/nonexistent/log"], None),
                                        (["explain", "--file", "/tmp"], None)])
def test_explain_bad_input_exits_2(args, stdin):
    rc, out, err = run(*args, input=stdin)
    assert rc == 2 and "Traceback" not in err and err.strip().count("\n") == 0


def test_explain_list_and_show_entry():
    rc, out, _ = run("explain", "--list")
    assert rc == 0 and "torch-not-compiled-with-cuda" in out
    rc, out, _ = run("explain", "torch-not-compiled-with-cuda")
    assert rc == 0 and "Sources:" in out


def test_explain_no_env_gives_the_generic_fix():
    rc, out, _ = run("explain", "--no-env", "--json", "AssertionError: Torch not compiled with CUDA enabled")
    m = json.loads(out)["matches"][0]
    assert m["tailored"] is False and m["facts_used"] == []


def test_explain_does_not_import_torch():
    code = ("import sys, runpy; sys.argv=['torchdoctor','explain','--json','Torch not compiled with CUDA enabled'];"
            "import torchdoctor.cli as c\ntry:\n c.main()\nexcept SystemExit:\n pass\n"
            "sys.stderr.write('TORCH_IMPORTED=%s' % ('torch' in sys.modules))")
    p = subprocess.run([PY, "-c", code], capture_output=True, timeout=60)
    assert b"TORCH_IMPORTED=False" in p.stderr
