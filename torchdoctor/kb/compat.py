"""Accessors over ``kb/data/compat.json``: the facts live there, each with a ``source``
key (``source()`` gives the citation); this module looks them up and combines them.

Versions are strings; local tags (``2.13.0+cpu``) are ignored except where they change
the answer (triton pin, cuDNN of the variant). ``None`` means unknown: odd input, facts
the KB lacks, or values the sources could not confirm (those are absent from the JSON or
marked ``verified: false``, and never returned as plain answers). Nothing here raises.
The JSON is loaded once, lazily (~1 ms); ``packaging`` is imported on first use, not at
import time, because this module sits on the ``explain`` start-up path.
"""

import copy
import functools
import json
import os as _os
import re
from typing import Any, Dict, List, Optional, Tuple

from .. import versions as V

_DATA_PATH = _os.path.join(_os.path.dirname(__file__), "data", "compat.json")


@functools.lru_cache(maxsize=None)
def _data() -> Dict[str, Any]:
    with open(_DATA_PATH, encoding="utf-8") as f:
        return json.load(f)


# -- parsing helpers ---------------------------------------------------------------
def _osname(name: Any) -> Optional[str]:
    n = str(name or "").strip().lower()
    if n.startswith("linux"):
        return "linux"
    if n in ("darwin", "macos", "mac", "osx", "macosx"):
        return "macos"
    return "windows" if n in ("windows", "win", "win32", "win64", "nt") else None


def _cc(capability: Any) -> Optional[Tuple[int, int]]:
    """(major, minor) from (8, 6), [8, 6], "8.6" or 8.6; None otherwise."""
    if isinstance(capability, (tuple, list)):
        ok = len(capability) == 2 and all(type(x) is int for x in capability)
        return (capability[0], capability[1]) if ok else None
    m = re.fullmatch(r"\s*(\d+)\.(\d)\s*", str(capability)) if capability is not None else None
    return (int(m.group(1)), int(m.group(2))) if m else None


def _cuda_key(variant: str):
    return V.parse(cuda_of_variant(variant)).release


# -- releases and Python -------------------------------------------------------------
def _rel(torch_version: Any) -> Optional[Dict[str, Any]]:
    return _data()["releases"].get(V.minor(torch_version) or "")


def release(torch_version: Any) -> Optional[dict]:
    r = _rel(torch_version)
    return copy.deepcopy(r) if r else None


def known_releases() -> List[str]:
    return sorted(_data()["releases"], key=lambda m: V.parse(m).release)


def latest_release() -> str:
    return known_releases()[-1]


def latest_patch(torch_version: Any) -> Optional[str]:
    """The newest patch release of that minor ('2.4' -> '2.4.1')."""
    r = _rel(torch_version)
    return r["patches"][-1] if r and r.get("patches") else None


def supported_pythons(torch_version: Any) -> Optional[List[str]]:
    """CPython minors with published wheels (incl. those RELEASE.md calls experimental)."""
    r = _rel(torch_version)
    return list(r["python"]) if r else None


def python_supported(torch_version: Any, python_version: Any) -> Optional[bool]:
    r = _rel(torch_version)
    m = re.fullmatch(r"\s*(\d+)\.(\d+)(?:\.\d+)?\s*(t?)\s*", str(python_version or ""))
    if not r or not m:
        return None
    py = "%s.%s%s" % m.groups()  # "3.13t" = free-threaded build
    experimental = r.get("python_experimental_by_patch", {}).get(V.patch(torch_version) or "", r["python_experimental"])
    return py in r["python"] or py in experimental


def macos_x86_64_last_release() -> str:
    """Newest torch minor with macOS x86_64 (Intel Mac, or a Python under Rosetta) wheels."""
    return _data()["_meta"]["macos_x86_64_last_release"]["version"]


def newest_torch_for_python(python_version: Any) -> Optional[str]:
    for minor in reversed(known_releases()):
        ok = python_supported(minor, python_version)
        if ok is not False:
            return minor if ok else None
    return None


# -- torchvision / torchaudio ----------------------------------------------------------
# Before the stable ABI every companion wheel pinned exactly one torch patch (torch==X),
# so the per-patch pairs decide. torchvision 0.29.1+ and torchaudio 2.11.x declare torch
# ranges instead (companions.*_ranges in the JSON), and those decide.
def _in_range(torch_version: Any, spec: str) -> Optional[bool]:
    from packaging.specifiers import SpecifierSet
    v = V.parse(torch_version)
    return SpecifierSet(spec).contains(v.base_version, prereleases=True) if v else None


