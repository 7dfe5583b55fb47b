"""Install fixes resolved by the target's own pip before they are shown: real pip dry runs in a
real virtual environment, with a pip configuration of the test's own (find-links in a folder of
the test, an index that refuses connections: how an unreachable index looks to pip), real
wheels (tiny ones: a fake torch, companions whose version.py says which build they are).
"""

import os
import subprocess

import pytest

import wheelkit
from torchdoctor.advice import pipdry, resolve as R
from torchdoctor.advice.builds import planned_variant
from torchdoctor.gather.probe import gather
from torchdoctor.model.findings import Finding, Fix

from conftest import make_facts

DEAD_CPU = "http://127.0.0.1:9/whl/cpu"  # an index of the /whl/<variant> shape that pip cannot reach


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    """A venv holding a CPU torch 2.13.0 and PyPI's CUDA torchvision 0.28.0 (the classic mix), and
    find-links holding that torchvision, the CPU torch, and a CUDA torch 2.14.1 + torchvision 0.29.1 pair."""
    base = tmp_path_factory.mktemp("resolve")
    links, work = base / "links", base / "work"
    wheelkit.fake_torch_wheel(links, work, "2.13.0+cpu")
    wheelkit.fake_torch_wheel(links, work, "2.14.1", cuda="13.0", requires=["cuda-toolkit==13.0.3"])
    wheelkit.build_wheel(links, "cuda-toolkit", "13.0.3", {"cuda_toolkit_marker.py": ""})
    wheelkit.companion_wheel(links, "torchvision", "0.28.0", built_as="0.28.0+cu130")
    wheelkit.companion_wheel(links, "torchvision", "0.29.1", built_as="0.29.1+cu130")
    py = wheelkit.pip_venv(base / "venv")
    env = wheelkit.hermetic_env(links, no_index=True)
    wheelkit.install(py, env, "torch==2.13.0+cpu", "torchvision==0.28.0")
    return {"py": py, "links": str(links), "base": base}


@pytest.fixture
def pipconf(world, monkeypatch):
    wheelkit.hermetic_pip(monkeypatch, world["links"])
    return world


_FACTS = {}


def _facts(py):
    """The venv's facts, probed once (no test changes the venv)."""
    if py not in _FACTS:
        _FACTS[py] = gather(python=py, timeout=60)
    return _FACTS[py]


def _finding(*commands):
    return Finding(id="t", category="t", severity="error", title="t", fix=Fix(summary="s", commands=list(commands)))


def test_a_fix_that_resolves_is_pinned_exactly_and_leaves_out_the_index_pip_cannot_reach(pipconf):
    facts = _facts(pipconf["py"])
    pip = "%s -m pip" % pipconf["py"]
    f = _finding("%s install --force-reinstall --no-deps --no-cache-dir torch==2.13.0 --index-url %s" % (pip, DEAD_CPU))
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.OK, f.fix.resolution
    assert f.fix.commands == ["%s install --force-reinstall --no-deps --no-cache-dir torch==2.13.0+cpu" % pip]
    assert f.fix.resolution.startswith("resolved against your pip configuration: torch 2.13.0+cpu from ")
    assert "http://127.0.0.1:9/whl/cpu could not be reached" in f.fix.resolution


def test_a_fix_that_would_install_another_build_is_replaced_by_what_resolves(pipconf):
    # The classic silent wrong fix: the CPU index is unreachable, pip falls back to the sources
    # of the user's configuration and installs the CUDA torchvision again, exit 0.
    facts = _facts(pipconf["py"])
    pip = "%s -m pip" % pipconf["py"]
    wrong = "%s install --no-deps --force-reinstall torchvision==0.28.0 --index-url %s" % (pip, DEAD_CPU)
    f = _finding(wrong)
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.REPLACED, f.fix.resolution
    assert f.fix.commands == ["%s install torch==2.14.1 torchvision==0.29.1" % pip]
    assert wrong not in f.fix.commands
    said = f.fix.resolution
    assert "torchvision==0.28.0 (the cpu build) does not resolve here" in said
    assert "torchvision 0.28.0 (cu130 build)" in said and "could not be reached" in said
    assert "to download" in said and "Install torch 2.14.1" in f.fix.summary


def test_pip_keeping_the_installed_wrong_build_is_not_a_fix(pipconf):
    # `torchvision==0.28.0` is "already satisfied" by the CUDA build beside a CPU torch: pip
    # exits 0 and changes nothing.
    facts = _facts(pipconf["py"])
    pip = "%s -m pip" % pipconf["py"]
    f = _finding("%s install torchvision==0.28.0" % pip)
    R.resolve_finding(f, facts)
    assert f.fix.resolved != R.OK
    assert "%s install torchvision==0.28.0" % pip not in f.fix.commands
    assert "different platforms" in f.fix.resolution, f.fix.resolution


