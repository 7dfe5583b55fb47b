"""The pytest plugin for real: `python -m pytest` in a temp dir, with and without the plugin,
with xdist (-n 2) and -p no:cacheprovider; outcomes never change."""

import json
import os
import re
import subprocess
import sys
import textwrap


from conftest import needs_torch

TESTS = '''
import pytest

def test_env_error():
    raise RuntimeError("operator torchvision::nms does not exist")

def test_plain_assertion():
    assert 1 + 1 == 3

def test_fine():
    assert True

def test_known_text_in_code_is_not_an_error():
    # the error's words in the test's own source, not in any exception
    with pytest.raises(ValueError):
        raise ValueError("x")  # "CUDA out of memory. Tried to allocate 2.00 GiB"
    assert False, "plain failure"

@pytest.fixture
def broken_setup():
    raise ImportError("libcudnn.so.9: cannot open shared object file: No such file or directory")

def test_setup_error(broken_setup):
    pass
'''


def pytest_in(tmp_path, *args, files=None, timeout=300, env=None):
    (tmp_path / "test_mod.py").write_text(TESTS)
    for name, body in (files or {}).items():
        (tmp_path / name).write_text(textwrap.dedent(body))
    env = dict(os.environ, **(env or {}))
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:randomly", *args], cwd=str(tmp_path),
                          capture_output=True, timeout=timeout, env=env, stdin=subprocess.DEVNULL)


def summary(out: str) -> str:
    return re.findall(r"^=*\s*(\d+ (?:failed|passed|error).*?) in [\d.]+s", out, re.M)[-1]


def sections(out: str):
    """nodeid -> the body of its torchdoctor section (from the failure/error reports)."""
    found = {}
    parts = re.split(r"\n_{3,} (?:ERROR at setup of )?(\S+) _{3,}\n", out)
    for name, body in zip(parts[1::2], parts[2::2]):
        m = re.search(r"-{3,} torchdoctor -{3,}\n(.*?)(?=\n_{3,} |\n={3,} |\Z)", body, re.S)
        if m:
            found[name] = m.group(1)
    return found


def test_inert_unless_asked_and_outcomes_unchanged(tmp_path):
    off = pytest_in(tmp_path, "-q", "-p", "no:torchdoctor")
    idle = pytest_in(tmp_path, "-q")
    on = pytest_in(tmp_path, "-q", "--torchdoctor")
    assert "torchdoctor" not in idle.stdout.decode()
    assert off.returncode == idle.returncode == on.returncode == 1
    assert summary(off.stdout.decode()) == summary(idle.stdout.decode()) == summary(on.stdout.decode()) \
        == "3 failed, 1 passed, 1 error"
    got = sections(on.stdout.decode())
    assert set(got) == {"test_env_error", "test_setup_error"}  # not the plain assertions
    assert "[torchvision-operator-does-not-exist, torchvision-mismatch]" in got["test_env_error"]
    assert "matched: RuntimeError: operator torchvision::nms does not exist" in got["test_env_error"]
    assert "libcudnn" in got["test_setup_error"]
    assert "torchdoctor: 2 failure(s) are known environment errors" in on.stdout.decode()


@needs_torch
def test_header_and_a_real_cpu_build_error(tmp_path):
    files = {"test_torch.py": """
        import torch

        def test_cuda():
            torch.backends.cudnn.benchmark = True
            torch.zeros(2).cuda()
    """}
    r = pytest_in(tmp_path, "--torchdoctor", files=files)
    out = r.stdout.decode()
    assert r.returncode == 1
    header = [ln for ln in out.splitlines() if ln.startswith("torchdoctor: torch ")]
    assert len(header) == 1 and "(CPU-only build), CUDA not available" in header[0]
    assert summary(out) == "4 failed, 1 passed, 1 error"
    got = sections(out)
    assert set(got) == {"test_env_error", "test_setup_error", "test_cuda"}
    assert "[torch-not-compiled-with-cuda, cpu-only-build]" in got["test_cuda"]
    assert "cudnn.benchmark on" in got["test_cuda"]  # the live torch settings of the test process


def test_xdist_and_no_cacheprovider_with_a_report(tmp_path):
    report = tmp_path / "session.json"
    r = pytest_in(tmp_path, "-q", "-n", "2", "-p", "no:cacheprovider", "--torchdoctor-report", str(report))
    out = r.stdout.decode()
    assert r.returncode == 1 and not (tmp_path / ".pytest_cache").exists()
    assert summary(out) == "3 failed, 1 passed, 1 error"
    assert set(sections(out)) == {"test_env_error", "test_setup_error"}  # diagnosed in the workers
    d = json.loads(report.read_text())
    sess = d["facts"]["pytest"]
    assert {t["nodeid"] for t in sess["diagnosed"]} == {"test_mod.py::test_env_error", "test_mod.py::test_setup_error"}
    assert sess["counts"] == {"failed": 3, "passed": 1, "error": 1} and sess["exit_status"] == 1
    assert d["facts"]["redaction"]["enabled"] is True
    assert "torchdoctor: wrote %s (redacted)" % report in out


