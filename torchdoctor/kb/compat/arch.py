"""GPU architectures: the arch list of a release's variant, whether a GPU of a compute
capability runs a build (torch's DEVICE_REQUIREMENT rules, Jetson exceptions), the
variants and newest release for a GPU, and the GPU family's name.
"""

import copy
import re
from typing import Any, List, Optional, Tuple

from ...model import versions as V
from .cuda import cuda_key, cuda_of_variant, cuda_variants, driver_supports_cuda
from .releases import known_releases
from .tables import data, parse_cc, release_row


def arch_info(torch_version: Any, variant: Any) -> Optional[dict]:
    """The whole arch entry (x86_64/aarch64 lists, verified flag, source, notes), guesses included."""
    e = data()["arch"].get(V.minor(torch_version) or "", {}).get(str(variant))
    return copy.deepcopy(e) if e else None


def arch_list(torch_version: Any, variant: Any) -> Optional[List[str]]:
    """torch.cuda.get_arch_list() of the Linux x86_64 wheel ([] for cpu); None if unknown or
    unverified. PTX the sources could not confirm (2.12+ cu130/cu132) is left out."""
    if variant == "cpu":
        return [] if release_row(torch_version) else None
    e = data()["arch"].get(V.minor(torch_version) or "", {}).get(str(variant))
    return list(e["x86_64"]) if e and e["verified"] else None


def _cubin_runs(code: int, device: Tuple[int, int], cuda: Optional[str]) -> bool:
    rule = data()["device_requirement"]["rules"].get(str(code), {})
    dev = "%d.%d" % device
    if "only" in rule:  # Jetson/iGPU codes and the 10.1 -> 11.0 rename
        return dev in rule["only"]
    if dev in rule.get("except", []):
        lifted = V.parse(rule.get("except_lifted_from_cuda"))
        if not (lifted and V.parse(cuda) and V.parse(cuda) >= lifted):
            return False
    return device[0] == code // 10 and device[1] >= code % 10  # SASS: same major, minor forward


def _supported(arches: Any, capability: Any, cuda: Optional[str] = None) -> bool:
    dev = parse_cc(capability)
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
            return minor, max(vs, key=cuda_key)
    return newest_release_supporting_cc(capability, releases=releases) if driver_version else None


def gpu_family(capability: Any) -> Optional[str]:
    dev = parse_cc(capability)
    e = data()["gpu_families"].get("%d.%d" % dev) if dev else None
    return e["name"] if e else None
