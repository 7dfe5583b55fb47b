"""CUDA wheel variants and drivers: the variants of a release and its PyPI default, a
variant's toolkit and driver floors, the minimum driver of a toolkit (minor-version
compatibility included), and which driver runs which CUDA.
"""

import copy
import re
from typing import Any, Dict, List, Optional

from ...model import versions as V
from .releases import known_releases
from .tables import data, os_name, release_row


def cuda_key(variant: str):
    """Sort key of a CUDA variant: the release tuple of its CUDA version."""
    return V.parse(cuda_of_variant(variant)).release


def cuda_variants(torch_version: Any) -> List[str]:
    """CUDA wheel variants of that release (per patch where they differed, e.g. 1.8.1)."""
    r = release_row(torch_version)
    return list(r.get("cuda_by_patch", {}).get(V.patch(torch_version) or "", r["cuda"])) if r else []


def default_cuda(torch_version: Any) -> Optional[str]:
    """Variant of the Linux x86_64 wheel on PyPI; None where the sources did not confirm it."""
    r = release_row(torch_version)
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
    e = data()["variants"].get(str(variant or ""))
    if not e:
        return None
    out, rels = copy.deepcopy(e), data()["releases"]
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
    osn, v = os_name(os), V.parse(cuda_version)
    tk = data()["toolkits"].get(V.minor(v) or "") if osn in ("linux", "windows") else None
    if tk is None:
        return None
    e = tk.get("updates", {}).get(V.patch(v) or "", tk)  # unknown patch (12.4.131): the GA
    mvc = data()["mvc"].get(str(v.release[0])) if v.release[0] >= 11 else None
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
    d, osn = V.parse(driver_version), os_name(os)
    if d is None or osn not in ("linux", "windows"):
        return None
    best = None
    for minor, tk in sorted(data()["toolkits"].items(), key=lambda kv: V.parse(kv[0]).release):
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
    d, osn = V.parse(driver_version), os_name(os)
    if d is None or osn not in ("linux", "windows"):
        return None
    variants = [v for v in cuda_variants(torch_version) if v in data()["variants"]]
    for v in sorted(variants, key=cuda_key, reverse=True):
        if _runs_on(d, data()["variants"][v][osn]):
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
