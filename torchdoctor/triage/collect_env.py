"""Read what users paste from ``python -m torch.utils.collect_env`` into facts.

Handles every format the script has printed (1.0's ``Is debug build: No`` to
today's XPU/XNNPACK/CPU blocks), the issue template's hand-filled checklist,
and what happens to a paste on its way into an issue: warnings printed before
the block, shell prompts, code fences and backticks, ``>`` quoting, e-mail
line wrapping, a block cut off anywhere, notes typed after it.

Facts land at the paths the probe uses (``torch.version``, ``torch.cuda``,
``driver.driver_version``, ``driver.gpus``, ``backends.cudnn.version`` as the
int torch reports, ``os.system``, ``python.version``,
``packages.installed.<name>.version``, ``env.*``...). What the paste does not
say stays *unknown* (the path is missing), so checks that need it stay silent;
what collect_env says is not there (``No CUDA``, ``Could not collect`` for a
driver) is *absent*, with collect_env named as the source.

collect_env's own caveats are kept in mind: "CUDA runtime version" is the
system nvcc, not torch's CUDA; "cuDNN version" lists libraries on the system,
not the one torch loads (pytorch/pytorch#78489), so it fills
``backends.cudnn.version`` only when nothing better (the pip nvidia-cudnn
wheel, the conda build string) says otherwise and it is unambiguous.
"""

import re
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

from ..facts import SCHEMA_VERSION, absent
from .lines import capability_lines, iter_lines, label_line_pattern, strip_ansi

SOURCE = "collect_env"

# Label (lower case, spaces collapsed) -> SystemEnv field name. Several labels
# per field: collect_env's wording changed, and the issue template's checklist
# uses its own.
LABELS = {
    "pytorch version": "torch_version",
    "is debug build": "is_debug_build",
    "cuda used to build pytorch": "cuda_compiled_version",
    "rocm used to build pytorch": "hip_compiled_version",
    "xpu used to build pytorch": "xpu_compiled_version",
    "os": "os",
    "gcc version": "gcc_version",
    "clang version": "clang_version",
    "cmake version": "cmake_version",
    "libc version": "libc_version",
    "python version": "python_version",
    "python platform": "python_platform",
    "is cuda available": "is_cuda_available",
    "cuda runtime version": "cuda_runtime_version",
    "cuda_module_loading set to": "cuda_module_loading",
    "gpu models and configuration": "nvidia_gpu_models",
    "nvidia driver version": "nvidia_driver_version",
    "cudnn version": "cudnn_version",
    "is xpu available": "is_xpu_available",
    "hip runtime version": "hip_runtime_version",
    "miopen runtime version": "miopen_runtime_version",
    "is xnnpack available": "is_xnnpack_available",
    "caching allocator config": "caching_allocator_config",
    "cpu": "cpu_info",
    "versions of relevant libraries": "libraries",
    # the issue template's checklist
    "how you installed pytorch": "install_method",
    "cuda/cudnn version": "cuda_cudnn",
    "build command you used": "build_command",
}
MULTILINE = {"nvidia_gpu_models", "cudnn_version", "cpu_info", "libraries", "is_xpu_available"}
# Fields whose value is one line; a wrapped continuation is joined back.
CHECKLIST_ONLY = {"install_method", "cuda_cudnn", "build_command"}
# The fields of today's collect_env that matter most, for "what was missing".
KEY_FIELDS = ("torch_version", "cuda_compiled_version", "os", "python_version", "is_cuda_available",
              "nvidia_gpu_models", "nvidia_driver_version", "cudnn_version", "libraries")

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_QUOTE = re.compile(r"^\s*(?:>\s?)+")
# Every repeat before the value is bounded: a label is short, and a pasted line of
# 100 KB of spaces must not cost quadratic time.
_LABEL = re.compile(r"^\s{0,40}(?:[-*+]\s{1,8})?(?P<label>[A-Za-z][A-Za-z0-9_ ./-]{0,80}?)\s{0,40}"
                    r"(?:\((?:e\.g\.|`)[^)]{0,200}\)\s{0,40})?:\s?(?P<value>.*)$")
