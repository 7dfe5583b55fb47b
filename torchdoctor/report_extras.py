"""Facts that only `torchdoctor report` gathers: the fields of PyTorch's
``python -m torch.utils.collect_env`` that ``check`` has no use for (compilers,
lscpu, cuDNN libraries on the system, the full ``sys.version``, every package
collect_env's name patterns would list).

They go into the same facts tree, at their own paths, so a saved report keeps
them and ``check --from`` / ``triage`` / ``diff`` read them like any other fact:

* ``build_tools.gcc`` / ``.clang`` / ``.cmake`` - first line of ``--version``;
* ``cpu.lscpu`` - ``lscpu`` output (Linux);
* ``system_libs.cudnn`` - cuDNN libraries ``ldconfig`` (or CUDA_PATH on Windows) knows;
* ``python.sys_version`` - ``sys.version`` of the target interpreter;
* ``packages.installed.<name>`` - added for pip and conda packages that match
  collect_env's patterns and the probe did not already list.

Every collector is time-limited and never raises: failures become facts.
"""

import json
import os
import re
import shutil
import sys
from typing import Any, Dict, List

from .facts import Facts, absent, failed
from .probe import proc

# collect_env's package name patterns (substring matches on the pip / conda list).
PIP_PATTERNS = ("torch", "numpy", "triton", "optree", "mypy", "flake8", "onnx",
                "cuda-cudart", "cuda-cupti", "cuda-libraries", "cuda-opencl", "cuda-nvrtc", "cuda-runtime",
                "cublas", "cudnn", "cufft", "curand", "cusolver", "cusparse", "nccl", "nvjitlink", "nvtx",
                "dpcpp-cpp-rt", "intel-cmplr-lib-rt", "intel-cmplr-lib-ur", "intel-cmplr-lic-rt", "intel-opencl-rt",
                "intel-sycl-rt", "mkl", "onemkl-sycl", "intel-openmp", "tbb", "impi-rt", "impi-devel", "oneccl",
                "intel-pti", "umf", "tcmlib")
CONDA_PATTERNS = PIP_PATTERNS + ("cudatoolkit", "soumith", "magma")

# Runs in the *target* interpreter (stdlib only, Python 3.8 syntax).
TARGET_SCRIPT = r"""
import json, os, re, sys
pats = json.loads(sys.argv[1])
cpats = json.loads(sys.argv[2])
def norm(n):
    return re.sub(r"[-_.]+", "-", n).lower()
pip = {}
for entry in sys.path:
    if not entry or not os.path.isdir(entry):
        continue
    try:
        names = os.listdir(entry)
    except OSError:
        continue
    for fn in names:
        m = re.match(r"^([A-Za-z0-9_.]+?)-([^-]+?)\.(?:dist|egg)-info$", fn)
        if not m:
            continue
        key = norm(m.group(1))
        if key not in pip and any(p in key for p in pats):
            pip[key] = {"version": m.group(2), "location": entry}
conda = {}
meta = os.path.join(sys.prefix, "conda-meta")
if os.path.isdir(meta):
    for fn in os.listdir(meta):
        if fn.endswith(".json"):
            parts = fn[:-5].rsplit("-", 2)
            if len(parts) == 3 and any(p in parts[0].lower() for p in cpats):
                conda[norm(parts[0])] = {"version": parts[1], "build": parts[2]}
sys.stdout.write(json.dumps({"sys_version": sys.version.replace("\n", " "),
                             "bits": 64 if sys.maxsize > 2 ** 32 else 32, "pip": pip, "conda": conda}))
"""


def _first_line(text: str) -> str:
    for ln in text.splitlines():
        if ln.strip():
            return ln.strip()
    return ""


def tool_version(argv: List[str], pattern: str, timeout: float = 5.0) -> Any:
    exe = shutil.which(argv[0])
    if not exe:
        return absent("%s not on PATH" % argv[0])
    r = proc.run([exe] + argv[1:], timeout=timeout)
    if not r.ok:
        return failed(r.start_error or ("timed out" if r.timed_out else "exit %s" % r.returncode))
    m = re.search(pattern, r.stdout + "\n" + r.stderr)
    return m.group(1).strip() if m else _first_line(r.stdout) or failed("no version in output")


