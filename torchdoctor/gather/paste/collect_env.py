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

The reading is in parts: ``fields`` (the labels, and the paste split into fields),
``values`` (one value read), ``builder`` (the facts written), ``system_fields`` (OS,
platform, Python, CPU), ``gpu_fields`` (GPUs, driver, cuDNN, torch's capability
warnings), ``library_fields`` (the pip and conda lists); this module puts them together.
"""

import re
from ...model.records import field, record
from typing import Any, Dict, List, Tuple

from ...model.facts import absent
from .builder import FactsBuilder
from .fields import CHECKLIST_ONLY, KEY_FIELDS, split_fields
from .gpu_fields import checklist_gpu_field, cudnn_field, driver_field, facts_from_warnings, gpus_field
from .library_fields import best_cudnn_version, libraries_field, torch_from_packages
from .system_fields import cpu_field, os_field, platform_field, python_field
from .values import as_bool, missing

SOURCE = "collect_env"


@record
class Parsed:
    facts: Dict[str, Any]
    found: List[str] = field(default_factory=list)   # SystemEnv fields seen
    notes: List[str] = field(default_factory=list)
    provenance: Dict[str, str] = field(default_factory=dict)  # facts path -> where it came from
    lines: Tuple[int, int] = (0, 0)  # first and last line of the block (1-based)

    @property
    def recognised(self) -> bool:
        return bool(self.found)


def fields_to_facts(f: Dict[str, str], full_text: str = "") -> FactsBuilder:
    b = FactsBuilder()
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
    elif "torch_version" in f and missing(tv):
        b.notes.append("collect_env could not import torch (PyTorch version: %s); why is not in the paste" % (tv or "empty"))
    hip = f.get("hip_compiled_version", "").strip()
    rocm = bool(hip) and not missing(hip)
    if torch_ok:
        if "is_debug_build" in f and as_bool(f["is_debug_build"]) is not None:
            b.set("torch.debug", as_bool(f["is_debug_build"]))
        cu = f.get("cuda_compiled_version", "").strip()
        if "cuda_compiled_version" in f:
            if re.match(r"^\d+\.\d+", cu):
                b.set("torch.cuda", cu.split()[0], "CUDA used to build PyTorch")
            elif cu.lower() in ("none", "could not collect", "") or (cu.lower() == "n/a" and rocm):
                b.set("torch.cuda", absent("not built with it"), "CUDA used to build PyTorch: %s" % (cu or "empty"))
        if "hip_compiled_version" in f:
            b.set("torch.hip", hip if rocm else absent("not built with it"))
        xpu = f.get("xpu_compiled_version", "").strip()
        if xpu and not missing(xpu):
            b.set("torch.xpu", xpu)
    if "os" in f:
        os_field(b, f["os"])
    if "python_platform" in f:
        platform_field(b, f["python_platform"])
    if "libc_version" in f:
        lv = f["libc_version"].strip()
        if missing(lv):
            if b.get("os.system") == "Linux":
                pass
        else:
            b.set("os.libc", lv.replace("-", " ", 1))
    for key, path in (("gcc_version", "build_tools.gcc"), ("clang_version", "build_tools.clang"),
                      ("cmake_version", "build_tools.cmake")):
        if key in f:
            v = f[key].strip()
            b.set(path, absent("collect_env: %s" % (v or "empty")) if missing(v) else v)
    if "python_version" in f:
        python_field(b, f["python_version"])
    if "is_cuda_available" in f and as_bool(f["is_cuda_available"]) is not None:
        b.set("cuda.is_available", as_bool(f["is_cuda_available"]), "Is CUDA available")
    if "cuda_runtime_version" in f:
        v = f["cuda_runtime_version"].strip()
        m = re.match(r"^(\d+\.\d+)(?:\.(\d+))?", v)
        if m:
            b.set("toolkit.nvcc", m.group(1), "CUDA runtime version (collect_env runs nvcc --version)")
            b.set("toolkit.nvcc_full", v.split()[0])
        elif missing(v):
            b.set("toolkit.nvcc", absent("collect_env: %s (no nvcc found)" % (v or "empty")))
    if "cuda_module_loading" in f and not missing(f["cuda_module_loading"]):
        b.set("env.CUDA_MODULE_LOADING", f["cuda_module_loading"].strip())
    if "caching_allocator_config" in f and not missing(f["caching_allocator_config"]):
        b.set("env.PYTORCH_CUDA_ALLOC_CONF", f["caching_allocator_config"].strip())
    if "nvidia_gpu_models" in f:
        if checklist:
            checklist_gpu_field(b, f["nvidia_gpu_models"])
        else:
            gpus_field(b, f["nvidia_gpu_models"], rocm)
    if "nvidia_driver_version" in f:
        driver_field(b, f["nvidia_driver_version"])
    if "cudnn_version" in f:
        cudnn_field(b, f["cudnn_version"])
    if "is_xpu_available" in f:
        first = f["is_xpu_available"].split("\n")[0]
        if as_bool(first) is not None:
            b.set("accelerators.xpu.is_available", as_bool(first))
    if "hip_runtime_version" in f and not missing(f["hip_runtime_version"]):
        b.set("torch.config.hip_runtime", f["hip_runtime_version"].strip())
    if "miopen_runtime_version" in f and not missing(f["miopen_runtime_version"]):
        b.set("torch.config.miopen_runtime", f["miopen_runtime_version"].strip())
    if "is_xnnpack_available" in f and as_bool(f["is_xnnpack_available"]) is not None:
        b.set("backends.xnnpack.enabled", as_bool(f["is_xnnpack_available"]))
    if "cpu_info" in f:
        cpu_field(b, f["cpu_info"])
    if "libraries" in f:
        libraries_field(b, f["libraries"])
    # The issue template's checklist.
    if "install_method" in f and f["install_method"].strip():
        b.set("reported.install_method", f["install_method"].strip())
    if "cuda_cudnn" in f and f["cuda_cudnn"].strip():
        b.set("reported.cuda_cudnn", f["cuda_cudnn"].strip())
        b.notes.append("CUDA/cuDNN as the reporter typed it: %r (not used as torch's build: it may be the system's)"
                       % f["cuda_cudnn"].strip()[:100])
    if "build_command" in f and f["build_command"].strip():
        b.set("reported.build_command", f["build_command"].strip())
    best_cudnn_version(b)
    torch_from_packages(b)
    if full_text:
        facts_from_warnings(b, full_text)
    return b


def parse(text: str) -> Parsed:
    fields, order, span, notes = split_fields(text)
    b = fields_to_facts(fields, text)
    unknown = [k for k in KEY_FIELDS if k not in fields]
    out = Parsed(b.data, found=order, notes=notes + b.notes, provenance=b.provenance, lines=span)
    if order and unknown:
        out.notes.append("not in the paste (unknown): %s" % ", ".join(unknown))
    return out
