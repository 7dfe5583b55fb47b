"""triage: real collect_env pastes from public issues (tests/fixtures/collect_env,
each citing its source on line 1), torchdoctor reports, and bad input."""

import glob
import json
import os
import subprocess
import sys

import pytest

from torchdoctor.model.facts import ABSENT, PRESENT, UNKNOWN, Facts
from torchdoctor.verbs.triage import TriageError, triage_bytes, triage_text
from torchdoctor.gather.paste.collect_env import parse
from torchdoctor.gather.paste.values import capability_of, cudnn_int

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FIXTURES = os.path.join(os.path.dirname(HERE), "fixtures", "collect_env")


def fixture(name):
    with open(os.path.join(FIXTURES, name), encoding="utf-8") as fh:
        return fh.read()


def run_cli(*args, input=None):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "torchdoctor"] + list(args), capture_output=True, env=env,
                          timeout=120, cwd=ROOT, input=input)


ABS = "<absent>"  # expected: collect_env said it is not there
UNK = "<unknown>"  # expected: the paste does not say

# What each paste says, read by a person: torch, CUDA build, GPUs, driver, OS (system, name), Python,
# plus anything else worth pinning (facts path -> value).
EXPECTED = {
    "torch1.1_linux_cuda9_rtx2060.txt": dict(
        torch="1.1.0", cuda="9.0.176", gpus=["GeForce RTX 2060"], driver="418.67", system="Linux",
        os_name=("os.distro", "Ubuntu 18.04.2 LTS"), python="3.6",
        extra={"torch.debug": False, "cuda.is_available": True, "toolkit.nvcc": "9.1",
               "packages.installed.torchvision.version": "0.2.0", "backends.cudnn.version": UNK}),
    "torch1.5_windows_cu101_quadro.txt": dict(
        torch="1.5.0+cu101", cuda="10.1", gpus=["Quadro P1000"], driver="426.25", system="Windows",
        os_name=("os.description", "windows 10"), python="3.7",
        extra={"toolkit.nvcc_full": "10.1.243", "packages.installed": UNK}),
    "torch1.7_rocm_source_build.txt": dict(
        torch="1.7.0a0+9ddd3df", cuda=ABS, gpus=["Device 66a1"], driver=ABS, system="Linux",
        os_name=("os.distro", "Ubuntu 18.04.4 LTS"), python="3.6",
        extra={"torch.hip": "3.7.20315-077bcfa0", "torch.config.hip_runtime": "3.18.2",
               "torch.config.miopen_runtime": "2.6.0", "cuda.is_available": True, "os.machine": "x86_64",
               "packages.installed.torch.version": "1.7.0a0+a9603c7", "packages.installed.conda:blas.version": "1.0"}),
    "torch1.7_colab_t4_truncated.txt": dict(
        torch="1.7.0+cu101", cuda="10.1", gpus=["Tesla T4"], driver="418.67", system="Linux",
        os_name=("os.distro", "Ubuntu 18.04.5 LTS"), python="3.6",
        extra={"torch.debug": True, "python.bits": 64, "backends.cudnn.version": UNK, "packages.installed": UNK}),
    "torch1.8_macos_arm64_conda_backticks.txt": dict(
        torch="1.8.0a0+c068180", cuda=ABS, gpus=ABS, driver=ABS, system="Darwin",
        os_name=("os.macos_version", "11.1"), python="3.9",
        extra={"os.machine": "arm64", "os.apple_silicon": True, "cuda.is_available": False,
               "packages.installed.conda:numpy.version": "1.19.4", "packages.installed.torch.version": "1.8.0a0",
               "packages.installed.conda:torch": UNK}),
    "torch1.8_macos_x86_conda_pytorch_select.txt": dict(
        torch="1.8.0.dev20201117", cuda=ABS, gpus=ABS, driver=ABS, system="Darwin",
        os_name=("os.macos_version", "11.0"), python="3.8",
        extra={"os.machine": "x86_64", "packages.installed.torchaudio.version": "0.8.0a0+2c68c50",
               "packages.installed.conda:mkl.version": "2019.4"}),
    "torch2.0_h100_arch_warning.txt": dict(
        torch="2.0.1+cu117", cuda="11.7", gpus=["NVIDIA H100 PCIe"], driver="535.104.12", system="Linux",
        os_name=("os.distro", "Ubuntu 22.04.3 LTS"), python="3.10.12",
        extra={"driver.gpus.0.capability": [9, 0], "os.libc": "glibc 2.35", "os.release": "5.15.0-84-generic",
               "env.CUDA_MODULE_LOADING": "EAGER", "toolkit.nvcc": "12.2", "backends.xnnpack.enabled": True,
               "cuda.arch_list": ["sm_37", "sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86"]}),
    "torch2.1_cpu_build_two_rtx3090.txt": dict(
        torch="2.1.1", cuda=ABS, gpus=["NVIDIA GeForce RTX 3090", "NVIDIA GeForce RTX 3090"], driver="525.147.05",
        system="Linux", os_name=("os.distro", "Ubuntu 22.04.3 LTS"), python="3.9.18",
        extra={"cuda.is_available": False, "system_libs.cudnn_version": "8.8.0", "backends.cudnn.version": ABS,
               "toolkit.nvcc_full": "11.6.124"}),
    "torch2.2_macos_x86_email_wrapped.txt": dict(
        torch="2.2.2", cuda=ABS, gpus=ABS, driver=ABS, system="Darwin", os_name=("os.macos_version", "14.5"),
        python="3.10.13",
        extra={"python.sys_version": "3.10.13 (main, Dec 22 2023, 22:08:50) [Clang 15.0.0 (clang-1500.1.0.2.5)]",
               "cpu.model": "Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", "packages.installed.numpy.version": "1.26.4",
               "packages.installed.triton": ABS}),
    "torch2.4_wsl2_rtx4070.txt": dict(
        torch="2.4.0+cu121", cuda="12.1", gpus=["NVIDIA GeForce RTX 4070 Laptop GPU"], driver="551.88",
        system="Linux", os_name=("os.distro", "Ubuntu 22.04.2 LTS"), python="3.12.3",
        extra={"os.wsl": True, "python.conda": True, "cpu.logical_cores": 32,
               "cpu.model": "13th Gen Intel(R) Core(TM) i9-13950HX"}),
    "torch2.6_centos_8xh100_runtimewarning.txt": dict(
        torch="2.6.0+cu124", cuda="12.4", gpus=["NVIDIA H100"] * 8, driver="535.154.05", system="Linux",
        os_name=("os.distro", "CentOS Stream 9"), python="3.12.0",
        extra={"os.libc": "glibc 2.34", "toolkit.nvcc": ABS, "backends.cudnn.version": UNK,
               "system_libs.cudnn_version": UNK}),
    "torch2.6_rtx5090_sm120_warning.txt": dict(
        torch="2.6.0+cu126", cuda="12.6", gpus=["NVIDIA GeForce RTX 5090 D"], driver="570.124.04", system="Linux",
        os_name=("os.distro", "Ubuntu 24.10"), python="3.12.9",
        extra={"driver.gpus.0.capability": [12, 0], "os.libc": "glibc 2.40", "system_libs.cudnn_version": "9.8.0",
               "backends.cudnn.version": UNK}),
    "torch2.8_windows11_cpu_numpy_warning.txt": dict(
        torch="2.8.0.dev20250528+cpu", cuda=ABS, gpus=ABS, driver=ABS, system="Windows",
        os_name=("os.windows", ["11", "10.0.22631"]), python="3.10.17",
        extra={"os.version": "10.0.22631", "accelerators.xpu.is_available": False, "python.conda": True,
               "cpu.model": "12th Gen Intel(R) Core(TM) i7-1270P"}),
    "torch_na_source_build_t4.txt": dict(
        torch=UNK, cuda=UNK, gpus=["Tesla T4"], driver="510.47.03", system="Linux",
        os_name=("os.distro", "Ubuntu 18.04.6 LTS"), python="3.9.12",
        extra={"torch_import": UNK, "cuda.is_available": UNK, "system_libs.cudnn_version": "8.0.5"}),
    "checklist_torch1.7_conda_rtx2070.txt": dict(
        torch="1.7.1", cuda=UNK, gpus=["GeForce RTX 2070"], driver="450.102.04", system="Linux",
        os_name=("os.distro", "Ubuntu 20.04"), python="3.8",
        extra={"reported.install_method": "conda", "reported.cuda_cudnn": "CUDA 11.0, cuDNN 8.0.5",
               "torch_import": UNK}),
}