_LABEL_LINE = label_line_pattern(LABELS)  # lines that can open a field (triage/lines.py)
_LIB = re.compile(r"^\[(?P<tool>pip\d*|conda|uv|pixi|poetry)\]\s*(?P<rest>.*)$")
_NOT_COLLECTED = ("could not collect", "n/a", "no cuda", "none", "", "no relevant packages", "not available")
_ARCH = r"(?:x86_64|amd64|aarch64|arm64|ppc64le|s390x|armv7l|i686|i386|riscv64)"
_ARCH_WARNING = " with CUDA capability sm_"  # literal: the GPU name is what precedes it
_ARCH_WARNING_TAIL = re.compile(r" with CUDA capability sm_(?P<cc>\d{1,4}) is not compatible")
_ARCH_SUPPORTED = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d{1,4}\s{0,8}){1,64})")
_OLD_CAP = re.compile(r"Found GPU(?P<idx>\d{1,3}) (?P<name>[^\n]{1,160}?) which is of cuda capability "
                      r"(?P<maj>\d{1,2})\.(?P<min>\d{1,2})")
_CUDNN_FILE = re.compile(r"(?:lib)?cudnn(?:_[a-z_]+)?(?:\.so\.|64_|\.)(?P<v>\d+(?:\.\d+)*)(?:\.dll|\.dylib)?", re.I)


@dataclass
class Parsed:
    facts: Dict[str, Any]
    found: List[str] = field(default_factory=list)   # SystemEnv fields seen
    notes: List[str] = field(default_factory=list)
    provenance: Dict[str, str] = field(default_factory=dict)  # facts path -> where it came from
    lines: Tuple[int, int] = (0, 0)  # first and last line of the block (1-based)

    @property
    def recognised(self) -> bool:
        return bool(self.found)


# -- small helpers ----------------------------------------------------------------
def _clean(line: str) -> str:
    line = strip_ansi(line, _ANSI).replace("\r", "").replace("\t", "    ")
    line = _QUOTE.sub("", line)
    line = line.strip()
    if line.startswith("```") or line.startswith("~~~"):
        return ""
    return line.strip("`").strip()


def _missing(value: str) -> bool:
    return value.strip().lower() in _NOT_COLLECTED


def _bool(value: str) -> Optional[bool]:
    v = value.strip().lower()
    if v in ("yes", "true"):
        return True
    if v in ("no", "false"):
        return False
    return None


def norm_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip()).lower().strip("-")


def cudnn_int(text: str) -> Optional[int]:
    """'9.1.0' -> 90100, '8.9.2.26' -> 8902, '7.6.5' -> 7605: what torch.backends.cudnn.version() says.

    cuDNN 9 encodes major*10000 + minor*100 + patch, earlier ones major*1000 +
    minor*100 + patch. A version without a patch level is not guessed at.
    """
    m = re.match(r"^\s*(\d+)\.(\d+)\.(\d+)", text or "")
    if not m:
        m2 = re.match(r"^\s*(\d{4,6})\s*$", text or "")
        return int(m2.group(1)) if m2 else None
    major, minor, patch = (int(x) for x in m.groups())
    if minor > 99 or patch > 99:
        return None
    return major * (10000 if major >= 9 else 1000) + minor * 100 + patch


def capability_of(cc: str) -> Optional[List[int]]:
    """'sm_90' digits '90' -> [9, 0]; '120' -> [12, 0]; '86' -> [8, 6]."""
    if not cc.isdigit() or len(cc) < 2:
        return None
    return [int(cc[:-1]), int(cc[-1])]