@functools.lru_cache(maxsize=None)
def _paired_torch(kind: str) -> Dict[str, Tuple[str, ...]]:
    """companion version -> torch patches it was released with (pip and conda pairs, and the
    further releases pinned to a patch, '<kind>_also')."""
    out: Dict[str, set] = {}
    for r in _data()["releases"].values():
        pairs = list(r[kind].items())
        pairs += [(p, c[kind]) for p, c in r.get("conda_companions", {}).items() if kind in c]
        pairs += [(p, c) for p, cs in r.get(kind + "_also", {}).items() for c in cs]  # e.g. 0.11.1 -> 1.10.0
        for torch_patch, comp in pairs:
            out.setdefault(comp, set()).add(torch_patch)
    return {c: tuple(sorted(ps, key=lambda p: V.parse(p).release)) for c, ps in out.items()}


def _companion_ok(kind: str, torch_version: Any, comp_version: Any) -> Optional[bool]:
    cv = V.parse(comp_version)
    if _rel(torch_version) is None or cv is None:
        return None
    comp, ranges = cv.public, _data()["companions"][kind + "_ranges"]
    if comp in ranges:
        return _in_range(torch_version, ranges[comp]["torch"])
    paired, patch, minor = _paired_torch(kind), V.patch(torch_version), V.minor(torch_version)
    if comp in paired:
        if patch:
            return patch in paired[comp]
        return None if any(V.minor(p) == minor for p in paired[comp]) else False
    if cv >= min(V.parse(k) for k in ranges):
        return None  # an unknown release of the range era
    # unknown exact-pin release: it can only pair with the minor its series belongs to
    owners = {V.minor(p) for c, ps in paired.items() if V.parse(c).release[:2] == cv.release[:2] for p in ps}
    return None if not owners or minor in owners else False


def matching_torchvision(torch_version: Any) -> Optional[str]:
    """torchvision released with that torch patch ("0.28.0"); the series ("0.28") when only
    the minor is given or the patch pairing is unconfirmed; None if unknown (2.15)."""
    r = _rel(torch_version)
    return (r["torchvision"].get(V.patch(torch_version) or "") or r.get("torchvision_series")) if r else None


def matching_torchaudio(torch_version: Any) -> Optional[str]:
    """torchaudio for that torch. Up to 2.11: the same-release pair (its series if only the
    minor is given). From 2.12 there is no torchaudio of the same number; torchaudio 2.11 is
    built on the stable ABI and documented to work with every later torch, so this returns
    the newest torchaudio whose declared range admits the torch, i.e. what pip installs."""
    r = _rel(torch_version)
    if not r:
        return None
    if r["torchaudio"]:
        exact = r["torchaudio"].get(V.patch(torch_version) or "")
        return exact or ".".join(next(iter(r["torchaudio"].values())).split(".")[:2])
    ranges = _data()["companions"]["torchaudio_ranges"]
    fits = [ta for ta, e in ranges.items() if _in_range(torch_version, e["torch"])]
    return max(fits, key=V.parse) if fits else None


def torchvision_compatible(torch_version: Any, torchvision_version: Any) -> Optional[bool]:
    """By the official pairs, or the declared range of stable-ABI wheels (0.29.1+)."""
    return _companion_ok("torchvision", torch_version, torchvision_version)


def torchaudio_compatible(torch_version: Any, torchaudio_version: Any) -> Optional[bool]:
    """By the official pairs, or the declared range of stable-ABI wheels (2.11.x)."""
    return _companion_ok("torchaudio", torch_version, torchaudio_version)


def torch_for_torchvision(torchvision_version: Any) -> Optional[str]:
    """torch patch a torchvision was released with ("2.13.0"); the torch minor for a series
    ("0.28" -> "2.13"); for a range-only release its specifier (">=2.14.0")."""
    cv = V.parse(torchvision_version)
    if cv is None:
        return None
    paired = _paired_torch("torchvision").get(cv.public)
    rng = _data()["companions"]["torchvision_ranges"].get(cv.public)
    if paired or rng:
        return paired[-1] if paired else rng["torch"]
    series = [m for m, r in _data()["releases"].items() if r.get("torchvision_series") == cv.public]
    return series[0] if series and len(cv.release) == 2 else None


