"""Facts about the machine that do not need torch: OS, CPU, memory, container,
environment variables, the CUDA toolkit (nvcc) and the NVIDIA driver.

Runs in the doctor's own process; anything that could hang or crash (nvidia-smi,
nvcc, NVML through ctypes) runs as a time-limited child via timed.run.
"""

import os
import re
import sys
from typing import Any, Dict, List, Optional

from ..model.facts import absent, failed
from ..children import timed

# Environment variables that change how torch, CUDA, NCCL or the CPU runtimes
# behave. Unset ones in ENV_ALWAYS are recorded as absent so reports show them.
ENV_ALWAYS = (
    "CUDA_VISIBLE_DEVICES", "CUDA_HOME", "CUDA_PATH", "PYTORCH_CUDA_ALLOC_CONF",
    "PYTORCH_ALLOC_CONF", "CUBLAS_WORKSPACE_CONFIG", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "KMP_DUPLICATE_LIB_OK", "PYTORCH_ENABLE_MPS_FALLBACK", "CUDA_LAUNCH_BLOCKING",
    "LD_LIBRARY_PATH", "TORCH_CUDA_ARCH_LIST", "CUDA_MODULE_LOADING",
)
ENV_PREFIXES = ("CUDA_", "PYTORCH_", "TORCH_", "NCCL_", "OMP_", "MKL_", "KMP_", "CUBLAS",
                "CUBLASLT", "CUDNN_", "HIP_", "ROCR_", "HSA_", "NVIDIA_", "TORCHINDUCTOR_",
                "TORCHDYNAMO_", "TRITON_", "XLA_", "ONEDNN_", "DNNL_", "GOMP_", "KINETO_")
ENV_EXACT = ("LD_LIBRARY_PATH", "LD_PRELOAD", "DYLD_LIBRARY_PATH", "DYLD_FALLBACK_LIBRARY_PATH",
             "PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
             "OPENBLAS_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS",
             "WORLD_SIZE", "LOCAL_RANK", "RANK", "MASTER_ADDR", "MASTER_PORT",
             "KUBERNETES_SERVICE_HOST", "SLURM_JOB_ID", "PYOPENGL_PLATFORM", "MUJOCO_GL")

CPU_FLAGS = ("sse4_2", "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl",
             "avx512_vnni", "avx512_bf16", "amx_tile", "amx_bf16", "amx_int8", "avx_vnni",
             "neon", "asimd", "sve", "sve2", "bf16", "i8mm")


def env_facts(environ=None) -> Dict[str, Any]:
    environ = os.environ if environ is None else environ
    out: Dict[str, Any] = {}
    for k in sorted(environ):
        if k.startswith(ENV_PREFIXES) or k in ENV_EXACT or k in ENV_ALWAYS:
            out[k] = environ[k]
    for k in ENV_ALWAYS:
        out.setdefault(k, absent("not set"))
    return out


def _read(path: str, limit: int = 1 << 20) -> Optional[str]:
    try:
        with open(path, "rb") as fh:
            return fh.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def _linux_libc_ver():
    """platform.libc_ver()'s first answer (glibc's own confstr), else its slower search."""
    try:
        lib, ver = os.confstr("CS_GNU_LIBC_VERSION").split(maxsplit=1)
        return lib, ver
    except (AttributeError, ValueError, OSError):
        import platform
        return platform.libc_ver()


def os_facts() -> Dict[str, Any]:
    # On Linux uname() says what platform would, and platform (a few milliseconds of
    # explain's start-up, which asks for the OS) is not imported.
    if sys.platform.startswith("linux"):
        u = os.uname()
        out: Dict[str, Any] = {"system": "Linux", "release": u.release, "version": u.version,
                               "machine": u.machine, "hostname": u.nodename}
    else:
        import platform
        out = {
            "system": platform.system(),
            "release": platform.release(),
            "version": platform.version(),
            "machine": platform.machine(),
            "hostname": platform.node(),
        }
    system = out["system"]
    if system == "Linux":
        rel = _read("/etc/os-release") or ""
        m = re.search(r'^PRETTY_NAME="?([^"\n]*)"?', rel, re.M)
        out["distro"] = m.group(1) if m else absent("no /etc/os-release")
        lib, ver = _linux_libc_ver()
        out["libc"] = ("%s %s" % (lib, ver)).strip() or absent("unknown libc")
        kver = _read("/proc/version") or ""
        out["wsl"] = "microsoft" in kver.lower()
    elif system == "Darwin":
        import platform
        mac, _, arch = platform.mac_ver()
        out["macos_version"] = mac
        # An x86_64 Python under Rosetta on Apple silicon cannot use MPS.
        out["rosetta"] = _sysctl("sysctl.proc_translated") == "1"
        out["apple_silicon"] = platform.machine() == "arm64" or out["rosetta"]
    elif system == "Windows":
        import platform
        out["windows"] = list(platform.win32_ver())
    out["container"] = container_facts()
    return out


