"""The torch.compile preflight. Runs *inside the interpreter being diagnosed*.

Like target.py: standard library (and torch, once the toolchain is read), Python 3.8 syntax,
no exception escapes, and every section is one JSON line flushed the moment it is ready, so a
compile that crashes the interpreter or runs past the time limit still leaves what came
before it and the name of the stage it was in.

The parent (gather/compile.py) starts it with TORCHINDUCTOR_CACHE_DIR, TRITON_CACHE_DIR and
the temporary folder pointed into a folder of its own, so nothing is written to the user's
caches; the user's own settings of those come in as JSON on the command line and are only
looked at (stat, access, statvfs), never written to.

    python compile_child.py OUT.jsonl USER_ENV_JSON [--toolchain-only]
"""

import json
import os
import sys
import time

STAGE_KEY = "stage"
SECTION_KEY = "section"
CATCH = (Exception, SystemExit)
# Folders where a C++ compiler lives when it is installed but not on PATH.
USUAL_BIN_DIRS = ("/usr/bin", "/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin",
                  "/Library/Developer/CommandLineTools/usr/bin")
COMPILER_NAMES = ("g++", "c++", "clang++")
C_COMPILER_NAMES = ("cc", "gcc", "clang")
VERSION_TIMEOUT = 20.0


def absent(reason):
    return {"_absent": reason}


def failed(exc):
    text = "%s: %s" % (type(exc).__name__, exc) if isinstance(exc, BaseException) else str(exc)
    return {"_failed": text[:2000]}


class Writer:
    def __init__(self, path):
        self.fh = open(path, "a") if path else None
        self.sections = {}

    def stage(self, name):
        self._emit({STAGE_KEY: name, "t": time.time()})

    def section(self, name, data):
        self.sections[name] = data
        self._emit({SECTION_KEY: name, "data": data})

    def _emit(self, obj):
        if self.fh is None:
            return
        try:
            line = json.dumps(obj, ensure_ascii=True, default=str)
        except Exception as e:  # noqa: BLE001
            line = json.dumps({SECTION_KEY: obj.get(SECTION_KEY, "?"), "data": failed(e)})
        self.fh.write(line + "\n")
        self.fh.flush()


# ------------------------------------------------------------- toolchain ----
def _version_of(path, windows_cl=False):
    """What `COMPILER --version` says: the call inductor makes to decide a compiler works
    (cl takes no --version: it prints its banner on stderr when run bare)."""
    import subprocess
    argv = [path] if windows_cl else [path, "--version"]
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=VERSION_TIMEOUT)
    except subprocess.TimeoutExpired:
        return {"works": False, "error": "`%s` did not answer within %.0f s" % (" ".join(argv), VERSION_TIMEOUT)}
    except OSError as e:
        return {"works": False, "error": "%s: %s" % (type(e).__name__, e)}
    text = (r.stdout or b"").decode("utf-8", "replace") + (r.stderr or b"").decode("utf-8", "replace")
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return {"works": r.returncode == 0 or windows_cl and "Microsoft" in text, "returncode": r.returncode,
            "version": first[:200]}


def _which(name, path=None):
    import shutil
    try:
        return shutil.which(name, path=path)
    except CATCH:  # noqa: BLE001 - an odd PATH
        return None


def _compiler(name, source):
    """One compiler as the toolchain would call it: where it resolves and whether it runs."""
    windows_cl = sys.platform == "win32" and os.path.basename(name).lower() in ("cl", "cl.exe")
    out = {"name": name, "source": source}
    if os.path.dirname(name):
        out["exists"] = os.path.exists(name)
    found = _which(name)
    out["path"] = found if found else absent("not found" + ("" if os.path.dirname(name) else " on PATH"))
    if found:
        out.update(_version_of(found, windows_cl))
    return out


def _elsewhere(names):
    """Compilers in the usual folders that PATH does not reach: a fix can name one."""
    on_path = set(os.path.normcase(os.path.abspath(p)) for p in os.environ.get("PATH", "").split(os.pathsep) if p)
    dirs = list(USUAL_BIN_DIRS) + [os.path.join(sys.base_prefix, "bin"), os.path.join(sys.prefix, "bin")]
    out, seen = [], set()
    for d in dirs:
        key = os.path.normcase(os.path.abspath(d))
        if key in on_path or key in seen or not os.path.isdir(d):
            continue
        seen.add(key)
        for n in names:
            p = os.path.join(d, n)
            if os.path.isfile(p) and os.access(p, os.X_OK):
                out.append(p)
    return out[:10]


