"""Gather facts: the torch probe in a child of the target interpreter, and the
system/driver probes, all at once (the slowest decides the wall time).
"""

import os
import sys
import time
from typing import Any, Dict, Optional

from .. import __version__
from ..children.launcher import LAUNCHER, TOO_OLD_MARK, read_sections  # noqa: F401 - names others import from here
from ..model.facts import SCHEMA_VERSION, Facts, failed

# children.timed and system (subprocess, tempfile, concurrent.futures: 10 ms of imports)
# load when a probe runs, not when `explain` imports probe.target.

DEFAULT_TIMEOUT = 60.0
TARGET_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "target.py")
IMPORT_TIME_VAR = "PYTHONPROFILEIMPORTTIME"

# Isolated (the MCP server, whose caller chose neither the folder nor what lies in it): the probe
# runs from an empty folder of its own and first drops the '' that -c put on sys.path (what -P
# does, on every Python), so nothing is imported from the folder the diagnosis stands for;
# target.py lists a torch.py / torch/ there that would shadow torch (--shadow-dir) without
# importing it. Not -I: that would also drop PYTHONPATH and the user site-packages, where the
# torch under diagnosis may well live; the environment is still read, as facts, unchanged.
ISOLATE = (
    "import sys\n"
    "if sys.path and sys.path[0] == '':\n"
    "    del sys.path[0]\n"
)

# What the probe is doing in each of its stages (target.py's `w.stage(...)` names).
STAGES = {
    "python": "reading the interpreter's own facts",
    "torch_location": "locating torch",
    "import_env": "reading PYTHONPATH, .pth files and the library path variables",
    "packages": "listing the installed packages",
    "torch_files": "checking torch's installed files",
    "import_torch": "running `import torch`",
    "loaded_libs": "listing the shared libraries `import torch` loaded",
    "torch_files_hashes": "hashing torch's shared libraries",
    "torch": "reading torch's build information",
    "backends": "querying the torch.backends submodules",
    "accelerators": "querying torch.xpu / torch.mps",
    "cuda": "initialising CUDA",
    "companion_imports": "importing torchvision and torchaudio",
}


def _first_line(*texts: str) -> str:
    for t in texts:
        for ln in (t or "").splitlines():
            if ln.strip():
                return ln.strip()[:200]
    return ""


def failure_reason(python: str, r, last: Optional[str], timeout: float) -> str:
    """Why the probe did not finish, in words: the stage it was in, or, when it never
    reached its first stage, that the target does not behave like a Python interpreter."""
    if last is None:
        said = _first_line(r.stderr, r.stdout)
        said = " (it printed: %s)" % said if said else " (it printed nothing)"
        head = "%s did not behave like a Python interpreter: " % python
        if r.timed_out:
            return head + "it ran for %.0f s without starting the probe%s" % (timeout, said)
        if r.signal:
            return head + "it was killed by %s before the probe's first step%s" % (r.signal, said)
        return head + "it exited with status %s without running the probe%s" % (r.returncode, said)
    doing = STAGES.get(last, "in its %r stage" % last)
    if r.timed_out:
        return "the probe timed out after %.0f s while %s" % (timeout, doing)
    if r.signal:
        return "the probe was killed by %s while %s" % (r.signal, doing)
    if r.returncode == 0:
        return "the interpreter exited (status 0, without an error) while %s" % doing
    return "the probe exited with status %s while %s" % (r.returncode, doing)


TORCH_SECTIONS = ("python", "torch_location", "import_env", "packages", "torch_files", "torch_import", "loaded_libs",
                  "torch", "backends",
                  "accelerators", "cuda", "companion_imports")


