"""What a report shows, section by section: (label, value, mark) rows built
from facts. Shared by the text and Markdown renderers so both always agree.

Marks: ok, bad, warn, na (absent / not applicable), info, unknown. A row that a
finding is about (by category) takes the finding's severity.
"""

from ..model.records import record
from typing import Any, Dict, Iterable, List, Optional, Tuple

from ..model import derived as F
from ..model.facts import ABSENT, FAILED, PRESENT, UNKNOWN, Facts
from ..model.findings import Finding


@record
class Row:
    label: str
    value: str
    mark: str = "info"
    categories: Tuple[str, ...] = ()


def _gib(n: Any) -> str:
    return "%.1f GiB" % (n / 2 ** 30) if isinstance(n, (int, float)) else str(n)


def _state_mark(facts: Facts, path: str, ok: str = "info") -> str:
    st = facts.state(path)
    return {PRESENT: ok, ABSENT: "na", FAILED: "bad", UNKNOWN: "unknown"}[st]


def _yn(v: Any) -> str:
    if v is True:
        return "yes"
    if v is False:
        return "no"
    return "n/a" if v is None else str(v)


def python_os(facts: Facts) -> List[Row]:
    rows = []
    py = facts.section("python")
    if py:
        if py.get("conda"):
            env = "conda env %s" % py["conda_env"] if isinstance(py.get("conda_env"), str) else "conda"
        else:
            env = {True: "virtualenv", False: "system"}.get(py.get("virtualenv"))
        where = ", ".join(str(x) for x in (py.get("executable"), env) if x)
        rows.append(Row("Python", "%s %s%s" % (py.get("implementation", ""), py.get("version", "?"),
                                              " (%s)" % where if where else ""), "ok", ("python-unsupported",)))
    else:
        rows.append(Row("Python", facts.describe("python"), _state_mark(facts, "python"), ("python-unsupported",)))
    o = facts.section("os")
    if o:
        name = o.get("distro") if isinstance(o.get("distro"), str) else o.get("system", "?")
        if o.get("macos_version"):
            name = "macOS %s" % o["macos_version"]
        extra = [str(o.get("machine", ""))]
        if isinstance(o.get("libc"), str):
            extra.append(o["libc"])
        if o.get("wsl"):
            extra.append("WSL")
        if o.get("rosetta"):
            extra.append("under Rosetta")
        if isinstance(o.get("container"), str):
            extra.append("container: %s" % o["container"])
        rows.append(Row("OS", "%s, kernel %s (%s)" % (name, o.get("release", "?"), ", ".join(e for e in extra if e)), "info"))
    c = facts.section("cpu")
    if c:
        parts = []
        phys, logical = c.get("physical_cores"), c.get("logical_cores")
        if isinstance(phys, int) or isinstance(logical, int):
            parts.append("%s physical / %s logical" % (phys if isinstance(phys, int) else "?",
                                                       logical if isinstance(logical, int) else "?"))
        if isinstance(c.get("cgroup_cpu_limit"), (int, float)):
            parts.append("cgroup limit %s" % c["cgroup_cpu_limit"])
        if isinstance(c.get("flags"), list):  # unknown flags say nothing about AVX2
            simd = [f for f in ("avx2", "avx512f", "amx_tile", "neon", "asimd", "sve") if f in c["flags"]]
            parts.append(" ".join(simd) or "no AVX2")
        model = c.get("model") if isinstance(c.get("model"), str) else "unknown model"
        rows.append(Row("CPU", model + (" (%s)" % "; ".join(parts) if parts else ""), "info", ("illegal-instruction",)))
    m = facts.section("memory")
    if m:
        rows.append(Row("Memory", "%s total, %s available" % (_gib(m.get("total_bytes")), _gib(m.get("available_bytes"))), "info"))
        if facts.has("memory.shm_bytes"):
            rows.append(Row("/dev/shm", _gib(m.get("shm_bytes")), "info", ("dataloader-shm",)))
    return rows


