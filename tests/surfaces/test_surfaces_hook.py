"""The exception hook in real interpreters: `import torchdoctor.auto`, install()/uninstall(),
the sitecustomize recipe, chaining, threads, and the in-process facts (no torch import,
no CUDA initialisation)."""

import os
import subprocess
import sys
import textwrap

from conftest import TORCH_PYTHON, needs_torch


def py(code, env=None, python=sys.executable, timeout=120):
    return subprocess.run([python, "-c", textwrap.dedent(code)], capture_output=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)


@needs_torch
def test_auto_diagnoses_a_real_cpu_build_error_with_live_settings():
    r = py("""
        import torchdoctor.auto
        import torch
        torch.backends.cudnn.benchmark = True
        torch.use_deterministic_algorithms(True)
        torch.zeros(2).cuda()
    """, python=TORCH_PYTHON)
    err = r.stderr.decode()
    assert r.returncode == 1
    tb_end = err.index("AssertionError: Torch not compiled with CUDA enabled")
    diag = err.index("torchdoctor")
    assert tb_end < diag  # the normal traceback first
    assert "[torch-not-compiled-with-cuda, cpu-only-build]" in err
    assert "matched: AssertionError: Torch not compiled with CUDA enabled" in err
    assert "cudnn.benchmark on" in err and "deterministic algorithms on" in err
    assert "CUDA not initialised" in err


def test_inert_until_installed_and_uninstall_restores():
    r = py("""
        import sys, threading
        before = (sys.excepthook, threading.excepthook)
        import torchdoctor
        import torchdoctor.surfaces.hook as h
        assert (sys.excepthook, threading.excepthook) == before and not h.installed()
        torchdoctor.install()
        assert sys.excepthook is not before[0] and threading.excepthook is not before[1]
        torchdoctor.install()  # idempotent
        torchdoctor.uninstall()
        assert (sys.excepthook, threading.excepthook) == before
        print("ok")
    """)
    assert r.returncode == 0 and r.stdout == b"ok\n", r.stderr


def test_chains_the_hook_that_was_there_and_threads():
    r = py("""
        import sys, threading
        def mine(t, v, tb):
            print("MY HOOK", t.__name__, flush=True)
        sys.excepthook = mine
        import torchdoctor.auto
        def work():
            raise RuntimeError("operator torchvision::nms does not exist")
        th = threading.Thread(target=work, name="loader")
        th.start(); th.join()
        raise RuntimeError("Torch not compiled with CUDA enabled")
    """)
    out, err = r.stdout.decode(), r.stderr.decode()
    assert "MY HOOK RuntimeError" in out  # the previous hook printed (and no default traceback)
    assert "Traceback" in err and "in work" in err  # threading's default hook for the thread
    assert "torchdoctor (thread loader)" in err and "torchvision-operator-does-not-exist" in err
    assert err.count("torch-not-compiled-with-cuda") == 1


def test_unknown_errors_get_nothing_and_torch_is_never_imported():
    r = py("""
        import sys
        import torchdoctor.auto
        import atexit
        atexit.register(lambda: print("torch imported:", "torch" in sys.modules))
        raise ValueError("my own bug")
    """)
    err = r.stderr.decode()
    assert "ValueError: my own bug" in err and "torchdoctor" not in err
    assert r.stdout == b"torch imported: False\n"
    r = py("""
        import sys
        import torchdoctor.auto
        import atexit
        atexit.register(lambda: print("torch imported:", "torch" in sys.modules))
        raise RuntimeError("Torch not compiled with CUDA enabled")
    """)
    assert b"torch-not-compiled-with-cuda" in r.stderr and r.stdout == b"torch imported: False\n"


def test_import_costs_no_knowledge_base_and_no_click():
    r = py("""
        import sys
        import torchdoctor.auto
        heavy = [m for m in ("click", "torchdoctor.kb", "torchdoctor.kb.errors", "torchdoctor.match.matcher",
                             "torchdoctor.diagnose", "torchdoctor.gather.probe", "json", "subprocess") if m in sys.modules]
        print(heavy)
    """)
    assert r.stdout == b"[]\n", r.stderr


