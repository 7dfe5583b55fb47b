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
Running it twice gives the same file while PyPI publishes nothing new.
"""

import argparse
import json
import os
import re
import struct
import sys
import urllib.request
from typing import Dict, List, Optional, Tuple

SIMPLE = "https://pypi.org/simple/torch/"
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, os.pardir, "torchdoctor", "kb", "data", "torch_modules.json")
EXTENSION = re.compile(r"([A-Za-z_]\w*)(?:\.(?:cpython-[\w-]+|abi3|cp\d+[\w-]*))?\.pyd$|([A-Za-z_]\w*)\.(?:cpython-[\w-]+|abi3)\.so$")
FINAL = re.compile(r"torch-(\d+)\.(\d+)\.(\d+)-cp3\d+-[\w]+-(?:manylinux[\w.]*x86_64|linux_x86_64)\.whl$")


def _get(url: str, start: int, end: Optional[int] = None) -> bytes:
    req = urllib.request.Request(url, headers={"Range": "bytes=%d-%s" % (start, "" if end is None else end)})
    with urllib.request.urlopen(req, timeout=120) as r:
        return r.read()


def wheel_names(url: str, size: int) -> List[str]:
    """The member names of a remote zip, from its end-of-central-directory record and the
    directory it points at (no zip64 needed: torch wheels have a few thousand members)."""
    tail = _get(url, max(0, size - 65536 - 22))
    at = tail.rfind(b"PK\x05\x06")
    if at < 0:
        raise ValueError("%s: no end-of-central-directory record" % url)
    cd_size, cd_offset = struct.unpack("<II", tail[at + 12:at + 20])
    cd = _get(url, cd_offset, cd_offset + cd_size - 1)
    names, p = [], 0
    while cd[p:p + 4] == b"PK\x01\x02":
        n, extra, comment = struct.unpack("<HHH", cd[p + 28:p + 34])
        names.append(cd[p + 46:p + 46 + n].decode("utf-8", "replace"))
        p += 46 + n + extra + comment
    return names


def modules(names: List[str]) -> List[str]:
    """Importable module names under torch/: packages, .py modules and compiled ones (_C)."""
    out = set()
    for name in names:
        if not name.startswith("torch/"):
            continue
        parts = name.split("/")
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
            out.add(".".join(path))
    return sorted(out)


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


def history(per_release: Dict[str, List[str]]) -> Dict[str, List[Optional[str]]]:
    """module -> [first minor with it, last minor with it or None while the newest has it]. A
    module that left and came back keeps its first and last sightings."""
    order = sorted(per_release, key=lambda s: tuple(int(x) for x in s.split(".")))
    newest = order[-1]
    seen: Dict[str, List[Optional[str]]] = {}
    for minor in order:
        for mod in per_release[minor]:
            if mod in seen:
                seen[mod][1] = minor
            else:
                seen[mod] = [minor, minor]
    return {m: [first, None if last == newest else last] for m, (first, last) in sorted(seen.items())}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    try:
        found = releases()
        per_release, wheels = {}, {}
        for (major, minor), (version, url, size) in sorted(found.items()):
            if major < 1:
                continue
            per_release["%d.%d" % (major, minor)] = modules(wheel_names(url, size))
            wheels["%d.%d" % (major, minor)] = url.rsplit("/", 1)[-1]
    except (OSError, ValueError) as e:
        print("torch_modules: %s" % e, file=sys.stderr)
        return 2
    data = {"_meta": {"source": "file lists of the torch wheels on PyPI (newest patch of each minor, Linux x86_64)",
                      "generated_by": "tools/torch_modules.py", "wheels": wheels,
                      "releases": sorted(per_release, key=lambda s: tuple(int(x) for x in s.split(".")))},
            "modules": history(per_release)}
    with open(args.out, "w", encoding="utf-8") as fh:
        json.dump(data, fh, indent=0, sort_keys=False, separators=(",", ":"))
        fh.write("\n")
    print("%d modules over %d releases -> %s" % (len(data["modules"]), len(per_release), os.path.relpath(args.out)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
