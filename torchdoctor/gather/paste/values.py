"""One value of a collect_env field: "not collected", yes/no, a package name, the int
torch.backends.cudnn.version() reports, a compute capability."""

import re
from typing import List, Optional

_NOT_COLLECTED = ("could not collect", "n/a", "no cuda", "none", "", "no relevant packages", "not available")


def missing(value: str) -> bool:
    """Whether the value is collect_env's way of saying "not there" (Could not collect, N/A, No CUDA...)."""
    return value.strip().lower() in _NOT_COLLECTED


def as_bool(value: str) -> Optional[bool]:
    """Yes/True -> True, No/False -> False, anything else None."""
    v = value.strip().lower()
    if v in ("yes", "true"):
        return True
    if v in ("no", "false"):
        return False
    return None


def norm_name(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name.strip()).lower().strip("-")


def cudnn_int(text: str) -> Optional[int]:
    """'9.1.0' -> 90100, '8.9.2.26' -> 8902, '7.6.5' -> 7605: what torch.backends.cudnn.version() says.

    cuDNN 9 encodes major*10000 + minor*100 + patch, earlier ones major*1000 +
    minor*100 + patch. A version without a patch level is not guessed at.
    """
    m = re.match(r"^\s*(\d+)\.(\d+)\.(\d+)", text or "")
    if not m:
        m2 = re.match(r"^\s*(\d{4,6})\s*$", text or "")
        return int(m2.group(1)) if m2 else None
    major, minor, patch = (int(x) for x in m.groups())
    if minor > 99 or patch > 99:
        return None
    return major * (10000 if major >= 9 else 1000) + minor * 100 + patch


def capability_of(cc: str) -> Optional[List[int]]:
    """'sm_90' digits '90' -> [9, 0]; '120' -> [12, 0]; '86' -> [8, 6]."""
    if not cc.isdigit() or len(cc) < 2:
        return None
    return [int(cc[:-1]), int(cc[-1])]
