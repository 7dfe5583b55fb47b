"""The OS, Python platform, Python version and CPU fields."""

import re

from .builder import FactsBuilder
from .values import missing

_ARCH = r"(?:x86_64|amd64|aarch64|arm64|ppc64le|s390x|armv7l|i686|i386|riscv64)"


def os_field(b: FactsBuilder, value: str) -> None:
    v = value.strip()
    if missing(v):
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


def platform_field(b: FactsBuilder, value: str) -> None:
    v = value.strip()
    if missing(v):
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


def python_field(b: FactsBuilder, value: str) -> None:
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


def cpu_field(b: FactsBuilder, value: str) -> None:
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
        from ..system import CPU_FLAGS
        have = set(kv["flags"].split())
        b.set("cpu.flags", [f for f in CPU_FLAGS if f in have])
    if len(lines) > 1:
        b.set("cpu.lscpu", "\n".join(lines)[:20000])