# -- CUDA variants and drivers ---------------------------------------------------------
def cuda_variants(torch_version: Any) -> List[str]:
    """CUDA wheel variants of that release (per patch where they differed, e.g. 1.8.1)."""
    r = _rel(torch_version)
    return list(r.get("cuda_by_patch", {}).get(V.patch(torch_version) or "", r["cuda"])) if r else []


def default_cuda(torch_version: Any) -> Optional[str]:
    """Variant of the Linux x86_64 wheel on PyPI; None where the sources did not confirm it."""
    r = _rel(torch_version)
    return r["default_cuda"] if r and "default_cuda" not in r["unverified"] else None


def variant_for_cuda(cuda_version: Any) -> Optional[str]:
    """"13.0" -> "cu130", "11.8" -> "cu118"."""
    v = V.parse(cuda_version)
    return "cu%d%d" % v.release[:2] if v and len(v.release) >= 2 else None


def cuda_of_variant(variant: Any) -> Optional[str]:
    m = re.fullmatch(r"cu(\d+)(\d)", str(variant or "").strip())
    return "%s.%s" % m.groups() if m else None


def variant_info(variant: Any) -> Optional[dict]:
    """Toolkit, minimum drivers ({os: {full, mvc}}) and source of a variant, plus the releases
    that shipped it and those where RELEASE.md called it experimental."""
    e = _data()["variants"].get(str(variant or ""))
    if not e:
        return None
    out, rels = copy.deepcopy(e), _data()["releases"]
    out["releases"] = [m for m in known_releases() if variant in rels[m]["cuda"]
                       or any(variant in vs for vs in rels[m].get("cuda_by_patch", {}).values())]
    out["experimental_in"] = [m for m in known_releases() if variant in rels[m]["cuda_experimental"]]
    return out


def min_driver(cuda_version: Any, os: str = "linux") -> Optional[dict]:
    """{"full", "mvc", "source", ...} for a CUDA toolkit on linux/windows. full: driver of that
    toolkit (of the exact update for "12.2.2", else of the minor's GA); mvc: lowest driver
    running it under minor-version compatibility (CUDA >= 11; equals full before). Extra keys
    full_branch / mvc_verified / mvc_alt when only those are known. For torch wheels prefer
    variant_info(), which knows the toolkit update each variant is built with."""
    osn, v = _osname(os), V.parse(cuda_version)
    tk = _data()["toolkits"].get(V.minor(v) or "") if osn in ("linux", "windows") else None
    if tk is None:
        return None
    e = tk.get("updates", {}).get(V.patch(v) or "", tk)  # unknown patch (12.4.131): the GA
    mvc = _data()["mvc"].get(str(v.release[0])) if v.release[0] >= 11 else None
    sources = tk["source"].split("+") + (mvc["source"].split("+") if mvc else [])
    out = {"cuda": V.minor(v), "toolkit": V.patch(v) if e is not tk else tk["version"],
           "full": e.get(osn), "mvc": (mvc or e).get(osn), "source": "+".join(dict.fromkeys(sources))}
    if tk.get(osn + "_branch"):
        out["full_branch"] = tk[osn + "_branch"]
    if mvc and mvc.get(osn + "_verified") is False:
        out["mvc_verified"], out["mvc_alt"] = False, mvc.get(osn + "_alt")
    return out if out["full"] or out["mvc"] or out.get("full_branch") else None


def _meets(driver, floor: Optional[str], verified: bool = True, alt: Optional[str] = None,
           branch: Optional[str] = None) -> Optional[bool]:
    if not floor and branch:
        # Only the Linux driver branch (R595) is known: a later branch surely meets its
        # minimum, an older one surely not, inside the branch we cannot tell.
        b = int(branch.lstrip("R"))
        return None if driver.release[0] == b else driver.release[0] > b
    if not floor:
        return None
    if verified:
        return driver >= V.parse(floor)
    low, high = sorted([V.parse(floor), V.parse(alt or floor)])
    if alt and driver >= high:
        return True  # above every candidate value, whichever one is right
    return False if alt and driver < low else None


def _runs_on(driver, floors: Dict[str, Any]) -> Optional[bool]:
    full = _meets(driver, floors.get("full"), branch=floors.get("full_branch"))
    mvc = _meets(driver, floors.get("mvc"), floors.get("mvc_verified", True), floors.get("mvc_alt"))
    if full or mvc:
        return True
    return False if mvc is False else None  # below the MVC floor is below full as well


