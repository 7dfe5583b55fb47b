"""Hostile environments: every way a machine can be broken ends in a report
with findings and a normal exit (0 or 1), within the time limit.

Real processes throughout: `python -m torchdoctor` in a child, fake torch
packages and a fake psutil on PYTHONPATH, fake nvidia-smi on PATH, fake NVML
and libcuda libraries on LD_LIBRARY_PATH (built with the C compiler when there
is one), real old interpreters where the machine has them. The only clock is a
generous wall-clock guard on each child: a hang fails the test, a slow machine
does not.
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from fakes import fake_bin, fake_nvidia_smi, fake_torch, write

PY = sys.executable
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GUARD_S = 300  # wall-clock guard per command; the probe's own limits are far shorter
CC = shutil.which("cc") or shutil.which("gcc")


@pytest.fixture
def box(tmp_path):
    """A clean environment: private bin dir first on PATH, no PYTHONPATH, no
    GPU masks, a neutral working directory."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    env = dict(os.environ)
    for k in ("PYTHONPATH", "NO_COLOR", "CUDA_VISIBLE_DEVICES", "NVIDIA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH",
              "LD_LIBRARY_PATH", "PYTHONIOENCODING", "PYTHONUTF8"):
        env.pop(k, None)
    env["PATH"] = "%s:/usr/bin:/bin" % bindir

    class Box:
        root = tmp_path
        bin = bindir
        cwd = work

        def run(self, *args, env=None, stdin=b"", shell=None, timeout=GUARD_S):
            e = dict(self.env)
            for k, v in (env or {}).items():
                if v is None:
                    e.pop(k, None)
                else:
                    e[k] = v
            argv = [PY, "-m", "torchdoctor"] + [str(a) for a in args]
            if shell:  # e.g. "exec 0<&-;" to close a standard stream first
                argv = ["sh", "-c", shell + ' exec "$@"', "sh"] + argv
            return subprocess.run(argv, env=e, cwd=str(self.cwd), timeout=timeout, capture_output=True,
                                  input=stdin if stdin is not None else None,
                                  stdin=subprocess.DEVNULL if stdin is None else None)

        def torch(self, name="site", **kw):
            return fake_torch(self.root / name, **kw)

    b = Box()
    b.env = env
    return b


def report(p):
    """The JSON report of a finished `check --json`: normal exit, no traceback."""
    assert p.returncode in (0, 1), (p.returncode, p.stderr[-3000:])
    assert b"Traceback" not in p.stderr, p.stderr[-3000:]
    doc = json.loads(p.stdout)
    assert doc["findings"], "a broken environment must produce findings"
    return doc


def ids(doc):
    return {f["id"] for f in doc["findings"]}


def text_of(doc):
    return "\n".join("%s %s %s" % (f["title"], f["detail"], f["fix"]["summary"]) for f in doc["findings"])


def clean_exit(p, codes=(0, 1)):
    assert p.returncode in codes, (p.returncode, p.stderr[-3000:])
    assert b"Traceback" not in p.stderr, p.stderr[-3000:]


# ------------------------------------------------------------ import torch --
IMPORT_FAILURES = {
    "raises ImportError": ("raise ImportError('libc10.so: cannot open shared object file')", "torch-import-failed"),
    "raises RuntimeError": ("raise RuntimeError('boom at import')", "torch-import-failed"),
    "raises SystemExit": ("raise SystemExit(3)", "torch-import-failed"),
    "raises KeyboardInterrupt": ("raise KeyboardInterrupt", "torch-import-failed"),
    "raises MemoryError": ("raise MemoryError()", "torch-import-failed"),
    "segfaults": ("import os, signal; os.kill(os.getpid(), signal.SIGSEGV)", "torch-import-crash"),
    "aborts": ("import os; os.abort()", "torch-import-crash"),
    "is SIGKILLed": ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", "torch-import-crash"),
    "exits silently": ("import os; os._exit(0)", "torch-import-crash"),
    "hangs": ("import time; time.sleep(600)", "torch-import-crash"),
}


@pytest.mark.parametrize("case", sorted(IMPORT_FAILURES))
def test_import_torch_failures(box, case):
    code, expected = IMPORT_FAILURES[case]
    root = box.torch(import_code=code)
    doc = report(box.run("check", "--json", "--timeout", "5", env={"PYTHONPATH": root}))
    assert expected in ids(doc), ids(doc)
    assert doc["facts"]["probe"]["completed"] is (expected == "torch-import-failed")