def test_nothing_resolving_says_why_and_what_to_change(pipconf, monkeypatch):
    cap = pipconf["base"] / "constraints.txt"
    cap.write_text("torch<=2.13.0\ntorchvision<=0.28.0\n")
    monkeypatch.setenv("PIP_CONSTRAINT", str(cap))
    facts = _facts(pipconf["py"])
    pip = "%s -m pip" % pipconf["py"]
    f = _finding("%s install --no-deps --force-reinstall torchvision==0.28.0 --index-url %s" % (pip, DEAD_CPU))
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.NONE and f.fix.commands == [], f.fix.commands
    assert "make http://127.0.0.1:9/whl/cpu reachable" in f.fix.resolution
    assert "your pip constraints file %s says torchvision<=0.28.0" % cap in f.fix.resolution


def test_an_uninstall_before_its_install_becomes_one_force_reinstall(pipconf):
    facts = _facts(pipconf["py"])
    pip = "%s -m pip" % pipconf["py"]
    f = _finding("%s uninstall -y torch" % pip, "%s install torch==2.13.0 --index-url %s" % (pip, DEAD_CPU))
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.OK, f.fix.resolution
    assert f.fix.commands == ["%s install --force-reinstall torch==2.13.0+cpu" % pip]


def test_a_dry_run_that_does_not_finish_in_time_leaves_the_fix_unverified(pipconf, monkeypatch):
    monkeypatch.setattr(pipdry, "DRY_RUN_TIMEOUT", 0.01)
    facts = _facts(pipconf["py"])
    cmd = "%s -m pip install torch==2.13.0 --index-url %s" % (pipconf["py"], DEAD_CPU)
    f = _finding(cmd)
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.UNVERIFIED and f.fix.commands == [cmd]
    assert "did not finish within" in f.fix.resolution


def test_an_environment_without_pip_leaves_the_fix_unverified(tmp_path, pipconf):
    bare = tmp_path / "bare"
    subprocess.run([os.sys.executable, "-m", "venv", "--without-pip", str(bare)], check=True, timeout=120)
    py = str(bare / "bin" / "python")
    facts = make_facts(python={"executable": py, "version": "3.11.7"}, os={"system": "Linux"})
    cmd = "%s -m pip install torch==2.13.0" % py
    f = _finding(cmd)
    R.resolve_finding(f, facts)
    assert f.fix.resolved == R.UNVERIFIED and "has no pip" in f.fix.resolution and f.fix.commands == [cmd]


def test_a_saved_reports_fixes_are_not_resolved_here():
    facts = make_facts(source="report", python={"executable": "/elsewhere/bin/python"})
    f = _finding("/elsewhere/bin/python -m pip install torch==2.13.0")
    assert R.resolve_finding(f, facts) == [] and f.fix.resolved == ""


@pytest.mark.parametrize("version,requires,expect", [
    ("2.13.0+cpu", [], "cpu"),
    ("2.6.0", ["nvidia-cuda-runtime-cu12==12.4.127; platform_system == \"Linux\""], "cu124"),
    ("2.14.1", ["cuda-toolkit[cublas,cudart]==13.0.3; platform_system == \"Linux\""], "cu130"),
    ("2.13.0", [], "cu130"),  # no requirement to tell: an untagged Linux wheel is PyPI's default
])
def test_the_build_a_planned_torch_is(version, requires, expect):
    facts = make_facts(os={"system": "Linux"}, python={"machine": "x86_64"})
    assert planned_variant(pipdry.Planned("torch", version, "https://x/torch.whl", requires), facts) == expect


def test_an_untagged_wheel_on_macos_is_the_cpu_build():
    facts = make_facts(os={"system": "Darwin"}, python={"machine": "arm64"})
    assert planned_variant(pipdry.Planned("torchvision", "0.28.0", "https://x/tv.whl"), facts) == "cpu"


@pytest.mark.parametrize("system,machine", [("Linux", "x86_64"), ("Darwin", "arm64")])
def test_a_package_outside_torchs_family_has_no_build(system, machine):
    # NumPy's version is no torch release: read as one, numpy 2.4.6 was called a "cu121 build"
    facts = make_facts(os={"system": system}, python={"machine": machine})
    assert planned_variant(pipdry.Planned("numpy", "2.4.6", "https://x/numpy.whl"), facts) is None


def test_a_fix_not_dry_run_says_so_and_how_to_dry_run_it():
    # Plain `check` resolves nothing: its install commands say they were not dry-run here.
    facts = make_facts(python={"executable": "/venv/bin/python"})
    f = _finding("/venv/bin/python -m pip install torch==2.15.0 --index-url https://download.pytorch.org/whl/cpu")
    other = _finding("export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True")
    R.mark_not_tried([f, other], facts)
    assert f.fix.resolved == "" and "check --resolve" in f.fix.resolution
    assert other.fix.resolution == ""  # no install command, nothing to dry-run
    saved = make_facts(source="report", python={"executable": "/elsewhere/bin/python"})
    g = _finding("/elsewhere/bin/python -m pip install torch==2.13.0")
    R.mark_not_tried([g], saved)
    assert g.fix.resolution == ""
