"""The real probe against real interpreters, fake torch packages and fake
NVIDIA tools: every way `import torch` can go wrong ends in facts and
findings, never in a crash of the doctor."""

import os
import subprocess
import sys

import pytest

from fakes import fake_nvidia_smi, fake_torch
from torchdoctor.gather.probe import gather
from torchdoctor.diagnose import diagnose


@pytest.fixture
def env(tmp_path, monkeypatch):
    """PATH with a private bin dir first, PYTHONPATH empty, no GPU masks."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    monkeypatch.setenv("PATH", "%s:/usr/bin:/bin" % bindir)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    for k in ("CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH"):
        monkeypatch.delenv(k, raising=False)
    return bindir


def use_torch(monkeypatch, tmp_path, **kw):
    root = fake_torch(tmp_path / "site", **kw)
    monkeypatch.setenv("PYTHONPATH", root)
    return root


def ids(report):
    return {f.id for f in report.findings}


def by_id(report, fid):
    return next(f for f in report.findings if f.id == fid)


def test_real_cpu_torch_reports_every_backend(env):
    facts = gather(timeout=120)
    assert facts.value("probe.completed") is True
    assert facts.value("torch.version").startswith("2.13.0")
    assert facts.value("torch.local_tag") == "cpu"
    assert facts.state("torch.cuda") == "absent"
    for name in ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum", "cusparselt", "xnnpack", "nnpack", "cpu"):
        assert facts.state("backends." + name) == "present", name
    assert facts.value("backends.mkl.is_available") is True
    assert facts.value("backends.cudnn.is_available") is False
    assert facts.value("backends.cuda.sdpa_kernel") is True
    assert facts.value("cuda.is_available") is False
    assert facts.value("packages.installed.torch.version") == "2.13.0+cpu"


def test_segfault_during_import_becomes_a_finding(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, import_code="import os, signal; os.kill(os.getpid(), signal.SIGSEGV)")
    facts = gather(timeout=30)
    assert facts.value("probe.signal") == "SIGSEGV"
    assert facts.value("probe.last_stage") == "import_torch"
    # what was collected before the crash survives
    assert facts.value("packages.installed.torch.version") == "2.4.1+cu124"
    assert facts.state("torch") == "failed"
    rep = diagnose(facts)
    f = by_id(rep, "torch-import-crash")
    assert "SIGSEGV" in f.title and f.severity == "error"


def test_abort_during_import(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, import_code="import sys, os; sys.stderr.write('terminate called after throwing\\n'); sys.stderr.flush(); os.abort()")
    rep = diagnose(gather(timeout=30))
    f = by_id(rep, "torch-import-crash")
    assert "SIGABRT" in f.title
    assert "terminate called" in f.detail


def test_hang_during_import_is_killed_at_the_timeout(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, import_code="import time; time.sleep(120)")
    facts = gather(timeout=3)
    assert facts.value("probe.timed_out") is True
    assert facts.value("probe.duration_s") < 30
    f = by_id(diagnose(facts), "torch-import-crash")
    assert "hung" in f.title


def test_hang_in_cuda_init(env, tmp_path, monkeypatch):
    root = use_torch(monkeypatch, tmp_path)
    with open(os.path.join(root, "torch", "cuda", "__init__.py"), "a") as fh:
        fh.write("\nimport time\ndef is_available():\n    time.sleep(120)\n")
    facts = gather(timeout=4)
    assert facts.value("probe.last_stage") == "cuda"
    assert facts.value("torch.version") == "2.4.1+cu124"  # sections before the hang survive
    assert "cuda-init-hang" in ids(diagnose(facts))


def test_exception_during_import(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, import_code="raise ImportError('libtorch_fake.so: cannot open shared object file: No such file or directory')")
    facts = gather(timeout=30)
    assert facts.value("torch_import.ok") is False
    assert facts.value("torch_import.error_type") == "ImportError"
    assert facts.value("probe.completed") is True
    f = by_id(diagnose(facts), "torch-import-failed")
    assert "libtorch_fake.so" in f.detail


def test_megabytes_of_output_do_not_hurt(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, import_code="import sys; sys.stdout.write('x' * 5000000); sys.stderr.write('y' * 5000000)")
    facts = gather(timeout=60)
    assert facts.value("probe.completed") is True
    assert len(facts.value("probe.stdout_tail")) < 100000


def test_torch_missing(env, tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    facts = gather(python=py, timeout=30)
    assert facts.value("torch_import.ok") is False
    rep = diagnose(facts)
    f = by_id(rep, "torch-not-installed")
    assert py in f.title
    assert any("pip install" in c and "torch==" in c for c in f.fix.commands)
    assert "torch-import-failed" not in ids(rep)


def test_local_torch_py_shadows_the_real_one(env, tmp_path, monkeypatch):
    work = tmp_path / "project"
    work.mkdir()
    (work / "torch.py").write_text("print('my script')\n")
    monkeypatch.chdir(work)
    rep = diagnose(gather(timeout=120))
    f = by_id(rep, "torch-shadowed")
    assert str(work / "torch.py") in f.title
    assert "site-packages/torch" in f.detail


def test_no_shadowing_in_a_clean_directory(env, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    use_torch(monkeypatch, tmp_path)
    assert "torch-shadowed" not in ids(diagnose(gather(timeout=30)))


def test_python_that_does_not_exist(env):
    rep = diagnose(gather(python="/nonexistent/bin/python", timeout=10))
    f = by_id(rep, "probe-failed")
    assert "Cannot run" in f.title


def test_python_that_is_not_an_interpreter(env):
    rep = diagnose(gather(python="/bin/true", timeout=10))
    assert "probe-failed" in ids(rep)


def test_fake_gpu_machine_is_healthy(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path)
    fake_nvidia_smi(env)
    facts = gather(timeout=30)
    assert facts.value("driver.driver_version") == "550.54.15"
    assert facts.value("driver.cuda_driver_version") == "12.4"
    assert facts.value("driver.gpus.0.capability") == [8, 0]
    assert facts.value("cuda.devices.0.name") == "NVIDIA A100-SXM4-80GB"
    rep = diagnose(facts)
    assert not [f for f in rep.findings if f.severity == "error"], [f.title for f in rep.findings]


def test_the_banner_of_610_drivers_is_read(env, tmp_path, monkeypatch):
    # The 610 series renamed the banner's labels ("KMD Version", "CUDA UMD Version"): a parser
    # of the old labels found no CUDA version at all.
    use_torch(monkeypatch, tmp_path)
    fake_nvidia_smi(env, driver="610.43.02", cuda="13.3", umd_banner=True)
    facts = gather(timeout=30)
    assert facts.value("driver.driver_version") == "610.43.02"
    assert facts.value("driver.cuda_driver_version") == "13.3"


def test_banner_parser_reads_both_spellings():
    from torchdoctor.gather.system import parse_smi_banner
    old = "| NVIDIA-SMI 550.40.07              Driver Version: 550.40.07      CUDA Version: 12.4     |"
    new = "| NVIDIA-SMI 610.43.02              KMD Version: 610.43.02     CUDA UMD Version: 13.3     |"
    assert parse_smi_banner(old) == {"driver_version": "550.40.07", "cuda_driver_version": "12.4"}
    assert parse_smi_banner(new) == {"driver_version": "610.43.02", "cuda_driver_version": "13.3"}


def test_nvidia_smi_that_hangs_or_prints_garbage(env, tmp_path, monkeypatch):
    from fakes import fake_bin
    use_torch(monkeypatch, tmp_path)
    fake_bin(env, "nvidia-smi", "echo '\\x00\\x01 garbage ,,,'\n")
    facts = gather(timeout=30)
    assert facts.value("driver.present") is False
    fake_bin(env, "nvidia-smi", "sleep 60\n")
    facts = gather(timeout=30, tool_timeout=1)
    assert "timed out" in facts.reason("driver.sources.nvidia_smi.gpus")


# -- companions as they really import, and torch's files against its RECORD ----------------
def _fake_torchvision(root, build="0.28.0+cu130", init="raise RuntimeError('operator torchvision::nms does not exist')"):
    from fakes import fake_dist, write
    write(os.path.join(str(root), "torchvision", "__init__.py"), init + "\n")
    write(os.path.join(str(root), "torchvision", "version.py"),
          "__version__ = '%s'\ngit_version = 'abc'\ncuda = None\n" % build)
    fake_dist(root, "torchvision", build.split("+")[0])


def test_pypi_cuda_torchvision_beside_the_real_cpu_torch(env, tmp_path, monkeypatch):
    """The real torch 2.13.0+cpu of the test venv, a torchvision that says +cu130 only in its
    version.py and raises what PyPI's 0.28.0 raises there: named, with the import error."""
    site = tmp_path / "tv"
    _fake_torchvision(site)
    monkeypatch.setenv("PYTHONPATH", str(site))
    facts = gather(timeout=120)
    assert facts.value("packages.installed.torchvision.build_version") == "0.28.0+cu130"
    assert facts.value("companion_imports.torchvision.ok") is False
    f = by_id(diagnose(facts), "torchvision-mismatch")
    assert "cuda13 vs cpu" in f.title and "operator torchvision::nms does not exist" in f.detail