def test_sitecustomize_recipe_for_programs_you_cannot_edit(tmp_path):
    site_dir = py("import torchdoctor.auto as a; print(a.SITE_DIR)").stdout.decode().strip()
    assert os.path.isfile(os.path.join(site_dir, "sitecustomize.py"))
    assert subprocess.run([sys.executable, "-m", "torchdoctor.auto"], capture_output=True).stdout.decode().strip() == site_dir
    # a sitecustomize that was already on the path still runs
    other = tmp_path / "other"
    other.mkdir()
    (other / "sitecustomize.py").write_text("import sys\nsys.stderr.write('OTHER SITECUSTOMIZE\\n')\n")
    prog = tmp_path / "train.py"
    prog.write_text("raise RuntimeError('Torch not compiled with CUDA enabled')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site_dir, str(other)]))
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, env=env, timeout=120)
    err = r.stderr.decode()
    assert err.startswith("OTHER SITECUSTOMIZE\n")
    assert "torch-not-compiled-with-cuda" in err and r.returncode == 1
    # without the recipe, nothing happens
    r = subprocess.run([sys.executable, str(prog)], capture_output=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=str(other)))
    assert b"torchdoctor" not in r.stderr


def test_live_facts_never_initialise_cuda_and_read_settings():
    # A fake CUDA build of torch: the live facts must not call is_available/device_count.
    code = """
        import sys, types
        torch = types.ModuleType("torch")
        torch.__version__ = "2.9.0+cu128"
        torch.version = types.SimpleNamespace(cuda="12.8", hip=None, git_version="x", debug=False, xpu=None)
        calls = []
        class Cuda:
            def is_initialized(self): return False
            def is_available(self): calls.append("is_available"); return True
            def device_count(self): calls.append("device_count"); return 1
        torch.cuda = Cuda()
        torch.get_default_dtype = lambda: "torch.bfloat16"
        torch.get_default_device = lambda: "cuda:0"
        torch.backends = types.SimpleNamespace()
        sys.modules["torch"] = torch
        import os
        os.environ["CUDA_VISIBLE_DEVICES"] = "1"
        from torchdoctor.gather.live import live_facts
        from torchdoctor.render.brief import live_line
        f = live_facts()
        print(calls, f.value("cuda.initialized"), f.value("live.cuda_visible_devices"))
        print(live_line(f))
    """
    r = py(code)
    out = r.stdout.decode().splitlines()
    assert out[0] == "[] False 1", r.stderr
    assert "default device cuda:0, dtype bfloat16" in out[1] and "CUDA not initialised" in out[1]
    assert "CUDA_VISIBLE_DEVICES=1" in out[1]


def test_live_facts_read_memory_only_when_cuda_is_up():
    code = """
        import sys, types
        torch = types.ModuleType("torch")
        torch.__version__ = "2.9.0+cu128"
        torch.version = types.SimpleNamespace(cuda="12.8", hip=None)
        class Cuda:
            def is_initialized(self): return True
            def is_available(self): return True
            def device_count(self): return 1
            def memory_allocated(self, i): return 3 * 2**30
            def memory_reserved(self, i): return 4 * 2**30
            def max_memory_allocated(self, i): return 5 * 2**30
            def max_memory_reserved(self, i): return 6 * 2**30
            def get_arch_list(self): return ["sm_90"]
            def get_device_name(self, i): return "Fake GPU"
            def get_device_capability(self, i): return (9, 0)
        torch.cuda = Cuda()
        sys.modules["torch"] = torch
        from torchdoctor.gather.live import live_facts
        from torchdoctor.render.brief import live_line
        f = live_facts()
        print(f.value("live.cuda_memory")[0]["reserved"], f.value("cuda.devices")[0]["name"])
        print(live_line(f))
    """
    r = py(code)
    out = r.stdout.decode().splitlines()
    assert out[0] == "%d Fake GPU" % (4 * 2 ** 30), r.stderr
    assert "cuda:0 3.00 GiB allocated / 4.00 GiB reserved" in out[1]