def test_every_fixture_is_covered_and_cites_a_public_issue():
    names = sorted(os.path.basename(p) for p in glob.glob(os.path.join(FIXTURES, "*.txt")))
    assert names == sorted(EXPECTED)
    assert len(names) >= 8
    for n in names:
        first = fixture(n).splitlines()[0]
        assert first.startswith("# source: https://github.com/") and ("/issues/" in first or "/pull/" in first), n


def _check(facts: Facts, path, want):
    if want == UNK:
        assert facts.state(path) == UNKNOWN, "%s should be unknown, is %s" % (path, facts.describe(path))
    elif want == ABS:
        assert facts.state(path) == ABSENT, "%s should be absent, is %s" % (path, facts.describe(path))
    else:
        assert facts.state(path) == PRESENT and facts.value(path) == want, "%s: %r != %r" % (
            path, facts.value(path), want)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_facts(name):
    from torchdoctor.model import derived as F
    exp = EXPECTED[name]
    result = triage_text(fixture(name), name)
    f = result.facts
    assert result.kind in ("collect_env", "checklist")
    if exp["torch"] == UNK:
        assert F.torch_version_str(f) is None
    else:
        assert F.torch_version_str(f) == exp["torch"]
    _check(f, "torch.cuda", exp["cuda"])
    if exp["gpus"] == ABS:
        _check(f, "driver.gpus", ABS)
    else:
        assert [g["name"] for g in F.all_gpus(f)] == exp["gpus"]
    _check(f, "driver.driver_version", exp["driver"])
    _check(f, "os.system", exp["system"])
    _check(f, *exp["os_name"])
    _check(f, "python.version", exp["python"])
    for path, want in exp["extra"].items():
        _check(f, path, want)


