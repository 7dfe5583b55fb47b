"""The facts laid out field by field as ``python -m torch.utils.collect_env``
prints them, so maintainers used to that format find every field where they
expect it (and ``torchdoctor triage`` can read it back).

``FIELDS`` is the list of collect_env's fields with the facts path each one
comes from; ``tests/test_report_cmd.py`` checks that a real report fills
every one of them.
"""

import re
from typing import List, Tuple

from ..model.facts import ABSENT, FAILED, PRESENT, Facts

# (collect_env label, collect_env SystemEnv field, torchdoctor facts path(s))
FIELDS = (
    ("PyTorch version", "torch_version", "torch.version"),
    ("Is debug build", "is_debug_build", "torch.debug"),
    ("CUDA used to build PyTorch", "cuda_compiled_version", "torch.cuda"),
    ("ROCM used to build PyTorch", "hip_compiled_version", "torch.hip"),
    ("OS", "os", "os.distro / os.macos_version / os.windows, os.machine"),
    ("GCC version", "gcc_version", "build_tools.gcc"),
    ("Clang version", "clang_version", "build_tools.clang"),
    ("CMake version", "cmake_version", "build_tools.cmake"),
    ("Libc version", "libc_version", "os.libc"),
    ("Python version", "python_version", "python.sys_version, python.version, python.bits"),
    ("Python platform", "python_platform", "os.system, os.release, os.machine, os.libc"),
    ("Is CUDA available", "is_cuda_available", "cuda.is_available"),
    ("CUDA runtime version", "cuda_runtime_version", "toolkit.nvcc_full (collect_env runs nvcc too)"),
    ("CUDA_MODULE_LOADING set to", "cuda_module_loading", "env.CUDA_MODULE_LOADING"),
    ("GPU models and configuration", "nvidia_gpu_models", "driver.gpus (names, capability, memory), cuda.devices"),
    ("Nvidia driver version", "nvidia_driver_version", "driver.driver_version"),
    ("cuDNN version", "cudnn_version", "backends.cudnn.version (loaded by torch), system_libs.cudnn (on the system)"),
    ("Is XPU available", "is_xpu_available", "accelerators.xpu.is_available"),
    ("HIP runtime version", "hip_runtime_version", "torch.config.hip_runtime"),
    ("MIOpen runtime version", "miopen_runtime_version", "torch.config.lines (MIOpen)"),
    ("Is XNNPACK available", "is_xnnpack_available", "backends.xnnpack.enabled"),
    ("Caching allocator config", "caching_allocator_config", "env.PYTORCH_CUDA_ALLOC_CONF"),
    ("CPU", "cpu_info", "cpu.model, cpu.flags, cpu.*_cores, cpu.lscpu"),
    ("Versions of relevant libraries", "pip_version, pip_packages, conda_packages", "packages.installed"),
)


def _val(facts: Facts, path: str, absent_text: str = "N/A") -> str:
    st = facts.state(path)
    if st == PRESENT:
        v = facts.value(path)
        if isinstance(v, bool):
            return str(v)
        return str(v)
    if st == ABSENT:
        return absent_text
    if st == FAILED:
        return "Could not collect (%s)" % facts.reason(path)[:200]
    return "Could not collect"


def cudnn_text(facts: Facts) -> str:
    v = facts.value("backends.cudnn.version")
    parts = []
    if isinstance(v, int):
        parts.append("%s (loaded by torch: %d)" % (cudnn_str(v), v))
    elif facts.has("backends.cudnn.version") and v is None:
        parts.append("None (torch has no cuDNN)")
    elif facts.state("backends.cudnn.version") in (ABSENT, FAILED):
        parts.append(facts.describe("backends.cudnn.version"))
    libs = facts.value("system_libs.cudnn")
    if isinstance(libs, list) and libs:
        parts.append("on the system: " + ", ".join(str(x) for x in libs[:8]) + (" ..." if len(libs) > 8 else ""))
    return "; ".join(parts) if parts else "Could not collect"


