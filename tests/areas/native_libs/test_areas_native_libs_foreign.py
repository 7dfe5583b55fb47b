"""A library that LD_LIBRARY_PATH puts in front of the one torch ships: the real torch of the test
venv, a foreign libgomp.so.1 built here with gcc from a version script without GOMP_4.0 (what
an old toolchain's runtime looks like to torch), the real probe. The cause is named with the
variable and the folder, the fix changes the variable and reinstalls nothing, and running the
printed fix heals it.
"""

import os
import shutil
import subprocess

import pytest

from torchdoctor.diagnose import diagnose
from torchdoctor.gather.probe import gather

from conftest import TORCH_PYTHON, needs_torch

pytestmark = needs_torch


def _foreign_gomp(folder) -> str:
    if not shutil.which("gcc"):
        pytest.skip("gcc is needed to build the foreign libgomp.so.1")
    os.makedirs(str(folder), exist_ok=True)
    src, vmap = os.path.join(str(folder), "g.c"), os.path.join(str(folder), "v.map")
    with open(src, "w") as fh:
        fh.write("int omp_get_num_threads(void) { return 1; }\n")
    with open(vmap, "w") as fh:  # OMP_1.0 and GOMP_1.0 only: torch's libtorch_cpu.so needs GOMP_4.0
        fh.write("OMP_1.0 { global: omp_get_num_threads; local: *; };\nGOMP_1.0 { } OMP_1.0;\n")
    out = os.path.join(str(folder), "libgomp.so.1")
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,--version-script=" + vmap, "-Wl,-soname,libgomp.so.1",
                    "-o", out, src], check=True, timeout=120)
    return out


def _findings(monkeypatch, **env):
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    facts = gather(python=TORCH_PYTHON, timeout=120)
    return facts, diagnose(facts).findings


def _heals(fix_commands, env):
    """Run the printed fix in a shell that has the broken variables, then `import torch` there."""
    script = "; ".join(fix_commands + ['"%s" -c "import torch"' % TORCH_PYTHON])
    full = dict(os.environ, **env)
    return subprocess.run(["bash", "-c", script], env=full, capture_output=True, text=True, timeout=300)


def test_a_foreign_libgomp_on_ld_library_path_is_named_and_unsetting_it_heals(tmp_path, monkeypatch):
    lib = _foreign_gomp(tmp_path / "oldgcc")
    env = {"LD_LIBRARY_PATH": str(tmp_path / "oldgcc")}
    broken = subprocess.run([TORCH_PYTHON, "-c", "import torch"], env=dict(os.environ, **env), capture_output=True,
                            text=True, timeout=300)
    assert broken.returncode != 0 and "GOMP_4.0" in broken.stderr
    facts, found = _findings(monkeypatch, **env)
    ids = [f.id for f in found]
    assert "foreign-library" in ids and "torch-import-failed" not in ids, ids  # no "reinstall torch"
    f = next(f for f in found if f.id == "foreign-library")
    assert f.severity == "error"
    assert f.title == "libgomp.so.1 in %s, set by LD_LIBRARY_PATH, breaks `import torch`" % (tmp_path / "oldgcc")
    assert lib in f.detail and "GOMP_4.0" in f.detail
    assert f.fix.commands == ["unset LD_LIBRARY_PATH"]
    assert not any("pip" in c for c in f.fix.commands)
    assert _heals(f.fix.commands, env).returncode == 0


def test_one_folder_taken_out_of_ld_library_path_keeps_the_others(tmp_path, monkeypatch):
    _foreign_gomp(tmp_path / "oldgcc")
    keep = str(tmp_path / "mylibs")
    os.makedirs(keep)
    env = {"LD_LIBRARY_PATH": "%s:%s" % (tmp_path / "oldgcc", keep)}
    _, found = _findings(monkeypatch, **env)
    f = next(f for f in found if f.id == "foreign-library")
    assert f.fix.commands == ["export LD_LIBRARY_PATH=%s" % keep]
    assert _heals(f.fix.commands, env).returncode == 0


def test_a_copy_of_torchs_own_library_loaded_from_elsewhere_is_a_warning(tmp_path, monkeypatch):
    facts, found = _findings(monkeypatch)
    bundled = facts.value("loaded_libs.bundled")
    assert "libgomp.so.1" in bundled and "foreign-library" not in [f.id for f in found]
    paths = facts.value("loaded_libs.paths")
    assert any(p.endswith("/torch/lib/libtorch_cpu.so") for p in paths), paths  # what import torch loaded
    other = tmp_path / "copies"
    other.mkdir()
    shutil.copy(os.path.join(bundled["libgomp.so.1"], "libgomp.so.1"), str(other))
    _, found = _findings(monkeypatch, LD_LIBRARY_PATH=str(other))
    f = next(f for f in found if f.id == "foreign-library")
    assert f.severity == "warning" and "is loaded instead of torch's own copy" in f.title
    assert "%s/libgomp.so.1" % other in f.detail
