"""Other pins of a release: NumPy 2 support, the triton requirement, and the cuDNN a variant
pins (with torch.backends.cudnn.version()'s integer encoding both ways).
"""

from typing import Any, Optional

from ...model import versions as V
from .cuda import default_cuda
from .tables import os_name, release_row


def numpy2_supported(torch_version: Any, os: str = "linux") -> Optional[bool]:
    r, osn = release_row(torch_version), os_name(os)
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
    r, v = release_row(torch_version), V.parse(torch_version)
    if not r or (v.local and not v.local.startswith("cu")):
        return None
    return r.get("triton", {}).get(V.patch(torch_version) or "")


def expected_cudnn(torch_version: Any, variant: Any = None) -> Optional[str]:
    """cuDNN the variant pins ("9.10.2.21"); variant None: the +cuXXX tag of torch_version,
    else the PyPI default. None where the sources disagree (2.11 cu130) or are silent."""
    r = release_row(torch_version)
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