# -- the block ----------------------------------------------------------------------
def split_fields(text: str) -> Tuple[Dict[str, str], List[str], Tuple[int, int], List[str]]:
    """{field: raw value} from the paste, in collect_env's layout or the checklist's.

    Returns (fields, order seen, (first, last) line, notes).
    """
    fields: Dict[str, List[str]] = {}
    order: List[str] = []
    notes: List[str] = []
    current: Optional[str] = None
    first = last = 0
    block_over = False
    # Every line of a normal paste; of a big one, only those that can change what is read.
    for no, raw in iter_lines(text, lambda: current is None, _LABEL_LINE, _ANSI):
        line = _clean(raw)
        m = _LABEL.match(line) if line else None
        key = None
        if m:
            key = LABELS.get(re.sub(r"\s+", " ", m.group("label").strip().lower()))
            if key is None and re.match(r"^[-*+]\s", line):
                current = None  # another checklist item
                continue
        if key is not None:
            value = m.group("value").strip()
            if key in fields:
                if key == "torch_version" and len(order) >= 3:
                    notes.append("a second collect_env block starts at line %d; only the first is read" % no)
                    break
                # Notes typed after the block ("OS: windows 10") fill in what collect_env could not.
                if block_over and _missing(fields[key][0]) and not _missing(value):
                    fields[key] = [value]
                    notes.append("%s taken from the text after the block (line %d): %r" % (key, no, value[:80]))
                current = None
                continue
            if block_over:
                fields[key] = [value]
                order.append(key)
                current = None
                continue
            fields[key] = [value]
            order.append(key)
            current = key
            first = first or no
            last = no
            continue
        if current is None or line.lower().startswith("collecting environment information"):
            continue
        if not line:
            if len(fields[current]) <= 1 and not fields[current][0]:
                continue  # "CPU:" / "GPU models and configuration: " then the lines
            if current != "libraries":
                current = None
            continue
        if current == "libraries":
            if _LIB.match(line):
                fields[current].append(line)
                last = no
            elif len(fields[current]) > 1:
                block_over = True
                current = None
            continue
        if current in MULTILINE:
            fields[current].append(line)
            last = no
            continue
        # A single-line field with text after it: a wrapped value, or noise.
        val = " ".join(fields[current])
        if not val.strip() or val.count("(") > val.count(")") or val.count("[") > val.count("]"):
            fields[current].append(line)
            last = no
        else:
            current = None
    out = {}
    for k, v in fields.items():
        out[k] = "\n".join(v) if k in MULTILINE else " ".join(x for x in v if x).strip()
    return out, order, (first, last), notes


# -- field -> facts -------------------------------------------------------------------
class _Builder:
    def __init__(self):
        self.data: Dict[str, Any] = {"schema_version": SCHEMA_VERSION, "source": "collect_env paste"}
        self.provenance: Dict[str, str] = {}
        self.notes: List[str] = []

    def set(self, path: str, value: Any, why: str = "") -> None:
        node = self.data
        parts = path.split(".")
        for p in parts[:-1]:
            nxt = node.get(p)
            if not isinstance(nxt, dict) or set(nxt) <= {"_absent", "_failed"} and nxt:
                nxt = {}
                node[p] = nxt
            node = nxt
        node[parts[-1]] = value
        if why:
            self.provenance[path] = why

    def get(self, path: str, default: Any = None) -> Any:
        node: Any = self.data
        for p in path.split("."):
            if not isinstance(node, dict) or p not in node:
                return default
            node = node[p]
        return node

    def has(self, path: str) -> bool:
        return self.get(path, _MISSING) is not _MISSING


_MISSING = object()


def _os_from_field(b: _Builder, value: str) -> None:
    v = value.strip()
    if _missing(v):
        return
    m = re.match(r"^(?P<name>.*?)\s*\((?P<arch>%s)\)\s*$" % _ARCH, v)
    name, arch = (m.group("name"), m.group("arch")) if m else (v, None)
    low = name.lower()
    b.set("os.description", v)
    if "windows" in low:
        b.set("os.system", "Windows")
        wm = re.search(r"Windows\s+(\d+|XP|Vista|Server \d+)", name, re.I)
        ver = re.search(r"\((\d+\.\d+\.\d+)", name)
        b.set("os.windows", [wm.group(1) if wm else "", ver.group(1) if ver else ""])
        if ver:
            b.set("os.version", ver.group(1))
    elif low.startswith(("mac", "os x", "darwin")):
        b.set("os.system", "Darwin")
        mv = re.search(r"(\d+(?:\.\d+)+|\d+)", name)
        if mv:
            b.set("os.macos_version", mv.group(1))
    else:
        b.set("os.system", "Linux")
        b.set("os.distro", re.sub(r"^linux\s+", "", name, flags=re.I).strip() if low.startswith("linux ") and
              len(name.split()) > 1 else name)
    if arch:
        b.set("os.machine", arch)
        if b.get("os.system") == "Darwin":
            b.set("os.apple_silicon", arch == "arm64")


