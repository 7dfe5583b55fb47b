"""Known errors whose text is cut or looks like another's: the dispatcher's backend list quoted without its head, a
free-threaded interpreter with a torch built for the regular one, and triton missing where the
log shows Windows paths. The lines here are built for the test, in the formats torch, pip and
the dispatcher print; none is an evaluation text."""

from torchdoctor.match.matcher import match_text
from torchdoctor.areas.registry import all_hooks as hooks
from hook_facts import facts


def top(text):
    found = match_text(text)
    return found[0].id if found else None


def ids(text):
    return [m.id for m in match_text(text)]


# -- 'aten::X' is only available for these backends: [...] ---------------------------------------
LIST_ONLY = "\u2018aten::_fft_c2c\u2019 is only available for these backends: [CPU, Meta, QuantizedCPU]."


def test_the_backend_list_alone_is_a_possible_mps_gap():
    found = match_text(LIST_ONLY)
    assert found[0].id == "mps-op-backend-list-only" and found[0].groups["op"] == "aten::_fft_c2c"
    assert found[0].confidence == "possible"  # the line never names the backend
    assert top("aten::upsample_bicubic2d.out' is only available for these backends: [CPU, CUDA]") == \
        "mps-op-backend-list-only"


def test_the_whole_message_is_left_to_the_backend_it_names():
    head = ("NotImplementedError: Could not run 'aten::slow_conv3d_forward' with arguments from the '%s' backend. "
            "This could be because the operator doesn't exist for this backend. 'aten::slow_conv3d_forward' is "
            "only available for these backends: [CPU, Meta, BackendSelect].")
    assert "mps-op-backend-list-only" not in ids(head % "CUDA")
    assert top(head % "MPS") == "mps-op-not-implemented"
    # another namespace's operator is not the dispatcher's aten gap
    assert "mps-op-backend-list-only" not in ids("'torchvision::nms' is only available for these backends: [CPU]")


def test_the_hook_says_whether_the_backend_can_be_mps():
    m = next(m for m in match_text(LIST_ONLY) if m.id == "mps-op-backend-list-only")
    hook = hooks()[m.entry.tailor]
    mac = hook(m, facts(system="Darwin", machine="arm64"))
    assert "almost certainly MPS" in mac.cause and "PYTORCH_ENABLE_MPS_FALLBACK" in mac.commands[0]
    linux = hook(m, facts(system="Linux"))
    assert "no MPS backend" in linux.cause and "the list has no CUDA" in linux.cause
    with_cuda = next(m for m in match_text(LIST_ONLY.replace("[CPU,", "[CPU, CUDA,")))
    assert "the list has no CUDA" not in hook(with_cuda, facts(system="Windows")).cause


# -- free-threaded Python ---------------------------------------------------------------------------
C_EXT = ("  File \"C:\\Users\\u\\AppData\\Local\\Programs\\Python\\Python313\\Lib\\site-packages\\torch\\__init__.py\", "
         "line 990, in <module>\n    raise ImportError(\nImportError: Failed to load PyTorch C extensions:\n"
         "    It appears that PyTorch has loaded the `torch/_C` folder")


def test_the_c_extension_failure_under_a_free_threaded_python_is_the_missing_build():
    assert top("PS C:\\work> python3.13t train.py\n" + C_EXT) == "torch-free-threaded-python-without-build"
    assert top("$ /home/u/py/bin/python3.14t -c 'import torch'\n" + C_EXT) == "torch-free-threaded-python-without-build"
    # the same failure without a free-threaded interpreter in sight keeps the generic answer
    assert top("PS C:\\work> python train.py\n" + C_EXT) == "torch-c-extensions-failed-to-load"


def test_pip_finding_nothing_for_a_free_threaded_python():
    pip = ("ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: none)\n"
           "ERROR: No matching distribution found for torch==2.5.1")
    found = match_text(pip + "\nLocation: /home/u/env/lib/python3.13t/site-packages")
    assert found[0].id == "torch-free-threaded-python-without-build"
    assert "pip-no-matching-distribution-torch" not in [m.id for m in found]  # refined
    assert top(pip) == "pip-no-matching-distribution-torch"
    # a version list means wheels exist for this interpreter: not the free-threaded gap
    listed = pip.replace("(from versions: none)", "(from versions: 2.6.0, 2.7.0)")
    assert top(listed + "\nUsing CPython 3.13.1 experimental free-threading build") != \
        "torch-free-threaded-python-without-build"


# -- triton missing, on Windows ---------------------------------------------------------------------
TRITON = "torch._inductor.exc.TritonMissing: Cannot find a working triton installation. Either the package is not installed or it is too old."


