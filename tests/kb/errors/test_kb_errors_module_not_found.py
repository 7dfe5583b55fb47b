"""Python's own `No module named 'x'` for any module: read as a possibility (a package never
installed in the interpreter that ran, or the project's own module run from outside its folder),
with PyPI's name for imports published under another one. Modules with an entry of their own keep
it, and keep their confidence."""

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH, POSSIBLE, match_text

ENTRY = "python-package-missing"


@pytest.mark.parametrize("module, dist", [("warp", "warp-lang"), ("lava", "lava-nc"), ("cv2", "opencv-python"),
                                          ("tensorly", "tensorly"), ("torch_harmonics", "torch_harmonics")])
def test_any_module_is_a_possibility_with_its_pypi_name(module, dist):
    m, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named '%s'" % module, facts())
    assert m.confidence == POSSIBLE
    assert t.commands == ["/home/u/venv/bin/python -m pip install %s" % dist]
    assert "project's own module" in t.summary


def test_an_installed_module_says_another_interpreter_ran():
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named 'warp'",
                       facts(packages={"warp-lang": {"version": "1.5.0"}}))
    assert "another interpreter" in t.summary


@pytest.mark.parametrize("text, entry, confidence", [
    ("ModuleNotFoundError: No module named 'torch'", "torch-module-not-found", HIGH),
    ("ModuleNotFoundError: No module named 'pkg_resources'", "pkg-resources-removed", None),
    ("ModuleNotFoundError: No module named 'dropout_layer_norm'", "flash-attn-extension-not-installed", HIGH),
    ("ModuleNotFoundError: No module named 'diffusers'", ENTRY, HIGH),  # a listed companion: a diagnosis
])
def test_modules_with_their_own_reading_keep_it(text, entry, confidence):
    m = match_text(text)[0]
    assert m.id == entry
    if confidence:
        assert m.confidence == confidence


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named '_lzma'",  # a Python built without the stdlib extension
    "ModuleNotFoundError: No module named 'transformers.models.llama.tokenization_llama_fast'",  # a submodule
])
def test_stdlib_extensions_and_submodules_are_not_read_as_a_missing_package(text):
    m = top(text)
    assert m is None or m.id != ENTRY or "generic" not in m.groups


@pytest.mark.parametrize("module, want", [
    ("tkinter", "standard library"),  # a Python built without it: pip cannot add it
    ("lzma", "standard library"),
    ("utils", "folder of the project"),  # no PyPI package by that name would fit
    ("apex", "install it from its repository"),  # PyPI's apex is another project
])
def test_names_pip_cannot_or_should_not_install_get_no_pip_install_of_the_name(module, want):
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named '%s'" % module, facts())
    assert want in t.summary
    assert not any(c.endswith("pip install %s" % module) for c in t.commands), t.commands


@pytest.mark.parametrize("module, system, py, want", [
    ("fcntl", "Windows", "3.11.7", "does not run on Windows"),
    ("msvcrt", "Linux", "3.11.7", "only in Python on Windows"),
    ("tomllib", "Linux", "3.10.12", "joined the standard library in Python 3.11"),
    ("google", "Linux", "3.11.7", "namespace several packages share"),
])
def test_platform_and_version_bound_modules_are_told_apart(module, system, py, want):
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named '%s'" % module, facts(system=system, py=py))
    assert want in t.summary, t.summary


def test_installed_apex_is_still_seen_as_installed():
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named 'apex'", facts(packages={"apex": {"version": "0.1"}}))
    assert "another interpreter" in t.summary


@pytest.mark.parametrize("text, says", [
    ("ModuleNotFoundError: No module named 'typing.io'; 'typing' is not a package", "left Python's standard library in 3.13"),
    ("ModuleNotFoundError: No module named 'groundingdino._C'", "is groundingdino's compiled part"),
    ("ModuleNotFoundError: No module named 'ibug.face_alignment'", "Nothing in /home/u/venv/bin/python provides"),
    ("ModuleNotFoundError: No module named 'importlib.metadata'", "joined Python's standard library in 3.8"),
    ("ModuleNotFoundError: No module named 'code.utils'; 'code' is not a package", "standard library's module shadows"),
    # a private module in pure Python: not a compiled part
    ("ModuleNotFoundError: No module named 'sklearn._base'", "Nothing in /home/u/venv/bin/python provides"),
])
def test_a_dotted_missing_module_is_read_by_what_its_name_tells(text, says):
    m, t = tailored_as("python-package-missing", text, facts())
    assert m.confidence == POSSIBLE and says in t.summary, t.summary


def test_a_dotted_missing_module_of_an_installed_package_names_its_release():
    _, t = tailored_as("python-package-missing", "No module named 'scipy.signal_windows'",
                       facts(packages={"scipy": {"version": "1.13.0"}}))
    assert t.summary.startswith("scipy 1.13.0 is installed") and t.commands == [
        "/home/u/venv/bin/python -m pip show scipy"]


@pytest.mark.parametrize("text", ["No module named 'scipy.signal.windows.gaussian'",
                                  "ModuleNotFoundError: No module named 'sklearn.neighbors._base'"])
def test_a_third_part_missing_is_the_installed_release_lacking_it(text):
    # Python names the first part it cannot import: scipy.signal and sklearn.neighbors imported
    _, t = tailored_as("hf-library-version-mismatch", text, facts(packages={"scipy": {"version": "1.13.0"}}))
    assert "has no `" in t.summary and "pip check" in t.summary


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'torch.nonexistent'",  # torch's own: not the generic reading
    "ModuleNotFoundError: No module named 'triton.language.extra'",
    "Error: Cannot find module 'lodash/fp'",  # Node's words
])
def test_the_dotted_reading_leaves_torch_and_other_stacks_alone(text):
    m = top(text)
    assert m is None or m.id != "python-package-missing" or "generic" not in m.groups