def _sysctl(name: str) -> Optional[str]:
    if not timed.which("sysctl"):
        return None
    r = timed.run(["sysctl", "-n", name], timeout=3)
    return r.stdout.strip() if r.ok else None


# Docker's marker file at the root of a container's filesystem.
DOCKER_MARKER = "/.dockerenv"


def container_facts() -> Any:
    kinds: List[str] = []
    if os.path.exists(DOCKER_MARKER):
        kinds.append("docker")
    if os.path.exists("/run/.containerenv"):
        kinds.append("podman")
    cg = _read("/proc/1/cgroup") or ""
    for word in ("docker", "kubepods", "containerd", "lxc"):
        if word in cg and word not in kinds:
            kinds.append(word)
    if os.environ.get("KUBERNETES_SERVICE_HOST") and "kubernetes" not in kinds:
        kinds.append("kubernetes")
    if sys.platform != "linux":
        return absent("container detection is Linux-only")
    return kinds[0] if kinds else False


def cpu_facts() -> Dict[str, Any]:
    import platform
    out: Dict[str, Any] = {"arch": platform.machine()}
    info = _read("/proc/cpuinfo")
    if info:
        m = re.search(r"^(?:model name|Hardware|cpu model)\s*:\s*(.+)$", info, re.M)
        out["model"] = m.group(1).strip() if m else absent("not in /proc/cpuinfo")
        m = re.search(r"^(?:flags|Features)\s*:\s*(.+)$", info, re.M)
        flags = set(m.group(1).split()) if m else set()
        out["flags"] = [f for f in CPU_FLAGS if f in flags]
    elif sys.platform == "darwin":
        out["model"] = _sysctl("machdep.cpu.brand_string") or absent("sysctl unavailable")
    else:
        out["model"] = platform.processor() or absent("unknown")
    out["logical_cores"] = os.cpu_count() or absent("unknown")
    try:
        import psutil
        out["physical_cores"] = psutil.cpu_count(logical=False) or absent("psutil could not tell")
    except (Exception, SystemExit) as e:  # noqa: BLE001 - psutil missing or broken: a fact
        out["physical_cores"] = failed("psutil: %s" % e)
    if hasattr(os, "sched_getaffinity"):
        try:
            out["affinity_cores"] = len(os.sched_getaffinity(0))
        except OSError as e:
            out["affinity_cores"] = failed(str(e))
    quota = _read("/sys/fs/cgroup/cpu.max")
    if quota and not quota.startswith("max"):
        try:
            q, period = quota.split()[:2]
            out["cgroup_cpu_limit"] = round(int(q) / int(period), 2)
        except ValueError:
            pass
    return out


def memory_facts() -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    try:
        import psutil
        vm = psutil.virtual_memory()
        out["total_bytes"] = int(vm.total)
        out["available_bytes"] = int(vm.available)
    except (Exception, SystemExit) as e:  # noqa: BLE001 - psutil missing or broken: a fact
        out["total_bytes"] = failed("psutil: %s" % e)
    limit = cgroup_memory_limit()
    if limit is not None:
        out["cgroup_limit_bytes"] = limit
    if os.path.isdir("/dev/shm"):
        try:
            import shutil  # here: shutil imports bz2 and lzma, which explain's start-up never needs
            out["shm_bytes"] = shutil.disk_usage("/dev/shm").total
        except OSError as e:
            out["shm_bytes"] = failed(str(e))
    else:
        out["shm_bytes"] = absent("no /dev/shm")
    return out


def cgroup_memory_limit() -> Optional[int]:
    """The memory limit of this process's cgroup (a container's --memory, a Slurm job's --mem),
    in bytes; None when there is none (v2 'max', v1's huge sentinel) or it cannot be read."""
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        text = (_read(path) or "").strip()
        if text.isdigit():
            value = int(text)
            return value if value < (1 << 60) else None
    return None