def test_companion_import_that_hangs_is_cut_off(env, tmp_path, monkeypatch):
    from torchdoctor.gather import target
    site = tmp_path / "tv"
    _fake_torchvision(site, build="0.28.0+cpu", init="import time\ntime.sleep(60)")
    monkeypatch.setattr(target, "COMPANION_IMPORT_TIMEOUT", 0.5)
    monkeypatch.syspath_prepend(str(site))
    out = target.companion_import_facts({"installed": {"torchvision": {"version": "0.28.0"}}})
    assert "did not finish within" in out["torchvision"]["_failed"]


def _record_torch(root, missing_lib=True):
    """A fake torch whose RECORD lists a shared library that is not there, and whose import
    fails the way a real torch with a deleted libtorch_cpu.so does."""
    import base64
    import hashlib
    root = fake_torch(root, version="2.13.0+cpu", cuda=None, import_code=(
        "raise ImportError('libtorch_cpu.so: cannot open shared object file: No such file or directory')"
        if missing_lib else ""))
    info = os.path.join(root, "torch-2.13.0+cpu.dist-info")
    rows = []
    for dirpath, _, files in os.walk(os.path.join(root, "torch")):
        for name in files:
            full = os.path.join(dirpath, name)
            data = open(full, "rb").read()
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            rows.append("%s,sha256=%s,%d" % (os.path.relpath(full, root), digest, len(data)))
    rows.append("torch/lib/libtorch_cpu.so,sha256=AAAA,434184800")
    if not missing_lib:
        os.makedirs(os.path.join(root, "torch", "lib"))
        with open(os.path.join(root, "torch", "lib", "libtorch_cpu.so"), "wb") as fh:
            fh.write(b"\0" * 100)  # the wrong size
    rows.append("torch-2.13.0+cpu.dist-info/RECORD,,")
    with open(os.path.join(info, "RECORD"), "w") as fh:
        fh.write("\n".join(rows) + "\n")
    return root


