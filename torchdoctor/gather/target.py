"""The torch-side probe. Runs *inside the interpreter being diagnosed*.

Constraints, because this file is executed by whatever Python the user points
us at: standard library only, Python 3.8 syntax, and it must never let an
exception escape. Each section is appended to the output file as one JSON line
and flushed the moment it is ready, so when ``import torch`` segfaults or CUDA
init hangs, the parent still has everything collected before that point plus
the name of the stage that was running.

It can also be imported and called in-process (``collect()``), which is how the
Python API reads the *live* settings of a training script.
"""

import json
import os
import re
import sys
import time
import warnings

STAGE_KEY = "stage"
SECTION_KEY = "section"
# --shadow-dir DIR: the probe runs isolated, from an empty folder and without '' on sys.path (the
# MCP server); DIR is the folder the diagnosis stands for, where a torch.py / torch/ would shadow
# torch for `python -c` there. It is listed as such, never imported.
SHADOW_DIR = None

# Packages worth reporting by name; anything matching these prefixes too.
COMPANIONS = (
    "torch", "torchvision", "torchaudio", "torchtext", "torchdata", "torchao",
    "torchrec", "torch-tensorrt", "numpy", "triton", "pytorch-triton",
    "pytorch-triton-rocm", "xformers", "flash-attn", "bitsandbytes", "deepspeed",
    "accelerate", "transformers", "trl", "huggingface-hub", "lightning", "pytorch-lightning", "onnx",
    "onnxruntime", "onnxruntime-gpu", "opt-einsum", "mkl", "intel-openmp",
    "cuda-toolkit", "cuda-python", "cuda-bindings", "timm", "diffusers",
    "vllm", "jax", "tensorflow", "scipy", "pillow", "sympy", "networkx",
    "filelock", "fsspec", "jinja2", "typing-extensions", "setuptools", "pip",
    "mypy", "intel-extension-for-pytorch", "torch-directml", "clip", "librosa", "tensorboard",
    "onnxruntime-directml", "spacy", "numba", "mmcv", "mmcv-full",
)
# Listed from rules 3 on: known errors read their releases (apex, tokenizers, speechbrain, pyannote-audio) or
# name them in their causes.
COMPANIONS_SINCE_3 = ("apex", "tokenizers", "speechbrain", "pyannote-audio", "gym", "gymnasium", "pyarrow")
# From rules 4: rsl_rl (a git install is rsl-rl, PyPI's rsl-rl-lib) and what it runs under decide which way it moves.
COMPANIONS_SINCE_4 = ("rsl-rl-lib", "rsl-rl", "legged-gym", "unitree-rl-gym", "isaacgym", "isaaclab", "isaaclab-rl")
COMPANIONS += COMPANIONS_SINCE_3 + COMPANIONS_SINCE_4
# The listing rules that first covered a name (any name not here: every rules): a listing made under older
# rules says nothing of it.
REPORTED_SINCE = dict([(name, 3) for name in COMPANIONS_SINCE_3] + [(name, 4) for name in COMPANIONS_SINCE_4])


def listing_covers(rules, name):
    """Whether a listing made under `rules` (an int) covered `name`."""
    return rules >= REPORTED_SINCE.get(name, 0)

COMPANION_PREFIXES = ("nvidia-", "torch-", "torch_", "cuda-", "pytorch-", "tensorrt", "spconv")
# Which names a listing covers: bumped whenever COMPANIONS, the prefixes or the patterns change, so a
# reader never takes a listing made under other rules (an older report, a pasted one) as complete.
REPORTED_RULES = 4
# Substrings of the names `python -m torch.utils.collect_env` lists (its pip and
# conda patterns), so a report carries every package collect_env would show.
COLLECT_ENV_PATTERNS = ("torch", "numpy", "triton", "optree", "mypy", "flake8", "onnx",
                        "cuda-cudart", "cuda-cupti", "cuda-libraries", "cuda-opencl", "cuda-nvrtc",
                        "cuda-runtime", "cublas", "cudnn", "cufft", "curand", "cusolver", "cusparse", "nccl",
                        "nvjitlink", "nvtx", "dpcpp-cpp-rt", "intel-cmplr-lib-rt", "intel-cmplr-lib-ur",
                        "intel-cmplr-lic-rt", "intel-opencl-rt", "intel-sycl-rt", "mkl", "onemkl-sycl",
                        "intel-openmp", "tbb", "impi-rt", "impi-devel", "oneccl", "intel-pti", "umf", "tcmlib")
CONDA_PATTERNS = COLLECT_ENV_PATTERNS + ("cudatoolkit", "soumith", "magma", "cuda-version", "llvm-openmp",
                                         "libblas", "pytorch", "cpuonly")


def reported(key, patterns):
    """Whether a listing names the distribution `key` when it is installed: a companion, a companion's
    prefix, or one of the name patterns given (collect_env's for pip, conda's for conda)."""
    return key in COMPANIONS or key.startswith(COMPANION_PREFIXES) or any(p in key for p in patterns)