@pytest.mark.parametrize("case,code", [
    ("prints 50 MB of binary", "import sys; sys.stdout.buffer.write(b'\\x00\\xff' * 25000000); "
                               "sys.stderr.buffer.write(b'\\x1b[31m' * 1000000)"),
    ("closes its stdout and stderr", "import os; os.close(1); os.close(2)"),
    ("warns loudly", "import warnings\nfor i in range(10000): warnings.warn('w%d' % i)"),
])
def test_import_torch_that_misbehaves_but_works(box, case, code):
    root = box.torch(import_code=code)
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    probe = doc["facts"]["probe"]
    assert probe["completed"] is True
    assert len(probe["stdout_tail"]) < 200000 and len(probe["stderr_tail"]) < 200000
    assert doc["facts"]["torch"]["version"] == "2.4.1+cu124"


def test_torch_absent_in_a_real_venv(box):
    venv = box.root / "venv"
    subprocess.run([PY, "-m", "venv", "--without-pip", str(venv)], check=True)
    py = venv / "bin" / "python"
    doc = report(box.run("check", "--json", "--python", py))
    assert "torch-not-installed" in ids(doc)
    assert str(py) in text_of(doc)


# ------------------------------------------------------- torch.backends --
def _backends_root(box, setup):
    root = box.torch(backends=("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp"))
    b = os.path.join(root, "torch", "backends")
    setup(root, b)
    return root


BACKENDS = {
    "has no submodules": lambda r, b: [shutil.rmtree(os.path.join(b, d)) for d in os.listdir(b) if d != "__init__.py"],
    "is a plain module": lambda r, b: (shutil.rmtree(b), write(b + ".py", "x = 1\n")),
    "does not exist": lambda r, b: (
        shutil.rmtree(b),
        write(os.path.join(r, "torch", "__init__.py"),
              open(os.path.join(r, "torch", "__init__.py")).read().replace("from . import version, cuda, backends",
                                                                          "from . import version, cuda"))),
    "submodule import raises": lambda r, b: write(os.path.join(b, "cudnn", "__init__.py"),
                                                  "raise OSError('libcudnn.so.9: cannot open shared object file')\n"),
    "is_available raises": lambda r, b: write(os.path.join(b, "mkl", "__init__.py"),
                                              "def is_available():\n    raise RuntimeError('mkl boom')\n"),
    "attributes raise": lambda r, b: write(os.path.join(b, "cuda", "__init__.py"), textwrap.dedent("""\
        class _M:
            def __getattr__(self, name):
                raise KeyError(name)
        matmul = _M()
        def __getattr__(name):
            raise ValueError("no " + name)
        def is_built():
            return True
        """)),
    "a call exits the process": lambda r, b: write(os.path.join(b, "mkldnn", "__init__.py"),
                                                   "def is_available():\n    raise SystemExit(4)\n"),
    "a call raises KeyboardInterrupt": lambda r, b: write(os.path.join(b, "openmp", "__init__.py"),
                                                          "def is_available():\n    raise KeyboardInterrupt\n"),
}


@pytest.mark.parametrize("case", sorted(BACKENDS))
def test_backends_missing_or_raising(box, case):
    root = _backends_root(box, BACKENDS[case])
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    facts = doc["facts"]
    assert facts["probe"]["completed"] is True, facts["probe"]
    assert facts["torch"]["version"] == "2.4.1+cu124"
    assert "backends" in facts and "cuda" in facts  # the stages after backends still ran
    # one bad backend or attribute costs its own facts, not the whole section
    assert not (isinstance(facts["backends"], dict) and "_failed" in facts["backends"]), facts["backends"]


def test_backends_that_raise_are_failed_facts(box):
    root = _backends_root(box, BACKENDS["submodule import raises"])
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    assert "libcudnn.so.9" in doc["facts"]["backends"]["cudnn"]["_failed"]
    assert "cudnn-unavailable" in ids(doc)