def test_deleted_torch_library_is_a_damaged_install_not_an_extension(env, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", _record_torch(tmp_path / "site"))
    rep = diagnose(gather(timeout=60))
    assert "torch-install-damaged" in ids(rep)
    assert "torch-import-failed" not in ids(rep)  # not "import torch before the extension"
    f = by_id(rep, "torch-install-damaged")
    assert f.severity == "error" and "torch/lib/libtorch_cpu.so" in f.detail
    assert any("--force-reinstall --no-deps" in c and "torch==2.13.0" in c and "whl/cpu" in c
               for c in f.fix.commands), f.fix.commands


def test_changed_library_size_is_found_while_torch_imports(env, tmp_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", _record_torch(tmp_path / "site", missing_lib=False))
    facts = gather(timeout=60)
    assert facts.value("torch_files.size_changed")[0]["path"] == "torch/lib/libtorch_cpu.so"
    assert facts.value("torch_files.hashed") is False  # import worked: no need to read every byte
    assert "torch-install-damaged" in ids(diagnose(facts))


def test_intact_real_torch_has_nothing_missing(env):
    facts = gather(timeout=120)
    assert facts.value("torch_files.checked") > 1000
    assert facts.value("torch_files.missing_count") == 0 and facts.value("torch_files.size_changed_count") == 0


def test_hashes_catch_a_same_size_change(tmp_path):
    from torchdoctor.gather import target
    root = _record_torch(tmp_path / "site", missing_lib=False)
    lib = os.path.join(root, "torch", "lib", "libtorch_cpu.so")
    with open(os.path.join(root, "torch-2.13.0+cpu.dist-info", "RECORD")) as fh:
        text = fh.read().replace("torch/lib/libtorch_cpu.so,sha256=AAAA,434184800",
                                 "torch/lib/libtorch_cpu.so,sha256=AAAA,100")
    with open(os.path.join(root, "torch-2.13.0+cpu.dist-info", "RECORD"), "w") as fh:
        fh.write(text)
    pk = {"installed": {"torch": {"version": "2.13.0+cpu", "location": root}}}
    assert target.torch_files_facts(pk)["size_changed_count"] == 0
    hashed = target.torch_files_facts(pk, hash_libs=True)
    assert hashed["hash_changed"] == ["torch/lib/libtorch_cpu.so"] and os.path.getsize(lib) == 100


def test_numpy_warning_at_import_becomes_a_finding(env, tmp_path, monkeypatch):
    use_torch(monkeypatch, tmp_path, version="2.13.0+cpu", cuda=None,
              import_code="import warnings; warnings.warn(\"Failed to initialize NumPy: No module named 'numpy'\")")
    rep = diagnose(gather(timeout=60))
    assert "Failed to initialize NumPy" in by_id(rep, "numpy-unavailable").detail
