"""Real broken environments, built from the wheels this machine's pip can reach (its own
configuration: find-links, extra indexes, constraints), and what torchdoctor does with each:
the cause `check` names, whether the first printed fix heals when run as printed, what
`fix --yes` does, and whether `fix --undo` restores the exact `pip freeze --all`.

Shared by the slow tests (test_verbs_fix_realenvs.py) and benchmarks/fix_heal.py. A base venv
holds the real torch 2.13.0 (the CPU build) and NumPy; every environment is a hard-linked copy
of it (pip replaces files, never writes into them, so the copies stay apart) with one thing
broken.
"""

import json
import os
import shutil
import subprocess
import sys
from typing import Callable, Dict, List, Optional

TD = [sys.executable, "-m", "torchdoctor"]
BASE_PACKAGES = ("torch==2.13.0", "numpy")


def run(argv: List[str], env: Optional[Dict[str, str]] = None, cwd: Optional[str] = None,
        timeout: float = 3600) -> subprocess.CompletedProcess:
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(argv, env=full, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def python_of(venv: str) -> str:
    return os.path.join(venv, "bin", "python")


def build_base(folder: str) -> str:
    """The base venv (torch 2.13.0 CPU and NumPy, through the machine's pip); raises with pip's
    last words when it cannot be built here."""
    venv = os.path.join(folder, "base")
    subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=600)
    r = run([python_of(venv), "-m", "pip", "install", "-q"] + list(BASE_PACKAGES), timeout=3600)
    if r.returncode != 0:
        raise RuntimeError("pip install %s failed: %s" % (" ".join(BASE_PACKAGES), (r.stderr or r.stdout)[-500:]))
    return venv


def clone(base: str, dest: str) -> str:
    """A copy of the base venv: hard links where the filesystem allows (seconds, no space)."""
    if shutil.which("cp") and run(["cp", "-al", base, dest], timeout=600).returncode == 0:
        return dest
    shutil.copytree(base, dest, symlinks=True)
    return dest


def freeze(py: str) -> str:
    return run([py, "-m", "pip", "freeze", "--all"], timeout=600).stdout


