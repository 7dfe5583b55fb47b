"""A CUDA runtime library of another CUDA release than torch's: the asker is an extension built
against that toolkit, not torch; the same release's library missing stays torch's reinstall."""

from hook_facts import explain, facts as hook_facts


def facts(torch):
    return hook_facts(torch=torch, driver={"present": True, "driver_version": "550.54.15"})

OLD = ("  File \"/home/u/venv/lib/python3.11/site-packages/spatial_correlation_sampler/__init__.py\", line 1\n"
       "ImportError: libcudart.so.9.2: cannot open shared object file: No such file or directory")


def test_a_runtime_of_an_older_cuda_points_at_the_extension_built_against_it():
    e = explain(OLD, "cuda-runtime-lib-cannot-open", facts("2.5.1+cu124"))
    assert "built against CUDA 9" in e.cause and "never loads libcudart.so.9.2" in e.cause
    assert "Rebuild that extension" in e.fix.summary and "CUDA 12" in e.fix.summary
    assert "torch is built for CUDA 12; libcudart.so.9.2 belongs to CUDA 9" in e.notes


def test_a_runtime_of_torchs_own_cuda_is_torchs_to_reinstall():
    e = explain("ImportError: libcublas.so.12: cannot open shared object file: No such file or directory",
                "cuda-runtime-lib-cannot-open", facts("2.5.1+cu124"))
    assert "never loads" not in (e.cause or "") and "Reinstall torch 2.5.1+cu124" in e.fix.summary


def test_libraries_that_number_their_own_releases_are_not_compared():
    # cuFFT 11 ships with CUDA 12: its soname says nothing of the toolkit's major.
    e = explain("OSError: libcufft.so.11: cannot open shared object file: No such file or directory",
                "cuda-runtime-lib-cannot-open", facts("2.5.1+cu124"))
    assert "never loads" not in (e.cause or "")


def test_a_runtime_of_a_newer_cuda_is_not_called_left_over():
    e = explain("ImportError: libcudart.so.13: cannot open shared object file: No such file or directory",
                "cuda-runtime-lib-cannot-open", facts("2.8.0+cu128"))
    assert "a build for a newer CUDA than this torch's" in e.cause and "still installed" not in e.cause.split("never")[-1]
