"""Older torch's compiler lookup, torch's private autograd attributes read by libraries, a
bare missing tensorboard, and Triton kernels written before triton 2.0. The lines are built for
the test in the formats Python, torch and triton print; none is an evaluation text."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks

from hook_facts import facts, top


@pytest.mark.parametrize("text,cc", [
    ("subprocess.CalledProcessError: Command '['which', 'c++']' returned non-zero exit status 1.", "c++"),
    ("CalledProcessError: Command '['which', 'g++']' returned non-zero exit status 1.", "g++"),
])
def test_older_torchs_which_lookup_of_the_compiler_is_a_missing_compiler(text, cc):
    m = top(text)
    assert m.id == "cpp-extension-compiler-not-found" and m.groups["cc"] == cc
    t = hooks()[m.entry.tailor](m, facts())
    assert t.commands[0] == "sudo apt-get install -y build-essential"


@pytest.mark.parametrize("text", [
    "AttributeError: 'ViewBackward0' object has no attribute '_saved_self_sizes'",
    "'AddmmBackward' object has no attribute '_saved_mat1_sizes'",
])
def test_a_library_reading_an_autograd_nodes_saved_values_is_a_private_api(text):
    assert top(text).id == "torch-private-module-missing"


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'tensorboard'",
    "INFO:root:mylib.logging: No module named 'tensorboard'",
])
def test_a_missing_tensorboard_is_installed(text):
    assert top(text).id == "torch-tensorboard-import-failed"


@pytest.mark.parametrize("text", [
    "TypeError: dot() got an unexpected keyword argument 'trans_b'",
    "    qk += tl.dot(q, k, trans_b=True)\nTypeError(\"dot() got an unexpected keyword argument 'trans_a'\")",
])
def test_triton_kernels_written_before_triton_2_are_named(text):
    m = top(text)
    assert m.id == "triton-dot-trans-args-removed" and m.confidence == "high"


@pytest.mark.parametrize("text,entry", [
    # another program looked up with which: no compiler
    ("CalledProcessError: Command '['which', 'nvidia-smi']' returned non-zero exit status 1.",
     "cpp-extension-compiler-not-found"),
    # another missing attribute of a backward node: no saved value
    ("AttributeError: 'ViewBackward0' object has no attribute 'next_function'", "torch-private-module-missing"),
    # a module inside tensorboard missing: tensorboard is there, broken or of another release
    ("No module named 'tensorboard.compat'", "torch-tensorboard-import-failed"),
    # another function's unexpected argument: not triton's tl.dot
    ("TypeError: forward() got an unexpected keyword argument 'trans_b'", "triton-dot-trans-args-removed"),
    # the header found (Python 3.11's own cpython/ copy) and compiled: no failure
    ("In file included from /usr/include/python3.11/cpython/longintrepr.h:4,", "python311-cython-longintrepr-missing"),
    # another attribute of Upsample: not the one torch 1.11 added
    ("AttributeError: 'Upsample' object has no attribute 'scale_factors'", "upsample-recompute-scale-factor-old-pickle"),
    # another name NumPy lacks: not one of its builtin aliases
    ("ImportError: cannot import name 'typeDict' from 'numpy'", "numpy-builtin-alias-removed"),
])
def test_lookalikes_are_not_read_as_the_entry(text, entry):
    m = top(text)
    assert m is None or m.id != entry


@pytest.mark.parametrize("text", [
    "src/agent.cpp:198:12: fatal error: longintrepr.h: No such file or directory",
    "build/src/pkg/pylong.c:719:10: fatal error: 'longintrepr.h' file not found",
    "pkg\\data\\meta_dataset.c(208): fatal error C1083: Cannot open include file: 'longintrepr.h': No such file or "
    "directory",
])
def test_old_cython_output_on_python_311_is_named_with_a_310_environment(text):
    m = top(text)
    assert m.id == "python311-cython-longintrepr-missing"
    t = hooks()[m.entry.tailor](m, facts(py="3.12.1"))
    assert t.commands[1:] == ["python3.10 -m venv .venv", ".venv/bin/python -m pip install <package>"]
    t = hooks()[m.entry.tailor](m, facts(py="3.10.12"))
    assert t.commands is None and "another Python" in t.cause


SOURCE_BUILD = ("Collecting numpy<1.25,>=1.22.4 (from somepkg)\n  Downloading numpy-1.24.4.tar.gz (10.9 MB)\n"
                "  Installing build dependencies: finished with status 'done'\n"
                "  Getting requirements to build wheel: finished with status 'error'\n")


def test_a_scientific_package_built_from_its_source_archive_is_a_release_without_a_wheel():
    m = top(SOURCE_BUILD)
    assert m.id == "scientific-package-built-from-source" and (m.groups["pkg"], m.groups["ver"]) == ("numpy", "1.24.4")
    t = hooks()[m.entry.tailor](m, facts())
    assert t.commands[0] == '/home/u/venv/bin/python -m pip install --only-binary=:all: "numpy==1.24.4"'
    m = top("numpy.distutils.system_info.NotFoundError: No BLAS/LAPACK libraries found.\n"
            "    To build Scipy from sources, BLAS & LAPACK libraries need to be installed.\nerror: "
            "metadata-generation-failed")
    assert m.id == "scientific-package-built-from-source"


def test_a_source_build_that_succeeded_is_no_failure():
    ok = SOURCE_BUILD.replace("'error'", "'done'") + "Successfully installed numpy-1.24.4\n"
    m = top(ok)
    assert m is None or m.id != "scientific-package-built-from-source"


def test_a_traceback_through_the_removed_functional_tensor_import_is_read_when_cut_before_its_error():
    text = ('  File "/venv/lib/python3.10/site-packages/somevideo/transforms/augmentations.py", line 9, in <module>\n'
            "    import torchvision.transforms.functional_tensor as F_t\n")
    assert top(text).id == "torchvision-functional-tensor-removed"
    m = top("    import torchvision.transforms.functional as F\nKeyError: 'x'")
    assert m is None or m.id != "torchvision-functional-tensor-removed"


@pytest.mark.parametrize("text,entry", [
    # chumpy's `from numpy import bool, int, ...` under NumPy 1.24+
    ("ImportError: cannot import name 'bool' from 'numpy' (/venv/lib/python3.10/site-packages/numpy/__init__.py)",
     "numpy-builtin-alias-removed"),
    # a YOLOv5-style checkpoint pickled by torch 1.10, run on 1.11+
    ("    recompute_scale_factor=self.recompute_scale_factor)\n"
     "AttributeError: 'Upsample' object has no attribute 'recompute_scale_factor'",
     "upsample-recompute-scale-factor-old-pickle"),
])
def test_removed_and_added_attributes_name_their_release(text, entry):
    assert top(text).id == entry