# ---------------------------------------------------------------- toolkit ---
# Programs that Python libraries run by name on PATH (whisper, pydub, imageio run ffmpeg):
# whether this shell finds them tells "not installed" from "installed where the failing
# process did not look".
PROGRAMS = ("ffmpeg", "ffprobe", "swig")  # swig: what box2d-py's and other SWIG bindings' builds run


def program_facts(environ=None) -> Dict[str, Any]:
    environ = os.environ if environ is None else environ
    out: Dict[str, Any] = {}
    for name in PROGRAMS:
        found = timed.which(name, path=environ.get("PATH"))
        out[name] = found if found else absent("not on PATH")
    return out


def find_nvcc(environ=None) -> Optional[str]:
    environ = os.environ if environ is None else environ
    exe = "nvcc.exe" if os.name == "nt" else "nvcc"
    found = timed.which("nvcc", path=environ.get("PATH"))
    if found:
        return found
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if environ.get(var):
            p = os.path.join(environ[var], "bin", exe)
            if os.path.isfile(p):
                return p
    p = "/usr/local/cuda/bin/nvcc"
    return p if os.path.isfile(p) else None


def toolkit_facts(timeout: float = 10) -> Dict[str, Any]:
    nvcc = find_nvcc()
    if not nvcc:
        return {"nvcc": absent("nvcc not on PATH, CUDA_HOME or /usr/local/cuda")}
    r = timed.run([nvcc, "--version"], timeout=timeout)
    out: Dict[str, Any] = {"nvcc_path": nvcc}
    if not r.ok:
        out["nvcc"] = failed(r.start_error or ("timed out" if r.timed_out else timed.last_lines(r.stderr, 3)))
        return out
    m = re.search(r"release (\d+\.\d+), V([\d.]+)", r.stdout)
    out["nvcc"] = m.group(1) if m else failed("unparsed: " + timed.last_lines(r.stdout, 2))
    if m:
        out["nvcc_full"] = m.group(2)
    return out


# ----------------------------------------------------------------- driver ---
SMI_FIELDS = ("index", "name", "driver_version", "compute_cap", "memory.total", "uuid")
# Drivers before ~510 reject the whole query for one field they do not know:
# 'Field "compute_cap" is not a valid field to query.'
SMI_FIELDS_OLD = tuple(f for f in SMI_FIELDS if f != "compute_cap")


def _na(value: str) -> bool:
    return not value or value.startswith("[") or value.upper() in ("N/A", "NOT SUPPORTED")


def parse_smi_query(text: str, fields=SMI_FIELDS) -> List[Dict[str, Any]]:
    """Rows of `nvidia-smi --query-gpu=<fields> --format=csv,noheader,nounits`. Values a
    driver cannot give ('[N/A]', '[Not Supported]', e.g. memory of a MIG-enabled GPU or
    on Jetson) are left out rather than guessed."""
    gpus = []
    for line in text.splitlines():
        parts = [p.strip() for p in line.split(",")]
        if len(parts) > len(fields):  # a name with a comma in it
            extra = len(parts) - len(fields)
            parts = parts[:1] + [", ".join(parts[1:2 + extra])] + parts[2 + extra:]
        if len(parts) < len(fields) or not parts[0].isdigit():
            continue
        row = dict(zip(fields, parts))
        gpu: Dict[str, Any] = {"index": int(row["index"]), "name": row["name"]}
        if not _na(row.get("driver_version", "")):
            gpu["driver_version"] = row["driver_version"]
        m = re.match(r"^(\d+)\.(\d+)$", row.get("compute_cap", ""))
        if m:
            gpu["capability"] = [int(m.group(1)), int(m.group(2))]
        if row.get("memory.total", "").isdigit():
            gpu["total_memory"] = int(row["memory.total"]) * 1024 * 1024
        if row.get("uuid", "").startswith("GPU-"):
            gpu["uuid"] = row["uuid"]
        gpus.append(gpu)
    return gpus


def parse_smi_banner(text: str) -> Dict[str, str]:
    # Drivers of the 610 series on print "KMD Version:" and "CUDA UMD Version:" where older
    # ones printed "Driver Version:" and "CUDA Version:"; the numbers mean the same.
    out = {}
    m = re.search(r"(?:Driver|KMD) Version:\s*([\d.]+)", text)
    if m:
        out["driver_version"] = m.group(1)
    m = re.search(r"CUDA (?:UMD )?Version:\s*([\d.]+)", text)
    if m:
        out["cuda_driver_version"] = m.group(1)
    return out