def compiler_facts():
    """The C++ compiler TorchInductor would call for CPU code (CXX, else g++ / clang++ on
    macOS / cl on Windows: torch._inductor.config.cpp.cxx), and the C compiler triton
    builds its launcher with (CC, else cc/gcc/clang on PATH)."""
    env = os.environ
    windows = sys.platform == "win32"
    default = "cl" if windows else ("clang++" if sys.platform == "darwin" else "g++")
    cxx_env = env.get("CXX")
    out = {"cxx_env": cxx_env if cxx_env is not None else absent("CXX is not set"),
           "cc_env": env.get("CC") if env.get("CC") is not None else absent("CC is not set"),
           "path_entries": len([p for p in env.get("PATH", "").split(os.pathsep) if p])}
    out["cxx"] = _compiler(cxx_env or default, "CXX" if cxx_env else "default")
    on_path = [p for p in (_which(n) for n in COMPILER_NAMES) if p]
    out["cxx_on_path"] = on_path
    out["cxx_elsewhere"] = _elsewhere(COMPILER_NAMES)
    cc_env = env.get("CC")
    if cc_env:
        out["cc"] = _compiler(cc_env, "CC")
    else:
        first = next((n for n in C_COMPILER_NAMES if _which(n)), None)
        out["cc"] = _compiler(first, "PATH") if first else {"name": None, "source": "PATH",
                                                             "path": absent("none of cc, gcc, clang on PATH")}
    return out


def _install_kind(base, executable):
    """Where this Python came from, which decides what ships its headers."""
    b = (base or "").replace("\\", "/")
    e = (executable or "").replace("\\", "/")
    if os.path.isdir(os.path.join(base, "conda-meta")):
        return "conda"
    if sys.platform == "win32":
        if any(f.endswith("._pth") for f in _listdir(os.path.dirname(executable))):
            return "embedded"
        return "store" if "WindowsApps" in e else "python.org"
    if "/.pyenv/" in b:
        return "pyenv"
    if "/uv/python/" in b:
        return "uv"
    if sys.platform == "darwin":
        if "CommandLineTools" in b or "Xcode" in b:
            return "xcode"
        if "/Cellar/" in b or b.startswith("/opt/homebrew"):
            return "homebrew"
        if "Python.framework" in b:
            return "python.org"
    if b in ("/usr", "/usr/local") and sys.platform.startswith("linux"):
        return "distribution" if b == "/usr" else "source"
    return "other"


def _listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


def header_facts():
    """Python.h where TorchInductor and triton look for it: sysconfig's include folder."""
    import sysconfig
    inc = sysconfig.get_path("include")
    built = sysconfig.get_config_var("INCLUDEPY")
    out = {"include_dir": inc, "python_h": bool(inc) and os.path.isfile(os.path.join(inc, "Python.h")),
           "pythonhome": os.environ.get("PYTHONHOME") or absent("PYTHONHOME is not set"),
           "base_prefix": sys.base_prefix, "prefix": sys.prefix, "executable": sys.executable,
           "version": "%d.%d" % sys.version_info[:2], "installed_by": _install_kind(sys.base_prefix, sys.executable)}
    if built and built != inc:
        out["build_include_dir"] = built
        out["build_python_h"] = os.path.isfile(os.path.join(built, "Python.h"))
    return out


def _nearest_existing(path):
    p = os.path.abspath(path)
    while not os.path.exists(p):
        parent = os.path.dirname(p)
        if parent == p:
            break
        p = parent
    return p


