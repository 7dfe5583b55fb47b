"""Bandwidth as nccl-tests defines it (pure).

From nccl-tests' doc/PERFORMANCE.md (https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):
``algbw = S / t``, where S is the size of the whole array (for all_gather the gathered
output, ``sendcount * sizeof(type) * n``), and the bus bandwidth, comparable with the
hardware's peak whatever the rank count, is ``busbw = algbw * factor``:
all_reduce 2(n-1)/n, reduce_scatter (n-1)/n, all_gather (n-1)/n, broadcast 1, reduce 1.
Bandwidths are in GB/s of 10^9 bytes, as nccl-tests prints them.
"""

import re
from typing import List, Optional

SOURCE = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"
FORMULA = {"all_reduce": "2(n-1)/n", "all_gather": "(n-1)/n", "reduce_scatter": "(n-1)/n", "broadcast": "1",
           "reduce": "1"}

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "KB": 1 << 10, "KIB": 1 << 10, "M": 1 << 20, "MB": 1 << 20,
          "MIB": 1 << 20, "G": 1 << 30, "GB": 1 << 30, "GIB": 1 << 30}


def bus_factor(op: str, n: int) -> float:
    if n < 1:
        raise ValueError("rank count must be positive")
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        return (n - 1) / float(n)
    if op in ("broadcast", "reduce"):
        return 1.0
    raise ValueError("no bus-bandwidth factor for %r" % op)


def algbw(size_bytes: int, seconds: float) -> Optional[float]:
    """GB/s (10^9 bytes per second); None for a time that is not positive."""
    if not seconds or seconds <= 0:
        return None
    return size_bytes / seconds / 1e9


def busbw(op: str, size_bytes: int, seconds: float, n: int) -> Optional[float]:
    a = algbw(size_bytes, seconds)
    return None if a is None else a * bus_factor(op, n)


def parse_size(text: str) -> int:
    """'64K', '1M', '1GiB', '4096' -> bytes (binary units, as nccl-tests' -b/-e)."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([A-Za-z]*)\s*", text or "")
    if not m or m.group(2).upper() not in _UNITS:
        raise ValueError("%r is not a size (use e.g. 64K, 16M, 1G)" % text)
    value = float(m.group(1)) * _UNITS[m.group(2).upper()]
    if value < 4 or value != int(value):
        raise ValueError("%r: a size must be a whole number of bytes, at least 4" % text)
    return int(value)


def parse_sizes(text: str) -> List[int]:
    sizes = sorted({parse_size(part) for part in (text or "").split(",") if part.strip()})
    if not sizes:
        raise ValueError("no message sizes given")
    return sizes


def human_size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return "%d %s" % (n // scale, unit)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return "%.1f %s" % (n / scale, unit)
    return "%d B" % n
