"""The torch.compile preflight (`check --compile`, facts section `compile`): each failure
classified into its cause on this machine (the compiler, Python.h, the cache folders,
Dynamo's Python range, triton) with the fix; a passing preflight reports its timings.
Without --compile there is no `compile` section and these checks say nothing.
"""

import os
import shlex
from typing import Any, Dict, List, Optional

from ..model import derived as F
from ..model.facts import Facts
from .compile import compiler_install, headers_install
from .companions.common import python_minor
from .registry import ERROR, INFO, WARNING, finding, known_error_finding, rule

# Less free space than this in a cache folder: inductor's precompiled headers alone take
# about 150 MB, a model's kernels more.
LOW_SPACE_BYTES = 1 << 30
COMPILER_FAILURES = ("InvalidCxxCompiler", "No working C++ compiler", "Compiler: cl is not found",
                     "Failed to find C compiler")
HEADER_FAILURES = ("Python.h: No such file", "'Python.h' file not found", "include file 'Python.h' not found")
EVIDENCE_LINES = 12
VERIFY = ("torchdoctor check --compile", "no compile-preflight finding, and the compile timings")


def _section(facts: Facts) -> Optional[Dict[str, Any]]:
    c = facts.value("compile")
    return c if isinstance(c, dict) and "_failed" not in c else None


def _text(err: Any) -> str:
    """Every message of a failure's exception chain, outermost first."""
    if not isinstance(err, dict):
        return str(err or "")
    chain = err.get("chain") if isinstance(err.get("chain"), list) else []
    return "\n".join(str(c.get("message", "")) for c in chain if isinstance(c, dict)) or str(err.get("type", ""))


def _failures(c: Dict[str, Any]) -> List[Dict[str, Any]]:
    devs = c.get("devices") if isinstance(c.get("devices"), dict) else {}
    return [dict(d, device=name) for name, d in sorted(devs.items()) if isinstance(d, dict) and d.get("ok") is False]


def _last_lines(text: str, n: int = EVIDENCE_LINES) -> str:
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-n:])


def _export(facts: Facts, name: str, value: str) -> str:
    if F.os_name(facts) == "windows":
        return 'set "%s=%s"' % (name, value)
    return "export %s=%s" % (name, shlex.quote(value))


# -- the compiler --------------------------------------------------------------------
def _compiler_finding(facts: Facts, c: Dict[str, Any], device: str, text: str):
    comp = c.get("compilers") if isinstance(c.get("compilers"), dict) else {}
    cxx = comp.get("cxx") if isinstance(comp.get("cxx"), dict) else {}
    name = cxx.get("name") or "the C++ compiler"
    found = cxx.get("path") if isinstance(cxx.get("path"), str) else None
    on_path = [p for p in comp.get("cxx_on_path") or [] if isinstance(p, str)]
    elsewhere = [p for p in comp.get("cxx_elsewhere") or [] if isinstance(p, str)]
    if found and cxx.get("works") is False:
        why = "`%s --version` fails (%s)" % (found, cxx.get("version") or "exit status %s" % cxx.get("returncode"))
    elif cxx.get("source") == "CXX":
        why = "CXX=%s names %s" % (name, "a file that does not exist" if cxx.get("exists") is False
                                    else "no program on PATH")
    else:
        why = "`%s` is not on PATH (%d folders searched)" % (name, comp.get("path_entries") or 0)
    detail = ("torch.compile on %s failed because TorchInductor found no working C++ compiler: %s. It calls "
              "CXX when set, else %s." % (device, why, "cl" if F.os_name(facts) == "windows" else "g++ / clang++"))
    if cxx.get("source") == "CXX" and on_path:
        fix = "Unset CXX (TorchInductor then finds %s on PATH), or point CXX at a compiler that exists." % on_path[0]
        cmds = ["unset CXX" if F.os_name(facts) != "windows" else 'set "CXX="', _export(facts, "CXX", on_path[0])]
    elif elsewhere:
        folder = os.path.dirname(elsewhere[0])
        fix = "A compiler is installed at %s but PATH does not reach it: put %s on PATH (or point CXX at it)." % (
            elsewhere[0], folder)
        cmds = ["export PATH=%s:\"$PATH\"" % shlex.quote(folder), _export(facts, "CXX", elsewhere[0])]
    else:
        r = compiler_install(facts)
        fix, cmds = (r.summary, r.commands) if r else ("Install a C++ compiler.", [])
    return finding("torch.compile cannot run here: no working C++ compiler (%s)" % why, detail=detail,
                   fix=fix, commands=cmds, severity=ERROR)