def folder_facts(path, source):
    """Can this folder hold a compile cache: looked at (stat, access, statvfs), never written."""
    out = {"path": path, "source": source}
    try:
        out["exists"] = os.path.isdir(path)
        if os.path.exists(path) and not out["exists"]:
            out["not_a_folder"] = True
        base = path if out["exists"] else _nearest_existing(path)
        if not os.path.isdir(base):
            out["blocked_by"] = base  # a file where a folder on the way should be
            base = os.path.dirname(base)
        out["checked"] = base
        out["writable"] = os.access(base, os.W_OK | os.X_OK)
        st = os.stat(base)
        out["mode"] = oct(st.st_mode & 0o7777)
        if hasattr(os, "getuid"):
            out["owner_uid"] = st.st_uid
            out["uid"] = os.getuid()
        if hasattr(os, "statvfs"):
            v = os.statvfs(base)
            out["free_bytes"] = v.f_bavail * v.f_frsize
    except CATCH as e:  # noqa: BLE001
        out["error"] = "%s: %s" % (type(e).__name__, e)
    return out


def _user_name():
    try:
        import getpass
        return getpass.getuser()
    except CATCH:  # noqa: BLE001 - no passwd entry (a container's random uid)
        return "uid_%s" % os.getuid() if hasattr(os, "getuid") else "unknown_user"


def cache_facts(user_env):
    """The caches torch.compile would use for this user (their TORCHINDUCTOR_CACHE_DIR, else
    <temp>/torchinductor_<user>, where precompiled headers always go; triton's
    TRITON_CACHE_DIR, else ~/.triton/cache) and the temporary folder."""
    import re
    tmp = next((user_env[k] for k in ("TMPDIR", "TEMP", "TMP") if user_env.get(k)), None)
    tmp_source = next((k for k in ("TMPDIR", "TEMP", "TMP") if user_env.get(k)), "default")
    if not tmp:
        tmp = os.environ.get("SystemRoot", "C:\\Windows") + "\\Temp" if sys.platform == "win32" else "/tmp"
    default_inductor = os.path.join(tmp, "torchinductor_" + re.sub(r'[\\/:*?"<>|]', "_", _user_name()))
    inductor = user_env.get("TORCHINDUCTOR_CACHE_DIR")
    home = user_env.get("TRITON_HOME") or user_env.get("HOME") or os.path.expanduser("~")
    triton = user_env.get("TRITON_CACHE_DIR")
    out = {"tmp": folder_facts(tmp, tmp_source),
           "inductor": folder_facts(inductor or default_inductor,
                                    "TORCHINDUCTOR_CACHE_DIR" if inductor else "default"),
           "triton": folder_facts(triton or os.path.join(home, ".triton", "cache"),
                                  "TRITON_CACHE_DIR" if triton else "default")}
    if inductor:
        # Precompiled headers go under the default folder whatever TORCHINDUCTOR_CACHE_DIR says.
        out["headers"] = folder_facts(os.path.join(default_inductor, "precompiled_headers"), "default")
    return out


# ------------------------------------------------------------------ torch ----
def torch_facts(torch):
    out = {"version": str(getattr(torch, "__version__", "?")), "file": getattr(torch, "__file__", None)}
    try:
        from torch._dynamo.eval_frame import is_dynamo_supported
        out["dynamo_supported"] = bool(is_dynamo_supported())
    except CATCH as e:  # noqa: BLE001
        out["dynamo_supported"] = failed(e)
    try:
        out["cuda_available"] = bool(torch.cuda.is_available())
    except CATCH as e:  # noqa: BLE001
        out["cuda_available"] = failed(e)
    try:
        mps = getattr(torch.backends, "mps", None)
        out["mps_available"] = bool(mps is not None and mps.is_available())
    except CATCH as e:  # noqa: BLE001
        out["mps_available"] = failed(e)
    import importlib.util
    if importlib.util.find_spec("triton") is None:
        out["triton"] = absent("not installed")
    elif out.get("cuda_available") is True:  # importing triton is only worth it where it will be used
        try:
            import triton
            out["triton"] = {"version": str(getattr(triton, "__version__", "?")), "file": getattr(triton, "__file__", None)}
        except CATCH as e:  # noqa: BLE001
            out["triton"] = failed(e)
    else:
        out["triton"] = {"installed": True}
    return out


def _chain(exc):
    """Every exception in the chain, outermost first: inductor wraps the one that says why
    (InductorError -> CppCompileError, BackendCompilerFailed -> InvalidCxxCompiler)."""
    out, seen = [], set()
    while exc is not None and id(exc) not in seen and len(out) < 8:
        seen.add(id(exc))
        text = str(exc)
        out.append({"type": "%s.%s" % (type(exc).__module__, type(exc).__name__),
                    "message": text[-6000:] if len(text) > 6000 else text})
        exc = getattr(exc, "inner_exception", None) or exc.__cause__ or exc.__context__
    return out


