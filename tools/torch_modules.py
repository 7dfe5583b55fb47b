#!/usr/bin/env python3
"""Which torch release added (and which removed) each of torch's modules, read from the file
lists of the wheels PyPI publishes: torchdoctor/kb/data/torch_modules.json.

A maintainer tool, not part of the test run: it needs PyPI. It reads no wheel whole: a wheel is a
zip whose file list (the central directory) sits at its end, so two HTTP range requests per
release give every file name (about 30 releases in a few seconds).

    python tools/torch_modules.py                       # every minor from 1.0, newest patch each
    python tools/torch_modules.py --out PATH            # write elsewhere

`No module named 'torch.distributed.algorithms.join'` then says which release the code needs
(1.10 and later) against the installed one; a module torch removed says the last release with it.
A module kept only as a file that raises ImportError (torch.utils.ffi from 1.0 to 1.11) counts as
absent there: the text of the removed modules' small files is read to tell. PyPI has no torch
before 1.0, so what 1.0 removed is listed by hand (REMOVED_IN_1_0, with sources). Each module
keeps the runs of releases that ship it (torch.optim.functional left after 1.7, came back in 2.15).
Running it twice gives the same file while PyPI publishes nothing new.
"""

import argparse
import json
import os
import re
import struct
import sys
import urllib.request
import zlib
from typing import Callable, Dict, List, Optional, Tuple

SIMPLE = "https://pypi.org/simple/torch/"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, os.pardir, "torchdoctor", "kb", "data", "torch_modules.json")
EXTENSION = re.compile(r"([A-Za-z_]\w*)(?:\.(?:cpython-[\w-]+|abi3|cp\d+[\w-]*))?\.pyd$|"
                       r"([A-Za-z_]\w*)\.(?:cpython-[\w-]+|abi3)\.so$")
FINAL = re.compile(r"torch-(\d+)\.(\d+)\.(\d+)-cp3\d+-[\w]+-(?:manylinux[\w.]*x86_64|linux_x86_64)\.whl$")
# What torch 1.0 removed, which no wheel on PyPI shows (PyPI's torch starts at 1.0.0).
REMOVED_IN_1_0 = {
    "torch.legacy": "https://github.com/pytorch/pytorch/issues/15062 (a maintainer: legacy was removed in 1.0)",
    "torch.utils.serialization": "https://github.com/pytorch/pytorch/issues/15307 (load_lua and its module, gone in "
                                 "1.0)",
    "torch.utils.ffi": "torch 1.0.1's wheel: torch/utils/ffi/__init__.py only raises ImportError (use cpp extensions)",
}
# A module kept only as a file that raises: comments or a docstring, then `raise ImportError(...)`.
STUB_MAX = 600
STUB_RE = re.compile(r"(?:\s*(?:#[^\n]*|\"\"\"[\s\S]*?\"\"\"))*\s*raise ImportError\((?P<msg>[^\n]*)\)\s*")


def _get(url: str, start: int, end: Optional[int] = None) -> bytes:
    req = urllib.request.Request(url, headers={"Range": "bytes=%d-%s" % (start, "" if end is None else end)})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.read()


class Member:
    """One file of a remote zip: its name, and where its bytes are (read for a small file only)."""

    def __init__(self, name: str, method: int = 0, csize: int = 0, size: int = 0, offset: int = 0):
        self.name, self.method, self.csize, self.size, self.offset = name, method, csize, size, offset


def wheel_members(url: str, size: int) -> List[Member]:
    """The members of a remote zip, from its end-of-central-directory record and the directory it
    points at (no zip64 needed: torch wheels have a few thousand members)."""
    tail = _get(url, max(0, size - 65536 - 22))
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise ValueError("%s: no end-of-central-directory record" % url)
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12:at + 20])
    cd = _get(url, cd_offset, cd_offset + cd_size - 1)
    out, p = [], 0
    while cd[p:p + 4] == b"PK\x01\x02":
        method, = struct.unpack("<H", cd[p + 10:p + 12])
        csize, usize, n, extra, comment = struct.unpack("<IIHHH", cd[p + 20:p + 34])
        offset, = struct.unpack("<I", cd[p + 42:p + 46])
        out.append(Member(cd[p + 46:p + 46 + n].decode("utf-8", "replace"), method, csize, usize, offset))
        p += 46 + n + extra + comment
    return out


def member_text(url: str, m: Member) -> str:
    """A member's text: past its local header, its stored or deflated bytes."""
    head = _get(url, m.offset, m.offset + 29)
    n, extra = struct.unpack("<HH", head[26:30])
    start = m.offset + 30 + n + extra
    raw = _get(url, start, start + m.csize - 1) if m.csize else b""
    return (zlib.decompress(raw, -15) if m.method == 8 else raw).decode("utf-8", "replace")