def test_ini_switch_and_markdown_report(tmp_path):
    md = tmp_path / "s.md"
    r = pytest_in(tmp_path, "-q", "--torchdoctor-report", str(md), files={"pytest.ini": "[pytest]\ntorchdoctor = false\n"})
    assert r.returncode == 1  # the report option alone turns it on
    assert set(sections(r.stdout.decode())) == {"test_env_error", "test_setup_error"}
    text = md.read_text()
    assert "### The test session" in text and "test_mod.py::test_env_error" in text
    r = pytest_in(tmp_path, "-q", files={"pytest.ini": "[pytest]\ntorchdoctor = true\n"})
    assert set(sections(r.stdout.decode())) == {"test_env_error", "test_setup_error"}


def test_a_failing_diagnosis_changes_no_outcome(tmp_path):
    conftest = """
        import torchdoctor.gather.live as live
        def boom():
            raise RuntimeError("live facts broken on purpose")
        live.live_facts = boom
    """
    r = pytest_in(tmp_path, "-q", "--torchdoctor", files={"conftest.py": conftest})
    out = r.stdout.decode()
    assert r.returncode == 1 and summary(out) == "3 failed, 1 passed, 1 error"
    assert "torchdoctor: the diagnosis failed (RuntimeError: live facts broken on purpose)" in sections(out)["test_env_error"]


PATCHED = '''
import shutil
import subprocess

import pytest

CALLS = []


def refuse(*args, **kwargs):
    CALLS.append(args)
    pytest.fail("this test allows no processes: %r" % (args,))


@pytest.fixture
def no_processes(monkeypatch):
    monkeypatch.setattr(subprocess, "run", refuse)
    monkeypatch.setattr(subprocess, "Popen", refuse)
    monkeypatch.setattr(shutil, "which", lambda *a, **k: None)
    yield
    assert CALLS == [], "a process was started behind the test's back"


def test_cpu_build_with_processes_patched(no_processes):
    raise RuntimeError("Torch not compiled with CUDA enabled")


def test_passes_with_processes_patched(no_processes):
    assert True
'''


def test_a_test_that_patches_subprocess_keeps_its_outcome(tmp_path):
    # An nvcc on PATH makes the diagnosis start a process (the toolkit fact) while the
    # test's patches are still in place: it must use the real functions, not the test's.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text("#!/bin/sh\necho ran >> '%s'\necho 'Cuda compilation tools, release 12.4, V12.4.131'\n"
                    % (tmp_path / "nvcc-ran"))
    nvcc.chmod(0o755)
    path = str(bin_dir) + os.pathsep + os.environ.get("PATH", "")
    files = {"test_patched.py": PATCHED}
    env_path = {"PATH": path}
    off = pytest_in(tmp_path, "-q", "-p", "no:torchdoctor", files=files, env=env_path)
    on = pytest_in(tmp_path, "-q", "--torchdoctor", files=files, env=env_path)
    out = on.stdout.decode()
    assert "INTERNALERROR" not in out + on.stderr.decode(), out[-3000:]
    assert on.returncode == off.returncode == 1
    assert summary(out) == summary(off.stdout.decode()) == "4 failed, 2 passed, 1 error", out[-3000:]
    got = sections(out)
    assert "[torch-not-compiled-with-cuda" in got["test_cpu_build_with_processes_patched"]
    assert (tmp_path / "nvcc-ran").read_text() == "ran\n"  # through the real Popen, not the test's


def test_an_outcome_exception_inside_the_plugin_changes_no_outcome(tmp_path):
    # BaseExceptions (pytest.fail's, SystemExit) from inside the diagnosis are the plugin's
    # failure, never the test's.
    for boom in ("import pytest; pytest.fail('from inside the diagnosis')", "raise SystemExit(3)"):
        conftest = """
            import torchdoctor.gather.live as live
            def boom():
                %s
            live.live_facts = boom
        """ % boom
        r = pytest_in(tmp_path, "-q", "--torchdoctor", files={"conftest.py": conftest})
        out = r.stdout.decode()
        assert "INTERNALERROR" not in out, out[-3000:]
        assert r.returncode == 1 and summary(out) == "3 failed, 1 passed, 1 error", out[-3000:]
        assert "torchdoctor: the diagnosis failed" in sections(out)["test_env_error"]