def test_backend_that_segfaults_is_named_in_a_finding(box):
    root = _backends_root(box, lambda r, b: write(os.path.join(b, "openmp", "__init__.py"),
                                                  "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    assert doc["facts"]["probe"]["last_stage"] == "backends"
    # named in a finding of its own, not only as the reason cuDNN's facts are missing
    assert any("SIGSEGV" in f["title"] or "crash" in f["title"].lower() for f in doc["findings"])


def test_backend_that_segfaults_still_ends_in_a_report(box):
    root = _backends_root(box, lambda r, b: write(os.path.join(b, "cudnn", "__init__.py"),
                                                  "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"))
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    assert doc["facts"]["probe"]["signal"] == "SIGSEGV"
    assert doc["facts"]["torch"]["version"] == "2.4.1+cu124"  # collected before the crash


# ------------------------------------------------------------ nvidia-smi --
SMI = {
    "missing": None,
    "failing": "echo \"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\"; exit 9\n",
    "hanging": "sleep 600\n",
    "printing binary garbage": "head -c 2000000 /dev/urandom\n",
    "printing half a CSV": "printf '0, \\377\\376 GPU, 550.1, 8.0, 81920, GPU-x\\n1, , , , ,\\nzzz\\n'\n",
    "printing a huge table": "i=0; while [ $i -lt 20000 ]; do echo \"$i, NVIDIA A100, 550.54.15, 8.0, 81920, GPU-$i\"; "
                             "i=$((i+1)); done\n",
    "killed by a signal": "kill -SEGV $$\n",
    "not executable": "NOEXEC",
    "a directory": "DIR",
}


@pytest.mark.parametrize("case", sorted(SMI))
def test_nvidia_smi(box, case):
    script = SMI[case]
    if script == "NOEXEC":
        (box.bin / "nvidia-smi").write_text("echo 1\n")
        os.chmod(str(box.bin / "nvidia-smi"), 0o644)
    elif script == "DIR":
        (box.bin / "nvidia-smi").mkdir()
    elif script is not None:
        fake_bin(box.bin, "nvidia-smi", script)
    root = box.torch(available=False)  # a CUDA build on a machine whose driver is broken
    doc = report(box.run("check", "--json", env={"PYTHONPATH": root}))
    smi = doc["facts"]["driver"]["sources"]["nvidia_smi"]
    if case == "printing a huge table":
        # only the tail of a flood is kept (proc.TAIL_BYTES), and parsed
        assert len(smi["gpus"]) > 100
    else:
        assert doc["facts"]["driver"]["present"] is False
        assert "no-gpu-driver" in ids(doc)


def test_a_working_fake_driver_is_healthy(box):
    fake_nvidia_smi(box.bin)
    doc = report_or_empty(box.run("check", "--json", env={"PYTHONPATH": box.torch()}))
    assert doc["facts"]["driver"]["driver_version"] == "550.54.15"


def report_or_empty(p):
    clean_exit(p)
    return json.loads(p.stdout)


# ----------------------------------------------------------- NVML / libcuda --
def test_nvml_and_libcuda_absent(box):
    doc = report(box.run("check", "--json", env={"PYTHONPATH": box.torch(), "LD_LIBRARY_PATH": str(box.root)}))
    src = doc["facts"]["driver"]["sources"]
    assert "_absent" in src["nvml"] and "_absent" in src["libcuda"], src


FAKE_LIB = {
    "segfaults": "int %s(void) { volatile int *p = 0; return *p; }",
    "hangs": "#include <unistd.h>\nint %s(void) { for (;;) sleep(1); return 0; }",
    "fails": "int %s(void) { return 999; }",
}


@pytest.mark.skipif(not CC, reason="no C compiler to build fake driver libraries")
@pytest.mark.parametrize("case", sorted(FAKE_LIB))
def test_fake_nvml_and_libcuda_that_misbehave(box, case):
    libdir = box.root / "lib"
    libdir.mkdir()
    for lib, fn in (("libnvidia-ml.so.1", "nvmlInit_v2"), ("libcuda.so.1", "cuDriverGetVersion")):
        src = libdir / (lib + ".c")
        src.write_text(FAKE_LIB[case] % fn + "\n")
        subprocess.run([CC, "-shared", "-fPIC", "-o", str(libdir / lib), str(src)], check=True)
    doc = report(box.run("check", "--json", env={"PYTHONPATH": box.torch(), "LD_LIBRARY_PATH": str(libdir)}))
    src = doc["facts"]["driver"]["sources"]
    why = json.dumps(src["nvml"])
    assert "_failed" in src["nvml"], src
    if case == "segfaults":
        assert "SIGSEGV" in why
    elif case == "hangs":
        assert "timed out" in why
    else:
        assert "999" in why
    assert doc["facts"]["driver"]["present"] is False


# ---------------------------------------------------------------- psutil --
PSUTIL = {
    "import raises": "raise ImportError('psutil is broken')\n",
    "import exits": "raise SystemExit('psutil exits')\n",
    "calls raise": "def cpu_count(logical=True):\n    raise RuntimeError('x')\n"
                   "def virtual_memory():\n    raise OSError('y')\n",
    "answers garbage": "def cpu_count(logical=True):\n    return 'many'\n"
                       "class _V:\n    total = '?'\n    available = None\n"
                       "def virtual_memory():\n    return _V()\n",
}


@pytest.mark.parametrize("case", sorted(PSUTIL))
def test_psutil_failing(box, case):
    fake = box.root / "psutil_fake"
    write(str(fake / "psutil" / "__init__.py"), PSUTIL[case])
    doc = report(box.run("check", "--json", env={"PYTHONPATH": "%s:%s" % (box.torch(), fake)}))
    assert doc["facts"]["probe"]["completed"] is True
    mem = doc["facts"]["memory"]["total_bytes"]
    assert isinstance(mem, dict) and "_failed" in mem


# ------------------------------------------------------------------- HOME --
@pytest.mark.parametrize("home", ["unset", "missing", "a file", "unwritable"])
@pytest.mark.parametrize("command", ["check", "explain", "report", "triage"])
def test_home_unusable(box, home, command):
    env = {"PYTHONPATH": box.torch(), "XDG_CACHE_HOME": None, "XDG_CONFIG_HOME": None}
    if home == "unset":
        env["HOME"] = None
    elif home == "missing":
        env["HOME"] = str(box.root / "no" / "such" / "home")
    elif home == "a file":
        f = box.root / "home-file"
        f.write_text("x")
        env["HOME"] = str(f)
    else:
        env["HOME"] = "/proc"  # not writable, even for root
    if command == "check":
        report(box.run("check", "--json", env=env))
    elif command == "explain":
        clean_exit(box.run("explain", "RuntimeError: Torch not compiled with CUDA enabled", env=env))
    elif command == "report":
        p = box.run("report", "--format", "json", env=env)
        clean_exit(p)
        assert json.loads(p.stdout)["findings"]
    else:
        clean_exit(box.run("triage", "-", stdin=b"PyTorch version: 2.4.1+cu124\nIs CUDA available: False\n", env=env))


# ------------------------------------------------------------ the locale --
NON_UTF8 = {
    "C locale, no coercion": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    "POSIX locale": {"LC_ALL": "POSIX", "LANG": None, "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"},
    "ascii output": {"PYTHONIOENCODING": "ascii"},
    "latin-1 output": {"PYTHONIOENCODING": "latin-1"},
}
COMMANDS = {
    "check": ["check"],
    "check --json": ["check", "--json"],
    "explain": ["explain", "RuntimeError: CUDA error: device-side assert triggered \u2192 \u2018x\u2019"],
    "explain --list": ["explain", "--list"],
    "report": ["report"],
    "check --list-checks": ["check", "--list-checks"],
}
# Characters latin-1 lacks ('\u2026', '\u2192', '\u2713') must not raise
# UnicodeEncodeError: cli.main writes them as visible \\u escapes (cli/streams.py).


@pytest.mark.parametrize("locale", sorted(NON_UTF8))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_non_utf8_locale(box, locale, command, request):
    env = dict(NON_UTF8[locale], PYTHONPATH=box.torch())
    p = box.run(*COMMANDS[command], env=env)
    clean_exit(p)
    if command == "check --json":
        json.loads(p.stdout)


def test_non_utf8_log_file_and_file_name(box):
    name = os.fsdecode(b"train-\xff\xfe.log")
    path = box.root / name
    path.write_bytes("\u00e9poque 1\nRuntimeError: Torch not compiled with CUDA enabled \u00e9\n".encode("latin-1"))
    p = box.run("explain", "--no-env", "--json", "--file", path, env={"LC_ALL": "C", "PYTHONUTF8": "0",
                                                                        "PYTHONCOERCECLOCALE": "0"})
    clean_exit(p)
    assert json.loads(p.stdout)["matches"][0]["line"] == 2


# ----------------------------------------------------------- no terminal --
def test_no_tty_and_empty_stdin(box):
    p = box.run("explain", stdin=b"")
    clean_exit(p, codes=(2,))
    assert p.stderr.decode().count("\n") == 1


@pytest.mark.parametrize("command", [["check", "--json"], ["explain", "Torch not compiled with CUDA enabled"]])
def test_stdout_closed(box, command):
    """Nowhere to write the result: one line and exit 2 (tests/security covers every verb)."""
    p = box.run(*command, shell="exec 1>&-;", env={"PYTHONPATH": box.torch()})
    clean_exit(p, codes=(2,))
    assert p.stderr.endswith(b"torchdoctor: error: cannot write to standard output: it is closed\n"), p.stderr


def test_reader_leaves_early(box):
    p = subprocess.run("%s -m torchdoctor check --list-checks | head -n 1" % PY, shell=True, capture_output=True,
                       env=box.env, cwd=str(box.cwd), timeout=GUARD_S)
    assert b"Traceback" not in p.stderr


@pytest.mark.parametrize("command", [["explain"], ["explain", "-"], ["triage"]])
def test_stdin_closed(box, command):
    p = box.run(*command, shell="exec 0<&-;", stdin=None)
    clean_exit(p, codes=(0, 1, 2))


# -------------------------------------------------------------- --python --
# pyenv's interpreters, where pyenv is installed (PYENV_ROOT, else its default root).
PYENV = os.path.join(os.environ.get("PYENV_ROOT") or os.path.expanduser("~/.pyenv"), "versions")


def _old_python(version):
    for d in sorted(os.listdir(PYENV)) if os.path.isdir(PYENV) else []:
        if d.startswith(version):
            exe = os.path.join(PYENV, d, "bin", "python")
            if os.path.exists(exe):
                return exe
    return None


def _fake_old_python(box, version):
    """A wrapper that makes this interpreter report an old version to the probe."""
    site = box.root / ("fakever-%s" % version)
    write(str(site / "sitecustomize.py"),
          "import sys\nsys.version_info = %r\nsys.version = %r\n" % (tuple(int(x) for x in version.split(".")) + ("final", 0),
                                                                        version + " (fake)"))
    return fake_bin(box.bin, "python" + version, 'PYTHONPATH="%s" exec "%s" "$@"\n' % (site, PY))


@pytest.mark.parametrize("version", ["2.7", "3.6"])
def test_python_too_old(box, version):
    exe = _old_python(version) or _fake_old_python(box, version)
    doc = report(box.run("check", "--json", "--python", exe))
    assert "probe-failed" in ids(doc)
    assert "too old" in text_of(doc)


def test_python_2_that_chokes_on_the_launcher(box):
    exe = fake_bin(box.bin, "python2", "echo '  File \"<string>\", line 1' >&2; echo 'SyntaxError: invalid syntax' >&2; "
                                       "exit 1\n")
    doc = report(box.run("check", "--json", "--python", exe))
    assert "probe-failed" in ids(doc)


# Refused before anything runs them: one line, exit 2.
NOT_PYTHON = {
    "does not exist": lambda b: "/nonexistent/bin/python",
    "a bare name not on PATH": lambda b: "python-that-does-not-exist",
    "/bin/true": lambda b: "/bin/true",
    "/bin/false": lambda b: "/bin/false",
    "a text file": lambda b: (b.root / "notes.txt").write_text("hello") and str(b.root / "notes.txt"),
    "a directory": lambda b: str(b.root),
}


@pytest.mark.parametrize("case", sorted(NOT_PYTHON))
def test_python_that_is_not_an_interpreter(box, case):
    exe = NOT_PYTHON[case](box)
    p = box.run("check", "--json", "--python", exe, "--timeout", "10")
    assert p.returncode == 2 and p.stdout == b"", (p.returncode, p.stdout[-2000:])
    assert len(p.stderr.splitlines()) == 1 and b"is not a Python interpreter" in p.stderr, p.stderr


def test_a_script_that_runs_no_python_is_a_finding(box):
    """A script may wrap a Python (a shim, a container): it is run, and the probe says it was none."""
    exe = fake_bin(box.bin, "garbage", "head -c 100000 /dev/urandom\n")
    doc = report(box.run("check", "--json", "--python", exe, "--timeout", "10"))
    assert "probe-failed" in ids(doc), ids(doc)


@pytest.mark.parametrize("case", ["segfaults at start", "hangs at start"])
def test_python_that_dies_before_the_probe_starts(box, case):
    script = "kill -SEGV $$\n" if case == "segfaults at start" else "sleep 600\n"
    exe = fake_bin(box.bin, "badpython", script)
    doc = report(box.run("check", "--json", "--python", exe, "--timeout", "5"))
    assert "probe-failed" in ids(doc) or "torch-import-crash" in ids(doc)


@pytest.mark.parametrize("case", ["segfaults at start", "hangs at start"])
def test_python_that_dies_before_the_probe_starts_exits_normally(box, case):
    script = "kill -SEGV $$\n" if case == "segfaults at start" else "sleep 600\n"
    exe = fake_bin(box.bin, "badpython", script)
    p = box.run("check", "--json", "--python", exe, "--timeout", "5")
    clean_exit(p)
    probe = json.loads(p.stdout)["facts"]["probe"]
    assert probe["signal"] == "SIGSEGV" if case == "segfaults at start" else probe["timed_out"] is True