def _platform(b: _Builder, value: str) -> None:
    v = value.strip()
    if _missing(v):
        return
    b.set("os.platform", v)
    m = re.match(r"^Linux-(?P<rel>.+?)-(?P<arch>%s)(?:-with-(?P<libc>[a-z]+)(?P<lv>[\d.]+))?" % _ARCH, v)
    if m:
        b.set("os.system", "Linux")
        b.set("os.release", m.group("rel"))
        b.set("os.machine", m.group("arch"))
        if m.group("libc") and not b.has("os.libc"):
            b.set("os.libc", "%s %s" % (m.group("libc"), m.group("lv")))
        b.set("os.wsl", "microsoft" in m.group("rel").lower())
        return
    m = re.match(r"^Windows-(?P<rel>[^-]+)-(?P<ver>[\d.]+)", v)
    if m:
        b.set("os.system", "Windows")
        b.set("os.release", m.group("rel"))
        b.set("os.version", m.group("ver"))
        if not b.has("os.windows"):
            b.set("os.windows", [m.group("rel"), m.group("ver")])
        return
    m = re.match(r"^(?:macOS|Darwin)-(?P<ver>[\d.]+)-(?P<arch>%s)" % _ARCH, v)
    if m:
        b.set("os.system", "Darwin")
        if not b.has("os.macos_version"):
            b.set("os.macos_version", m.group("ver"))
        b.set("os.machine", m.group("arch"))
        b.set("os.apple_silicon", m.group("arch") == "arm64")


def _python(b: _Builder, value: str) -> None:
    v = value.strip()
    m = re.match(r"^(\d+\.\d+(?:\.\d+)?(?:[abrc]+\d+)?\+?)", v)
    if not m:
        return
    b.set("python.version", m.group(1))
    bits = re.search(r"\((\d+)-bit runtime\)", v)
    if bits:
        b.set("python.bits", int(bits.group(1)))
    full = re.sub(r"\s*\(\d+-bit runtime\)\s*$", "", v)
    if full != m.group(1):
        b.set("python.sys_version", full)
    b.set("python.implementation", "PyPy" if "PyPy" in v else "CPython")
    if re.search(r"packaged by (?:conda-forge|Anaconda)|Continuum Analytics|\|Anaconda", v):
        b.set("python.conda", True, "Python version string (a conda-packaged Python)")


def _gpus(b: _Builder, value: str, rocm: bool) -> None:
    v = value.strip()
    if _missing(v.split("\n")[0]) and "\n" not in v:
        why = "collect_env: %s (nvidia-smi found no GPU or is missing)" % (v or "empty")
        if not rocm:
            b.set("driver.gpus", absent(why))
        return
    gpus = []
    for line in v.splitlines():
        line = line.strip()
        if not line:
            continue
        m = re.match(r"^GPU (\d+):\s*(.+?)(?:\s*\((?:UUID:\s*(?P<uuid>[^)]+)|sm_(?P<cc>\d+)[^)]*)\))?\s*$", line)
        if m:
            g: Dict[str, Any] = {"index": int(m.group(1)), "name": m.group(2).strip()}
            if m.group("uuid"):
                g["uuid"] = m.group("uuid").strip()
            if m.group("cc") and capability_of(m.group("cc")):
                g["capability"] = capability_of(m.group("cc"))  # torchdoctor's own collect_env layout
            gpus.append(g)
        elif re.match(r"^MIG\b", line):
            continue
        elif not gpus and not _missing(line):
            # ROCm / macOS: torch.cuda.get_device_name(), optionally "(gfx90a)".
            gm = re.match(r"^(.*?)\s*\((gfx[0-9a-f]+)[^)]*\)\s*$", line)
            g = {"index": 0, "name": gm.group(1) if gm else line}
            if gm:
                g["gcn_arch"] = gm.group(2)
            gpus.append(g)
    if not gpus:
        return
    if rocm:
        b.set("cuda.devices", gpus, "GPU models and configuration (torch.cuda.get_device_name on ROCm)")
        b.set("cuda.device_count", len(gpus))
    else:
        b.set("driver.gpus", gpus, "GPU models and configuration (nvidia-smi -L)")


