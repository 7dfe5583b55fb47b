"""Wordings of known causes that the entries did not read: shorter or older forms of torch's,
torchaudio's and transformers' messages, pip's report of packages whose releases exclude this
Python, cuFFT's internal error, a container refused /dev/kfd. The lines are built for the test in
the formats those programs print; none is an evaluation text."""

import pytest

from torchdoctor.areas.install.requirements import python_outside_requires_python
from torchdoctor.model.facts import Facts
from torchdoctor.match.matcher import match_text


def ids(text):
    return [m.id for m in match_text(text)]


@pytest.mark.parametrize("text, entry", [
    ("CUDA error : no kernel image is available for execution", "cuda-no-kernel-image"),
    ("ImportError: FFmpeg libraries are not found. Please install FFmpeg.", "torchaudio-ffmpeg-extension-not-loaded"),
    ("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "cufft-internal-error"),
    ("ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.26.0`: Please run `pip install "
     "transformers[torch]` or `pip install 'accelerate>=0.26.0'`", "python-package-missing"),
    ("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, opengl, opencl, ideep, hip, ve, ort, mlc, xla, lazy, "
     "vulkan, meta, hpu device type at start of device string: mps", "torch-backends-mps-missing"),
    ("[INFO|parser.py:242] 2024-04-11 11:16:12,325 >> Process rank: 0, device: cpu, n_gpu: 0, distributed training: "
     "False, compute dtype: torch.bfloat16", "cuda-not-available"),
    ("docker: Error response from daemon: error gathering device information while adding custom device \"/dev/kfd\": "
     "no such file or directory.", "rocm-container-no-dev-kfd"),
    ("ERROR: Ignored the following versions that require a different python version: 0.14.3 Requires-Python >=3.7.0, "
     "<3.11; 0.15.0 Requires-Python >=3.9.0, <3.12\nERROR: Could not find a version that satisfies the requirement "
     "TTS (from versions: none)", "pip-package-requires-other-python"),
    ("ERROR: Package 'mylib' requires a different Python: 3.13.1 not in '<3.13,>=3.9'",
     "pip-package-requires-other-python"),
])
def test_the_other_forms_of_known_causes(text, entry):
    assert ids(text)[0] == entry


@pytest.mark.parametrize("text, entry", [
    # a device string torch does know, spelled wrong: a usage error
    ("RuntimeError: Expected one of cpu, cuda, xpu, mkldnn, mps, meta device type at start of device string: gpu",
     "torch-backends-mps-missing"),
    # a GPU run's line
    ("Process rank: 0, device: cuda:0, n_gpu: 1, distributed training: False", "cuda-not-available"),
    # CuPy's wording of a cuFFT failure is not torch's
    ("cupy_backends.cuda.libs.cufft.CuFFTError: CUFFT_INTERNAL_ERROR", "cufft-internal-error"),
    # another device's container failure
    ("Error response from daemon: error gathering device information while adding custom device \"/dev/nvidia0\": "
     "no such file or directory", "rocm-container-no-dev-kfd"),
])
def test_their_neighbours_stay_quiet(text, entry):
    assert entry not in ids(text)


def test_another_packages_ignored_releases_do_not_outrank_torchs_own_pin():
    text = ("ERROR: Ignored the following versions that require a different python version: 2.3.0 Requires-Python >=3.11\n"
            "ERROR: Could not find a version that satisfies the requirement torch==2.5.1+cu118 (from versions: 2.4.0, "
            "2.5.1)\nERROR: No matching distribution found for torch==2.5.1+cu118")
    found = match_text(text)
    assert found[0].id != "pip-package-requires-other-python"
    assert [m.confidence for m in found if m.id == "pip-package-requires-other-python"] == ["possible"]


def _hook(text, data=None):
    (m,) = [m for m in match_text(text) if m.id == "pip-package-requires-other-python"]
    return python_outside_requires_python(m, Facts(data or {}))


def test_the_newest_python_the_releases_admit_is_named():
    t = _hook("Link requires a different Python (3.13.2 not in: '<3.13,>=3.9'): https://files.example/x.tar.gz")
    assert "3.12 is the newest" in t.summary and t.commands[0] == "python3.12 -m venv .venv"
    # the ignored list: the last (newest) release's range decides
    t = _hook("ERROR: Ignored the following versions that require a different python version: 0.14.3 Requires-Python "
              ">=3.7.0, <3.11; 0.15.0 Requires-Python >=3.9.0, <3.12\nERROR: Could not find a version that satisfies "
              "the requirement TTS (from versions: none)", {"os": {"system": "Windows"}})
    assert "3.11 is the newest" in t.summary and t.commands[0] == "py -3.11 -m venv .venv"
    # a range no Python admits gives no advice rather than a wrong one
    assert _hook("Link requires a different Python (3.9.2 not in: '>=4.0'): https://files.example/y.whl") is None


def test_a_torch_folder_left_without_its_files_heals_with_the_entrys_commands(tmp_path):
    # A real venv and pip: torch (a small wheel of that name) installed, then its files removed
    # and its folders kept, as an uninstall that stopped halfway leaves them. Python imports the
    # folders as namespace packages and names no location; the entry's commands, run as printed
    # with this venv's interpreter, reinstall it.
    import os
    import shlex
    import subprocess
    from torchdoctor.kb.errors import load_entries
    from wheelkit import build_wheel, environ, hermetic_env, pip_venv
    links = tmp_path / "links"
    build_wheel(links, "torch", "2.13.0", {"torch/__init__.py": "__version__ = '2.13.0'\n",
                                          "torch/fft/__init__.py": "def fft(x):\n    return x\n"})
    py = pip_venv(tmp_path / "venv")
    env = environ(hermetic_env(links, no_index=True))

    def run(argv):
        return subprocess.run(argv, capture_output=True, text=True, timeout=300, env=env, cwd=str(tmp_path))

    assert run([py, "-m", "pip", "install", "-q", "torch"]).returncode == 0
    site = run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()
    for dirpath, _, names in os.walk(os.path.join(site, "torch")):
        for n in names:
            os.remove(os.path.join(dirpath, n))
    broken = run([py, "-c", "from torch.fft import fft"])
    found = match_text(broken.stderr)
    assert found and found[0].id == "torch-folder-without-files", broken.stderr[-800:]
    entry = next(e for e in load_entries() if e.id == "torch-folder-without-files")
    for cmd in entry.fix["commands"][1:]:
        argv = shlex.split(cmd)
        assert argv[0] == "python"
        assert run([py] + argv[1:]).returncode == 0
    assert run([py, "-c", "from torch.fft import fft; print(fft(3))"]).stdout.strip() == "3"