def test_notebook_kernel_fix_commands_are_pip_cells():
    from torchdoctor.advice.commands import notebook_commands, runnable_here
    from conftest import make_facts
    facts = make_facts(python={"executable": "/env/bin/python"}, live={"kernel": "ipykernel"})
    cmds = ["/env/bin/python -m pip install torch==2.13.0", "pip install numpy<2", "nvidia-smi", "%pip list"]
    assert runnable_here(cmds, facts) == ["%pip install torch==2.13.0", "%pip install numpy<2", "!nvidia-smi", "%pip list"]
    plain = make_facts(python={"executable": "/env/bin/python"})
    assert runnable_here(cmds[:1], plain) == cmds[:1]
    assert notebook_commands(["/env/bin/python -c 'import torch'"], facts) == ["!/env/bin/python -c 'import torch'"]


# -- a good guest: what the program's folder holds is never imported, the cost is bounded --
DIAGNOSED = """
    import sys
    import torchdoctor.auto
    raise RuntimeError("Torch not compiled with CUDA enabled")
"""


def _modules_the_diagnosis_imports():
    """Top-level modules that are not loaded when the hook is installed and that the
    diagnosis loads: the names a hostile folder would plant."""
    r = py("""
        import sys
        import torchdoctor.auto
        from torchdoctor.surfaces.hook import diagnose_exception
        before = set(sys.modules)
        import io
        try:
            raise RuntimeError("Torch not compiled with CUDA enabled")
        except RuntimeError as e:
            assert diagnose_exception(e, file=io.StringIO())
        print(" ".join(sorted({m.split(".")[0] for m in set(sys.modules) - before} - {"torchdoctor"})))
    """)
    names = r.stdout.decode().split()
    assert "packaging" in names and "json" in names, r.stderr
    return names


def _plant(folder, names):
    for name in names:
        (folder / (name + ".py")).write_text("import sys\nsys.stderr.write('PLANTED %s\\n')\n" % name)
    pkg = folder / "psutil"  # a package, not a module
    pkg.mkdir()
    (pkg / "__init__.py").write_text("import sys\nsys.stderr.write('PLANTED psutil\\n')\n")


def test_the_hook_imports_nothing_from_the_programs_folder_or_the_cwd(tmp_path):
    names = _modules_the_diagnosis_imports()
    evil = tmp_path / "evil"
    evil.mkdir()
    _plant(evil, names)
    (evil / "train.py").write_text(textwrap.dedent(DIAGNOSED))
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    runs = {
        # the script's folder is sys.path[0]
        "script": subprocess.run([sys.executable, str(evil / "train.py")], capture_output=True, cwd=str(evil),
                                 env=env, timeout=120),
        # -c: sys.path[0] is '' (the current directory)
        "-c": subprocess.run([sys.executable, "-c", textwrap.dedent(DIAGNOSED)], capture_output=True,
                             cwd=str(evil), env=env, timeout=120),
        # '' follows the program into the folder it changed to
        "chdir": subprocess.run([sys.executable, "-c", "import os\nos.chdir(%r)\n" % str(evil)
                                 + textwrap.dedent(DIAGNOSED)], capture_output=True, cwd=str(tmp_path),
                                env=env, timeout=120),
    }
    for how, r in runs.items():
        err = r.stderr.decode()
        assert "PLANTED" not in err, (how, err)
        assert "torch-not-compiled-with-cuda" in err and "tailoring skipped" not in err, (how, err)
        assert "diagnosis failed" not in err, (how, err)