@pytest.mark.parametrize("name,expected_ids", [
    ("torch2.1_cpu_build_two_rtx3090.txt", {"cpu-only-build"}),
    ("torch2.0_h100_arch_warning.txt", {"arch-unsupported"}),
    ("torch2.6_rtx5090_sm120_warning.txt", {"arch-unsupported"}),
])
def test_checks_run_on_triaged_facts(name, expected_ids):
    result = triage_text(fixture(name), name)
    ids = {f.id for f in result.report.findings}
    assert expected_ids <= ids, ids


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_unknown_facts_keep_checks_silent(name):
    """Nothing a paste does not say may produce a finding: no probe, no package list, no driver..."""
    result = triage_text(fixture(name), name)
    ids = {f.id for f in result.report.findings}
    assert not ids & {"probe-failed", "torch-import-crash", "cuda-init-hang", "torch-shadowed", "torch-not-installed",
                      "torch-import-failed"}, ids
    if result.facts.state("packages.installed") == UNKNOWN:
        assert "triton-missing" not in ids
        assert any(s["id"] == "triton-missing" for s in result.skipped_checks)
    if result.facts.value("os.system") == "Darwin" or result.facts.state("torch.hip") == PRESENT:
        assert not ids & {"no-gpu-driver", "cpu-only-build", "driver-too-old"}, ids


def test_unknown_fields_are_reported():
    result = triage_text(fixture("torch1.7_colab_t4_truncated.txt"), "t4")
    known, unknown = result.known_and_unknown()
    assert {"cuDNN", "packages"} <= set(unknown)
    assert {"torch version", "CUDA build", "GPU(s)", "NVIDIA driver", "OS", "Python"} <= set(known)
    assert any("not in the paste" in n for n in result.notes)


def test_warning_text_in_the_paste_is_explained():
    result = triage_text(fixture("torch2.0_h100_arch_warning.txt"), "h100")
    cats = {e.match.entry.category for e in result.explanations}
    assert "arch-unsupported" in cats, cats


def test_hand_edited_paste_reads_the_same():
    """Quoted with '> ' in a reply, CRLF line ends, a bullet per line: same facts."""
    text = fixture("torch2.4_wsl2_rtx4070.txt")
    mangled = "\r\n".join("> " + ln for ln in text.splitlines())
    a, b = parse(text).facts, parse(mangled).facts
    for key in ("torch", "os", "driver", "python", "cuda"):
        assert a[key] == b[key], key


def test_utf16_paste_from_powershell_redirect():
    """`python -m torch.utils.collect_env > env.txt` in Windows PowerShell writes UTF-16 with a BOM."""
    data = fixture("torch2.8_windows11_cpu_numpy_warning.txt").encode("utf-16")
    res = triage_bytes(data, "env.txt")
    assert res.facts.value("torch.version") == "2.8.0.dev20250528+cpu" and res.facts.value("os.system") == "Windows"


