"""Which mount a path is on, and what kind (Linux: /proc/self/mounts): a network or FUSE file
system under site-packages makes `import torch` slow, a noexec one under the inductor cache
makes compiled kernels unloadable."""

import os
import re
from typing import Any, Dict, List, Optional, Tuple

MOUNTS = "/proc/self/mounts"
# File systems whose reads leave the machine (or a user-space daemon): every cold file open
# and page of a shared library is a round trip.
NETWORK_FS = ("nfs", "nfs4", "cifs", "smb3", "smbfs", "9p", "afs", "lustre", "gpfs", "beegfs", "ceph",
              "glusterfs", "virtiofs", "davfs", "sshfs", "wekafs", "panfs", "orangefs")


def _unescape(field: str) -> str:
    # /proc/mounts writes space, tab, newline and backslash in paths as \040-style octal
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def read_mounts(path: str = MOUNTS) -> List[Tuple[str, str, List[str]]]:
    """(mount point, file system type, options) of every mount, in the kernel's order."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = fh.read().splitlines()
    except OSError:
        return []
    out = []
    for line in lines:
        parts = line.split()
        if len(parts) >= 4:
            out.append((_unescape(parts[1]), parts[2], parts[3].split(",")))
    return out


def is_network(fstype: str) -> bool:
    return fstype in NETWORK_FS or fstype.startswith("fuse")


def mount_of(path: str, mounts: Optional[List[Tuple[str, str, List[str]]]] = None) -> Optional[Dict[str, Any]]:
    """The mount holding `path` (the longest mount point it lies under; the last such
    mount wins, as later mounts hide earlier ones), or None where mounts cannot be read."""
    mounts = read_mounts() if mounts is None else mounts
    if not mounts:
        return None
    real = os.path.realpath(path)
    best = None
    for point, fstype, options in mounts:
        under = real == point or real.startswith(point.rstrip("/") + "/")
        if under and (best is None or len(point) >= len(best[0])):
            best = (point, fstype, options)
    if best is None:
        return None
    point, fstype, options = best
    return {"mount_point": point, "fstype": fstype, "network": is_network(fstype),
            "noexec": "noexec" in options, "read_only": "ro" in options}
