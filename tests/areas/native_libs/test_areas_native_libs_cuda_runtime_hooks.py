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


JETSON_IMPORT = ("  File \"/usr/local/lib/python3.6/dist-packages/torch/__init__.py\", line 81, in <module>\n"
                 "    from torch._C import *\n"
                 "ImportError: libcudart.so.10.2: cannot open shared object file: No such file or directory")


def test_on_a_jetson_the_missing_runtime_is_jetpacks_not_a_pip_reinstall():
    # The paste names no Jetson; the machine's -tegra kernel does. A reinstall from PyPI would
    # fetch a wheel that cannot use the board's GPU at all.
    f = hook_facts(torch="1.2.0", machine="aarch64", os={"system": "Linux", "release": "4.9.140-tegra"})
    e = explain(JETSON_IMPORT, "cuda-runtime-lib-cannot-open", f)
    assert "JetPack" in e.cause and e.fix.commands[0] == "head -n 1 /etc/nv_tegra_release"
    assert not any("pip install" in c for c in e.fix.commands)
    assert any("Jetson" in n for n in e.notes)
    desktop = explain(JETSON_IMPORT, "cuda-runtime-lib-cannot-open",
                      hook_facts(torch="2.5.1+cu124", driver={"present": True, "driver_version": "550.54.15"},
                                 os={"system": "Linux", "release": "6.8.0-45-generic"}))
    assert "JetPack" not in (desktop.cause or "")
    # Thor's cu130 wheels come with pip's CUDA packages: the general reading holds there
    thor = hook_facts(torch="2.9.0+cu130", machine="aarch64", os={"system": "Linux", "release": "6.8.12-tegra"},
                      packages={"nvidia-cublas": {"version": "13.0.0.19"}})
    assert "JetPack" not in (explain(JETSON_IMPORT, "cuda-runtime-lib-cannot-open", thor).cause or "")


def test_a_jetson_containers_paste_is_read_as_jetsons_without_machine_facts():
    from torchdoctor.match.matcher import match_text
    text = ("Status: Downloaded newer image for dustynv/ros:noetic-pytorch-l4t-r32.5.0\n" + JETSON_IMPORT)
    assert [m.id for m in match_text(text)][:1] == ["jetson-cuda-lib-cannot-open"]
    assert [m.id for m in match_text(JETSON_IMPORT)][:1] == ["cuda-runtime-lib-cannot-open"]