def test_second_block_is_ignored():
    text = fixture("torch2.4_wsl2_rtx4070.txt")
    both = text + "\n\nand on the other machine:\n" + fixture("torch2.1_cpu_build_two_rtx3090.txt")
    p = parse(both)
    assert Facts(p.facts).value("torch.version") == "2.4.0+cu121"
    assert any("second collect_env block" in n for n in p.notes)


@pytest.mark.parametrize("text,expected", [("9.1.0", 90100), ("9.10.2.21", 91002), ("8.9.2.26", 8902),
                                           ("7.6.5", 7605), ("8.0.5", 8005), ("5.1.10", 5110), ("90100", 90100),
                                           ("9", None), ("8.9", None), ("", None), ("abc", None)])
def test_cudnn_int(text, expected):
    assert cudnn_int(text) == expected


def test_cudnn_from_pip_wheel_and_conda_build():
    paste = ("PyTorch version: 2.3.1+cu121\nIs debug build: False\nCUDA used to build PyTorch: 12.1\n"
             "ROCM used to build PyTorch: N/A\n\nOS: Ubuntu 22.04.4 LTS (x86_64)\n"
             "cuDNN version: /usr/lib/x86_64-linux-gnu/libcudnn.so.8.9.7\n\nVersions of relevant libraries:\n"
             "[pip3] nvidia-cudnn-cu12==8.9.2.26\n[pip3] torch==2.3.1+cu121\n[conda] Could not collect\n")
    f = Facts(parse(paste).facts)
    assert f.value("backends.cudnn.version") == 8902  # the wheel torch loads, not the system's 8.9.7
    assert f.value("system_libs.cudnn_version") == "8.9.7"
    conda = ("PyTorch version: 1.12.1\nCUDA used to build PyTorch: 11.3\n\nVersions of relevant libraries:\n"
             "[pip3] numpy==1.23.1\n[conda] pytorch                   1.12.1          py3.9_cuda11.3_cudnn8.3.2_0    pytorch\n")
    f = Facts(parse(conda).facts)
    assert f.value("backends.cudnn.version") == 8302
    assert f.value("packages.installed.conda:pytorch.channel") == "pytorch"


@pytest.mark.parametrize("cc,cap", [("90", [9, 0]), ("120", [12, 0]), ("86", [8, 6]), ("37", [3, 7]), ("9", None)])
def test_capability_of(cc, cap):
    assert capability_of(cc) == cap


# -- reports --------------------------------------------------------------------------------
def _synthetic_report():
    facts = Facts({"schema_version": 1, "source": "probe", "tool": {"name": "torchdoctor", "version": "0"},
                   "torch_import": {"ok": True}, "torch": {"version": "2.1.1+cpu", "cuda": {"_absent": "not built"}},
                   "os": {"system": "Linux", "distro": "Ubuntu 22.04.3 LTS", "machine": "x86_64"},
                   "python": {"version": "3.10.12", "executable": "/usr/bin/python3"},
                   "driver": {"present": True, "driver_version": "535.104.05",
                              "gpus": [{"index": 0, "name": "NVIDIA GeForce RTX 3090", "capability": [8, 6]}]}})
    from torchdoctor.diagnose import diagnose
    return diagnose(facts)


def test_triage_json_report_and_markdown_report():
    from torchdoctor.verbs.report import render_report
    rep = _synthetic_report()
    ids = [f.id for f in rep.findings]
    assert "cpu-only-build" in ids
    for fmt, kind in (("json", "json-report"), ("markdown", "markdown-report")):
        res = triage_text(render_report(rep, fmt), fmt)
        assert res.kind == kind
        assert [f.id for f in res.report.findings] == ids
        assert res.facts.value("torch.version") == "2.1.1+cpu"
    # A JSON report pasted inside an issue, between prose.
    pasted = "My env:\n```json\n%s\n```\nthanks" % render_report(rep, "json")
    assert triage_text(pasted, "issue").kind == "json-report"


def test_markdown_report_cut_off_falls_back_to_its_collect_env_section():
    from torchdoctor.verbs.report import render_report
    md = render_report(_synthetic_report(), "markdown")
    cut = md[: md.index("<!-- torchdoctor:facts") + 200]
    res = triage_text(cut, "cut.md")
    assert res.kind == "markdown-report"
    assert any("cut off" in n or "not valid JSON" in n for n in res.notes), res.notes
    assert res.facts.value("torch.version") == "2.1.1+cpu"
    assert [g["name"] for g in res.facts.value("driver.gpus")] == ["NVIDIA GeForce RTX 3090"]


