"""A Jetson's CUDA libraries missing in a container or under a wheel for another JetPack, Poetry
reading torch's local version labels and a dependency's cap, PyG's operator library failing on
Windows, and a package's compiled _C imported from its unbuilt source folder."""

import pytest

from torchdoctor.match.matcher import HIGH, match_text

from hook_facts import explain, facts, hits as ids

IMPORT = ('  File "/usr/local/lib/python3.6/dist-packages/torch/__init__.py", line 188, in <module>\n'
          "    _load_global_deps()\n"
          "OSError: libcurand.so.10: cannot open shared object file: No such file or directory")


@pytest.mark.parametrize("marker", [
    "docker run -it --rm --runtime nvidia nvcr.io/nvidia/l4t-pytorch:r32.6.1-pth1.8-py3",
    "# R32 (release), REVISION: 3.1, GCID: 18284527, BOARD: t186ref, EABI: aarch64",
    "I'm running the container on a Jetson AGX Xavier",
])
def test_a_cuda_library_missing_on_a_jetson_is_jetpacks(marker):
    assert ids(marker + "\n" + IMPORT)[:1] == [("jetson-cuda-lib-cannot-open", HIGH)], ids(marker + "\n" + IMPORT)


@pytest.mark.parametrize("prefix", ["", "Running on an x86_64 workstation\n",
                                    # "tegra" inside ordinary words is no board
                                    "My laptop has integrated graphics and a GTX 1650\n",
                                    "Failed in our integration tests\n"])
def test_the_same_library_without_a_board_in_sight_stays_the_general_entry(prefix):
    assert ids(prefix + IMPORT)[:1] == [("cuda-runtime-lib-cannot-open", HIGH)], ids(prefix + IMPORT)


POETRY_LOCAL = ("  Because torchvision (0.10.0+cu111) depends on torch (1.9.0)\n"
                "   and  depends on torch (1.9.0+cu111), torchvision is forbidden.\n"
                "  So, because  depends on torchvision (0.10.0+cu111), version solving failed.")


def test_poetry_refusing_a_cuda_torchvision_for_its_plain_pin_is_poetrys_reading():
    assert ids(POETRY_LOCAL)[:1] == [("poetry-local-version-pin-forbidden", HIGH)]
    e = explain(POETRY_LOCAL, "poetry-local-version-pin-forbidden", facts(torch="1.9.0+cu111"))
    assert "poetry self update" in e.fix.commands and "1.5" in e.fix.summary


@pytest.mark.parametrize("text", [
    # no label on either side, a label but another release in the project (a real mismatch any
    # Poetry refuses), and pip's wording: not Poetry's label reading
    "Because torchvision (0.15.2) depends on torch (2.0.1)\n and project depends on torch (2.1.0), torchvision is forbidden.",
    "  Because torchvision (0.16.0+cu118) depends on torch (2.1.0)\n   and proj depends on torch (2.0.1+cu118), "
    "torchvision is forbidden.",
    "torchvision 0.10.0+cu111 requires torch==1.9.0, but you have torch 1.10.0 which is incompatible.",
])
def test_a_torchvision_pin_without_a_label_on_it_is_not_poetrys_reading(text):
    assert "poetry-local-version-pin-forbidden" not in [i for i, _ in ids(text)]


def test_poetry_naming_a_dependency_that_caps_torchvision_is_the_pin_entry():
    text = ("  SolverProblemError\n\n"
            "  Because somepkg (1.8.0) depends on torchvision (>=0.5.0,<0.11.0)\n"
            "   and no versions of somepkg match >1.8.0,<2.0.0, somepkg (>=1.8.0,<2.0.0) requires torchvision "
            "(>=0.5.0,<0.11.0).")
    assert ids(text)[:1] == [("pip-package-pins-other-torch", HIGH)], ids(text)
    exact = ("  Because xformers (0.0.22) depends on torch (2.0.1)\n   and proj depends on torch (2.1.0), xformers is "
             "forbidden.")
    assert ids(exact)[:1] == [("pip-package-pins-other-torch", HIGH)], ids(exact)
    # torchvision's own pin of torch is torchvision's entry, not a third package's cap
    assert "pip-package-pins-other-torch" not in [
        i for i, _ in ids("Because torchvision (0.15.2) depends on torch (>=2.0.1)")]


WIN127 = ('  File "C:\\Users\\u\\miniconda3\\envs\\g\\lib\\site-packages\\torch_scatter\\__init__.py", line 16, in <module>\n'
          "    torch.ops.load_library(spec.origin)\n"
          '  File "C:\\Users\\u\\miniconda3\\envs\\g\\lib\\site-packages\\torch\\_ops.py", line 1392, in load_library\n'
          "    ctypes.CDLL(path)\n"
          '  File "C:\\Users\\u\\miniconda3\\envs\\g\\lib\\ctypes\\__init__.py", line 374, in __init__\n'
          "    self._handle = _dlopen(self._name, mode)\n"
          "OSError: [WinError 127] The specified procedure could not be found")


def test_pygs_operator_library_failing_on_windows_is_a_wheel_for_another_torch():
    assert ids(WIN127)[:1] == [("pyg-extension-built-for-other-torch", HIGH)], ids(WIN127)
    newer = ("OSError: [WinError 127] The specified procedure could not be found.\n"
             "OSError: Could not load this library: C:\\venv\\Lib\\site-packages\\torch_scatter\\_version_cpu.pyd")
    assert ids(newer)[0][0] == "pyg-extension-built-for-other-torch"
    # torch's own DLL failing is torch's mixed install, not PyG's wheel
    own = ('OSError: [WinError 127] The specified procedure could not be found. Error loading '
           '"C:\\venv\\lib\\site-packages\\torch\\lib\\c10_cuda.dll" or one of its dependencies.')
    assert ids(own)[:1] == [("windows-dll-procedure-not-found", HIGH)]


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name '_C' from partially initialized module 'torchao' (most likely due to a circular "
    "import) (/home/u/ao/torchao/__init__.py)",
    "ImportError: cannot import name '_C' from partially initialized module 'core.nn' (most likely due to a circular "
    "import) (/backup/seg/core/nn/__init__.py)",
])
def test_a_packages_unbuilt_c_from_its_source_folder_is_the_extension_not_built(text):
    assert ids(text)[:1] == [("package-c-extension-not-built", HIGH)], ids(text)


@pytest.mark.parametrize("text", [
    # yacs keeps the config node _C in config/defaults.py: the project's own circular import
    "ImportError: cannot import name '_C' from partially initialized module 'config' (most likely due to a circular "
    "import) (CoTNet/config/__init__.py)",
    "ImportError: cannot import name '_C' from partially initialized module 'mmdet.configs' (most likely due to a "
    "circular import)",
    "ImportError: cannot import name '_C' from partially initialized module 'config.defaults' (most likely due to a "
    "circular import)",
])
def test_a_config_modules_c_is_not_a_compiled_extension(text):
    assert "package-c-extension-not-built" not in [i for i, _ in ids(text)]


def test_torchs_own_partial_import_stays_torchs():
    text = "ImportError: cannot import name '_C' from partially initialized module 'torch' (most likely due to a circular import)"
    assert ids(text)[:1] == [("torch-partially-initialized-circular-import", HIGH)]
    assert [m.id for m in match_text(text)][0] != "package-c-extension-not-built"
