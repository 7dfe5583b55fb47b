"""Facts that only `torchdoctor report` gathers: the fields of PyTorch's
``python -m torch.utils.collect_env`` that ``check`` has no use for (compilers,
lscpu, cuDNN libraries on the system, the full ``sys.version``, every package
collect_env's name patterns would list).

They go into the same facts tree, at their own paths, so a saved report keeps
them and ``check --from`` / ``triage`` / ``diff`` read them like any other fact:

* ``build_tools.gcc`` / ``.clang`` / ``.cmake`` - first line of ``--version``;
* ``cpu.lscpu`` - ``lscpu`` output (Linux);
* ``system_libs.cudnn`` - cuDNN libraries ``ldconfig`` (or CUDA_PATH on Windows) knows;
(``python.sys_version`` and the packages matching collect_env's name patterns
come from the probe itself, which reads them in its one pass over sys.path.)

Every collector is time-limited and never raises: failures become facts.
"""

import os
import re
import sys
from typing import Any, Dict, List

from ..model.facts import Facts, absent, failed
from ..children import timed

def _first_line(text: str) -> str:
    for ln in text.splitlines():
        if ln.strip():
            return ln.strip()
    return ""


def tool_version(argv: List[str], pattern: str, timeout: float = 5.0) -> Any:
    exe = timed.which(argv[0])
    if not exe:
        return absent("%s not on PATH" % argv[0])
    r = timed.run([exe] + argv[1:], timeout=timeout)
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
    exe = timed.which("lscpu")
    if not exe:
        return absent("lscpu not on PATH")
    r = timed.run([exe], timeout=timeout)
    return r.stdout.strip()[:20000] if r.ok else failed(r.start_error or "exit %s" % r.returncode)


def system_cudnn(timeout: float = 5.0) -> Any:
    """cuDNN libraries installed on the system (not necessarily the one torch loads)."""
    files: List[str] = []
    if sys.platform.startswith("linux"):
        exe = timed.which("ldconfig") or ("/sbin/ldconfig" if os.path.exists("/sbin/ldconfig") else None)
        if exe:
            r = timed.run([exe, "-p"], timeout=timeout)
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


def with_extras(facts: Facts) -> Facts:
    """`facts` with the report-only facts added (a new Facts; `facts` is left as it was)."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=3) as pool:
        f_tools = pool.submit(build_tools)
        f_lscpu = pool.submit(lscpu)
        f_cudnn = pool.submit(system_cudnn)
        results = {}
        for key, fut in (("build_tools", f_tools), ("lscpu", f_lscpu), ("cudnn", f_cudnn)):
            try:
                results[key] = fut.result()
            except Exception as e:  # noqa: BLE001 - an extra that fails is a fact
                results[key] = failed("%s: %s" % (type(e).__name__, e))
    values = {"build_tools": results["build_tools"]}
    if facts.has("cpu"):
        values["cpu.lscpu"] = results["lscpu"]
    values["system_libs"] = {"cudnn": results["cudnn"]}
    return facts.with_values(values)
