"""NVRTC not found: the pip package of torch's CUDA major, the CUDA release the loaded libnvrtc
belongs to, and a CUDA directory on LD_LIBRARY_PATH decide the advice."""

from torchdoctor.model.facts import Facts

from hook_facts import explain as explain_as

BUILTINS = ("RuntimeError: nvrtc: error: failed to open libnvrtc-builtins.so.11.1.\n"
            "  Make sure that libnvrtc-builtins.so.11.1 is installed correctly.")


def explain(text, torch_version, installed=None, env=None):
    pk = {"torch": {"version": torch_version}}
    pk.update(installed or {})
    f = Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
               "packages": {"installed": pk}, "env": env or {}})
    return explain_as(text, "nvrtc-library-not-found", f)


def test_builtins_of_another_cuda_mean_another_cuda_comes_first():
    e = explain(BUILTINS, "2.5.1+cu124", {"nvidia-cuda-nvrtc-cu12": {"version": "12.4.127"}},
                {"LD_LIBRARY_PATH": "/usr/local/cuda-11.1/lib64"})
    assert "belongs to CUDA 11.1" in e.cause and "torch's CUDA 12.4" in e.cause
    assert e.fix.commands[0].startswith("env -u LD_LIBRARY_PATH")


def test_the_missing_nvrtc_package_of_torchs_cuda_major_is_installed():
    e = explain("RuntimeError: Could not find libnvrtc.so. Please make sure CUDA is installed.", "2.9.0+cu130")
    assert e.fix.commands == ["/opt/env/bin/python -m pip install nvidia-cuda-nvrtc"]
    e = explain("OSError: Could not find any NVRTC library", "2.5.1+cu124")
    assert e.fix.commands == ["/opt/env/bin/python -m pip install nvidia-cuda-nvrtc-cu12"]