def torch_build(facts: Facts) -> List[Row]:
    rows = []
    imp = facts.section("torch_import")
    meta_v = F.package_version(facts, "torch")
    if imp.get("ok") is True:
        t = facts.section("torch")
        loc = t.get("file") if isinstance(t.get("file"), str) else None
        rows.append(Row("torch", "%s%s" % (t.get("version", "?"), " (%s)" % loc.rsplit("/__init__.py", 1)[0] if loc else ""),
                        "ok", ("torch-shadowed", "torch-not-installed")))
        inst = facts.value("packages.installed.torch.installer") or ("conda" if F.installed_with_conda(facts) else None)
        if inst:
            rows.append(Row("installed by", str(inst), "info"))
        if isinstance(imp.get("duration_s"), (int, float)):
            rows.append(Row("import time", "%.2f s" % imp["duration_s"], "info"))
        if facts.has("torch.git_version"):
            rows.append(Row("git version", str(t.get("git_version"))[:12], "info"))
        rows.append(Row("debug build", _yn(t.get("debug")) if not isinstance(t.get("debug"), dict) else facts.describe("torch.debug"),
                        "warn" if t.get("debug") is True else "info"))
        for key, label in (("cuda", "CUDA build"), ("hip", "ROCm/HIP build"), ("xpu", "XPU build")):
            path = "torch." + key
            st = facts.state(path)
            if st == PRESENT and facts.value(path) is not None:
                value, mark = facts.describe(path), "ok"
            elif st == UNKNOWN:  # a paste that does not say: not the same as "no"
                value, mark = "unknown", "unknown"
            elif st == FAILED:
                value, mark = facts.describe(path), "bad"
            else:
                value, mark = "no", "na"
            rows.append(Row(label, value, mark, ("cpu-only-build",) if key == "cuda" else ()))
        cap = facts.value("torch.config.cpu_capability")
        if cap:
            rows.append(Row("CPU kernels", str(cap), "info"))
        par = facts.section("torch.parallel")
        if par:
            rows.append(Row("threads", "%s intra-op / %s inter-op (%s)" % (par.get("get_num_threads", "?"),
                                                                         par.get("get_num_interop_threads", "?"),
                                                                         par.get("backend", "?")), "info", ("config",)))
    elif imp.get("ok") is False:
        rows.append(Row("torch", "import failed: %s: %s" % (imp.get("error_type"), str(imp.get("error", ""))[:200]), "bad",
                        ("torch-not-installed", "torch-import-crash")))
        if meta_v:
            rows.append(Row("installed (metadata)", meta_v, "info"))
    else:
        st = facts.describe("torch_import")
        rows.append(Row("torch", "not imported: %s" % st, "bad" if facts.state("torch_import") == FAILED else "unknown",
                        ("torch-import-crash", "illegal-instruction")))
        if meta_v:
            rows.append(Row("installed (metadata)", meta_v, "info"))
    return rows


# Per backend: the keys worth showing, in order, after availability.
BACKEND_SHOW = {
    "cuda": ("is_built", "matmul.allow_tf32", "matmul.fp32_precision", "flash_sdp_enabled", "mem_efficient_sdp_enabled",
             "math_sdp_enabled", "cudnn_sdp_enabled", "sdp_kernel", "sdpa_kernel"),
    "cudnn": ("version", "enabled", "benchmark", "deterministic", "allow_tf32"),
    "mps": ("is_built",),
    "mkldnn": ("enabled", "deterministic"),
    "opt_einsum": ("enabled", "strategy"),
}
BACKEND_CATEGORIES = {"cuda": ("cpu-only-build", "sdp-api-missing"), "cudnn": ("cudnn-lib-load", "cudnn-version-mismatch", "config"),
                      "mps": ("mps-unavailable", "backends-mps-missing"), "nnpack": ("nnpack-unsupported",)}


def _fmt(v: Any) -> str:
    if isinstance(v, dict):
        return "absent" if "_absent" in v else ("failed" if "_failed" in v else str(v))
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    return _yn(v)