# Attributes read from each torch.backends submodule (many are properties on a
# PropModule class, so dir() on the module does not show them).
BACKEND_ATTRS = {
    "cuda": ("is_built()", "flash_sdp_enabled()", "mem_efficient_sdp_enabled()",
             "math_sdp_enabled()", "cudnn_sdp_enabled()", "fp16_bf16_reduction_math_sdp_allowed()",
             "preferred_linalg_library()", "preferred_blas_library()",
             "matmul.allow_tf32", "matmul.allow_fp16_reduced_precision_reduction",
             "matmul.allow_bf16_reduced_precision_reduction", "matmul.allow_fp16_accumulation",
             "matmul.fp32_precision"),
    "cudnn": ("is_available()", "version()", "enabled", "benchmark", "benchmark_limit",
              "deterministic", "allow_tf32", "conv.fp32_precision", "rnn.fp32_precision"),
    "mps": ("is_built()", "is_available()"),
    "mkl": ("is_available()",),
    "mkldnn": ("is_available()", "enabled", "deterministic", "allow_tf32",
               "matmul.fp32_precision", "conv.fp32_precision", "rnn.fp32_precision"),
    "openmp": ("is_available()",),
    "opt_einsum": ("is_available()", "enabled", "strategy"),
    "cusparselt": ("is_available()", "version()"),
    "xnnpack": ("enabled",),
    "nnpack": ("is_available()",),
    "cpu": ("get_cpu_capability()",),
    "kleidiai": ("is_available()",),
    "mha": ("get_fastpath_enabled()",),
    "miopen": ("immediate",),
    "quantized": ("engine", "supported_engines"),
    "xeon": (),
}
# Backends whose absence is itself a fact worth stating, with the first release
# that has them (from backends_api.json in the knowledge base's sources).
EXPECTED_BACKENDS = ("cuda", "cudnn", "mps", "mkl", "mkldnn", "openmp", "opt_einsum",
                     "cusparselt", "xnnpack", "nnpack", "cpu", "kleidiai", "mha", "quantized")

RUNTIME_CALLS = ("are_deterministic_algorithms_enabled", "is_deterministic_algorithms_warn_only_enabled",
                 "get_float32_matmul_precision", "get_num_threads", "get_num_interop_threads")


# What a probed call may raise without ending the probe. A torch function that
# calls sys.exit() is a fact like any other; in the probe's own process (see
# main) even KeyboardInterrupt is, while in-process use keeps Ctrl-C working.
CATCH = (Exception, SystemExit)


def absent(reason):
    return {"_absent": reason}


def failed(exc):
    if isinstance(exc, BaseException):
        text = "%s: %s" % (type(exc).__name__, exc)
    else:
        text = str(exc)
    return {"_failed": text[:2000]}


def _jsonable(v):
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple, set, frozenset)):
        return [_jsonable(x) for x in v]
    if isinstance(v, dict):
        return dict((str(k), _jsonable(x)) for k, x in v.items())
    name = getattr(v, "name", None)  # enums such as _LinalgBackend
    if isinstance(name, str):
        return name
    return str(v)


def has(obj, name):
    """hasattr() that a module-level __getattr__ raising anything cannot break."""
    try:
        getattr(obj, name)
        return True
    except AttributeError:
        return False
    except CATCH as e:  # noqa: BLE001
        return failed(e)


def attempt(fn, *args):
    try:
        return _jsonable(fn(*args))
    except CATCH as e:  # noqa: BLE001 - every failure is a fact
        return failed(e)


class Writer:
    """Appends one JSON object per line to the output file, flushed at once."""

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
        # flush() hands the line to the kernel, which keeps it when this
        # process dies (segfault, abort, SIGKILL at the timeout); fsync would
        # only add protection against power loss, at milliseconds a line.
        self.fh.write(line + "\n")
        self.fh.flush()


def _cwd():
    """os.getcwd(), which raises when the directory was deleted under the process."""
    try:
        return os.getcwd()
    except CATCH as e:  # noqa: BLE001
        return failed(e)


def _path_entries():
    """sys.path entries the import system uses: only strings count (others are ignored)."""
    return [p for p in sys.path if isinstance(p, str)]


def _traceback_text(limit):
    import traceback  # here: explain reads python_facts in-process and never needs it
    return traceback.format_exc()[-limit:]


# --------------------------------------------------------------- python ----
_IMPLEMENTATIONS = {"cpython": "CPython", "pypy": "PyPy", "graalpy": "GraalVM", "jython": "Jython",
                    "ironpython": "IronPython"}


def python_facts():
    import struct

    # What platform.python_version(), python_implementation() and machine() say, read
    # without importing platform: explain reads these facts in-process at start-up.
    impl = sys.implementation.name
    if hasattr(os, "uname") and impl in _IMPLEMENTATIONS:
        version, implementation, machine = sys.version.split()[0], _IMPLEMENTATIONS[impl], os.uname().machine
    else:
        import platform
        version, implementation, machine = (platform.python_version(), platform.python_implementation(),
                                            platform.machine())
    base = getattr(sys, "base_prefix", sys.prefix)
    conda_prefix = os.environ.get("CONDA_PREFIX")
    in_conda = os.path.isdir(os.path.join(sys.prefix, "conda-meta"))
    return {
        "version": version,
        "implementation": implementation,
        "executable": sys.executable,
        "prefix": sys.prefix,
        "base_prefix": base,
        "bits": struct.calcsize("P") * 8,
        "machine": machine,
        "platform": sys.platform,
        "virtualenv": sys.prefix != base,
        "conda": in_conda,
        "conda_env": os.environ.get("CONDA_DEFAULT_ENV") if conda_prefix else absent("not a conda env"),
        "gil_disabled": bool(getattr(sys, "_is_gil_enabled", lambda: True)() is False),
        "sys_version": sys.version.replace("\n", " "),
        "cwd": _cwd(),
        "sys_path": _path_entries()[:50],
    }


# ------------------------------------------------------------- packages ----
_DIST_RE = re.compile(r"^(?P<name>[A-Za-z0-9_.]+?)-(?P<version>[^-]+?)\.(?:dist|egg)-info$")


