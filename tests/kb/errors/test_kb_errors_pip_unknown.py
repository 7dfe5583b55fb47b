"""`pip install .` building UNKNOWN-0.0.0: a setuptools older than 61 cannot read pyproject.toml's
[project] table. Run for real with setuptools 60.10.0 from this machine's pip; the entry's commands,
run as printed in the project's folder, install the package under its own name."""

import subprocess

import pytest

from torchdoctor.match.matcher import HIGH

from hook_facts import pyproject, run_fix_command, top, venv_with

ENTRY = "pip-built-unknown-0-0-0"


@pytest.mark.parametrize("text", [
    "  Building wheel for UNKNOWN (pyproject.toml) ... done",
    "Successfully installed UNKNOWN-0.0.0",
    "Successfully installed numpy-1.26.4 UNKNOWN-0.0.0",
    "    Found existing installation: UNKNOWN 0.0.0",
    "writing UNKNOWN.egg-info/PKG-INFO",
])
def test_each_of_pips_lines_is_a_diagnosis(text):
    m = top(text)
    assert m.id == ENTRY and m.confidence == HIGH


@pytest.mark.parametrize("text", [
    "Successfully installed demo-pkg-1.2.3",
    "Successfully installed demo_pkg-0.0.0",  # a real 0.0.0 cannot be told from Poetry's nameless build
    "Successfully installed torch-2.1.0 UNKNOWNPKG-1.0",
    "The server socket has failed to bind to ?UNKNOWN? (errno: 98 - Address already in use).",
])
def test_near_misses_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


@pytest.mark.slow
def test_the_printed_commands_rebuild_the_project_under_its_name(tmp_path):
    py, run, env = venv_with(tmp_path, "setuptools==60.10.0", "wheel")
    proj = tmp_path / "proj"
    (proj / "demo_pkg").mkdir(parents=True)
    (proj / "demo_pkg" / "__init__.py").write_text("X = 1\n")
    (proj / "pyproject.toml").write_text(pyproject("demo-pkg", "1.2.3"))

    def pip_here(*args):
        return subprocess.run([py, "-m", "pip"] + list(args), cwd=str(proj), capture_output=True, text=True,
                              timeout=600, env=env)

    def imports():  # from outside the project's folder: the installed package only
        return subprocess.run([py, "-c", "import demo_pkg"], cwd=str(tmp_path), capture_output=True, text=True,
                              timeout=120, env=env).returncode == 0

    built = pip_here("install", "--no-build-isolation", ".")
    assert "Successfully installed UNKNOWN-0.0.0" in built.stdout, built.stdout[-600:]
    assert not imports()  # the UNKNOWN wheel carries no module
    m = top(built.stdout)
    assert m.id == ENTRY and m.confidence == HIGH
    for needle in ("uninstall -y UNKNOWN", "install --upgrade pip setuptools", "python3 -m pip install ."):
        run_fix_command(m, needle, py, env, cwd=str(proj))
    assert imports()
    listed = pip_here("list", "--format=freeze").stdout
    assert "demo-pkg==1.2.3" in listed and "UNKNOWN" not in listed
    setuptools = next(ln.split("==")[1] for ln in listed.splitlines() if ln.startswith("setuptools=="))
    assert int(setuptools.split(".")[0]) >= 61  # the printed upgrade ran: a later --no-build-isolation build reads it