def cudnn_str(v: int) -> str:
    """90100 -> '9.1.0', 8902 -> '8.9.2' (torch.backends.cudnn.version() encodings)."""
    if v >= 10000:
        return "%d.%d.%d" % (v // 10000, (v % 10000) // 100, v % 100)
    return "%d.%d.%d" % (v // 1000, (v % 1000) // 100, v % 100)


def os_text(facts: Facts) -> str:
    o = facts.section("os")
    if not o:
        return "Could not collect"
    machine = o.get("machine") if isinstance(o.get("machine"), str) else ""
    if isinstance(o.get("distro"), str):
        name = o["distro"]
    elif o.get("macos_version"):
        name = "macOS %s" % o["macos_version"]
    elif isinstance(o.get("windows"), list) and o["windows"]:
        name = "Microsoft Windows %s (%s)" % (o["windows"][0], o["windows"][1] if len(o["windows"]) > 1 else "")
    elif isinstance(o.get("description"), str):
        name = o["description"]
    else:
        name = str(o.get("system", "Could not collect"))
    return "%s (%s)" % (name, machine) if machine and machine not in name else name


def python_text(facts: Facts) -> str:
    py = facts.section("python")
    if not py:
        return "Could not collect"
    full = py.get("sys_version") if isinstance(py.get("sys_version"), str) else py.get("version", "?")
    bits = py.get("bits")
    return "%s (%s-bit runtime)" % (full, bits) if isinstance(bits, int) else str(full)


def platform_text(facts: Facts) -> str:
    o = facts.section("os")
    if not o:
        return "Could not collect"
    if isinstance(o.get("platform"), str):
        return o["platform"]
    parts = [str(o.get(k)) for k in ("system", "release", "machine") if isinstance(o.get(k), str)]
    if isinstance(o.get("libc"), str):
        parts.append("with-" + o["libc"].replace(" ", ""))
    return "-".join(parts) or "Could not collect"


def gpu_text(facts: Facts) -> str:
    from ..model import derived as F
    gpus = F.driver_gpus(facts) or F.torch_gpus(facts)
    if gpus:
        out = []
        for g in gpus:
            cap = F.capability(g)
            extra = ["sm_%d%d" % cap] if cap else []
            if isinstance(g.get("total_memory"), int):
                extra.append("%.0f GiB" % (g["total_memory"] / 2 ** 30))
            out.append("GPU %s: %s%s" % (g.get("index", "?"), g.get("name", "?"),
                                         " (%s)" % ", ".join(extra) if extra else ""))
        return "\n".join(out)
    st = facts.state("driver.gpus")
    return "No CUDA" if st == ABSENT else "Could not collect"


def miopen_text(facts: Facts) -> str:
    for line in facts.value("torch.config.lines") or []:
        if isinstance(line, str) and "miopen" in line.lower():
            return line.rsplit(None, 1)[-1]
    if isinstance(facts.value("torch.config.miopen_runtime"), str):
        return facts.value("torch.config.miopen_runtime")
    return "N/A"


def cpu_text(facts: Facts) -> str:
    lscpu = facts.value("cpu.lscpu")
    if isinstance(lscpu, str) and lscpu.strip():
        text = lscpu.strip()
        return text if len(text) <= 8000 else text[:8000].rsplit("\n", 1)[0] + "\n... (cut)"
    c = facts.section("cpu")
    if not c:
        return "Could not collect"
    lines = []
    if isinstance(c.get("model"), str):
        lines.append("Model name: %s" % c["model"])
    if isinstance(c.get("arch"), str):
        lines.append("Architecture: %s" % c["arch"])
    if isinstance(c.get("logical_cores"), int):
        lines.append("CPU(s): %d" % c["logical_cores"])
    if isinstance(c.get("flags"), list):
        lines.append("Flags: %s" % " ".join(c["flags"]))
    return "\n".join(lines) or "Could not collect"


def package_lines(facts: Facts) -> List[str]:
    inst = facts.value("packages.installed")
    if not isinstance(inst, dict):
        return ["[pip3] Could not collect", "[conda] Could not collect"]
    pip, conda = [], []
    for name in sorted(inst):
        rec = inst[name]
        if not isinstance(rec, dict) or "version" not in rec:
            continue
        if name.startswith("conda:"):
            conda.append("[conda] %-25s %-15s %s" % (name[6:], rec.get("version"), rec.get("build", "")))
        else:
            pip.append("[pip3] %s==%s" % (name, rec.get("version")))
    return (pip or ["[pip3] No relevant packages"]) + (conda or ["[conda] Could not collect"])


def rows(facts: Facts) -> List[Tuple[str, str]]:
    """(collect_env label, value) for every collect_env field, in its order."""
    yn = lambda p: _val(facts, p, "N/A")  # noqa: E731
    cuda_build = facts.value("torch.cuda")
    return [
        ("PyTorch version", _val(facts, "torch.version") if facts.has("torch.version") else
         ("N/A" if facts.value("torch_import.ok") is False else "Could not collect")),
        ("Is debug build", yn("torch.debug")),
        ("CUDA used to build PyTorch", cuda_build if isinstance(cuda_build, str) else
         ("None" if facts.state("torch.cuda") == ABSENT else "Could not collect")),
        ("ROCM used to build PyTorch", _val(facts, "torch.hip", "N/A")),
        ("OS", os_text(facts)),
        ("GCC version", _val(facts, "build_tools.gcc", "Could not collect")),
        ("Clang version", _val(facts, "build_tools.clang", "Could not collect")),
        ("CMake version", _val(facts, "build_tools.cmake", "Could not collect")),
        ("Libc version", _val(facts, "os.libc", "N/A").replace(" ", "-", 1) if facts.has("os.libc") else
         ("N/A" if facts.value("os.system") in ("Windows", "Darwin") else "Could not collect")),
        ("Python version", python_text(facts)),
        ("Python platform", platform_text(facts)),
        ("Is CUDA available", yn("cuda.is_available")),
        ("CUDA runtime version", _val(facts, "toolkit.nvcc_full", "No CUDA") if facts.has("toolkit.nvcc_full")
         else _val(facts, "toolkit.nvcc", "Could not collect")),
        ("CUDA_MODULE_LOADING set to", _val(facts, "env.CUDA_MODULE_LOADING", "N/A")),
        ("GPU models and configuration", gpu_text(facts)),
        ("Nvidia driver version", _val(facts, "driver.driver_version", "Could not collect")),
        ("cuDNN version", cudnn_text(facts)),
        ("Is XPU available", _val(facts, "accelerators.xpu.is_available", "False")),
        ("HIP runtime version", _val(facts, "torch.config.hip_runtime", "N/A") if facts.has("torch.config.hip_runtime")
         else "N/A"),
        ("MIOpen runtime version", miopen_text(facts)),
        ("Is XNNPACK available", _val(facts, "backends.xnnpack.enabled", "N/A")),
        ("Caching allocator config", _val(facts, "env.PYTORCH_CUDA_ALLOC_CONF", "N/A")),
        ("CPU", cpu_text(facts)),
        ("Versions of relevant libraries", "\n".join(package_lines(facts))),
    ]


_MULTI = ("CPU", "Versions of relevant libraries")


def render_text(facts: Facts) -> str:
    """The collect_env layout: ``Label: value`` lines, blocks for CPU and packages."""
    out: List[str] = []
    for label, value in rows(facts):
        if label in _MULTI:
            out.append("")
            out.append(label + ":")
            out.append(value)
        elif "\n" in value:
            out.append("%s: \n%s\n" % (label, value))
        else:
            out.append("%s: %s" % (label, value))
        if label in ("ROCM used to build PyTorch", "Libc version"):
            out.append("")
    from .safe import visible
    return visible(re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip() + "\n")