def _driver(b: _Builder, value: str) -> None:
    v = value.strip()
    m = re.search(r"\b(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)\b", v)
    if m and not _missing(v):
        b.set("driver.driver_version", m.group(1), "Nvidia driver version")
        b.set("driver.present", True)
    elif _missing(v):
        b.set("driver.driver_version", absent("collect_env: %s (nvidia-smi missing or failed)" % (v or "empty")))
        b.set("driver.present", False)


def _cudnn_field(b: _Builder, value: str) -> None:
    v = value.strip()
    if _missing(v.split("\n")[0]) and "\n" not in v:
        if v.lower() == "no cuda":
            b.set("system_libs.cudnn", absent("collect_env: No CUDA"))
        return
    files, versions = [], []
    for line in v.splitlines():
        line = line.strip()
        if not line or line.lower().startswith("probably one of"):
            continue
        fm = _CUDNN_FILE.search(line)
        if "cudnn" in line.lower():
            files.append(line)
            if fm:
                versions.append(fm.group("v"))
        elif re.match(r"^\d+(?:\.\d+)+$|^\d{4,6}$", line):
            versions.append(line)
    if files:
        b.set("system_libs.cudnn", files, "cuDNN version (libraries on the system)")
    full = sorted({x for x in versions if cudnn_int(x)})
    ints = {cudnn_int(x) for x in full}
    if len(ints) == 1:
        b.set("system_libs.cudnn_version", full[0])
        b.notes.append("cuDNN %s is installed on the system; collect_env does not say which cuDNN torch loads "
                       "(pip wheels bring their own)" % full[0])
    elif len(ints) > 1:
        b.notes.append("several cuDNN versions on the system (%s); which one torch loads is unknown"
                       % ", ".join(sorted(full)))


def _cpu(b: _Builder, value: str) -> None:
    lines = [ln.strip() for ln in value.splitlines() if ln.strip()]
    if not lines:
        return
    kv = {}
    for ln in lines:
        if ":" in ln:
            k, _, x = ln.partition(":")
            kv.setdefault(k.strip().lower(), x.strip())
    if "model name" in kv:
        b.set("cpu.model", kv["model name"])
    elif "name" in kv:
        b.set("cpu.model", kv["name"])
    elif len(lines) == 1 and ":" not in lines[0]:
        b.set("cpu.model", lines[0])
    arch = kv.get("architecture")
    if arch and not arch.isdigit():
        b.set("cpu.arch", arch)
    if kv.get("cpu(s)", "").isdigit():
        b.set("cpu.logical_cores", int(kv["cpu(s)"]))
    cps, sockets = kv.get("core(s) per socket", ""), kv.get("socket(s)", "")
    if cps.isdigit() and sockets.isdigit():
        b.set("cpu.physical_cores", int(cps) * int(sockets))
    if "flags" in kv:
        from ..probe.system import CPU_FLAGS
        have = set(kv["flags"].split())
        b.set("cpu.flags", [f for f in CPU_FLAGS if f in have])
    if len(lines) > 1:
        b.set("cpu.lscpu", "\n".join(lines)[:20000])


_CONDA_BUILD = re.compile(r"cuda(?P<cuda>\d+\.\d+)(?:\.\d+)?_cudnn(?P<cudnn>\d+\.\d+\.\d+)")