def driver_supports_cuda(driver_version: Any, cuda_version: Any, os: str = "linux") -> Optional[bool]:
    """Can code built with that CUDA run on this driver? Minor-version compatibility counts
    (any 12.x runs on >= 525.60.13 on Linux, without PTX JIT of newer PTX)."""
    d, floors = V.parse(driver_version), min_driver(cuda_version, os)
    return _runs_on(d, floors) if d and floors else None


def max_cuda_for_driver(driver_version: Any, os: str = "linux") -> Optional[str]:
    """Newest CUDA minor whose full-support minimum this driver meets (nvidia-smi's
    "CUDA Version"); None when the next toolkit's minimum is unknown for this driver."""
    d, osn = V.parse(driver_version), _osname(os)
    if d is None or osn not in ("linux", "windows"):
        return None
    best = None
    for minor, tk in sorted(_data()["toolkits"].items(), key=lambda kv: V.parse(kv[0]).release):
        ok = _meets(d, tk.get(osn), branch=tk.get(osn + "_branch"))
        if ok is None:
            return None
        if not ok:
            break  # minimum drivers only grow with the toolkit version
        best = minor
    return best


def newest_variant_for_driver(torch_version: Any, driver_version: Any, os: str = "linux") -> Optional[str]:
    """Newest CUDA variant of that release known to run on this driver. Torch wheels bundle
    their CUDA runtime, so the minor-version-compatibility floor counts; variants whose floor
    is unknown for this OS (13.x on Windows) are skipped."""
    d, osn = V.parse(driver_version), _osname(os)
    if d is None or osn not in ("linux", "windows"):
        return None
    variants = [v for v in cuda_variants(torch_version) if v in _data()["variants"]]
    for v in sorted(variants, key=_cuda_key, reverse=True):
        if _runs_on(d, _data()["variants"][v][osn]):
            return v
    return None


def newest_variant_for_driver_cuda(torch_version: Any, driver_cuda: Any, mvc: bool = True) -> Optional[str]:
    """Newest CUDA variant of that release a driver runs when only the CUDA version it
    supports is known (libcuda's cuDriverGetVersion, "found version 11040" in torch's
    warning): one of an older-or-equal CUDA, or (CUDA >= 11) one of the same major under
    NVIDIA's minor-version compatibility. Its driver floor is the major's first driver for
    12.x (525.60.13) and 13.x (580), so every driver of that major meets it; for 11.x it is
    450.80.02, newer than the 11.0 GA driver, so an 11.0 driver does not (reference
    cuda_driver.json "minor_version_compatibility", NVIDIA's CUDA Compatibility guide).
    mvc=False: only CUDA <= the driver's (when torch itself said a same-major build is too
    new for this driver, the observation beats the rule)."""
    have = V.release(driver_cuda)
    if not have:
        return None
    best, best_key = None, ()
    for v in cuda_variants(torch_version):
        c = V.release(cuda_of_variant(v))
        if not c:
            continue
        compatible = mvc and c[0] == have[0] and (c[0] >= 12 or (c[0] == 11 and have >= (11, 1)))
        if (c <= have or compatible) and c > best_key:
            best, best_key = v, c
    return best


# -- GPU architectures -------------------------------------------------------------------
def arch_info(torch_version: Any, variant: Any) -> Optional[dict]:
    """The whole arch entry (x86_64/aarch64 lists, verified flag, source, notes), guesses included."""
    e = _data()["arch"].get(V.minor(torch_version) or "", {}).get(str(variant))
    return copy.deepcopy(e) if e else None


def arch_list(torch_version: Any, variant: Any) -> Optional[List[str]]:
    """torch.cuda.get_arch_list() of the Linux x86_64 wheel ([] for cpu); None if unknown or
    unverified. PTX the sources could not confirm (2.12+ cu130/cu132) is left out."""
    if variant == "cpu":
        return [] if _rel(torch_version) else None
    e = _data()["arch"].get(V.minor(torch_version) or "", {}).get(str(variant))
    return list(e["x86_64"]) if e and e["verified"] else None


