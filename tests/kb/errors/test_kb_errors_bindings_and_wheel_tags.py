"""libtorch from other languages (tch's C++ build against another libtorch, a program the dynamic loader
cannot give libtorch to), a companion's own `torch` folder holding its extension, and uv's words for a
Python newer than a package's wheels."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import explain, hits as ids, facts

TCH = "tch-libtorch-version-mismatch"


# ------------------------------------------------------------------------------ tch / torch-sys ----
def test_an_error_in_tchs_generated_api_is_the_libtorch_release():
    text = ("  cargo:warning=libtch/torch_api_generated.cpp:812:31: error: no member named '_foo_bar' in namespace 'torch'\n"
            "  cargo:warning=1 error generated.")
    assert ids(text)[:1] == [(TCH, HIGH)], ids(text)


def test_ccs_last_line_alone_is_only_possibly_the_libtorch_release():
    text = ('  error occurred: Command "c++" "-O0" "-c" "libtch/torch_api.cpp" with args "c++" did not execute '
            'successfully (status code exit status: 1).')
    assert ids(text)[:1] == [(TCH, POSSIBLE)], ids(text)


def test_another_crates_c_build_is_not_tch():
    text = ('  error occurred: Command "cc" "-O0" "-c" "src/zstd/lib/compress.c" with args "cc" did not execute '
            'successfully (status code exit status: 1).')
    assert TCH not in [i for i, _ in ids(text)]


# ------------------------------------------------------------------------- a libtorch program ----
PROGRAM = ("target/release/examples/mnist: error while loading shared libraries: libtorch_cpu.so: cannot open shared "
           "object file: No such file or directory")


def test_a_program_without_libtorch_on_the_loaders_path_is_told_ld_library_path():
    e = explain(PROGRAM, "extension-libtorch-so-not-found", facts(torch="2.13.0"))
    assert "LD_LIBRARY_PATH" in e.fix.summary
    assert e.fix.commands[-1] == "ldd target/release/examples/mnist | grep -E 'torch|c10'", e.fix.commands


def test_a_python_extension_asking_for_libtorch_cpu_is_still_the_old_torch():
    text = ("ImportError: libtorch_cpu.so: cannot open shared object file: No such file or directory")
    assert ids(text)[:1] == [("extension-needs-libtorch-cpu", HIGH)], ids(text)


# ----------------------------------------------------------- a companion's own `torch` folder ----
@pytest.mark.parametrize("path, want", [
    ("/opt/conda/lib/python3.8/site-packages/horovod/torch/mpi_lib_v2.cpython-38-x86_64-linux-gnu.so",
     "extension-undefined-torch-symbol"),
    ("/opt/conda/lib/python3.8/site-packages/torch/_C.cpython-38-x86_64-linux-gnu.so", "torch-own-lib-undefined-symbol"),
])
def test_only_torchs_own_modules_in_a_torch_folder_are_torchs(path, want):
    text = "ImportError: %s: undefined symbol: _ZN3c104impl8GPUTrace9haspyobjE" % path
    assert ids(text)[:1] == [(want, HIGH)], ids(text)


# ------------------------------------------------------------ uv: no wheel for this Python ----
@pytest.mark.parametrize("text, want", [
    ("  ╰─▶ Because all versions of torchcodec have no wheels with a matching Python ABI tag (e.g., `cp315`) and you "
     "require torchcodec, we can conclude that your requirements are unsatisfiable.", "companion-placeholder-release-installed"),
    ("  ╰─▶ Because all versions of bitsandbytes have no wheels with a matching Python ABI tag (e.g., `cp314t`) and you "
     "require bitsandbytes, we can conclude that your requirements are unsatisfiable.", "uv-companion-no-wheel-for-platform"),
    ("hint: You're using CPython 3.15 (`cp315`), but `torchaudio` (v2.11.0) only has wheels with the following Python "
     "ABI tags: `cp310`, `cp311`, `cp312`, `cp313`, `cp314`", "uv-torch-no-wheel-for-platform"),
    ("hint: You require CPython 3.14 (`cp314`), but we only found wheels for `xformers` (v0.0.30) with the following "
     "Python ABI tags: `cp39`, `cp310`, `cp311`, `cp312`, `cp313`", "uv-companion-no-wheel-for-platform"),
])
def test_uvs_python_abi_tag_words_name_the_package_family(text, want):
    assert ids(text)[:1] == [(want, HIGH)], ids(text)


def test_another_packages_abi_tag_gap_is_not_torchs():
    text = ("  ╰─▶ Because all versions of pyarrow have no wheels with a matching Python ABI tag (e.g., `cp314`) and you "
            "require pyarrow, we can conclude that your requirements are unsatisfiable.")
    assert not [i for i, _ in ids(text) if i.startswith(("uv-", "companion-placeholder"))], ids(text)
