"""The GPU lines: the GPU models, driver and cuDNN fields (collect_env's and the checklist's),
and the compute capability and arch list torch's own warnings give away."""

import re
from typing import Any, Dict, List

from ...model.facts import absent
from .builder import FactsBuilder
from .fields import ANSI, clean
from .lines import capability_lines
from .values import capability_of, cudnn_int, missing

_ARCH_WARNING = " with CUDA capability sm_"  # literal: the GPU name is what precedes it
_ARCH_WARNING_TAIL = re.compile(r" with CUDA capability sm_(?P<cc>\d{1,4}) is not compatible")
_ARCH_SUPPORTED = re.compile(r"supports CUDA capabilities ((?:(?:sm|compute)_\d{1,4}\s{0,8}){1,64})")
_OLD_CAP = re.compile(r"Found GPU(?P<idx>\d{1,3}) (?P<name>[^\n]{1,160}?) which is of cuda capability "
                      r"(?P<maj>\d{1,2})\.(?P<min>\d{1,2})")
_CUDNN_FILE = re.compile(r"(?:lib)?cudnn(?:_[a-z_]+)?(?:\.so\.|64_|\.)(?P<v>\d+(?:\.\d+)*)(?:\.dll|\.dylib)?", re.I)


def gpus_field(b: FactsBuilder, value: str, rocm: bool) -> None:
    v = value.strip()
    if missing(v.split("\n")[0]) and "\n" not in v:
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
        elif not gpus and not missing(line):
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


def driver_field(b: FactsBuilder, value: str) -> None:
    v = value.strip()
    m = re.search(r"\b(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)\b", v)
    if m and not missing(v):
        b.set("driver.driver_version", m.group(1), "Nvidia driver version")
        b.set("driver.present", True)
    elif missing(v) and isinstance(b.get("driver.gpus"), list):
        # nvidia-smi -L listed GPUs, so a driver answered: collect_env reads the version from the
        # banner's "Driver Version:", which drivers of the 610 series print as "KMD Version:".
        b.set("driver.driver_version", absent("collect_env: %s although nvidia-smi listed the GPUs (a 610+ "
                                              "driver's banner, which collect_env cannot read)" % (v or "empty")))
        b.set("driver.present", True)
        b.notes.append("the driver's version is not in the paste: nvidia-smi listed the GPUs but collect_env "
                       "could not read its banner (drivers of the 610 series label it 'KMD Version')")
    elif missing(v):
        b.set("driver.driver_version", absent("collect_env: %s (nvidia-smi missing or failed)" % (v or "empty")))
        b.set("driver.present", False)


def cudnn_field(b: FactsBuilder, value: str) -> None:
    v = value.strip()
    if missing(v.split("\n")[0]) and "\n" not in v:
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


def checklist_gpu_field(b: FactsBuilder, value: str) -> None:
    v = value.strip()
    if missing(v):
        return
    dm = re.search(r"driver(?: version)?\s*:?\s*(\d{2,4}\.\d{1,3}(?:\.\d{1,3})?)", v, re.I)
    if dm and not b.has("driver.driver_version"):
        b.set("driver.driver_version", dm.group(1), "checklist: GPU models and configuration")
        b.set("driver.present", True)
    names = [p.strip() for p in re.split(r"[,;]", v) if p.strip() and not re.match(r"(?i)driver\b", p.strip())]
    gpus = [{"index": i, "name": n} for i, n in enumerate(names) if re.search(r"[A-Za-z]", n)]
    if gpus:
        b.set("driver.gpus", gpus, "checklist: GPU models and configuration")


def facts_from_warnings(b: FactsBuilder, text: str) -> None:
    """Facts torch's own warnings give away: GPU compute capability, the arch list."""
    # Each line alone, then neighbours joined (a wrapped warning): of a big paste only
    # those that can hold a warning (triage/lines.py).
    candidates = capability_lines(text, clean, ANSI)
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