def backends(facts: Facts) -> List[Row]:
    rows = []
    b = facts.value("backends")
    if not isinstance(b, dict):
        return [Row("torch.backends", facts.describe("backends"), _state_mark(facts, "backends"))]
    for name in sorted(b):
        if name == "fp32_precision":
            continue
        path = "backends." + name
        st = facts.state(path)
        if st != PRESENT:
            rows.append(Row(name, facts.describe(path), "na" if st == ABSENT else "bad", BACKEND_CATEGORIES.get(name, ())))
            continue
        d = b[name]
        # The headline: availability, else whether it is built; that key is not repeated.
        head_key = next((k for k in ("is_available", "is_built") if k in d), None)
        avail = d.get(head_key) if head_key else d.get("enabled")
        words = {"is_available": ("available", "not available"), "is_built": ("built", "not built")}
        head = words[head_key][0 if avail else 1] if head_key and isinstance(avail, bool) else ""
        mark = "ok" if avail is True else ("na" if avail is False else "info")
        parts = [head] if head else []
        keys = BACKEND_SHOW.get(name) or list(d)
        for k in keys:
            if k in d and k != head_key:
                parts.append("%s=%s" % (k, _fmt(d[k])))
        if any(isinstance(v, dict) and "_failed" in v for v in d.values()):
            mark = "warn"
        rows.append(Row(name, ", ".join(p for p in parts if p) or "present", mark, BACKEND_CATEGORIES.get(name, ())))
    return rows


def gpu_driver(facts: Facts) -> List[Row]:
    rows = []
    if F.has_nvidia_driver(facts):
        rows.append(Row("NVIDIA driver", "%s (supports CUDA %s)" % (facts.value("driver.driver_version", "?"),
                                                                   F.driver_cuda(facts) or "?"),
                        "ok", ("no-gpu-driver", "driver-too-old")))
    else:
        rows.append(Row("NVIDIA driver", facts.describe("driver.driver_version") if facts.has("driver") else "unknown",
                        "na", ("no-gpu-driver",)))
    for g in F.driver_gpus(facts):
        cap = F.capability(g)
        rows.append(Row("GPU %s" % g.get("index", "?"), "%s%s%s" % (g.get("name", "?"), ", sm_%d%d" % cap if cap else "",
                                                                ", %s" % _gib(g["total_memory"]) if "total_memory" in g else ""),
                        "ok", ("arch-unsupported",)))
    if facts.has("cuda"):
        avail = facts.value("cuda.is_available")
        rows.append(Row("torch.cuda.is_available()", _yn(avail) if not isinstance(avail, dict) else facts.describe("cuda.is_available"),
                        "ok" if avail is True else ("bad" if F.is_cuda_build(facts) else "na"), ("gpu-hidden", "no-gpu-driver")))
        rows.append(Row("device count", facts.describe("cuda.device_count"), "info"))
        for d in F.torch_gpus(facts):
            cap = F.capability(d)
            rows.append(Row("cuda:%s" % d.get("index"), "%s%s" % (d.get("name"), ", sm_%d%d" % cap if cap else ""), "ok"))
        if facts.has("cuda.arch_list"):
            rows.append(Row("arch list", facts.describe("cuda.arch_list"), "info", ("arch-unsupported",)))
        if facts.has("cuda.nccl_version"):
            rows.append(Row("NCCL", facts.describe("cuda.nccl_version"), "info"))
        for w in facts.value("cuda.warnings") or []:
            rows.append(Row("CUDA warning", w.splitlines()[0][:300], "warn"))
    elif facts.state("cuda") == FAILED:
        rows.append(Row("torch.cuda", facts.describe("cuda"), "bad"))
    nv = facts.value("toolkit.nvcc")
    where = facts.value("toolkit.nvcc_path")
    rows.append(Row("CUDA toolkit (nvcc)", "%s%s" % (nv, " (%s)" % where if where else "") if isinstance(nv, str)
                    else facts.describe("toolkit.nvcc"), "info" if isinstance(nv, str) else _state_mark(facts, "toolkit.nvcc")))
    return rows


COMPANION_ROWS = ("torchvision", "torchaudio", "numpy", "triton", "pytorch-triton", "xformers", "torchao",
                  "torchtext", "flash-attn", "bitsandbytes", "opt-einsum")
