"""A package folder without its files, imported as an empty namespace package: an extension whose
source folder was never built, a checkout of a library never installed. The messages are made here
by a real interpreter; explain must name what was never built or installed."""

import shlex
import subprocess
import sys

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text

from hook_facts import facts


def _fail(tmp_path, code):
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert r.returncode != 0
    return r.stderr


def test_an_unbuilt_extensions_source_folder_imports_and_has_no_forward(tmp_path):
    # RAFT's layout: alt_cuda_corr/ holds setup.py and the .cu sources, no __init__.py
    ext = tmp_path / "alt_cuda_corr"
    ext.mkdir()
    (ext / "setup.py").write_text("from setuptools import setup\nsetup(name='correlation')\n")
    (ext / "correlation_kernel.cu").write_text("// kernel\n")
    err = _fail(tmp_path, "import alt_cuda_corr\nalt_cuda_corr.forward(1, 2, 3, 4)")
    assert "module 'alt_cuda_corr' has no attribute 'forward'" in err
    assert match_text(err)[0].id == "cuda-extension-package-not-built"


def test_an_optional_op_imported_under_try_fails_at_its_first_call(tmp_path):
    # RAFT-Stereo's layout: corr.py tries the compiled sampler and goes on without it; the
    # name is one no entry lists, so only the call beside the NameError says what it is
    (tmp_path / "corr.py").write_text(
        "try:\n    import stereo_sampler_ext\nexcept ImportError:\n    pass\n\n\n"
        "def sample(volume, coords, radius):\n"
        "    corr, = stereo_sampler_ext.forward(volume, coords, radius)\n    return corr\n")
    err = _fail(tmp_path, "import corr\ncorr.sample(1, 2, 3)")
    assert "NameError: name 'stereo_sampler_ext' is not defined" in err
    if sys.version_info >= (3, 11):
        assert "^^^^" in err  # the carets between the call and the error
    assert match_text(err)[0].id == "cuda-extension-package-not-built"


@pytest.mark.parametrize("text", [
    '  File "train.py", line 9, in step\n    loss = criterion(model.forward(x), y)\n'
    "NameError: name 'criterion' is not defined",
    # the user's own object called like an op: no op-like name, so not an unbuilt extension
    '  File "train.py", line 9, in step\n    out = model.forward(x)\nNameError: name \'model\' is not defined',
    '  File "train.py", line 9, in step\n    out = model.forward(x)\n          ^^^^^\n'
    "NameError: name 'model' is not defined. Did you mean: 'models'?",
])
def test_a_name_error_of_the_users_own_code_is_not_an_unbuilt_op(text):
    assert "cuda-extension-package-not-built" not in [m.id for m in match_text(text)]


def test_a_checkout_never_installed_names_no_location_and_the_hook_finds_the_folder(tmp_path):
    # Inpaint-Anything's layout: a library's clone (setup.py, the package inside) in the cwd
    (tmp_path / "tdsegany" / "tdsegany").mkdir(parents=True)
    (tmp_path / "tdsegany" / "setup.py").write_text("")
    (tmp_path / "tdsegany" / "tdsegany" / "__init__.py").write_text("class SamPredictor: pass\n")
    err = _fail(tmp_path, "from tdsegany import SamPredictor")
    assert "(unknown location)" in err
    m = match_text(err)[0]
    assert (m.id, m.confidence) == ("package-imported-as-bare-folder", "possible")
    t = hooks()[m.entry.tailor](m, facts(exe=sys.executable))
    where = subprocess.run(shlex.split(t.commands[0]), capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert str(tmp_path / "tdsegany") in where.stdout  # the checkout the summary says to install


@pytest.mark.parametrize("text", [
    # a module of the user's own code called like a network: their code, not an unbuilt extension
    "AttributeError: module 'model' has no attribute 'forward'",
    "AttributeError: module 'cuda_utils' has no attribute 'get_device'",
    # torch's own folders are another entry's (a torch left without its files)
    "ImportError: cannot import name 'fft' from 'torch.fft' (unknown location)",
])
def test_lookalikes_are_not_these_readings(text):
    ids = [m.id for m in match_text(text)]
    assert "cuda-extension-package-not-built" not in ids and "package-imported-as-bare-folder" not in ids


@pytest.mark.parametrize("text", [
    # torch's compiled submodules have no file of their own: code for another torch, not a bare folder
    "ImportError: cannot import name '_current_process_group' from 'torch._C._distributed_c10d' (unknown location)",
    "ImportError: cannot import name 'eval_frame' from 'torch._C._dynamo' (unknown location)",
])
def test_torchs_compiled_submodules_are_not_a_torch_left_without_files(text):
    assert "torch-folder-without-files" not in [m.id for m in match_text(text)]


def test_a_submodule_found_as_a_bare_folder_names_that_folder(tmp_path):
    # audiocraft cloned inside a folder of its own name: `audiocraft/models` in the cwd, no files Python imports
    (tmp_path / "audiocraft" / "models").mkdir(parents=True)
    err = _fail(tmp_path, "from audiocraft.models import MusicGen")
    assert "from 'audiocraft.models' (unknown location)" in err
    m = match_text(err)[0]
    assert (m.id, m.confidence) == ("package-imported-as-bare-folder", "possible")
    t = hooks()[m.entry.tailor](m, facts(exe=sys.executable))
    assert "uninstall" not in t.summary  # a shared namespace (google.protobuf) would lose every distribution in it
    where = subprocess.run(shlex.split(t.commands[0]), capture_output=True, text=True, timeout=120, cwd=str(tmp_path))
    assert str(tmp_path / "audiocraft" / "models") in where.stdout