def _cubin_runs(code: int, device: Tuple[int, int], cuda: Optional[str]) -> bool:
    rule = _data()["device_requirement"]["rules"].get(str(code), {})
    dev = "%d.%d" % device
    if "only" in rule:  # Jetson/iGPU codes and the 10.1 -> 11.0 rename
        return dev in rule["only"]
    if dev in rule.get("except", []):
        lifted = V.parse(rule.get("except_lifted_from_cuda"))
        if not (lifted and V.parse(cuda) and V.parse(cuda) >= lifted):
            return False
    return device[0] == code // 10 and device[1] >= code % 10  # SASS: same major, minor forward


def _supported(arches: Any, capability: Any, cuda: Optional[str] = None) -> bool:
    dev = _cc(capability)
    if isinstance(arches, str):  # also accept "sm_75 sm_80" / "sm_75;sm_80"
        arches = arches.replace(";", " ").split()
    if dev is None or not isinstance(arches, (list, tuple, set)):
        return False
    for a in arches:
        m = re.fullmatch(r"(sm|compute)_(\d+)([a-z]?)", str(a).strip())
        if not m:
            continue
        code = int(m.group(2))
        cc = (code // 10, code % 10)
        if m.group(3) == "a":  # arch-specific code (sm_90a) runs on exactly that CC
            hit = dev == cc
        elif m.group(1) == "compute":  # PTX: the driver JIT-compiles it for any newer GPU
            hit = dev >= cc
        else:
            hit = _cubin_runs(code, dev, cuda)
        if hit:
            return True
    return False


def cc_supported_by(arch_list: Any, capability: Any) -> bool:
    """Can a GPU of that compute capability run a build with this arch list? torch's
    DEVICE_REQUIREMENT rules, Jetson exceptions applied (no CUDA version known here)."""
    return _supported(arch_list, capability)


def variants_supporting_cc(torch_version: Any, capability: Any) -> List[str]:
    """Variants of that release whose verified arch list runs on the GPU."""
    return [v for v in cuda_variants(torch_version)
            if _supported(arch_list(torch_version, v) or [], capability, cuda_of_variant(v))]


def newest_release_supporting_cc(capability: Any, driver_version: Any = None, os: str = "linux",
                                 releases: Optional[List[str]] = None) -> Optional[Tuple[str, str]]:
    """(minor, variant) of the newest release with a verified arch list for this GPU; with a
    driver, the newest one that driver also runs (falling back to the newest overall).
    `releases` (minors, newest first) narrows the choice, e.g. to those with a wheel here."""
    candidates = list(reversed(known_releases())) if releases is None else releases
    for minor in candidates:
        vs = variants_supporting_cc(minor, capability)
        if driver_version:
            vs = [v for v in vs if driver_supports_cuda(driver_version, cuda_of_variant(v), os) is not False]
        if vs:
            return minor, max(vs, key=_cuda_key)
    return newest_release_supporting_cc(capability, releases=releases) if driver_version else None


def gpu_family(capability: Any) -> Optional[str]:
    dev = _cc(capability)
    e = _data()["gpu_families"].get("%d.%d" % dev) if dev else None
    return e["name"] if e else None


# -- other pins ---------------------------------------------------------------------------
def numpy2_supported(torch_version: Any, os: str = "linux") -> Optional[bool]:
    r, osn = _rel(torch_version), _osname(os)
    if not r or not osn:
        return None
    fixed = r.get("numpy2_fixed_in", {}).get(osn)
    if fixed:  # patch-dependent (Windows 2.4.0 no, 2.4.1 yes)
        patch = V.patch(torch_version)
        return V.parse(patch) >= V.parse(fixed) if patch else None
    return r["numpy2"][osn]


def triton_requirement(torch_version: Any) -> Optional[str]:
    """Specifier of the triton pin of that torch patch (release()['triton_marker'] has its
    marker). None for patches whose metadata was not read and for +cpu/+rocm/+xpu builds,
    which do not depend on triton."""
    r, v = _rel(torch_version), V.parse(torch_version)
    if not r or (v.local and not v.local.startswith("cu")):
        return None
    return r.get("triton", {}).get(V.patch(torch_version) or "")


def expected_cudnn(torch_version: Any, variant: Any = None) -> Optional[str]:
    """cuDNN the variant pins ("9.10.2.21"); variant None: the +cuXXX tag of torch_version,
    else the PyPI default. None where the sources disagree (2.11 cu130) or are silent."""
    r = _rel(torch_version)
    if not r:
        return None
    if variant is None:
        local = V.parse(torch_version).local or ""
        variant = local if local.startswith("cu") else default_cuda(torch_version)
    return r.get("cudnn", {}).get(str(variant))


def expected_cudnn_int(torch_version: Any, variant: Any = None) -> Optional[int]:
    """What torch.backends.cudnn.version() returns for that cuDNN (91002, 8902)."""
    s = expected_cudnn(torch_version, variant)
    if not s:
        return None
    major, minor, patch = (int(x) for x in s.split(".")[:3])
    return major * (10000 if major >= 9 else 1000) + minor * 100 + patch


def cudnn_int_to_version(n: Any) -> Optional[str]:
    """91002 -> "9.10.2", 8902 -> "8.9.2": cuDNN 9 changed the encoding (x10000 vs x1000)."""
    if isinstance(n, bool) or not str(n).strip().isdigit() or int(n) < 1000:
        return None  # cuDNN 1.0 would already encode as 1000
    n = int(n)
    scale = 10000 if n >= 90000 else 1000
    return "%d.%d.%d" % (n // scale, (n % scale) // 100, n % 100)


def _rule(name: str) -> Dict[str, Any]:
    return _data()["runtime_rules"][name]


def cudnn_sm_floor() -> Dict[str, Any]:
    """cuDNN >= cudnn_int_min refuses GPUs below `sm` on torch >= torch_min."""
    r = _rule("cudnn_sm_floor")
    return {"cudnn_int_min": r["cudnn_int_min"], "torch_min": r["torch_min"], "sm": tuple(r["sm"]),
            "source": source(r["source"])}


def cublas_env_required(torch_version: Any) -> Optional[bool]:
    """Whether deterministic cuBLAS ops still demand CUBLAS_WORKSPACE_CONFIG in this torch."""
    minor = V.minor(torch_version)
    if minor is None:
        return None
    return V.parse(minor) <= V.parse(_rule("cublas_workspace_config_required")["torch_max"])


def cublas_deterministic_values() -> Tuple[str, ...]:
    return tuple(_rule("cublas_workspace_config_required")["values"])


def mps_min_macos(torch_version: Any = None) -> Tuple[int, int]:
    """Oldest macOS whose MPS this torch can use; without a version, the oldest of all."""
    rows = _rule("mps_min_macos")["by_torch"]
    minor = V.minor(torch_version) if torch_version is not None else None
    for row in rows:
        if minor is None or (("torch_max" not in row or V.parse(minor) <= V.parse(row["torch_max"])) and
                             ("torch_min" not in row or V.parse(minor) >= V.parse(row["torch_min"]))):
            return int(row["macos"][0]), int(row["macos"][1])
    return int(rows[-1]["macos"][0]), int(rows[-1]["macos"][1])


def last_torch_for_macos(macos: Tuple[int, int]) -> Optional[str]:
    """Newest torch minor whose MPS still runs on that macOS; None when every release does."""
    rows = _rule("mps_min_macos")["by_torch"]
    fits = [r for r in rows if tuple(r["macos"]) <= tuple(macos)]
    if len(fits) == len(rows):
        return None
    return max((r["torch_max"] for r in fits if "torch_max" in r), key=V.parse, default=None)


def compile_min_torch_for_python(python_version: Any) -> Optional[str]:
    """First torch minor whose torch.compile accepts this Python (None: any, or unknown)."""
    py = ".".join(str(python_version or "").split(".")[:2])
    return _rule("compile_python_support")["by_python"].get(py)


def windows_inductor_min() -> str:
    return _rule("windows_inductor")["torch_min"]


def alloc_conf_keys() -> Tuple[str, ...]:
    return tuple(_rule("alloc_conf_keys")["keys"])


def backend_paths() -> List[str]:
    """Every dotted torch.backends path the API history knows."""
    return list(_data()["backends"])


def backend_api(dotted_path: Any) -> Optional[dict]:
    """{"added", "deprecated", "removed", "replacement", "note", "source"} of a torch.backends
    (or torch.nn.attention) name; added_or_earlier: already in the oldest sampled wheel (1.11)."""
    e = _data()["backends"].get(str(dotted_path or "").strip())
    return copy.deepcopy(e) if e else None


# -- install commands ------------------------------------------------------------------------
def _specs(pins: List[Tuple[str, str]], conda: bool = False, tag: str = "") -> str:
    parts = []
    for name, ver in pins:
        if conda and name == "torch":
            name = "pytorch"
        if ver and tag and name != "torchaudio":  # old indexes: +cuXXX on torch/torchvision
            ver += "+" + tag
        parts.append(name + ("==" + ver if ver else ""))
    return " ".join(parts)


def install_command(torch_version: Any, variant: Any = None, installer: str = "pip",
                    with_companions: Any = True, os: str = "linux", machine: Any = None) -> List[str]:
    """Commands installing that torch (patch; the latest patch for a bare minor) and its
    companions, in the form the PyTorch "previous versions" page used for that era. Plain
    `pip install` when the PyPI wheel is the one wanted (Linux default variant, macOS,
    variant None). [] where no such build exists: conda after 2.5, CUDA on macOS, a
    variant the release did not ship. Unknown companion pins are left unpinned; the
    stable-ABI torchaudio is pinned as 2.11.* (which 2.11 patch each index holds is unknown).
    `with_companions`: True (torchvision and torchaudio), False, or the names to pin (the
    companions actually installed, so a fix never adds a package the user does not have).
    `machine`: the target interpreter's platform.machine(); PyPI's default CUDA wheel is the
    Linux x86_64 one, so on another Linux machine (aarch64) a CUDA variant keeps its index URL."""
    r, osn = _rel(torch_version), _osname(os)
    if not r or not osn or installer not in ("pip", "conda"):
        return []
    patch = V.patch(torch_version) or r["patches"][-1]
    if patch not in r["patches"]:
        return []
    pins = [("torch", patch)]
    if with_companions:
        conda_pair = r.get("conda_companions", {}).get(patch, {}) if installer == "conda" else {}
        ta = conda_pair.get("torchaudio") or r["torchaudio"].get(patch)
        if not ta and not r["torchaudio"]:
            ta = ".".join((matching_torchaudio(patch) or "").split(".")[:2]) + ".*"
        wanted = ("torchvision", "torchaudio") if with_companions is True else tuple(with_companions)
        pins += [p for p in (("torchvision", conda_pair.get("torchvision") or r["torchvision"].get(patch) or ""),
                             ("torchaudio", ta if ta and ta != ".*" else "")) if p[0] in wanted]
    if installer == "conda":
        if V.parse(V.minor(patch)) > V.parse(_data()["_meta"]["conda_last_release"]["version"]):
            return []  # PyTorch stopped publishing to the pytorch conda channel after 2.5
        table = r.get("conda_by_patch", {}).get(patch, r.get("conda"))  # None: not on conda
        if table is None or (osn == "macos" and variant not in (None, "cpu")):
            return []
        if osn == "macos" or variant == "cpu":
            extra = "-c pytorch" if osn == "macos" else "cpuonly -c pytorch"
        else:
            extra = table.get(variant or default_cuda(patch) or "")
        return ["conda install %s %s" % (_specs(pins, conda=True), extra)] if extra else []
    style = _data()["_meta"]["pip_styles"][r.get("pip_style_by_patch", {}).get(patch, r["pip_style"])]
    if osn == "macos":
        ok = variant in (None, "cpu") and style.get("macos", True)
        return ["pip install " + _specs(pins)] if ok else []
    x86 = str(machine or "x86_64").lower() in ("x86_64", "amd64")
    pypi_wheel = variant is None or (osn == "linux" and x86 and variant == default_cuda(patch))
    if pypi_wheel and style.get("on_pypi", True):
        return ["pip install " + _specs(pins)]
    variant = variant or (default_cuda(patch) if osn == "linux" else "cpu")  # 1.8.2 LTS: not on PyPI
    rocm = r.get("rocm_by_patch", {}).get(patch, r["rocm"])
    rocm = rocm if osn == "linux" and style.get("rocm", True) else []
    if variant not in cuda_variants(patch) + ["cpu"] + ["rocm" + x for x in rocm]:
        return []
    specs = _specs(pins, tag=variant if style["local_tags"] else "")
    return ["pip install %s %s" % (specs, style["args"].format(variant=variant))]


def source(key: Any) -> Optional[str]:
    """Full citation of a source key; "A+B" joins several with "; "."""
    sources = _data()["_meta"]["sources"]
    parts = [p for p in str(key or "").split("+") if p]
    if not parts or any(p not in sources for p in parts):
        return None
    return "; ".join(sources[p] for p in parts)
