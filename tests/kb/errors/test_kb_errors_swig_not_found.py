"""SWIG missing while pip builds a SWIG-wrapped package (box2d-py, gymnasium's box2d extra). The
build fails for real with this machine's pip, and the hook's first command, run as printed, heals
the environment (Box2D's wheels: the same `import Box2D`, no build)."""

import shlex
import shutil
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.gather.light import light_facts
from torchdoctor.match.matcher import HIGH
from wheelkit import pip_venv

ENTRY = "swig-not-found"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("swig") is not None, reason="swig is on this machine's PATH: the build would succeed")
def test_box2d_py_without_swig_is_healed_by_the_printed_command(tmp_path):
    py = pip_venv(tmp_path / "venv")
    # no cache: a box2d-py wheel built earlier on this machine would install without a build
    failed = subprocess.run([py, "-m", "pip", "install", "--no-cache-dir", "box2d-py"], capture_output=True, text=True,
                            timeout=900)
    if "swig" not in failed.stdout + failed.stderr:
        pytest.skip("pip did not reach box2d-py's build here: " + failed.stderr.strip()[-300:])
    assert failed.returncode != 0
    out = failed.stdout + failed.stderr
    m = top(out)
    assert (m.id, m.confidence) == (ENTRY, HIGH), out[-800:]
    _, t = tailored_as(ENTRY, out, light_facts(py))
    assert "Box2D" in t.summary and t.commands[0].endswith("-m pip install box2d")
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", "import Box2D; print(Box2D.b2World().gravity)"], capture_output=True, text=True,
                            timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]


@pytest.mark.parametrize("system, conda, want", [
    ("Linux", False, "apt-get install -y swig"),
    ("Darwin", False, "brew install swig"),
    ("Windows", False, "choco install -y swig"),
    ("Linux", True, "conda install -y -c conda-forge swig"),
])
def test_the_program_is_installed_the_platforms_way(system, conda, want):
    _, t = tailored_as(ENTRY, "error: command 'swig.exe' failed: No such file or directory",
                       facts(system=system, python={"conda": conda}, programs={"swig": {"state": "absent"}}))
    assert any(want in c for c in t.commands), t.commands
    assert "--no-build-isolation" in t.summary


def test_swig_found_here_means_the_build_saw_another_path():
    _, t = tailored_as(ENTRY, "unable to execute 'swig': No such file or directory",
                       facts(programs={"swig": "/usr/bin/swig"}))
    assert "another PATH" in t.summary and t.commands == ["/usr/bin/swig -version"]


@pytest.mark.parametrize("text", [
    "error: command 'gcc' failed: No such file or directory",
    "ERROR: Failed building wheel for box2d-py",  # no swig in the text: another cause of that build's failure
])
def test_other_build_failures_are_not_swigs(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_a_swig_that_ran_and_failed_is_not_a_missing_swig():
    # pybox2d/pybox2d#132's shape: swig 3.0.12 found, then failing on the interface files
    text = ("Box2D/Box2D_joints.i:505: Error: Syntax error in input(3).\n"
            "error: command 'swig' failed with exit status 1\n"
            "ERROR: Failed building wheel for box2d-py")
    m = top(text)
    assert m is None or m.id != ENTRY


def test_windows_newer_wording_is_read():
    assert top("error: command 'swig.exe' failed: None").id == ENTRY