COMPANION_CATEGORIES = {"torchvision": ("torchvision-mismatch",), "torchaudio": ("torchaudio-mismatch",),
                        "numpy": ("numpy-abi", "numpy-missing"), "triton": ("triton-missing",), "pytorch-triton": ("triton-missing",)}


def companions(facts: Facts) -> List[Row]:
    rows = []
    inst = facts.value("packages.installed")
    if not isinstance(inst, dict):
        return [Row("packages", facts.describe("packages"), _state_mark(facts, "packages"))]
    for name in COMPANION_ROWS:
        v = inst.get(name)
        if isinstance(v, dict) and "version" in v:
            text = str(v["version"])
            built = v.get("build_version")
            if isinstance(built, str) and built != text and name != "torch":
                text += " (built as %s)" % built
            imp = facts.value("companion_imports.%s" % name)
            if isinstance(imp, dict) and imp.get("ok") is False:
                text += "; import fails: %s: %s" % (imp.get("error_type"), str(imp.get("error", "")).splitlines()[0][:160])
                rows.append(Row(name, text, "bad", COMPANION_CATEGORIES.get(name, ())))
                continue
            rows.append(Row(name, text, "ok", COMPANION_CATEGORIES.get(name, ())))
        elif name in ("torchvision", "torchaudio", "numpy", "triton"):
            rows.append(Row(name, "not installed", "na", COMPANION_CATEGORIES.get(name, ())))
    nv = sorted(k for k in inst if k.startswith("nvidia-") and isinstance(inst[k], dict) and "version" in inst[k])
    if nv:
        rows.append(Row("nvidia-* wheels", ", ".join("%s %s" % (k, inst[k]["version"]) for k in nv[:12])
                        + (" (+%d more)" % (len(nv) - 12) if len(nv) > 12 else ""), "info", ("cudnn-version-mismatch",)))
    for k, v in sorted((facts.value("packages.duplicates") or {}).items()):
        rows.append(Row("duplicate " + k, "; ".join("%s in %s" % (d.get("version"), d.get("location")) for d in v), "warn"))
    return rows


def configuration(facts: Facts) -> List[Row]:
    rows = []
    for k, v in (facts.value("env") or {}).items():
        if isinstance(v, str):
            rows.append(Row(k, v if len(v) < 200 else v[:200] + "...", "info", ("config",)))
    rt = facts.section("torch.runtime")
    if rt:
        rows.append(Row("deterministic algorithms", _fmt(rt.get("are_deterministic_algorithms_enabled")), "info", ("config",)))
        rows.append(Row("float32 matmul precision", _fmt(rt.get("get_float32_matmul_precision")), "info", ("config",)))
    if not rows:
        if facts.state("env") == UNKNOWN:
            rows.append(Row("environment", "unknown (not in the input)", "unknown"))
        else:
            rows.append(Row("environment", "no torch-related variables set", "info"))
    return rows


SECTIONS = (("Python & OS", python_os), ("torch build", torch_build), ("torch.backends", backends),
            ("GPU & driver", gpu_driver), ("Companion packages", companions), ("Configuration", configuration))


def build(facts: Facts, findings: Iterable[Finding] = ()) -> List[Tuple[str, List[Row]]]:
    worst: Dict[str, str] = {}
    rank = {"error": 2, "warning": 1}
    for f in findings:  # the most severe finding of each category marks its rows
        if f.category not in worst or rank.get(f.severity, 0) > rank.get(worst[f.category], 0):
            worst[f.category] = f.severity
    out = []
    for title, fn in SECTIONS:
        try:
            rows = fn(facts)
        except Exception as e:  # noqa: BLE001 - a report never dies on odd facts
            rows = [Row("(rendering failed)", "%s: %s" % (type(e).__name__, e), "warn")]
        for r in rows:
            sev: Optional[str] = next((worst[c] for c in r.categories if c in worst and worst[c] == "error"), None) or \
                next((worst[c] for c in r.categories if c in worst and worst[c] == "warning"), None)
            if sev == "error":
                r.mark = "bad"
            elif sev == "warning" and r.mark != "bad":
                r.mark = "warn"
        out.append((title, rows))
    return out