def _error(exc):
    import traceback
    return {"type": type(exc).__name__, "chain": _chain(exc), "traceback": traceback.format_exc()[-4000:]}


def _sync(torch, device):
    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "mps":
        torch.mps.synchronize()


def compile_on(torch, device):
    """Compile a small function with the default backend (TorchInductor: C++ on the CPU,
    triton on CUDA), run it, compare with eager; then how long a second call takes and a
    second compile once the caches hold the first (what the cache buys)."""
    def f(x, y):
        return torch.sin(x) * y + torch.relu(x - y).sum()

    out = {"device": device}
    step = "inputs"
    try:
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(64, generator=gen).to(device)
        y = torch.randn(64, generator=gen).to(device)
        expected = f(x, y)
        step = "compile"
        compiled = torch.compile(f)
        t0 = time.perf_counter()
        got = compiled(x, y)
        _sync(torch, device)
        out["cold_s"] = round(time.perf_counter() - t0, 3)
        step = "compare"
        diff = float((got.float() - expected.float()).abs().max().cpu())
        out["max_abs_diff"] = diff
        out["matches_eager"] = bool(torch.allclose(got, expected, rtol=1e-4, atol=1e-4))
        step = "second call"
        t0 = time.perf_counter()
        compiled(x, y)
        _sync(torch, device)
        out["call_s"] = round(time.perf_counter() - t0, 6)
        step = "warm compile"
        torch._dynamo.reset()
        t0 = time.perf_counter()
        torch.compile(f)(x, y)
        _sync(torch, device)
        out["warm_s"] = round(time.perf_counter() - t0, 3)
        out["ok"] = out["matches_eager"]
        try:
            from torch._dynamo.utils import counters
            out["cache"] = dict((k, int(v)) for k, v in counters["inductor"].items() if "cache" in k)
        except CATCH:  # noqa: BLE001 - counters are internal; their absence is no failure
            pass
    except BaseException as e:  # noqa: BLE001 - every failure is the finding
        out["ok"] = False
        out["step"] = step
        out["error"] = _error(e)
    return out


def devices(torch_section):
    out = ["cpu"]
    if torch_section.get("cuda_available") is True:
        out.append("cuda")
    if torch_section.get("mps_available") is True:
        out.append("mps")
    return out


# ------------------------------------------------------------------- main ----
def collect(out_path, user_env, toolchain_only=False):
    w = Writer(out_path)
    for name, fn in (("compilers", compiler_facts), ("headers", header_facts),
                     ("caches", lambda: cache_facts(user_env))):
        w.stage(name)
        try:
            w.section(name, fn())
        except CATCH as e:  # noqa: BLE001
            w.section(name, failed(e))
    if toolchain_only:
        w.stage("done")
        return w.sections
    w.stage("import_torch")
    t0 = time.perf_counter()
    try:
        import torch
    except BaseException as e:  # noqa: BLE001
        w.section("torch", {"import_error": _error(e)})
        w.stage("done")
        return w.sections
    section = {"import_s": round(time.perf_counter() - t0, 3)}
    w.stage("torch")
    try:
        section.update(torch_facts(torch))
    except CATCH as e:  # noqa: BLE001
        section["error"] = failed(e)
    w.section("torch", section)
    for device in devices(section):
        w.stage("compile:" + device)
        w.section("device:" + device, compile_on(torch, device))
    w.stage("done")
    return w.sections


def main(argv):
    out = argv[1] if len(argv) > 1 else None
    try:
        user_env = json.loads(argv[2]) if len(argv) > 2 else {}
    except ValueError:
        user_env = {}
    collect(out, user_env if isinstance(user_env, dict) else {}, "--toolchain-only" in argv[3:])
    return 0


def exit_now(rc):
    """Leave without interpreter shutdown: inductor's worker pools and atexit handlers can
    take seconds, or hang, after every fact is written."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001
            pass
    os._exit(rc)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:] if sys.argv and sys.argv[0] == "-c" else sys.argv))