def test_triage_of_a_triage_json_keeps_unknowns_silent():
    first = triage_text(fixture("torch2.6_centos_8xh100_runtimewarning.txt"), "paste")
    again = triage_text(json.dumps(first.to_dict()), "triage.json")
    assert again.kind == "json-report"
    assert [f.id for f in again.report.findings] == [f.id for f in first.report.findings]
    assert not {"probe-failed", "triton-missing"} & {f.id for f in again.report.findings}


# -- the command --------------------------------------------------------------------------------
def test_cli_json_shape_and_stdin():
    data = fixture("torch2.1_cpu_build_two_rtx3090.txt").encode()
    r = run_cli("triage", "-", "--json", input=data)
    assert r.returncode == 1, r.stderr  # an error-level finding (cpu-only-build)
    out = json.loads(r.stdout)
    assert out["schema_version"] == 1 and set(out) >= {"facts", "findings", "matches", "triage"}
    assert out["triage"]["format"] == "collect_env" and out["triage"]["input"] == "standard input"
    assert out["facts"]["torch"]["version"] == "2.1.1"
    assert any(f["id"] == "cpu-only-build" for f in out["findings"])
    r = run_cli("triage", os.path.join(FIXTURES, "torch2.1_cpu_build_two_rtx3090.txt"), "--fail-on", "never")
    assert r.returncode == 0
    text = r.stdout.decode()
    assert "output of python -m torch.utils.collect_env" in text and "CPU-only build" in text


def test_cli_partial_result_for_error_text_only(tmp_path):
    p = tmp_path / "log.txt"
    p.write_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n"
                 "    x = torch.zeros(1).cuda()\nAssertionError: Torch not compiled with CUDA enabled\n")
    r = run_cli("triage", str(p), "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["triage"]["format"] == "error-text" and out["matches"]
    assert out["findings"] == [] and any("ask the reporter" in n for n in out["triage"]["notes"])


@pytest.mark.parametrize("content,message", [
    (b"", "empty"),
    (b"   \n\n  \n", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)), "binary"),
    (bytes(range(1, 32)) * 200, "binary"),
    (b'{"name": "other-tool", "version": 3}', "not a torchdoctor report"),
    (b'{"schema_version": 7, "facts": {}}', "schema_version 7"),
    (b'{"schema_version": 1, "facts": {"torch": {"vers', "not valid JSON"),
    (b"Hello, I have a question about my model's accuracy. It is low. Any ideas?\n", "no collect_env output"),
])
def test_cli_bad_input(tmp_path, content, message):
    p = tmp_path / "paste"
    p.write_bytes(content)
    r = run_cli("triage", str(p))
    err = r.stderr.decode()
    assert r.returncode == 2, (r.stdout, err)
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert message in err, err


def test_cli_missing_file_and_directory(tmp_path):
    for path in (str(tmp_path / "nope.txt"), str(tmp_path)):
        r = run_cli("triage", path)
        assert r.returncode == 2 and b"Traceback" not in r.stderr


def test_triage_never_reads_this_machine(monkeypatch):
    """Facts come only from the paste: probing is impossible while triaging."""
    import torchdoctor.gather.probe as probe

    def boom(*a, **k):
        raise AssertionError("triage must not probe the local machine")
    monkeypatch.setattr(probe, "gather", boom)
    res = triage_bytes(fixture("torch2.6_centos_8xh100_runtimewarning.txt").encode(), "x")
    assert res.facts.state("probe") == UNKNOWN and res.facts.state("memory") == UNKNOWN
    with pytest.raises(TriageError):
        triage_bytes(b"\x00\x01binary", "bin")


def test_a_610_driver_that_collect_env_cannot_read_is_still_a_driver():
    # torch's collect_env reads "Driver Version: " from nvidia-smi's banner; drivers of the 610
    # series print "KMD Version:", so the field says "Could not collect" while nvidia-smi -L
    # listed the GPU: the driver answered, and a paste must not be told to install the CPU wheel.
    text = fixture("torch2.6_rtx5090_sm120_warning.txt")
    text = text.replace("Nvidia driver version: 570.124.04", "Nvidia driver version: Could not collect")
    text = text.replace("Is CUDA available: True", "Is CUDA available: False")
    result = triage_text(text, "610")
    assert result.facts.value("driver.present") is True
    assert result.facts.state("driver.driver_version") == ABSENT
    ids = {f.id for f in result.report.findings}
    assert "no-gpu-driver" not in ids, ids
    assert any("KMD Version" in n for n in result.notes), result.notes