# -- Python.h ------------------------------------------------------------------------
def _headers_finding(facts: Facts, c: Dict[str, Any], device: Optional[str]):
    h = c.get("headers") if isinstance(c.get("headers"), dict) else {}
    where = h.get("include_dir") or "the include folder"
    by = h.get("installed_by")
    what = "on %s failed" % device if device else "needs it to build GPU kernels' launchers and C++ wrappers"
    detail = ("Python.h is not in %s, where this Python (%s, installed by %s) says its headers are; torch.compile %s."
              % (where, h.get("executable") or "?", by or "?", what))
    if isinstance(h.get("pythonhome"), str):
        detail += " PYTHONHOME=%s decides that folder." % h["pythonhome"]
    r = headers_install(facts)
    fix, cmds = (r.summary, r.commands) if r else ("Install this Python's development headers.", [])
    if isinstance(h.get("pythonhome"), str) and h.get("build_python_h") is True:
        # The interpreter was built with its headers; PYTHONHOME sends the compiler elsewhere.
        fix = "Unset PYTHONHOME: this Python's own headers are in %s. Or: %s" % (h.get("build_include_dir"), fix)
        cmds = ["unset PYTHONHOME" if F.os_name(facts) != "windows" else 'set "PYTHONHOME="'] + list(cmds)
    elif by == "pyenv":
        py = python_minor(facts)
        fix = "This pyenv Python was built without its headers: reinstall it (pyenv installs them)."
        cmds = ["pyenv install --force %s" % (h.get("version") if not py else "%d.%d" % py)]
    return finding("torch.compile cannot build here: Python.h is missing (%s)" % where, detail=detail, fix=fix,
                   commands=cmds, severity=ERROR if device else WARNING)


# -- the cache folders -----------------------------------------------------------------
def _cache_findings(facts: Facts, c: Dict[str, Any]) -> List[Any]:
    caches = c.get("caches") if isinstance(c.get("caches"), dict) else {}
    out = []
    for key, what in (("inductor", "TorchInductor's cache"), ("headers", "TorchInductor's precompiled headers"),
                      ("triton", "triton's cache"), ("tmp", "the temporary folder")):
        f = caches.get(key)
        if not isinstance(f, dict) or not f.get("path"):
            continue
        if key == "triton" and facts.value("compile.torch.cuda_available") is not True:
            continue  # triton only writes where it compiles GPU kernels
        problem = _folder_problem(f)
        if problem is None:
            continue
        var = {"inductor": "TORCHINDUCTOR_CACHE_DIR", "headers": "TMPDIR", "triton": "TRITON_CACHE_DIR",
               "tmp": "TMPDIR"}[key]
        home = "%USERPROFILE%" if F.os_name(facts) == "windows" else "$HOME"
        sub = {"inductor": "torchinductor", "headers": "tmp", "triton": "triton", "tmp": "tmp"}[key]
        target = home + ("\\.cache\\" if F.os_name(facts) == "windows" else "/.cache/") + sub
        source = f.get("source")
        detail = ("%s is %s (%s). torch.compile writes compiled code there on its first call and fails with a "
                  "PermissionError, FileNotFoundError or 'No space left on device' when it cannot."
                  % (what, f["path"], "from %s" % source if source != "default" else "the default"))
        if F.os_name(facts) == "windows":
            cmds = ['mkdir "%s"' % target, 'set "%s=%s"' % (var, target)]
        else:  # double quotes: $HOME must expand
            cmds = ['mkdir -p "%s"' % target, 'export %s="%s"' % (var, target)]
        fix = "Point %s at a folder you can write (or make %s writable for this user)." % (var, f.get("checked") or f["path"])
        out.append(finding("torch.compile's cache folder cannot be used: %s %s" % (f["path"], problem), detail=detail,
                           fix=fix, commands=cmds, severity=ERROR if problem != "is nearly full" else WARNING))
    return out


