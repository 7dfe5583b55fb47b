"""The status texts of the CUDA libraries, as torch prints them.

cudaGetErrorString and ncclGetErrorString are tables of numbered codes: the library is
copied out of its wheel into a temporary folder and asked for each code (ctypes; the
functions need no GPU and no driver). cuDNN's statuses are names (CUDNN_STATUS_...), read
from the library's strings like torch's own cuBLAS/cuSOLVER names, without running anything.
"""

import ctypes
import os
import re
import shutil
import tempfile
from typing import Iterable, List, Optional, Tuple

from .binstrings import strings

# Codes asked for, per function: the CUDA runtime's are below 1000 (cudaErrorUnknown is 999);
# NCCL's ncclResult_t has fewer than 20.
CODES = {"cudaGetErrorString": range(0, 1000), "ncclGetErrorString": range(0, 32)}


def _ask(lib_path: str, func: str, codes: Iterable[int]) -> List[Tuple[int, str]]:
    """(code, text) from a `const char *f(int)` of a library, the library's "unknown code"
    answer left out."""
    lib = ctypes.CDLL(lib_path)
    f = getattr(lib, func)
    f.restype = ctypes.c_char_p
    f.argtypes = [ctypes.c_int]
    unknown = f(123456)
    out = []
    for code in codes:
        text = f(code)
        if text and text != unknown:
            out.append((code, text.decode("utf-8", "replace")))
    return out


def table(archive, member: str, func: str, codes: Optional[Iterable[int]] = None) -> List[Tuple[int, str]]:
    """Ask `func` of the library `member` of `archive` for each code (default: CODES[func])."""
    tmp = tempfile.mkdtemp(prefix="catalogue-lib-")
    try:
        path = os.path.join(tmp, os.path.basename(member))
        with archive.open(member) as src, open(path, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        return _ask(path, func, CODES[func] if codes is None else codes)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def names(stream, pattern: str) -> List[str]:
    """The distinct status names (a regex such as CUDNN_STATUS_[A-Z0-9_]+) in a binary."""
    rx = re.compile(pattern)
    found = set()
    for s in strings(stream, min_len=8):
        found.update(rx.findall(s))
    return sorted(found)