def stub_message(text: str) -> Optional[str]:
    """The message of a module that only raises ImportError; None for any other module."""
    m = STUB_RE.fullmatch(text)
    return m.group("msg").strip("\"' ") if m else None


def modules(members: List[Member]) -> Dict[str, Member]:
    """Importable module names under torch/ (packages, .py modules, compiled ones such as _C), each
    with the file that makes it."""
    out: Dict[str, Member] = {}
    for m in members:
        if not m.name.startswith("torch/"):
            continue
        parts = m.name.split("/")
        leaf = parts[-1]
        if leaf.endswith(".py"):
            stem = leaf[:-3]
        elif EXTENSION.match(leaf):
            # an extension module carries its ABI tag (_C.cpython-311-x86_64-linux-gnu.so, _C.pyd);
            # torch/lib's shared libraries (libc10.so) are no modules
            got = EXTENSION.match(leaf)
            stem = got.group(1) or got.group(2)
        else:
            continue
        path = parts[:-1] + ([] if stem == "__init__" else [stem])
        if all(re.fullmatch(r"[A-Za-z_]\w*", p) for p in path):
            out[".".join(path)] = m
    return out


def releases() -> Dict[Tuple[int, int], Tuple[str, str, int]]:
    """(major, minor) -> (version, wheel url, size) of its newest patch's Linux x86_64 wheel."""
    req = urllib.request.Request(SIMPLE, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
    with urllib.request.urlopen(req, timeout=120) as r:
        files = json.load(r)["files"]
    best: Dict[Tuple[int, int], Tuple[Tuple[int, int, int], str, int]] = {}
    for f in files:
        m = FINAL.match(f["filename"])
        if not m or f.get("yanked"):
            continue
        v = tuple(int(x) for x in m.groups())
        key = v[:2]
        if key not in best or v > best[key][0]:
            best[key] = (v, f["url"], f["size"])
    return {k: ("%d.%d.%d" % v, url, size) for k, (v, url, size) in best.items()}


def _order(minors) -> List[str]:
    return sorted(minors, key=lambda s: tuple(int(x) for x in s.split(".")))


def history(per_release: Dict[str, List[str]]) -> Dict[str, List[List[Optional[str]]]]:
    """module -> its runs of releases, [[first, last], ...], oldest first; the last run's end is
    None while the newest release has the module."""
    order = _order(per_release)
    has = {minor: set(mods) for minor, mods in per_release.items()}
    out: Dict[str, List[List[Optional[str]]]] = {}
    for mod in sorted(set().union(*has.values())):
        runs: List[List[Optional[str]]] = []
        for i, minor in enumerate(order):
            if mod not in has[minor]:
                continue
            if runs and runs[-1][1] == order[i - 1]:
                runs[-1][1] = minor
            else:
                runs.append([minor, minor])
        if runs[-1][1] == order[-1]:
            runs[-1][1] = None
        out[mod] = runs
    return out


def drop_stubs(per_release: Dict[str, Dict[str, Member]], urls: Dict[str, str],
               read: Callable[[str, Member], str] = member_text) -> Dict[str, str]:
    """Take out of each release the modules it keeps only as a file that raises ImportError, and
    return each stub's message. Only the small files of modules the newest release lacks are read."""
    newest = _order(per_release)[-1]
    stubs: Dict[str, str] = {}
    for minor in _order(per_release):
        mods = per_release[minor]
        for mod, m in list(mods.items()):
            if mod in per_release[newest] or not m.size or m.size > STUB_MAX:
                continue
            msg = stub_message(read(urls[minor], m))
            if msg is not None:
                stubs[mod] = msg
                del mods[mod]
    return stubs


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    try:
        found = releases()
        per_release, wheels, urls = {}, {}, {}
        for (major, minor), (version, url, size) in sorted(found.items()):
            key = "%d.%d" % (major, minor)
            per_release[key] = modules(wheel_members(url, size))
            wheels[key], urls[key] = url.rsplit("/", 1)[-1], url
        stubs = drop_stubs(per_release, urls)
    except (OSError, ValueError, zlib.error) as e:
        print("torch_modules: %s" % e, file=sys.stderr)
        return 2
    data = {"_meta": {"source": "file lists of the torch wheels on PyPI (newest patch of each minor, Linux x86_64)",
                      "generated_by": "tools/torch_modules.py", "wheels": wheels, "releases": _order(per_release)},
            "removed_in_1_0": REMOVED_IN_1_0, "stubs": dict(sorted(stubs.items())),
            "modules": history({k: list(v) for k, v in per_release.items()})}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=False, separators=(",", ":"))
        fh.write("\n")
    print("%d modules over %d releases, %d stubs -> %s" % (len(data["modules"]), len(per_release), len(stubs),
                                                          os.path.relpath(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