def site_packages(py: str) -> str:
    return run([py, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"]).stdout.strip()


def foreign_gomp(folder: str) -> str:
    """A libgomp.so.1 without GOMP_4.0 (built here with gcc): what an old toolchain's runtime on
    LD_LIBRARY_PATH is to torch."""
    os.makedirs(folder, exist_ok=True)
    src, vmap = os.path.join(folder, "g.c"), os.path.join(folder, "v.map")
    with open(src, "w") as fh:
        fh.write("int omp_get_num_threads(void) { return 1; }\n")
    with open(vmap, "w") as fh:
        fh.write("OMP_1.0 { global: omp_get_num_threads; local: *; };\nGOMP_1.0 { } OMP_1.0;\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wl,--version-script=" + vmap, "-Wl,-soname,libgomp.so.1",
                    "-o", os.path.join(folder, "libgomp.so.1"), src], check=True, timeout=120)
    return folder


def stray_torch(folder: str) -> str:
    """An old copy of torch's Python files without its compiled core."""
    os.makedirs(os.path.join(folder, "torch"), exist_ok=True)
    with open(os.path.join(folder, "torch", "__init__.py"), "w") as fh:
        fh.write("from torch._C import *  # noqa\n")
    return folder


def stray_torch_module(folder: str) -> str:
    """A project's own `torch.py` (a script named after the package it uses)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "torch.py"), "w") as fh:
        fh.write("print('my experiment')\n")
    return folder


class Env:
    """One broken environment: its interpreter, the variables and folder it is used with."""

    def __init__(self, name: str, venv: str, cause: str, env: Optional[Dict[str, str]] = None,
                 cwd: Optional[str] = None, fix_ids: tuple = ()):
        self.name, self.venv, self.cause = name, venv, cause
        self.env, self.cwd, self.fix_ids = dict(env or {}), cwd, fix_ids
        # fix's journal and snapshots beside the environment, never in the user's own cache
        self.env.setdefault("TORCHDOCTOR_CACHE_DIR", os.path.join(os.path.dirname(venv), "torchdoctor-cache"))

    @property
    def py(self) -> str:
        return python_of(self.venv)

    def check(self) -> dict:
        r = run(TD + ["check", "--resolve", "--python", self.py, "--json"], self.env, self.cwd, timeout=1800)
        if r.returncode not in (0, 1):
            raise RuntimeError("check failed (%d): %s" % (r.returncode, r.stderr[-800:]))
        return json.loads(r.stdout)

    def finding(self, report: dict) -> Optional[dict]:
        return next((f for f in report["findings"] if f["id"] == self.cause), None)

    def healthy(self, report: dict, before: dict) -> bool:
        """The cause is gone and no error appeared that was not there before."""
        had = {f["id"] for f in before["findings"]}
        return self.finding(report) is None and not [
            f for f in report["findings"] if f["severity"] == "error" and f["id"] not in had]

    def run_printed(self, commands: List[str]) -> "tuple":
        """The fix's commands as a user runs them (one shell, in order, stopping at a failure),
        then `check` in that same shell (a variable unset there counts): (exit status of the
        commands, the report after, or None)."""
        import shlex
        td = " ".join(shlex.quote(a) for a in TD + ["check", "--resolve", "--python", self.py, "--json"])
        script = "{ %s ; } 1>&2 || exit 97\n%s" % (" && ".join(commands), td)
        r = run(["bash", "-c", script], self.env, self.cwd, timeout=3600)
        if r.returncode == 97:
            return 97, None
        try:
            return 0, json.loads(r.stdout)
        except ValueError:
            return r.returncode, None

    def fix(self, *args: str) -> subprocess.CompletedProcess:
        return run(TD + ["fix", "--python", self.py] + list(self.fix_ids) + list(args), self.env, self.cwd,
                   timeout=7200)

    def undo(self) -> subprocess.CompletedProcess:
        return run(TD + ["fix", "--undo", "--yes", "--python", self.py], self.env, self.cwd, timeout=7200)


def _remove_lib(venv: str) -> None:
    os.unlink(os.path.join(site_packages(python_of(venv)), "torch", "lib", "libtorch_cpu.so"))


def _pip_no_deps(*reqs: str) -> Callable[[str], None]:
    def make(venv: str) -> None:
        r = run([python_of(venv), "-m", "pip", "install", "-q", "--no-deps"] + list(reqs))
        if r.returncode != 0:
            raise RuntimeError("pip install --no-deps %s failed: %s" % (" ".join(reqs), r.stderr[-500:]))
    return make


def _uninstall(name: str) -> Callable[[str], None]:
    def make(venv: str) -> None:
        run([python_of(venv), "-m", "pip", "uninstall", "-q", "-y", name])
    return make


# name -> (how to break the copy, the finding that names the cause, extra: "env"/"cwd"/"big")
KINDS = {
    "deleted-libtorch_cpu": (_remove_lib, "torch-install-damaged", ""),
    "no-torch": (None, "torch-not-installed", ""),
    "no-numpy": (_uninstall("numpy"), "numpy-unavailable", ""),
    "stray-torch-in-cwd": (None, "torch-shadowed", "cwd"),
    "torch.py-in-cwd": (None, "torch-shadowed", "cwdfile"),
    "stray-torch-on-PYTHONPATH": (None, "torch-shadowed", "pythonpath"),
    "foreign-libgomp-on-LD_LIBRARY_PATH": (None, "foreign-library", "gomp"),
    "torchvision-cu130-beside-cpu-torch": (_pip_no_deps("torchvision==0.28.0"), "torchvision-mismatch", "big"),
    # the newest torchvision, paired with torch 2.14 (the indexes pip reaches here carry no
    # torchaudio, nor a torchvision older than 0.28.0)
    "torchvision-of-another-release": (_pip_no_deps("torchvision==0.29.1"), "torchvision-mismatch", "big"),
}


def make(kind: str, base: str, folder: str) -> Env:
    """The broken environment `kind` in `folder` (a clone of `base`)."""
    breaker, cause, extra = KINDS[kind]
    venv = os.path.join(folder, "venv")
    if kind == "no-torch":
        subprocess.run([sys.executable, "-m", "venv", venv], check=True, timeout=600)
    else:
        clone(base, venv)
    if breaker:
        breaker(venv)
    env: Dict[str, str] = {}
    cwd = None
    fix_ids: tuple = ()
    if extra == "cwd":
        cwd = stray_torch(os.path.join(folder, "project"))
    elif extra == "cwdfile":
        cwd = stray_torch_module(os.path.join(folder, "project"))
    elif extra == "pythonpath":
        env["PYTHONPATH"] = stray_torch(os.path.join(folder, "old"))
    elif extra == "gomp":
        env["LD_LIBRARY_PATH"] = foreign_gomp(os.path.join(folder, "oldgcc"))
    if cause == "numpy-unavailable":
        fix_ids = (cause,)  # a warning: fix takes error-level findings unless named
    return Env(kind, venv, cause, env, cwd, fix_ids)