def test_the_programs_own_imports_are_untouched_by_the_hook(tmp_path):
    # The guard is for the doctor's imports only: the program, in another thread while
    # the diagnosis runs and after it, still imports from its own folder.
    (tmp_path / "mine.py").write_text("VALUE = 42\n")
    (tmp_path / "later.py").write_text("VALUE = 43\n")
    r = py("""
        import io, sys, threading
        import torchdoctor.auto
        from torchdoctor.surfaces import hook
        import torchdoctor.surfaces.guest as guest
        got = {}
        def other():
            import mine
            got["mine"] = mine.VALUE
        with guest.ImportGuard():
            t = threading.Thread(target=other)
            t.start(); t.join()
        try:
            raise RuntimeError("Torch not compiled with CUDA enabled")
        except RuntimeError as e:
            hook.diagnose_exception(e, file=io.StringIO())
        import later
        print(got["mine"], later.VALUE, [f for f in sys.meta_path if type(f).__module__ == guest.__name__])
    """, env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert r.stdout == b"42 43 []\n", r.stderr


def test_a_huge_message_costs_the_hook_little_and_both_ends_are_read():
    r = py("""
        import io, time
        from torchdoctor.surfaces.hook import exception_text, diagnose_exception
        filler = "ERROR: not found: failed to load module cannot open x y z\\n" * 75000   # 4.4 MB
        def ids(text):
            out = io.StringIO()
            try:
                raise RuntimeError(text)
            except RuntimeError as e:
                n = len(exception_text(e))
                t0 = time.perf_counter()
                diagnose_exception(e, file=out)
                return n, time.perf_counter() - t0, out.getvalue()
        n, took, out = ids("Torch not compiled with CUDA enabled\\n" + filler)
        print(len(filler), n, "torch-not-compiled-with-cuda" in out)
        n, took2, out = ids(filler + "operator torchvision::nms does not exist")
        print(n, "torchvision-operator-does-not-exist" in out)
        print("took", round(max(took, took2), 2))
    """)
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 3, r.stderr
    size, kept, found = lines[0].split()
    assert int(size) > 4_000_000 and int(kept) <= 160 * 1024 and found == "True"
    kept2, found2 = lines[1].split()
    assert int(kept2) <= 160 * 1024 and found2 == "True"


def test_each_sitecustomize_runs_once_however_the_folder_is_listed(tmp_path):
    site_dir = py("import torchdoctor.auto as a; print(a.SITE_DIR)").stdout.decode().strip()
    alias = tmp_path / "alias"
    alias.symlink_to(site_dir, target_is_directory=True)
    host = tmp_path / "host"
    host.mkdir()
    (host / "sitecustomize.py").write_text("import sys\nsys.stderr.write('HOST SITECUSTOMIZE\\n')\n")
    # A host sitecustomize that chains the way ours once did: the first other one on the path.
    chainer = tmp_path / "chainer"
    chainer.mkdir()
    (chainer / "sitecustomize.py").write_text(textwrap.dedent("""
        import importlib.util, os, sys
        from importlib.machinery import PathFinder
        sys.stderr.write('CHAINER SITECUSTOMIZE\\n')
        here = os.path.dirname(os.path.abspath(__file__))
        spec = PathFinder.find_spec("sitecustomize", [p for p in sys.path if os.path.abspath(p or ".") != here])
        if spec is not None:
            spec.loader.exec_module(importlib.util.module_from_spec(spec))
    """))
    prog = tmp_path / "train.py"
    prog.write_text("raise RuntimeError('Torch not compiled with CUDA enabled')\n")
    layouts = {
        "twice": [site_dir, site_dir, str(host)],
        "symlink": [site_dir, str(alias), str(host)],
        "respelled": [site_dir, site_dir + os.sep + "." + os.sep, str(alias), str(host)],
        "chainer after": [site_dir, str(chainer), str(host)],
        "chainer first": [str(chainer), site_dir, str(alias), str(host)],
    }
    for name, path in layouts.items():
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(path))
        r = subprocess.run([sys.executable, str(prog)], capture_output=True, env=env, timeout=120, cwd=str(tmp_path))
        err = r.stderr.decode()
        assert "RecursionError" not in err and "not installed" not in err, (name, err[-2000:])
        assert err.count("HOST SITECUSTOMIZE") == 1, (name, err[-2000:])
        assert err.count("CHAINER SITECUSTOMIZE") == (1 if name.startswith("chainer") else 0), (name, err[-2000:])
        assert err.count("[torch-not-compiled-with-cuda") == 1 and r.returncode == 1, (name, err[-2000:])