def _smi_query(smi: str, fields, timeout: float) -> timed.ProcResult:
    return timed.run([smi, "--query-gpu=" + ",".join(fields), "--format=csv,noheader,nounits"], timeout=timeout)


def nvidia_smi_facts(timeout: float = 10) -> Dict[str, Any]:
    smi = timed.which("nvidia-smi")
    if not smi:
        return absent("nvidia-smi not on PATH")
    out: Dict[str, Any] = {"path": smi}
    # The banner call runs beside the query: a wedged driver then costs one
    # timeout, not two, and a healthy one answers in the time of one call.
    import threading
    banner: Dict[str, timed.ProcResult] = {}
    t = threading.Thread(target=lambda: banner.setdefault("r", timed.run([smi], timeout=timeout)), daemon=True)
    t.start()
    fields = SMI_FIELDS
    q = _smi_query(smi, fields, timeout)
    if not q.ok and not q.timed_out and "compute_cap" in (q.stdout + q.stderr):
        fields = SMI_FIELDS_OLD  # an older driver: ask again without the field it rejects
        q = _smi_query(smi, fields, timeout)
    t.join(timeout + 10)
    if q.ok:
        out["gpus"] = parse_smi_query(q.stdout, fields)
        if not out["gpus"] and q.stdout.strip():
            out["gpus"] = failed("unparsed output: " + timed.last_lines(q.stdout, 3)[:300])
    else:
        out["gpus"] = failed(_why(q))
    b = banner.get("r")
    if b is not None and b.ok:
        out.update(parse_smi_banner(b.stdout))
    else:
        out["banner"] = failed(_why(b) if b is not None else "nvidia-smi did not return")
    return out


def _why(r: timed.ProcResult) -> str:
    if r.start_error:
        return r.start_error
    if r.timed_out:
        return "timed out after %.0f s" % r.duration_s
    text = timed.last_lines(r.stdout + "\n" + r.stderr, 3)
    return ("exit %s: %s" % (r.signal or r.returncode, text))[:500]


DRIVER_LIBS = ("libnvidia-ml.so.1", "libnvidia-ml.so", "libcuda.so.1", "libcuda.so")
# Where the dynamic loader looks besides LD_LIBRARY_PATH and its cache, plus
# where drivers hide from it (WSL, the NVIDIA container runtime): as driver.py.
DRIVER_DIRS = ("/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
               "/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/wsl/lib",
               "/usr/local/nvidia/lib64", "/usr/local/nvidia/lib", "/usr/lib64/nvidia",
               "/usr/lib/x86_64-linux-gnu/nvidia/current")


def driver_libs_may_exist(environ=None) -> bool:
    """False only when dlopen() could not find NVML or libcuda on this Linux
    machine: no /proc/driver/nvidia, neither name in the loader's cache, and no
    such file on LD_LIBRARY_PATH or in the usual places. Then the NVML child
    (a Python start-up, 30 ms) is not worth starting."""
    if not sys.platform.startswith("linux"):
        return True
    environ = os.environ if environ is None else environ
    if os.path.exists("/proc/driver/nvidia"):
        return True
    try:
        with open("/etc/ld.so.cache", "rb") as fh:
            cache = fh.read(16 << 20)
    except OSError:
        return True  # cannot tell: ask the driver
    if b"libnvidia-ml.so" in cache or b"libcuda.so" in cache:
        return True
    dirs = [d for d in environ.get("LD_LIBRARY_PATH", "").split(os.pathsep) if d]
    dirs += list(DRIVER_DIRS) + [os.path.join(sys.prefix, "lib")]
    return any(os.path.exists(os.path.join(d, n)) for d in dirs for n in DRIVER_LIBS)