# Packages collect_env's name patterns always list when installed.
PATTERN_COMPANIONS = ("torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "numpy")


def _libraries(b: _Builder, value: str) -> None:
    inst: Dict[str, Any] = {}
    pip_lines = conda_after_pip = 0
    for line in value.splitlines():
        m = _LIB.match(line.strip())
        if not m:
            continue
        tool, rest = m.group("tool"), m.group("rest").strip()
        if tool == "conda" and pip_lines:
            conda_after_pip += 1
        if _missing(rest):
            continue
        if tool != "conda":
            pip_lines += 1
            pm = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(?:==|===)\s*(\S+)", rest)
            if pm:
                inst.setdefault(norm_name(pm.group(1)), {"version": pm.group(2), "source": "collect_env [%s]" % tool})
            else:
                am = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*@\s*(\S+)", rest)
                if am:
                    inst.setdefault(norm_name(am.group(1)), {"url": am.group(2), "source": "collect_env [%s]" % tool})
            continue
        cols = rest.split()
        if len(cols) < 2:
            continue
        name, version = norm_name(cols[0]), cols[1]
        build = cols[2] if len(cols) > 2 else ""
        channel = cols[3] if len(cols) > 3 else ""
        if channel == "pypi" or build.startswith("pypi_"):
            inst.setdefault(name, {"version": version, "source": "collect_env [conda list, from pypi]"})
        else:
            rec = {"version": version, "build": build}
            if channel:
                rec["channel"] = channel
            inst["conda:" + name] = rec
    if pip_lines and conda_after_pip:
        # The pip list ended (the conda list follows it): what it lacks is not installed.
        for name in PATTERN_COMPANIONS:
            inst.setdefault(name, absent("not in collect_env's pip list"))
    if inst:
        b.set("packages.installed", inst, "Versions of relevant libraries")


def _checklist_gpu(b: _Builder, value: str) -> None:
    v = value.strip()
    if _missing(v):
        return
    dm = re.search(r"driver(?: version)?\s*:?\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)", v, re.I)
    if dm and not b.has("driver.driver_version"):
        b.set("driver.driver_version", dm.group(1), "checklist: GPU models and configuration")
        b.set("driver.present", True)
    names = [p.strip() for p in re.split(r"[,;]", v) if p.strip() and not re.match(r"(?i)driver\b", p.strip())]
    gpus = [{"index": i, "name": n} for i, n in enumerate(names) if re.search(r"[A-Za-z]", n)]
    if gpus:
        b.set("driver.gpus", gpus, "checklist: GPU models and configuration")


def fields_to_facts(f: Dict[str, str], full_text: str = "") -> _Builder:
    b = _Builder()
    checklist = bool(set(f) & CHECKLIST_ONLY)
    tv = f.get("torch_version", "").strip()
    torch_ok = bool(re.match(r"^\d+\.\d+", tv))
    if checklist:
        if torch_ok:
            b.set("packages.installed.torch.version", tv.split()[0], "checklist: PyTorch Version")
        torch_ok = False
    elif torch_ok:
        m = re.match(r"^(\S+)", tv)
        b.set("torch.version", m.group(1), "PyTorch version")
        b.set("torch.local_tag", m.group(1).split("+", 1)[1] if "+" in m.group(1) else absent("no local version tag"))
        b.set("torch_import", {"ok": True, "source": "collect_env imported torch"})
    elif "torch_version" in f and _missing(tv):
        b.notes.append("collect_env could not import torch (PyTorch version: %s); why is not in the paste" % (tv or "empty"))
    hip = f.get("hip_compiled_version", "").strip()
    rocm = bool(hip) and not _missing(hip)
    if torch_ok:
        if "is_debug_build" in f and _bool(f["is_debug_build"]) is not None:
            b.set("torch.debug", _bool(f["is_debug_build"]))
        cu = f.get("cuda_compiled_version", "").strip()
        if "cuda_compiled_version" in f:
            if re.match(r"^\d+\.\d+", cu):
                b.set("torch.cuda", cu.split()[0], "CUDA used to build PyTorch")
            elif cu.lower() in ("none", "could not collect", "") or (cu.lower() == "n/a" and rocm):
                b.set("torch.cuda", absent("not built with it"), "CUDA used to build PyTorch: %s" % (cu or "empty"))
        if "hip_compiled_version" in f:
            b.set("torch.hip", hip if rocm else absent("not built with it"))
        xpu = f.get("xpu_compiled_version", "").strip()
        if xpu and not _missing(xpu):
            b.set("torch.xpu", xpu)
    if "os" in f:
        _os_from_field(b, f["os"])
    if "python_platform" in f:
        _platform(b, f["python_platform"])
    if "libc_version" in f:
        lv = f["libc_version"].strip()
        if _missing(lv):
            if b.get("os.system") == "Linux":
                pass
        else:
            b.set("os.libc", lv.replace("-", " ", 1))
    for key, path in (("gcc_version", "build_tools.gcc"), ("clang_version", "build_tools.clang"),
                      ("cmake_version", "build_tools.cmake")):
        if key in f:
            v = f[key].strip()
            b.set(path, absent("collect_env: %s" % (v or "empty")) if _missing(v) else v)
    if "python_version" in f:
        _python(b, f["python_version"])
    if "is_cuda_available" in f and _bool(f["is_cuda_available"]) is not None:
        b.set("cuda.is_available", _bool(f["is_cuda_available"]), "Is CUDA available")
    if "cuda_runtime_version" in f:
        v = f["cuda_runtime_version"].strip()
        m = re.match(r"^(\d+\.\d+)(?:\.(\d+))?", v)
        if m:
            b.set("toolkit.nvcc", m.group(1), "CUDA runtime version (collect_env runs nvcc --version)")
            b.set("toolkit.nvcc_full", v.split()[0])
        elif _missing(v):
            b.set("toolkit.nvcc", absent("collect_env: %s (no nvcc found)" % (v or "empty")))
    if "cuda_module_loading" in f and not _missing(f["cuda_module_loading"]):
        b.set("env.CUDA_MODULE_LOADING", f["cuda_module_loading"].strip())
    if "caching_allocator_config" in f and not _missing(f["caching_allocator_config"]):
        b.set("env.PYTORCH_CUDA_ALLOC_CONF", f["caching_allocator_config"].strip())
    if "nvidia_gpu_models" in f:
        if checklist:
            _checklist_gpu(b, f["nvidia_gpu_models"])
        else:
            _gpus(b, f["nvidia_gpu_models"], rocm)
    if "nvidia_driver_version" in f:
        _driver(b, f["nvidia_driver_version"])
    if "cudnn_version" in f:
        _cudnn_field(b, f["cudnn_version"])
    if "is_xpu_available" in f:
        first = f["is_xpu_available"].split("\n")[0]
        if _bool(first) is not None:
            b.set("accelerators.xpu.is_available", _bool(first))
    if "hip_runtime_version" in f and not _missing(f["hip_runtime_version"]):
        b.set("torch.config.hip_runtime", f["hip_runtime_version"].strip())
    if "miopen_runtime_version" in f and not _missing(f["miopen_runtime_version"]):
        b.set("torch.config.miopen_runtime", f["miopen_runtime_version"].strip())
    if "is_xnnpack_available" in f and _bool(f["is_xnnpack_available"]) is not None:
        b.set("backends.xnnpack.enabled", _bool(f["is_xnnpack_available"]))
    if "cpu_info" in f:
        _cpu(b, f["cpu_info"])
    if "libraries" in f:
        _libraries(b, f["libraries"])
    # The issue template's checklist.
    if "install_method" in f and f["install_method"].strip():
        b.set("reported.install_method", f["install_method"].strip())
    if "cuda_cudnn" in f and f["cuda_cudnn"].strip():
        b.set("reported.cuda_cudnn", f["cuda_cudnn"].strip())
        b.notes.append("CUDA/cuDNN as the reporter typed it: %r (not used as torch's build: it may be the system's)"
                       % f["cuda_cudnn"].strip()[:100])
    if "build_command" in f and f["build_command"].strip():
        b.set("reported.build_command", f["build_command"].strip())
    _cudnn_version(b)
    _torch_from_packages(b)
    if full_text:
        _warnings(b, full_text)
    return b


def _cudnn_version(b: _Builder) -> None:
    """backends.cudnn.version from the best source the paste has."""
    inst = b.get("packages.installed") or {}
    if b.get("torch.cuda") is None or isinstance(b.get("torch.cuda"), dict):
        if isinstance(b.get("torch.cuda"), dict):
            b.set("backends.cudnn.version", absent("CPU-only or ROCm build: no cuDNN"))
        return
    for name, rec in sorted(inst.items()):
        if re.match(r"^nvidia-cudnn-cu\d+$", name) and isinstance(rec, dict) and cudnn_int(rec.get("version", "")):
            b.set("backends.cudnn.version", cudnn_int(rec["version"]),
                  "pip package %s %s (the cuDNN pip wheels of torch load)" % (name, rec["version"]))
            return
    for name in ("conda:pytorch", "conda:pytorch-gpu"):
        rec = inst.get(name)
        m = _CONDA_BUILD.search(rec.get("build", "")) if isinstance(rec, dict) else None
        if m and cudnn_int(m.group("cudnn")):
            b.set("backends.cudnn.version", cudnn_int(m.group("cudnn")),
                  "conda build string %s of %s" % (rec["build"], name[6:]))
            return
    rec = inst.get("conda:cudnn")
    if isinstance(rec, dict) and cudnn_int(rec.get("version", "")):
        b.set("backends.cudnn.version", cudnn_int(rec["version"]), "conda package cudnn %s" % rec["version"])
        return
    sysv = b.get("system_libs.cudnn_version")
    # Only a source build links the system's cuDNN for sure; wheels (even PyPI's untagged
    # ones) bring their own, so for them the system library says nothing.
    tv = str(b.get("torch.version", ""))
    source_build = bool(re.search(r"a0\b|a0\+|\+git|\+[0-9a-f]{7,}$", tv))
    if isinstance(sysv, str) and source_build:
        b.set("backends.cudnn.version", cudnn_int(sysv),
              "cuDNN version field: the only cuDNN on the system (collect_env lists system libraries, "
              "which a source or conda build may or may not load)")


def _torch_from_packages(b: _Builder) -> None:
    """torch's CUDA build from a conda build string when the header does not say (a cut paste)."""
    inst = b.get("packages.installed") or {}
    rec = inst.get("conda:pytorch")
    if not b.has("torch.cuda") and isinstance(rec, dict):
        m = _CONDA_BUILD.search(rec.get("build", ""))
        if m:
            b.set("torch.cuda", m.group("cuda"), "conda build string %s" % rec.get("build"))
        elif "cpu" in rec.get("build", ""):
            b.set("torch.cuda", absent("not built with it"), "conda build string %s" % rec.get("build"))


def _warnings(b: _Builder, text: str) -> None:
    """Facts torch's own warnings give away: GPU compute capability, the arch list."""
    # Each line alone, then neighbours joined (a wrapped warning): of a big paste only
    # those that can hold a warning (triage/lines.py).
    candidates = capability_lines(text, _clean, _ANSI)
    caps: Dict[str, List[int]] = {}
    arch = None
    for ln in candidates:
        i = ln.find(_ARCH_WARNING)
        m = _ARCH_WARNING_TAIL.match(ln, i) if i >= 0 else None
        if m:
            name = ln[max(0, i - 200):i].split(": ")[-1].split(":")[-1].strip()
            cap = capability_of(m.group("cc"))
            if cap and name and name not in caps:
                caps[name] = cap
        m = _OLD_CAP.search(ln) if "which is of cuda capability" in ln else None
        if m:
            caps.setdefault(m.group("name").strip(), [int(m.group("maj")), int(m.group("min"))])
        m = _ARCH_SUPPORTED.search(ln)
        if m and arch is None:
            arch = m.group(1).split()
    if caps:
        gpus = b.get("driver.gpus")
        if isinstance(gpus, list):
            for g in gpus:
                if g.get("name") in caps:
                    g["capability"] = caps[g["name"]]
        if not isinstance(b.get("cuda.devices"), list):
            b.set("cuda.devices", [{"index": i, "name": n, "capability": c} for i, (n, c) in enumerate(caps.items())],
                  "torch's 'with CUDA capability sm_XX is not compatible' warning")
        b.notes.append("compute capability from torch's warning: %s"
                       % ", ".join("%s sm_%d%d" % (n, c[0], c[1]) for n, c in caps.items()))
    if arch and not b.has("cuda.arch_list"):
        b.set("cuda.arch_list", arch, "torch's warning: 'The current PyTorch install supports CUDA capabilities ...'")


def parse(text: str) -> Parsed:
    fields, order, span, notes = split_fields(text)
    b = fields_to_facts(fields, text)
    missing = [k for k in KEY_FIELDS if k not in fields]
    out = Parsed(b.data, found=order, notes=notes + b.notes, provenance=b.provenance, lines=span)
    if order and missing:
        out.notes.append("not in the paste (unknown): %s" % ", ".join(missing))
    return out