def _normalize(name):
    return re.sub(r"[-_.]+", "-", name).lower()


def _read_field(path, field):
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                if not line.strip():
                    break
                if line.startswith(field + ":"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return None


def _installer(info_dir):
    try:
        with open(os.path.join(info_dir, "INSTALLER"), encoding="utf-8", errors="replace") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def _conda_packages(prefix):
    meta = os.path.join(prefix, "conda-meta")
    out = {}
    try:
        names = os.listdir(meta)
    except OSError:
        return out
    for fn in names:
        if fn.endswith(".json"):
            parts = fn[:-5].rsplit("-", 2)
            if len(parts) == 3:
                out[_normalize(parts[0])] = {"version": parts[1], "build": parts[2]}
    return out


def package_facts():
    """Installed distributions, read from *.dist-info directory names.

    Listing directories is an order of magnitude faster than
    importlib.metadata (which opens every METADATA file), and it does not import
    anything. The first entry on sys.path wins, as it does for imports.
    """
    found = {}
    duplicates = {}
    for entry in _path_entries():
        if not entry or not os.path.isdir(entry):
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for fn in names:
            if not (fn.endswith(".dist-info") or fn.endswith(".egg-info")):
                continue
            m = _DIST_RE.match(fn)
            info = os.path.join(entry, fn)
            if m:
                name, version = m.group("name"), m.group("version")
            else:
                meta = os.path.join(info, "PKG-INFO") if os.path.isdir(info) else info
                name = _read_field(meta, "Name") or fn.rsplit(".", 1)[0]
                version = _read_field(meta, "Version") or "unknown"
            key = _normalize(name)
            if key in found:
                if found[key]["version"] != version or found[key]["location"] != entry:
                    duplicates.setdefault(key, []).append({"version": version, "location": entry})
                continue
            found[key] = {"version": version, "location": entry}
    report = {}
    info_index = {}  # location -> {normalised name: its first *-info dir}, listed once
    for key, rec in found.items():
        if reported(key, COLLECT_ENV_PATTERNS):
            rec = dict(rec)
            loc = rec["location"]
            if loc not in info_index:
                index = info_index[loc] = {}
                for d in _safe_listdir(loc):
                    if d.endswith("-info"):
                        index.setdefault(_normalize(d.split("-")[0]), d)
            info_dir = info_index[loc].get(key)
            if info_dir:
                inst = _installer(os.path.join(loc, info_dir))
                if inst:
                    rec["installer"] = inst
                    rec["info_dir"] = info_dir
            if key in BUILD_VERSION_FILES:
                built = _build_version(loc, BUILD_VERSION_FILES[key])
                if built:
                    rec["build_version"] = built
            report[key] = rec
    conda = _conda_packages(sys.prefix)
    for key, rec in conda.items():
        if reported(key, CONDA_PATTERNS):
            report.setdefault("conda:" + key, rec)
    for name in COMPANIONS[:12]:
        report.setdefault(_normalize(name), absent("not installed"))
    out = {"installed": report, "count": len(found), "reported": REPORTED_RULES}
    if duplicates:
        out["duplicates"] = duplicates
    return out


# Companions whose dist-info version hides the build: PyPI's torchvision 0.28.0 is
# '0.28.0' in its dist-info but '0.28.0+cu130' in torchvision/version.py, which is
# what decides whether its compiled operators load beside a +cpu torch.
BUILD_VERSION_FILES = {"torchvision": "torchvision/version.py", "torchaudio": "torchaudio/version.py",
                       "torch": "torch/version.py"}
_VERSION_LINE = re.compile(r"""^__version__\s*=\s*['"]([^'"]{1,64})['"]""", re.M)


def _build_version(location, rel):
    """__version__ as written in the package's version.py, read as text (no import)."""
    try:
        with open(os.path.join(location, rel), encoding="utf-8", errors="replace") as fh:
            m = _VERSION_LINE.search(fh.read(8192))
    except OSError:
        return None
    return m.group(1) if m else None


def _safe_listdir(path):
    try:
        return os.listdir(path)
    except OSError:
        return []


# -------------------------------------------------------------- shadowing ---
def torch_location_facts():
    """Where ``import torch`` would come from, found without importing it."""
    candidates = []
    cwd = SHADOW_DIR or _cwd()
    entries = _path_entries()
    if SHADOW_DIR and "" not in entries:
        entries = [""] + entries
    for entry in entries:
        base = entry or cwd
        if not isinstance(base, str):
            continue  # the current directory is gone: nothing there to shadow torch
        for name in ("torch", "torch.py"):
            p = os.path.join(base, name)
            if os.path.isdir(p) and name == "torch":
                is_pkg = os.path.exists(os.path.join(p, "__init__.py"))
                candidates.append({"path": p, "kind": "package" if is_pkg else "namespace-dir",
                                   "sys_path_entry": entry})
            elif os.path.isfile(p):
                candidates.append({"path": p, "kind": "module", "sys_path_entry": entry})
    origin = absent("torch not found on sys.path")
    try:
        import importlib.util
        spec = importlib.util.find_spec("torch")
        if spec is not None:
            origin = spec.origin or (list(spec.submodule_search_locations or []) or [None])[0]
    except CATCH as e:  # noqa: BLE001
        origin = failed(e)
    return {"candidates": candidates[:10], "spec_origin": origin, "cwd": cwd}


# ------------------------------------------------------------ culprits -----
MAX_LIBS = 600
_SO_NAME = re.compile(r"\.(?:so(?:\.[0-9][0-9.]*)?|dylib|dll|pyd)$", re.I)


def split_path_value(name, value, pathsep):
    """A path variable's entries (LD_PRELOAD may also be space-separated); `pathsep` the target OS's."""
    sep = " " if name == "LD_PRELOAD" and ":" not in value else pathsep
    return [x for x in value.split(sep) if x]


def _split_path_var(name):
    value = os.environ.get(name)
    if value is None:
        return absent("not set")
    return split_path_value(name, value, os.pathsep)


def _pth_entries(site_dirs, on_path):
    """The .pth files of the site directories: the sys.path entries each added, and whether
    it runs code (an `import` line)."""
    out = []
    for d in site_dirs:
        for fn in sorted(_safe_listdir(d)):
            if not fn.endswith(".pth"):
                continue
            path = os.path.join(d, fn)
            adds, runs = [], False
            try:
                with open(path, encoding="utf-8", errors="replace") as fh:
                    for line in fh.read(65536).splitlines():
                        line = line.strip()
                        if not line or line.startswith("#"):
                            continue
                        if line.startswith(("import ", "import\t")):
                            runs = True
                            continue
                        full = os.path.normpath(os.path.join(d, line))
                        if full in on_path:
                            adds.append(full)
            except OSError:
                continue
            if adds or runs:
                out.append({"file": path, "adds": adds[:20], "runs_code": runs})
    return out[:50]


def import_env_facts():
    """Where sys.path entries and native libraries can come from besides the environment
    itself: PYTHONPATH, the user site-packages, .pth files, LD_LIBRARY_PATH / LD_PRELOAD
    (DYLD_* on macOS, PATH on Windows decides DLLs). Read before `import torch`: which of them
    changed what was imported is decided from these and the paths the import used."""
    import site
    entries = _path_entries()
    on_path = set(os.path.normpath(p) for p in entries if p)
    try:
        site_dirs = list(site.getsitepackages())
    except CATCH:  # noqa: BLE001 - old virtualenv's site.py has none
        site_dirs = []
    user = attempt(site.getusersitepackages) if hasattr(site, "getusersitepackages") else absent("no user site")
    if isinstance(user, str):
        site_dirs.append(user)
    out = {"PYTHONPATH": _split_path_var("PYTHONPATH"),
           "user_site": user, "user_site_enabled": bool(getattr(site, "ENABLE_USER_SITE", False)),
           "site_dirs": site_dirs,
           "pth": _pth_entries([d for d in site_dirs if os.path.isdir(d)], on_path)}
    for var in ("LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "DYLD_INSERT_LIBRARIES"):
        out[var] = _split_path_var(var)
    return out


def _linux_libs():
    paths = []
    seen = set()
    with open("/proc/self/maps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            parts = line.split(None, 5)
            if len(parts) == 6:
                p = parts[5].strip()
                if p.startswith("/") and p not in seen and _SO_NAME.search(p.replace(" (deleted)", "")):
                    seen.add(p)
                    paths.append(p)
    return paths


def _macos_libs():
    import ctypes
    lib = ctypes.CDLL(None)
    lib._dyld_get_image_name.restype = ctypes.c_char_p
    lib._dyld_get_image_name.argtypes = [ctypes.c_uint32]
    return [lib._dyld_get_image_name(i).decode("utf-8", "replace") for i in range(lib._dyld_image_count())]


def _windows_libs():
    import ctypes
    from ctypes import wintypes
    psapi, kernel32 = ctypes.WinDLL("psapi"), ctypes.WinDLL("kernel32")
    proc = kernel32.GetCurrentProcess()
    mods = (wintypes.HMODULE * 2048)()
    needed = wintypes.DWORD()
    if not psapi.EnumProcessModules(proc, mods, ctypes.sizeof(mods), ctypes.byref(needed)):
        raise OSError("EnumProcessModules failed")
    out = []
    buf = ctypes.create_unicode_buffer(1024)
    for i in range(min(needed.value // ctypes.sizeof(wintypes.HMODULE), 2048)):
        if psapi.GetModuleFileNameExW(proc, mods[i], buf, 1024):
            out.append(buf.value)
    return out


def _bundled(packages):
    """Shared libraries that torch's wheel and its declared dependencies ship: file name ->
    folder (torch/lib, torch.libs, nvidia/*/lib, the *.libs of auditwheel)."""
    rec = (packages or {}).get("installed", {}).get("torch")
    loc = rec.get("location") if isinstance(rec, dict) else None
    if not loc:
        return {}
    dirs = [os.path.join(loc, "torch", "lib"), os.path.join(loc, "torch.libs")]
    nvidia = os.path.join(loc, "nvidia")
    for sub in _safe_listdir(nvidia):
        dirs.append(os.path.join(nvidia, sub, "lib"))
    out = {}
    for d in dirs:
        for fn in _safe_listdir(d):
            if _SO_NAME.search(fn):
                out.setdefault(fn, d)
    return out


def loaded_libs_facts(packages):
    """The shared libraries the process had loaded after `import torch` (ran or failed), and
    from where; and the ones torch's wheel ships, to tell a foreign copy from its own."""
    if sys.platform.startswith("linux"):
        source, reader = "/proc/self/maps", _linux_libs
    elif sys.platform == "darwin":
        source, reader = "dyld", _macos_libs
    elif os.name == "nt":
        source, reader = "EnumProcessModules", _windows_libs
    else:
        return absent("no way to list loaded libraries on %s" % sys.platform)
    paths = attempt(reader)
    if isinstance(paths, list):
        paths = paths[:MAX_LIBS]
    return {"source": source, "paths": paths, "bundled": attempt(_bundled, packages)}


# ---------------------------------------------------------- torch's files ----
SHARED_LIB = re.compile(r"\.(?:so(?:\.[0-9.]+)?|dylib|dll|pyd)$")
MAX_LISTED = 20


def _record_path(packages):
    """The RECORD of the torch distribution that `packages` found first on sys.path."""
    rec = (packages or {}).get("installed", {}).get("torch")
    if not isinstance(rec, dict) or "location" not in rec:
        return None, absent("torch is not installed")
    loc = rec["location"]
    info = rec.get("info_dir")
    if not info:
        info = next((d for d in _safe_listdir(loc) if d.startswith("torch-") and d.endswith(".dist-info")), None)
    if not info:
        return None, absent("no torch dist-info in %s" % loc)
    path = os.path.join(loc, info, "RECORD")
    if not os.path.isfile(path):
        return None, absent("no RECORD in %s (installed by %s)" % (info, rec.get("installer") or "a tool that writes none"))
    return path, None


def _hash_file(path):
    import base64
    import hashlib
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while True:
            block = fh.read(1 << 20)
            if not block:
                break
            h.update(block)
    return base64.urlsafe_b64encode(h.digest()).rstrip(b"=").decode("ascii")


def torch_files_facts(packages, hash_libs=False):
    """torch's installed files against its wheel's RECORD: which are missing, which have
    another size, and (hash_libs) which shared libraries have another sha256.

    Sizes need one stat a file (about 15k for torch: tens of ms); hashes read every byte
    of the shared libraries (hundreds of MB), so they are only taken when asked for, i.e.
    when `import torch` failed and the question is whether the install is intact."""
    import csv
    path, why = _record_path(packages)
    if path is None:
        return why
    base = os.path.dirname(os.path.dirname(path))
    missing, resized, rehashed, libs = [], [], [], 0
    checked = 0
    t0 = time.time()
    with open(path, encoding="utf-8", errors="replace", newline="") as fh:
        for row in csv.reader(fh):
            if len(row) < 3 or not row[1] or row[0].startswith(".."):
                continue  # RECORD itself, INSTALLER, scripts outside site-packages
            rel, digest, size = row[0], row[1], row[2]
            if "__pycache__" in rel:
                continue
            full = os.path.join(base, rel)
            checked += 1
            try:
                st = os.stat(full)
            except OSError:
                missing.append(rel)
                continue
            if size.isdigit() and st.st_size != int(size):
                resized.append({"path": rel, "expected": int(size), "found": st.st_size})
                continue
            if SHARED_LIB.search(rel):
                libs += 1
                if hash_libs and digest.startswith("sha256="):
                    try:
                        if _hash_file(full) != digest[7:]:
                            rehashed.append(rel)
                    except OSError as e:
                        rehashed.append("%s (unreadable: %s)" % (rel, e))
    return {"record": path, "checked": checked, "shared_libs": libs, "hashed": bool(hash_libs),
            "missing": missing[:MAX_LISTED], "missing_count": len(missing),
            "size_changed": resized[:MAX_LISTED], "size_changed_count": len(resized),
            "hash_changed": rehashed[:MAX_LISTED], "hash_changed_count": len(rehashed),
            "duration_s": round(time.time() - t0, 3)}


# ---------------------------------------------------------- companions -----
IMPORT_CHECKED = ("torchvision", "torchaudio")
COMPANION_IMPORT_TIMEOUT = 20.0


def _import_with_limit(name, limit):
    """Import `name` in a daemon thread and wait at most `limit` seconds: a companion
    whose import hangs is reported as such while the probe goes on (os._exit at the end
    leaves the thread behind)."""
    import threading
    result = {}

    def run():
        t0 = time.time()
        try:
            __import__(name)
            result["ok"] = True
        except BaseException as e:  # noqa: BLE001 - SystemExit or a C-level error too
            result.update(ok=False, error_type=type(e).__name__, error=str(e)[:2000],
                          traceback=_traceback_text(4000))
        result["duration_s"] = round(time.time() - t0, 3)

    t = threading.Thread(target=run, name="torchdoctor-import-" + name)
    t.daemon = True
    t.start()
    t.join(limit)
    if t.is_alive():
        return failed("import %s did not finish within %.0f s" % (name, limit))
    return dict(result)


def companion_import_facts(packages):
    """Does each installed companion import beside this torch? The import error itself
    (`operator torchvision::nms does not exist`) is the evidence a version check lacks."""
    installed = (packages or {}).get("installed", {})
    out = {}
    for name in IMPORT_CHECKED:
        if not isinstance(installed.get(name), dict) or "version" not in installed[name]:
            out[name] = absent("not installed")
            continue
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            r = _import_with_limit(name, COMPANION_IMPORT_TIMEOUT)
        if isinstance(r, dict) and "_failed" not in r:
            r["warnings"] = _warning_texts(rec)
        out[name] = r
    return out


# ----------------------------------------------------------------- torch ----
def _parse_config(text):
    """torch.__config__.show() -> {'build_settings': {...}, 'lines': [...]}."""
    out = {"lines": [], "build_settings": {}}
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("- "):
            continue
        item = line[2:].strip()
        if item.startswith("Build settings:"):
            settings = item.split(":", 1)[1]
            # Values may hold spaces and '=' (compiler flags); keys are UPPER_CASE.
            for m in re.finditer(r"([A-Z][A-Z0-9_]*)=(.*?)(?:, (?=[A-Z][A-Z0-9_]*=)|,?\s*$)", settings):
                out["build_settings"][m.group(1)] = m.group(2).strip()
        else:
            out["lines"].append(item)
            low = item.lower()
            if low.startswith("cpu capability usage"):
                out["cpu_capability"] = item.split(":", 1)[1].strip()
            elif "math kernel library version" in low:
                m = re.search(r"version\s+(\S+)", item, re.I)
                if m:
                    out["mkl_version"] = m.group(1).split("-")[0]
            elif "mkl-dnn" in low or "onednn" in low:
                m = re.search(r"v(\d+(?:\.\d+)*)", item)
                if m:
                    out["mkldnn_version"] = m.group(1)
            elif low.startswith("openmp"):
                out["openmp"] = item
            elif low.startswith("cudnn version") or low.startswith("cudnn"):
                out["cudnn"] = item
            elif low.startswith("cuda runtime"):
                out["cuda_runtime"] = item.split()[-1]
            elif low.startswith("nvcc architecture flags"):
                out["nvcc_arch_flags"] = item.split(":", 1)[1].strip()
            elif low.startswith("hip runtime"):
                out["hip_runtime"] = item.split()[-1]
            elif low.startswith("magma"):
                out["magma"] = item.split()[-1]
    return out


def _parse_parallel(text):
    out = {}
    for line in text.splitlines():
        m = re.match(r"\s*([A-Za-z_:]+\(\)|[A-Z_]+_NUM_THREADS)\s*:\s*(.+)$", line)
        if m:
            key, val = m.group(1), m.group(2).strip()
            out[key.replace("()", "").replace("at::", "").replace("std::thread::", "")] = (
                int(val) if val.isdigit() else val)
        elif line.startswith("ATen parallel backend:"):
            out["backend"] = line.split(":", 1)[1].strip()
    return out


def torch_build_facts(torch):
    version = attempt(lambda: str(torch.__version__))
    local = absent("no local version tag")
    if isinstance(version, str) and "+" in version:
        local = version.split("+", 1)[1]
    tv = getattr(torch, "version", None)

    def ver(name):
        if tv is None:
            return failed("torch.version missing")
        h = has(tv, name)
        if h is False:
            return absent("torch.version.%s does not exist in this version" % name)
        if h is not True:
            return h  # reading it raised
        v = attempt(getattr, tv, name)
        return absent("not built with it") if v is None else v

    info = {
        "version": version,
        "local_tag": local,
        "file": attempt(lambda: torch.__file__),
        "git_version": ver("git_version"),
        "debug": ver("debug"),
        "cuda": ver("cuda"),
        "hip": ver("hip"),
        "xpu": ver("xpu"),
    }
    cfg = getattr(torch, "__config__", None)
    if cfg is not None and hasattr(cfg, "show"):
        try:
            info["config"] = _parse_config(cfg.show())
        except CATCH as e:  # noqa: BLE001
            info["config"] = failed(e)
        try:
            info["parallel"] = _parse_parallel(cfg.parallel_info())
        except CATCH as e:  # noqa: BLE001
            info["parallel"] = failed(e)
    else:
        info["config"] = absent("torch.__config__ missing")
    runtime = {}
    for name in RUNTIME_CALLS:
        fn = getattr(torch, name, None)
        runtime[name] = attempt(fn) if callable(fn) else absent("not in this torch version")
    info["runtime"] = runtime
    return info


def _read_attr(obj, spec):
    """spec: 'name', 'name()' or 'a.b' / 'a.b()'."""
    call = spec.endswith("()")
    path = spec[:-2] if call else spec
    cur = obj
    for part in path.split("."):
        try:
            cur = getattr(cur, part)
        except AttributeError:
            return absent("no attribute %s" % part)
        except CATCH as e:  # noqa: BLE001
            return failed(e)
    if call:
        if not callable(cur):
            return failed("%s is not callable" % path)
        return attempt(cur)
    if callable(cur) and not isinstance(cur, (bool, int, float, str)):
        return failed("%s is a function, not a flag" % path)
    return attempt(lambda: cur)


def backends_facts(torch):
    out = {}
    backends = getattr(torch, "backends", None)
    if backends is None:
        return {"_module": absent("torch.backends does not exist")}
    names = set()
    try:
        import pkgutil
        names = set(m.name for m in pkgutil.iter_modules(list(getattr(backends, "__path__", []))))
    except CATCH as e:  # noqa: BLE001
        out["_listing"] = failed(e)
    import importlib
    for name in sorted(names | set(EXPECTED_BACKENDS)):
        if name.startswith("_"):
            continue
        if name not in names:
            out[name] = absent("torch.backends.%s does not exist in this torch version" % name)
            continue
        try:
            mod = importlib.import_module("torch.backends." + name)
        except CATCH as e:  # noqa: BLE001
            out[name] = failed(e)
            continue
        entry = {}
        specs = BACKEND_ATTRS[name] if name in BACKEND_ATTRS else ("is_available()", "is_built()", "enabled")
        for spec in specs:
            key = spec.replace("()", "")
            v = _read_attr(mod, spec)
            if name not in BACKEND_ATTRS and isinstance(v, dict) and "_absent" in v:
                continue
            entry[key] = v
        out[name] = entry
    fp = getattr(backends, "fp32_precision", None)
    out["fp32_precision"] = absent("added in torch 2.9") if fp is None else attempt(lambda: fp)
    # sdp_kernel (1.13-) vs torch.nn.attention.sdpa_kernel (2.3+).
    cuda = out.get("cuda")
    if isinstance(cuda, dict):
        cuda["sdp_kernel"] = has(getattr(backends, "cuda", None), "sdp_kernel")
        try:
            att = importlib.import_module("torch.nn.attention")
            cuda["sdpa_kernel"] = has(att, "sdpa_kernel")
        except ImportError:
            cuda["sdpa_kernel"] = False
        except CATCH as e:  # noqa: BLE001
            cuda["sdpa_kernel"] = failed(e)
    return out


def _warning_texts(records):
    return [("%s: %s" % (w.category.__name__, w.message))[:2000] for w in records][:50]


def cuda_facts(torch):
    cuda = getattr(torch, "cuda", None)
    if cuda is None:
        return {"is_available": failed("torch.cuda missing")}
    out = {}
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        t0 = time.perf_counter()
        out["is_available"] = attempt(cuda.is_available)
        # The first CUDA call starts the driver: seconds per GPU without persistence mode.
        out["first_call_s"] = round(time.perf_counter() - t0, 3)
        out["device_count"] = attempt(cuda.device_count)
        out["arch_list"] = attempt(cuda.get_arch_list) if hasattr(cuda, "get_arch_list") else absent(
            "torch.cuda.get_arch_list missing")
        devices = []
        n = out["device_count"] if isinstance(out["device_count"], int) else 0
        if out["is_available"] is True:
            for i in range(min(n, 64)):
                dev = {"index": i}
                dev["name"] = attempt(cuda.get_device_name, i)
                cap = attempt(cuda.get_device_capability, i)
                dev["capability"] = cap
                try:
                    props = cuda.get_device_properties(i)
                    dev["total_memory"] = int(props.total_memory)
                    dev["multi_processor_count"] = int(getattr(props, "multi_processor_count", 0))
                    uuid = getattr(props, "uuid", None)
                    if uuid is not None:
                        dev["uuid"] = str(uuid)
                except CATCH as e:  # noqa: BLE001
                    dev["total_memory"] = failed(e)
                devices.append(dev)
            out["devices"] = devices
        else:
            out["devices"] = absent("torch.cuda.is_available() is not True")
        nccl = getattr(cuda, "nccl", None)
        if nccl is not None and hasattr(nccl, "version"):
            v = attempt(nccl.version)
            out["nccl_version"] = ".".join(str(x) for x in v) if isinstance(v, list) else v
        else:
            out["nccl_version"] = absent("torch.cuda.nccl.version missing")
        if hasattr(cuda, "is_bf16_supported") and out["is_available"] is True:
            out["bf16_supported"] = attempt(cuda.is_bf16_supported)
    out["warnings"] = _warning_texts(rec)
    return out


def accelerator_facts(torch):
    out = {}
    for name in ("xpu", "mps", "mtia"):
        mod = getattr(torch, name, None)
        if mod is None:
            out[name] = absent("torch.%s does not exist" % name)
            continue
        fn = getattr(mod, "is_available", None)
        if callable(fn):
            out[name] = {"is_available": attempt(fn)}
            cnt = getattr(mod, "device_count", None)
            if callable(cnt):
                out[name]["device_count"] = attempt(cnt)
    return out


# ------------------------------------------------ import-time attribution ----
# The parent starts the probe with PYTHONPROFILEIMPORTTIME=1 (`-X importtime`, which every
# Python reads from the environment and older ones ignore). While torch imports, file
# descriptor 2 goes to OUT.imports: the parent reads the timing lines there, and whatever else
# torch printed is copied back to stderr afterwards (or read there by the parent, should the
# import kill the process).
IMPORT_TIME_VAR = "PYTHONPROFILEIMPORTTIME"
IMPORT_TIMES = False
IMPORTS_SUFFIX = ".imports"
IMPORT_TIME_MARK = "import time:"


def _read_ints(path, names):
    """{name: int} of 'name: value' lines (/proc/self/io)."""
    out = {}
    try:
        with open(path) as fh:
            for line in fh:
                k, _, v = line.partition(":")
                if k in names and v.strip().isdigit():
                    out[k] = int(v)
    except OSError:
        pass
    return out


def process_clock():
    """Where this process's time has gone so far: on a CPU and waiting for one (Linux's
    schedstat for this thread), the process's CPU time, page faults that had to read the
    disk, and the bytes read from storage (not from the page cache)."""
    out = {"wall": time.perf_counter(), "cpu": time.process_time()}
    try:
        with open("/proc/self/schedstat") as fh:
            fields = fh.read().split()
        out["on_cpu"], out["runqueue"] = int(fields[0]) / 1e9, int(fields[1]) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        ru = resource.getrusage(resource.RUSAGE_SELF)
        out["major_faults"], out["blocks_in"] = ru.ru_majflt, ru.ru_inblock
    except (ImportError, OSError, ValueError):
        pass
    io = _read_ints("/proc/self/io", ("read_bytes", "rchar"))
    out.update(("disk_read_bytes" if k == "read_bytes" else "read_chars", v) for k, v in io.items())
    return out


def _stdlib_dir():
    return os.path.dirname(os.__file__)


def _kind_of(module, stdlib):
    f = getattr(module, "__file__", None)
    if not isinstance(f, str):
        return "builtin"
    if f.startswith(stdlib) and "site-packages" not in f and "dist-packages" not in f:
        return "stdlib"
    return "site"


class ImportTimes:
    """Around `import torch`: the clock before and after, the modules it brought in (by top
    level name: stdlib, site or builtin), and the -X importtime lines kept apart."""

    def __init__(self, out_path):
        self.path = out_path + IMPORTS_SUFFIX if (out_path and IMPORT_TIMES) else None
        self.facts = {}
        self._saved = None

    def __enter__(self):
        self._before = set(sys.modules)
        if self.path:
            try:
                sys.stderr.flush()
                fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                self._saved = os.dup(2)
                os.dup2(fd, 2)
                os.close(fd)
            except (OSError, ValueError):
                self._saved = None
        self._start = process_clock()
        return self

    def __exit__(self, *exc):
        end = process_clock()
        if self._saved is not None:
            try:
                sys.stderr.flush()
            except CATCH:  # noqa: BLE001
                pass
            os.dup2(self._saved, 2)
            os.close(self._saved)
            self._echo_other_lines()
            self.facts["import_times_file"] = self.path
        self.facts["clock"] = dict((k, round(end[k] - self._start[k], 6)) for k in self._start if k in end)
        stdlib = _stdlib_dir()
        loaded = {}
        for name in list(sys.modules):
            top = name.split(".", 1)[0]
            if name not in self._before and top not in loaded and top in sys.modules and len(loaded) < 500:
                loaded[top] = _kind_of(sys.modules[top], stdlib)
        self.facts["loaded"] = loaded  # the top-level packages the import brought modules of
        return False

    def _echo_other_lines(self):
        try:
            with open(self.path, encoding="utf-8", errors="replace") as fh:
                other = [ln for ln in fh if not ln.startswith(IMPORT_TIME_MARK)]
            if other:
                sys.stderr.write("".join(other))
                sys.stderr.flush()
        except (OSError, ValueError):
            pass


# ------------------------------------------------------------------ main ----
def collect(out_path=None, torch_module=None, with_cuda=True):
    """Collect every section, in order; returns {section: data}.

    ``torch_module``: an already-imported torch (in-process use); otherwise it is
    imported here, under a warnings recorder, and the import is timed.
    """
    w = Writer(out_path)
    for name, fn in (("python", python_facts), ("torch_location", torch_location_facts),
                     ("import_env", import_env_facts), ("packages", package_facts)):
        w.stage(name)
        try:
            w.section(name, fn())
        except CATCH as e:  # noqa: BLE001
            w.section(name, failed(e))

    packages = w.sections.get("packages")
    w.stage("torch_files")
    w.section("torch_files", attempt(torch_files_facts, packages))

    w.stage("import_torch")
    torch = torch_module
    imp = {}
    if torch is None:
        t0 = time.time()
        timed = ImportTimes(out_path)
        with warnings.catch_warnings(record=True) as rec, timed:
            warnings.simplefilter("always")
            try:
                import torch  # noqa: F811
                imp["ok"] = True
            except BaseException as e:  # noqa: BLE001 - SystemExit from a broken torch too
                imp["ok"] = False
                imp["error_type"] = type(e).__name__
                imp["error"] = str(e)[:4000]
                imp["traceback"] = _traceback_text(8000)
                torch = None
        imp["duration_s"] = round(time.time() - t0, 3)
        imp["warnings"] = _warning_texts(rec)
        imp.update(timed.facts)
    else:
        imp = {"ok": True, "in_process": True}
    w.section("torch_import", imp)
    if torch_module is None:
        w.stage("loaded_libs")
        w.section("loaded_libs", attempt(loaded_libs_facts, packages))
    if torch is None:
        if imp.get("ok") is False and isinstance(packages, dict):
            # Did the install lose or change files? Worth reading every shared library now.
            w.stage("torch_files_hashes")
            w.section("torch_files", attempt(torch_files_facts, packages, True))
        w.stage("done")
        return w.sections

    for name, fn in (("torch", torch_build_facts), ("backends", backends_facts),
                     ("accelerators", accelerator_facts)):
        w.stage(name)
        try:
            w.section(name, fn(torch))
        except CATCH as e:  # noqa: BLE001
            w.section(name, failed(e))
    if with_cuda:
        # Last, because CUDA initialisation is what hangs on a wedged driver.
        w.stage("cuda")
        try:
            w.section("cuda", cuda_facts(torch))
        except CATCH as e:  # noqa: BLE001
            w.section("cuda", failed(e))
    if torch_module is None:
        # Last: a companion that crashes the interpreter on import loses nothing else.
        w.stage("companion_imports")
        w.section("companion_imports", attempt(companion_import_facts, packages))
    w.stage("done")
    return w.sections


def collect_light(out_path=None):
    """What explain reads of an interpreter without importing torch: Python and packages."""
    w = Writer(out_path)
    for name, fn in (("python", python_facts), ("packages", package_facts)):
        w.stage(name)
        w.section(name, attempt(fn))
    w.stage("done")
    return w.sections


def main(argv):
    global CATCH, SHADOW_DIR, IMPORT_TIMES
    CATCH = BaseException  # a child of its own session: no terminal Ctrl-C reaches it
    # Read once at start-up by Python itself; nothing this probe starts should inherit it.
    IMPORT_TIMES = os.environ.pop(IMPORT_TIME_VAR, None) == "1"
    out = argv[1] if len(argv) > 1 else None
    flags = argv[2:]
    if "--shadow-dir" in flags[:-1]:
        SHADOW_DIR = flags[flags.index("--shadow-dir") + 1]
    if "--light" in flags:
        collect_light(out)
    else:
        collect(out)
    return 0


def exit_now(rc):
    """Leave without interpreter shutdown. After `import torch` that is half a
    second of module teardown and atexit handlers, longer than everything the
    probe itself does; and a broken torch can crash or hang in it after every
    fact is written. Every line of the output file is already flushed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed or broken stream
            pass
    os._exit(rc)


if __name__ == "__main__":
    exit_now(main(sys.argv[1:] if sys.argv and sys.argv[0] == "-c" else sys.argv))
