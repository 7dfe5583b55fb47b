"""The torch.compile preflight: compile_child.py in the target interpreter, with a time limit
and caches of its own, read back into the facts' `compile` section.

The child's inductor cache, triton cache and temporary folder all point into one temporary
folder made here and removed afterwards: the precompiled headers inductor writes (about
150 MB) go under the temporary folder whatever TORCHINDUCTOR_CACHE_DIR says, so pointing
only the cache variables elsewhere would still write into the user's /tmp/torchinductor_*.
"""

import json
import os
import sys
from typing import Any, Dict, Mapping, Optional

from ..model.facts import failed

CHILD_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "compile_child.py")
DEFAULT_TIMEOUT = 300.0
TOOLCHAIN_TIMEOUT = 30.0
# The user's settings the child reports on (it runs with its own in their place).
USER_VARS = ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TRITON_HOME", "TMPDIR", "TEMP", "TMP", "HOME")
TEMP_VARS = ("TMPDIR", "TEMP", "TMP")
STAGES = {"compilers": "looking for the C/C++ compilers", "headers": "looking for Python.h",
          "caches": "looking at the cache folders", "import_torch": "importing torch",
          "torch": "reading torch's compile support"}


def _stage_words(stage: Optional[str]) -> str:
    if stage and stage.startswith("compile:"):
        return "compiling for %s" % stage.split(":", 1)[1]
    return STAGES.get(stage or "", "starting")


def _assemble(sections: Dict[str, Any]) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key in ("compilers", "headers", "caches", "torch"):
        if key in sections:
            out[key] = sections[key]
    devs = {k.split(":", 1)[1]: v for k, v in sections.items() if k.startswith("device:")}
    if devs:
        out["devices"] = devs
    return out


def _annotate_mounts(section: Dict[str, Any]) -> None:
    """The mount each cache folder is on (a noexec /tmp cannot load the compiled kernels)."""
    from .mounts import mount_of
    caches = section.get("caches")
    if not isinstance(caches, dict):
        return
    for c in caches.values():
        if isinstance(c, dict) and isinstance(c.get("checked"), str):
            m = mount_of(c["checked"])
            if m:
                c["mount"] = m


def run_child(python: str, timeout: float, environ: Optional[Mapping[str, str]] = None,
              toolchain_only: bool = False) -> Dict[str, Any]:
    """compile_child.py under `python`, its caches in a temporary folder of its own."""
    import shutil
    import tempfile

    from ..children import timed
    from ..children.launcher import LAUNCHER, read_sections
    environ = dict(os.environ if environ is None else environ)
    try:
        work = tempfile.mkdtemp(prefix="torchdoctor-compile-")
    except OSError as e:
        return {"run": {"error": "no temporary folder to compile in: %s" % e, "completed": False,
                        "temp_unwritable": True}}
    out_path = os.path.join(work, "out.jsonl")
    tmp = os.path.join(work, "tmp")
    os.mkdir(tmp)
    env = dict(environ, TORCHINDUCTOR_CACHE_DIR=os.path.join(work, "inductor"),
               TRITON_CACHE_DIR=os.path.join(work, "triton"), **{k: tmp for k in TEMP_VARS})
    user = {k: environ[k] for k in USER_VARS if environ.get(k)}
    argv = [python, "-c", LAUNCHER, CHILD_SCRIPT, out_path, json.dumps(user)]
    argv += ["--toolchain-only"] if toolchain_only else []
    try:
        # From its own folder: a torch.py where the user stands is the probe's finding
        # (torch-shadowed), and the MCP server's caller chose neither the folder nor its files.
        r = timed.run(argv, timeout=timeout, env=env, cwd=work)
        sections, stages = read_sections(out_path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    last = stages[-1] if stages else None
    out = _assemble(sections)
    run: Dict[str, Any] = {"python": python, "timeout_s": timeout, "duration_s": round(r.duration_s, 3),
                           "returncode": r.returncode, "signal": r.signal, "timed_out": r.timed_out,
                           "last_stage": last, "completed": last == "done",
                           "stderr_tail": timed.last_lines(r.stderr, 30)}
    if r.start_error:
        run["error"] = "could not run %s: %s" % (python, r.start_error)
    elif last != "done":
        doing = _stage_words(last)
        if r.timed_out:
            run["error"] = "the compile preflight timed out after %.0f s while %s" % (timeout, doing)
        elif r.signal:
            run["error"] = "the compile preflight was killed by %s while %s" % (r.signal, doing)
        else:
            run["error"] = "the compile preflight exited with status %s while %s" % (r.returncode, doing)
        if last and last.startswith("compile:"):
            out.setdefault("devices", {})[last.split(":", 1)[1]] = {"ok": False, "step": "compile", "died": run["error"]}
    out["run"] = run
    _annotate_mounts(out)
    return out


def compile_facts(python: Optional[str] = None, timeout: float = DEFAULT_TIMEOUT,
                  environ: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """The `compile` section of a check with --compile."""
    try:
        return run_child(python or sys.executable, timeout, environ)
    except Exception as e:  # noqa: BLE001 - the preflight failing to run is a fact, not a crash
        return failed("%s: %s" % (type(e).__name__, e))


def toolchain_facts(python: Optional[str] = None, environ: Optional[Mapping[str, str]] = None) -> Dict[str, Any]:
    """The compilers, headers and caches alone (no torch import, no compile), in seconds."""
    try:
        return run_child(python or sys.executable, TOOLCHAIN_TIMEOUT, environ, toolchain_only=True)
    except Exception as e:  # noqa: BLE001
        return failed("%s: %s" % (type(e).__name__, e))
