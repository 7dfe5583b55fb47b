"""A package name that means two things: PyPI's `clip` (a clipboard tool) against OpenAI's CLIP, and
PyPI's torchreid (modules under torchreid.reid) against deep-person-reid's source tree. The failing
imports are run for real in a venv with pip: small wheels of those names stand in for the packages
(OpenAI's CLIP installs from GitHub, which this machine cannot reach), so the error texts are the
interpreter's own and the hook reads the version pip installed."""

import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH
from wheelkit import build_wheel, environ, hermetic_env, pip_venv


@pytest.fixture
def venv(tmp_path):
    links = tmp_path / "links"
    build_wheel(links, "clip", "0.2.0", {"clip/__init__.py": "def main():\n    return 'clipboard'\n"})
    build_wheel(links, "clip", "1.0", {"clip/__init__.py": "def load(name, device='cpu'):\n    return name, device\n"})
    build_wheel(links, "torchreid", "0.2.5", {"torchreid/__init__.py": "", "torchreid/reid/__init__.py": "",
                                              "torchreid/reid/utils/__init__.py": "def set_random_seed(s):\n    return s\n"})
    py = pip_venv(tmp_path / "venv")
    env = environ(hermetic_env(links, no_index=True))

    def run(*argv):
        return subprocess.run([py] + list(argv), capture_output=True, text=True, timeout=300, env=env,
                              cwd=str(tmp_path))
    return py, run


def _version(run, dist):
    return run("-c", "import importlib.metadata as m; print(m.version(%r))" % dist).stdout.strip()


def test_pypis_clip_is_named_and_its_removal_runs_for_real(venv):
    py, run = venv
    assert run("-m", "pip", "install", "-q", "clip==0.2.0").returncode == 0
    failed = run("-c", "import clip\nmodel, preprocess = clip.load('ViT-B/32')")
    f = facts(exe=py, packages={"clip": {"version": _version(run, "clip")}})
    match, t = tailored_as("pypi-clip-namesake", failed.stderr, f)
    assert match.confidence == HIGH
    assert "0.2.0" in t.summary and "clipboard" in t.summary
    uninstall, install = t.commands
    assert uninstall == "%s -m pip uninstall -y clip" % py
    assert install.endswith("install git+https://github.com/openai/CLIP.git")
    assert run(*uninstall.split()[1:]).returncode == 0
    assert run("-c", "import clip").returncode != 0  # PyPI's clip is gone
    assert run("-m", "pip", "install", "-q", "clip==1.0").returncode == 0  # what the git URL installs
    assert run("-c", "import clip; print(clip.load('ViT-B/32')[0])").stdout.strip() == "ViT-B/32"


def test_openais_version_installed_points_at_another_clip():
    _, t = tailored_as("pypi-clip-namesake", "AttributeError: module 'clip' has no attribute 'load'",
                       facts(packages={"clip": {"version": "1.0"}}))
    assert "another `clip`" in t.summary and len(t.commands) == 1 \
        and "import clip as m;" in t.commands[0] and "m.__file__" in t.commands[0]


def test_pips_refusal_of_clip_1_0_is_the_namesake_not_a_missing_release():
    text = ("ERROR: Could not find a version that satisfies the requirement clip==1.0 (from versions: 0.0.1, 0.1.0, "
            "0.2.0)\nERROR: No matching distribution found for clip==1.0")
    match, t = tailored_as("pypi-clip-namesake", text, facts(packages={"clip": {"version": "1.0"}}))
    assert match.confidence == HIGH
    # pip refused a requirement: no process imported another clip, whatever this interpreter has
    assert "requirements" in t.summary and t.commands[-1].endswith("install git+https://github.com/openai/CLIP.git")


def test_the_probe_reports_clip_so_the_hook_sees_it(venv):
    from torchdoctor.gather.probe import gather
    from torchdoctor.model import derived as F
    py, run = venv
    assert run("-m", "pip", "install", "-q", "clip==0.2.0").returncode == 0
    assert F.package_version(gather(python=py), "clip") == "0.2.0"


@pytest.mark.parametrize("text", [
    "AttributeError: module 'clipboard' has no attribute 'load'",
    # a script named clip.py importing itself
    "AttributeError: partially initialized module 'clip' has no attribute 'load' (most likely due to a circular "
    "import)",
    "ERROR: No matching distribution found for clip-anytorch==1.0",
    "AttributeError: module 'open_clip' has no attribute 'load'",
])
def test_other_names_are_not_the_clip_namesake(text):
    m = top(text)
    assert m is None or m.id != "pypi-clip-namesake"


def test_pypis_torchreid_layout_is_named_from_the_real_import(venv):
    py, run = venv
    assert run("-m", "pip", "install", "-q", "torchreid").returncode == 0
    failed = run("-c", "from torchreid.utils import set_random_seed")
    f = facts(exe=py, packages={"torchreid": {"version": _version(run, "torchreid")}})
    match, t = tailored_as("torchreid-layout-mismatch", failed.stderr, f)
    assert match.confidence == HIGH
    assert "torchreid 0.2.5" in t.summary and "torchreid.reid.utils" in t.summary
    assert run("-c", "from torchreid.reid.utils import set_random_seed").returncode == 0  # what it names is there


def test_no_torchreid_installed_is_the_projects_own_copy():
    _, t = tailored_as("torchreid-layout-mismatch", "ModuleNotFoundError: No module named 'torchreid.metrics'", facts())
    assert t.commands == ["git submodule update --init --recursive"]


def test_deep_person_reids_own_release_installed_points_at_another_torchreid():
    _, t = tailored_as("torchreid-layout-mismatch", "ModuleNotFoundError: No module named 'torchreid.utils'",
                       facts(packages={"torchreid": {"version": "1.4.0"}}))
    assert "another torchreid" in t.summary and "uninstall" not in " ".join(t.commands)


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'torchreid'",
    # old deep-person-reid's modules, its uncompiled Cython part, a torchreid.py shadowing the package
    "ModuleNotFoundError: No module named 'torchreid.data_manager'",
    "ModuleNotFoundError: No module named 'torchreid.metrics.rank_cylib.rank_cy'",
    "ModuleNotFoundError: No module named 'torchreid.utils'; 'torchreid' is not a package",
])
def test_other_torchreid_import_failures_are_not_the_layout(text):
    m = top(text)
    assert m is None or m.id != "torchreid-layout-mismatch"


@pytest.mark.parametrize("entry, text, dist", [
    ("torchreid-layout-mismatch", "ModuleNotFoundError: No module named 'torchreid.utils'", "torchreid"),
    ("pypi-clip-namesake", "AttributeError: module 'clip' has no attribute 'load'", "clip"),
])
def test_an_unreadable_version_leaves_the_entrys_own_words(entry, text, dist):
    # the probe records "unknown" for metadata without a Version: neither "not installed" nor a release
    _, t = tailored_as(entry, text, facts(packages={dist: {"version": "unknown"}}))
    assert t is None