def nvml_facts(timeout: float = 10) -> Dict[str, Any]:
    if not driver_libs_may_exist():
        why = "not found (no /proc/driver/nvidia; not in the loader's cache, LD_LIBRARY_PATH or the usual places)"
        return {"nvml": absent("NVML library not loadable: libnvidia-ml.so.1 %s" % why),
                "libcuda": absent("libcuda not loadable: libcuda.so.1 %s" % why)}
    script = os.path.join(os.path.dirname(__file__), "driver.py")
    # -S: stdlib only, so skip site-packages processing (.pth files): 25 ms.
    r = timed.run([sys.executable, "-S", script], timeout=timeout)
    if not r.ok:
        return {"nvml": failed(_why(r)), "libcuda": failed(_why(r))}
    try:
        import json
        return json.loads(r.stdout)
    except ValueError:
        return {"nvml": failed("unparsed: " + r.stdout[:200])}


# PCI display controllers of a vendor: VGA, 3D and (AMD's) "display controller" classes.
_DISPLAY_CLASSES = ("0x0300", "0x0302", "0x0380")


def pci_display_devices(vendor: str, root: str = "/sys/bus/pci/devices", classes=_DISPLAY_CLASSES) -> Any:
    """`vendor`'s display/3D controllers on the PCI bus, seen without any driver."""
    if not os.path.isdir(root):
        return absent("no %s (not Linux)" % root)
    found = []
    for dev in sorted(os.listdir(root)):
        ven = (_read(os.path.join(root, dev, "vendor"), 64) or "").strip()
        cls = (_read(os.path.join(root, dev, "class"), 64) or "").strip()
        if ven == vendor and cls.startswith(classes):
            found.append({"slot": dev, "device_id": (_read(os.path.join(root, dev, "device"), 64) or "").strip()})
    return found


def pci_nvidia_gpus(root: str = "/sys/bus/pci/devices") -> Any:
    """NVIDIA display/3D controllers on the PCI bus, seen without any driver."""
    return pci_display_devices("0x10de", root, ("0x0300", "0x0302"))


def pci_amd_gpus(root: str = "/sys/bus/pci/devices") -> Any:
    """AMD (ATI) GPUs on the PCI bus, discrete or integrated: what a ROCm build, not a CUDA one, can drive.
    Instinct MI300-class accelerators enumerate as "processing accelerators" (0x1200), not display."""
    return pci_display_devices("0x1002", root, _DISPLAY_CLASSES + ("0x1200",))


def kfd_gfx_targets(root: str = "/sys/class/kfd/kfd/topology/nodes") -> Any:
    """The gfx targets amdgpu's compute driver (KFD) reports, one per GPU node ("gfx1100"): what a
    ROCm build's kernels must have been built for. CPU nodes report 0."""
    if not os.path.isdir(root):
        return absent("no %s (amdgpu's compute driver not loaded, or not Linux)" % root)
    found = []
    for node in sorted(os.listdir(root)):
        props = _read(os.path.join(root, node, "properties"), 1 << 14) or ""
        m = re.search(r"^gfx_target_version (\d{1,7})$", props, re.M)
        v = int(m.group(1)) if m else 0
        if v:
            found.append("gfx%d%d%x" % (v // 10000, v // 100 % 100, v % 100))
    return found


def merge_driver(nvml: Dict[str, Any], smi: Any) -> Dict[str, Any]:
    """One driver view: NVML first, nvidia-smi to fill gaps, libcuda last."""
    from ..model.facts import state_of, PRESENT
    out: Dict[str, Any] = {"sources": {"nvml": nvml.get("nvml"), "libcuda": nvml.get("libcuda"),
                                        "nvidia_smi": smi}}
    srcs = [s for s in (nvml.get("nvml"), smi if isinstance(smi, dict) else None, nvml.get("libcuda"))
            if isinstance(s, dict) and state_of(s) == PRESENT]
    for key in ("driver_version", "cuda_driver_version"):
        for s in srcs:
            v = s.get(key)
            if isinstance(v, str):
                out[key] = v
                break
        else:
            out[key] = absent("no NVIDIA driver found (NVML, nvidia-smi and libcuda all absent)")
    gpus = None
    for s in srcs:
        if isinstance(s.get("gpus"), list):
            gpus = s["gpus"]
            break
    out["gpus"] = gpus if gpus is not None else absent("no NVIDIA GPU visible to the driver")
    out["present"] = any(isinstance(out[k], str) for k in ("driver_version", "cuda_driver_version"))
    for key, read in (("pci_gpus", pci_nvidia_gpus), ("pci_amd_gpus", pci_amd_gpus), ("amd_gfx_targets", kfd_gfx_targets)):
        try:
            out[key] = read()
        except OSError as e:
            out[key] = failed(str(e))
    return out