def run_target(python: str, timeout: float, light: bool = False, isolated_from: Optional[str] = None) -> Dict[str, Any]:
    """Run target.py under `python`; returns {section: data} plus 'probe'. `light`: only
    the Python and package sections (no torch import), for explain. `isolated_from`: run
    isolated (ISOLATE), diagnosing this folder's view of torch without importing from it."""
    import shutil
    import tempfile

    from ..children import timed
    fd, out_path = tempfile.mkstemp(prefix="torchdoctor-", suffix=".jsonl")
    os.close(fd)
    argv = [python, "-c", ISOLATE + LAUNCHER if isolated_from else LAUNCHER, TARGET_SCRIPT, out_path]
    argv += ["--light"] if light else []
    argv += ["--shadow-dir", isolated_from] if isolated_from else []
    empty = tempfile.mkdtemp(prefix="torchdoctor-probe-") if isolated_from else None
    # -X importtime for the torch import's attribution (gather/import_time.py)
    env = None if light else dict(os.environ, **{IMPORT_TIME_VAR: "1"})
    try:
        r = timed.run(argv, timeout=timeout, cwd=empty, env=env)
        sections, stages = read_sections(out_path)
        if not light:
            from .import_time import MARK, add_attribution
            printed = add_attribution(sections, out_path, python, timeout)
            # the timing lines of the probe's other imports are no output of torch's
            r.stderr = "\n".join(printed + [ln for ln in r.stderr.splitlines() if not ln.startswith(MARK)])
    finally:
        try:
            os.unlink(out_path)
        except OSError:
            pass
        if empty:
            shutil.rmtree(empty, ignore_errors=True)
    last = stages[-1] if stages else None
    completed = last == "done"
    info: Dict[str, Any] = {
        "python": python,
        "returncode": r.returncode,
        "signal": r.signal,
        "timed_out": r.timed_out,
        "timeout_s": timeout,
        "duration_s": round(r.duration_s, 3),
        "last_stage": last,
        "completed": completed,
        "stdout_tail": timed.last_lines(r.stdout, 40),
        "stderr_tail": timed.last_lines(r.stderr, 40),
    }
    if isolated_from:
        info["isolated"] = True
    if r.start_error:
        info["start_error"] = r.start_error
    if TOO_OLD_MARK in r.stderr:
        info["python_too_old"] = r.stderr.split(TOO_OLD_MARK, 1)[1].split()[0]
    if not completed:
        if r.start_error:
            why = "could not run %s: %s" % (python, r.start_error)
        elif info.get("python_too_old"):
            why = "%s is Python %s; the probe needs 3.8+" % (python, info["python_too_old"])
        else:
            why = failure_reason(python, r, last, timeout)
        info["error"] = why
        skip_from_import = "torch_import" in sections and not (sections["torch_import"] or {}).get("ok")
        for name in (("python", "packages") if light else TORCH_SECTIONS):
            if name not in sections and not (skip_from_import and name != "torch_import"):
                sections[name] = failed(why)
    sections["probe"] = info
    return sections


def gather(python: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT,
           tool_timeout: float = 10.0, in_process: bool = False, isolated_from: Optional[str] = None,
           compile: bool = False) -> Facts:
    """All facts. `in_process`: ask the torch of *this* process (already imported, or
    imported now) instead of a child, so its live settings are what the checks see.
    `isolated_from`: the child probe runs isolated (see ISOLATE). `compile`: also the
    torch.compile preflight (gather/compile.py), beside the probe."""
    from concurrent.futures import ThreadPoolExecutor

    from . import system
    python = python or sys.executable
    t0 = time.monotonic()
    with ThreadPoolExecutor(max_workers=4) as pool:
        f_target = None if in_process else pool.submit(run_target, python, timeout, False, isolated_from)
        f_nvml = pool.submit(system.nvml_facts, tool_timeout)
        f_smi = pool.submit(system.nvidia_smi_facts, tool_timeout)
        f_tk = pool.submit(system.toolkit_facts, tool_timeout)
        f_compile = None
        if compile:
            from .compile import compile_facts
            f_compile = pool.submit(compile_facts, python)
        local = {}
        for key, fn in (("os", system.os_facts), ("cpu", system.cpu_facts),
                        ("memory", system.memory_facts), ("env", system.env_facts)):
            try:
                local[key] = fn()
            except Exception as e:  # noqa: BLE001
                local[key] = failed("%s: %s" % (type(e).__name__, e))
        # In-process collection stays on the main thread: that is where the caller's
        # torch lives, and importing torch off the main thread is not something to rely on.
        target = run_in_process(python, timeout) if in_process else _result(f_target)
        driver = system.merge_driver(_result(f_nvml), _result(f_smi))
        toolkit = _result(f_tk)
    data: Dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "torchdoctor", "version": __version__},
        "collected_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "source": "probe",
    }
    data["probe"] = target.pop("probe")
    data["probe"]["total_s"] = round(time.monotonic() - t0, 3)
    data.update(target)
    data.update(local)
    data["driver"] = driver
    data["toolkit"] = toolkit
    if f_compile is not None:
        data["compile"] = _result(f_compile)
    from .network import listening_facts
    from .scripts import scripts_facts
    python = data.get("python")
    return Facts(data, loaders={"network": listening_facts, "programs": system.program_facts,  # when a hook asks
                                "scripts": lambda: scripts_facts(python)})


def run_in_process(python: str, timeout: float) -> Dict[str, Any]:
    """The torch sections from this very interpreter (the Python API's in-process mode).

    No time limit and no crash protection: the caller's process has already imported
    torch (or is about to), which is exactly what it asked to inspect."""
    from . import target
    t0 = time.monotonic()
    torch_module = sys.modules.get("torch")
    sections = dict(target.collect(None, torch_module=torch_module))
    sections["probe"] = {"python": sys.executable, "in_process": True, "completed": True,
                         "last_stage": "done", "returncode": 0, "signal": None, "timed_out": False,
                         "timeout_s": timeout, "duration_s": round(time.monotonic() - t0, 3),
                         "stdout_tail": "", "stderr_tail": ""}
    return sections


def _result(fut):
    try:
        return fut.result()
    except Exception as e:  # noqa: BLE001
        return failed("%s: %s" % (type(e).__name__, e))