def _folder_problem(f: Dict[str, Any]) -> Optional[str]:
    if f.get("not_a_folder"):
        return "is a file, not a folder"
    if f.get("blocked_by"):
        return "cannot be created: %s is a file" % f["blocked_by"]
    if f.get("writable") is False:
        return "is not writable by this user (%s, mode %s)" % (f.get("checked"), f.get("mode"))
    m = f.get("mount") if isinstance(f.get("mount"), dict) else {}
    if m.get("read_only"):
        return "is on a read-only file system (%s)" % m.get("mount_point")
    if m.get("noexec"):
        return "is on a noexec mount (%s): compiled kernels cannot be loaded from it" % m.get("mount_point")
    free = f.get("free_bytes")
    if isinstance(free, int) and free < LOW_SPACE_BYTES:
        return "is nearly full"
    return None


# -- the checks ---------------------------------------------------------------------
@rule("check", "compile-preflight", category="torch-compile-missing", severity=ERROR, verify=VERIFY)
def compile_preflight(facts: Facts):
    """torch.compile of a small function failed (or will): the compiler, Python.h, a cache folder, Dynamo or triton."""
    c = _section(facts)
    if c is None:
        return None
    out: List[Any] = []
    torch = c.get("torch") if isinstance(c.get("torch"), dict) else {}
    if torch.get("dynamo_supported") is False:
        py = python_minor(facts)
        out.append(finding("torch.compile is not supported by torch %s on Python %s" % (
            torch.get("version", "?"), "%d.%d" % py if py else "?"),
            detail="Dynamo refuses this interpreter (torch._dynamo.eval_frame.is_dynamo_supported() is False).",
            fix="Use a Python that this torch's Dynamo supports, or upgrade torch.", severity=ERROR))
    headers_reported = False
    for d in _failures(c):
        text = _text(d.get("error")) or str(d.get("died") or "")
        if any(k in text for k in COMPILER_FAILURES):
            out.append(_compiler_finding(facts, c, d["device"], text))
        elif any(k in text for k in HEADER_FAILURES):
            out.append(_headers_finding(facts, c, d["device"]))
            headers_reported = True
        else:
            out.append(_unknown(facts, d, text))
    if not headers_reported and facts.value("compile.headers.python_h") is False:
        out.append(_headers_finding(facts, c, None))
    out += _cache_findings(facts, c)
    return out


def _unknown(facts: Facts, d: Dict[str, Any], text: str):
    """A failure with no toolchain cause: the knowledge base's entry when it knows the text,
    else the compiler's (or Python's) last lines as the evidence."""
    title = "torch.compile failed on %s%s" % (d["device"], " at %s" % d["step"] if d.get("step") else "")
    known = known_error_finding(text, title, "The compile preflight's error:\n" + _last_lines(text))
    if known is not None:
        known.severity = ERROR
        return known
    if d.get("matches_eager") is False:
        return finding("torch.compile on %s gave a different result from eager (max abs diff %s)" % (
            d["device"], d.get("max_abs_diff")), detail="A tiny function compiled and ran, but its output differs.",
            fix="Report it to PyTorch with this report attached.", severity=ERROR)
    return finding(title, detail="Not a known toolchain failure. Its last lines:\n" + _last_lines(text),
                   fix="Run it yourself with TORCH_LOGS=\"+inductor\" for the full output of the compiler.",
                   commands=["TORCH_LOGS=+inductor torchdoctor check --compile"], severity=ERROR)


@rule("check", "compile-timings", category="torch-compile-missing", severity=INFO)
def compile_timings(facts: Facts):
    """torch.compile worked: how long the first compile took, and a second once the cache held it."""
    c = _section(facts)
    if c is None:
        return None
    devs = c.get("devices") if isinstance(c.get("devices"), dict) else {}
    good = [(n, d) for n, d in sorted(devs.items()) if isinstance(d, dict) and d.get("ok") is True]
    if not good:
        return None
    parts = ["%s: first compile %.1f s, again with a warm cache %.1f s, a compiled call %.2f ms" % (
        n, d.get("cold_s") or 0, d.get("warm_s") or 0, (d.get("call_s") or 0) * 1000) for n, d in good]
    return finding("torch.compile works on %s" % ", ".join(n for n, _ in good), detail="; ".join(parts) + ".",
                   fix="")