def test_triton_missing_with_windows_paths_is_the_windows_limitation():
    win = "  File \"E:\\apps\\sd\\venv\\lib\\site-packages\\torch\\_inductor\\scheduler.py\", line 3957\n" + TRITON
    assert top(win) == "triton-not-found-windows"
    assert "triton-not-found" not in ids(win)  # refined
    drive = "  File \"D:\\proj\\run.py\", line 12, in main\n    model(x)\n" + TRITON
    assert top(drive) == "triton-not-found-windows"
    linux = "  File \"/home/u/venv/lib/python3.12/site-packages/torch/_inductor/scheduler.py\", line 3957\n" + TRITON
    assert top(linux) == "triton-not-found"
    assert top(TRITON) == "triton-not-found"  # no path: the text cannot say Windows


def test_a_cuda_pin_on_macos_is_named_in_the_index_entry():
    m = next(m for m in match_text("ERROR: Could not find a version that satisfies the requirement "
                                   "torch==2.1.2+cu118 (from versions: 2.0.1, 2.1.0, 2.1.2, 2.2.0)"))
    assert m.entry.category == "torch-index-mismatch" and "On macOS" in m.entry.cause


# -- more kinds: a Python without its shared library, old OOM codes, ptxas, shadowing, paddle --------
def test_a_python_without_its_shared_library():
    line = "ImportError: libpython3.10.so.1.0: cannot open shared object file: No such file or directory"
    m = match_text(line)[0]
    assert m.id == "libpython-shared-library-missing" and m.groups["lib"] == "libpython3.10.so.1.0"


def test_the_old_out_of_memory_code_quoted_alone():
    assert top("RuntimeError: cuda runtime error (2)") == "cuda-out-of-memory"
    assert top("RuntimeError: cuda runtime error (2) : out of memory at /pytorch/aten/src/THC/THCCachingAllocator.cpp:510") == \
        "cuda-out-of-memory"
    assert top("RuntimeError: cuda runtime error (20)") != "cuda-out-of-memory"


def test_ptxas_exe_that_cannot_start_or_rejects_the_kernel():
    cmd = ("subprocess.CalledProcessError: Command '['C:\\\\triton\\\\backends\\\\nvidia\\\\bin\\\\ptxas.exe', '--version']' "
           "returned non-zero exit status %s.")
    for status in ("3221225794", "3221225781", "4294967295"):
        m = match_text(cmd % status)[0]
        assert m.id == "triton-windows-ptxas-exit-status" and m.groups["status"] == status
    # Linux ptxas has no .exe: left to the other ptxas entries
    assert "triton-windows-ptxas-exit-status" not in ids(
        "subprocess.CalledProcessError: Command '['/usr/bin/ptxas', '--version']' returned non-zero exit status 1.")


SHADOW_TOP = ("Traceback (most recent call last):\n  File \"queue.py\", line 2, in <module>\n    import torch\n"
              "  File \"/home/u/env/lib/python3.11/site-packages/torch/__init__.py\", line 1, in <module>")


def test_a_script_named_like_a_standard_module():
    assert top(SHADOW_TOP) == "script-shadows-stdlib-module"
    nested = ("    import random\n  File \"/home/u/proj/random.py\", line 3, in <module>\n    import torch\n"
              "  File \"/home/u/venv/lib/python3.11/site-packages/torch/__init__.py\", line 5, in <module>")
    assert top(nested) == "script-shadows-stdlib-module"
    # the standard library's own file, and torch's own random.py, are not shadowing
    real = nested.replace("/home/u/proj/random.py", "/usr/lib/python3.11/random.py")
    assert "script-shadows-stdlib-module" not in ids(real)
    win = nested.replace("/home/u/proj/random.py", "C:\\\\venv\\\\Lib\\\\site-packages\\\\torch\\\\random.py")
    assert "script-shadows-stdlib-module" not in ids(win)
    # without torch in the text it is not a torch diagnosis
    assert "script-shadows-stdlib-module" not in ids(SHADOW_TOP.rsplit("\n", 1)[0] + "\nNameError: name 'x' is not defined")


def test_paddle_windows_paths_are_another_framework():
    line = ("OSError: (External) CUDNN error(4), CUDNN_STATUS_INTERNAL_ERROR. (at C:\\home\\workspace\\Paddle\\paddle"
            "\\phi\\kernels\\gpudnn\\conv_kernel.cu:409)")
    assert match_text(line) == []
    assert match_text(line + "\nimport torch") != []  # torch named: no longer another framework's output