def build_tools(timeout: float = 5.0) -> Dict[str, Any]:
    return {
        # collect_env's own regexes: what follows the program name on the first line.
        "gcc": tool_version(["gcc", "--version"], r"gcc[^\n]*? (\(.*)", timeout),
        "clang": tool_version(["clang", "--version"], r"clang version (.*)", timeout),
        "cmake": tool_version(["cmake", "--version"], r"cmake (.*)", timeout),
    }


def lscpu(timeout: float = 5.0) -> Any:
    if not sys.platform.startswith("linux"):
        return absent("lscpu is Linux-only")
    exe = shutil.which("lscpu")
    if not exe:
        return absent("lscpu not on PATH")
    r = proc.run([exe], timeout=timeout)
    return r.stdout.strip()[:20000] if r.ok else failed(r.start_error or "exit %s" % r.returncode)


def system_cudnn(timeout: float = 5.0) -> Any:
    """cuDNN libraries installed on the system (not necessarily the one torch loads)."""
    files: List[str] = []
    if sys.platform.startswith("linux"):
        exe = shutil.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
        if exe:
            r = proc.run([exe, "-p"], timeout=timeout)
            for ln in r.stdout.splitlines():
                if "libcudnn" in ln and "=>" in ln:
                    p = ln.split("=>", 1)[1].strip()
                    files.append(os.path.realpath(p))
    elif sys.platform == "win32":
        cuda = os.environ.get("CUDA_PATH")
        if cuda and os.path.isdir(os.path.join(cuda, "bin")):
            files = [os.path.join(cuda, "bin", f) for f in os.listdir(os.path.join(cuda, "bin"))
                     if f.lower().startswith("cudnn") and f.lower().endswith(".dll")]
    lib = os.environ.get("CUDNN_LIBRARY")
    if lib and os.path.isfile(lib):
        files.append(os.path.realpath(lib))
    files = sorted(set(f for f in files if os.path.isfile(f)))
    return files if files else absent("no cuDNN library found by ldconfig, CUDA_PATH or CUDNN_LIBRARY")


def target_extras(python: str, timeout: float = 20.0) -> Dict[str, Any]:
    r = proc.run([python, "-c", TARGET_SCRIPT, json.dumps(PIP_PATTERNS), json.dumps(CONDA_PATTERNS)],
                 timeout=timeout)
    if not r.ok:
        return failed(r.start_error or ("timed out" if r.timed_out else proc.last_lines(r.stderr, 3)[:300]))
    try:
        return json.loads(r.stdout)
    except ValueError:
        return failed("unparsed output")


def add_extras(facts: Facts, python: str, timeout: float = 20.0) -> Facts:
    """Add the report-only facts to ``facts`` (in place) and return it."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=4) as pool:
        f_tools = pool.submit(build_tools)
        f_lscpu = pool.submit(lscpu)
        f_cudnn = pool.submit(system_cudnn)
        f_target = pool.submit(target_extras, python, timeout)
        results = {}
        for key, fut in (("build_tools", f_tools), ("lscpu", f_lscpu), ("cudnn", f_cudnn), ("target", f_target)):
            try:
                results[key] = fut.result()
            except Exception as e:  # noqa: BLE001 - an extra that fails is a fact
                results[key] = failed("%s: %s" % (type(e).__name__, e))
    facts.set("build_tools", results["build_tools"])
    if facts.has("cpu"):
        facts.set("cpu.lscpu", results["lscpu"])
    facts.set("system_libs", {"cudnn": results["cudnn"]})
    tgt = results["target"]
    if isinstance(tgt, dict) and "sys_version" in tgt:
        if facts.has("python"):
            facts.set("python.sys_version", tgt["sys_version"])
        inst = facts.value("packages.installed")
        if isinstance(inst, dict):
            for name, rec in (tgt.get("pip") or {}).items():
                if name not in inst or not isinstance(inst[name], dict) or "version" not in inst[name]:
                    inst[name] = rec
            for name, rec in (tgt.get("conda") or {}).items():
                inst.setdefault("conda:" + name, rec)
    else:
        facts.set("report_extras_error", tgt)
    return facts
