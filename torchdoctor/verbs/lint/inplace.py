"""Rewriting a user's file in place without damaging it (what `lint --fix` writes through).

Before anything is computed, `target` says which file a path stands for, or why it is left
alone (Refused, one line): a symbolic link is followed to its target when that lies inside a
tree being linted (the link stays a link), and refused when it leads out of it; a file that is
not a regular file, a read-only file and a file over FIX_MAX_BYTES are refused.

`read_scanned` returns the bytes only if they are still those the scan read (the digest it
recorded): a file edited, checked out or regenerated since is refused, never rewritten with
positions found in other content. `replace` looks once more, immediately before it writes:

- normally, atomically: the new content goes to a temporary file created beside the original
  (mkstemp: O_EXCL, mode 0600), is flushed and fsynced, gets the original's owner, group and
  permission bits, and is renamed over it; the directory is then fsynced. A reader sees the old
  file or the new one, never a mix, and a failure leaves the original as it was;
- a file with several hard links, or whose owner cannot be given to a new file (a file of
  another user that this one may write), is written in place: the same inode truncated and
  rewritten, so every name of it sees the fix and its owner stays, as editors do. That write is
  not atomic: a crash in the middle of it may leave the file cut short.
"""

import hashlib
import os
import stat
import tempfile
from typing import List

# A rewrite costs LibCST about 40 s of CPU and 0.7 GB per MB of source (1.0 MB: 38 s, 730 MB
# here), and that is what a file over this limit would cost. The largest module of torch 2.13
# is 1.4 MB (testing/_internal/common_methods_invocations.py, tables), every other one 0.53 MB
# or less: code past 1 MiB is tables or generated, and its generator is what to fix. Larger files are linted all the same (the scan's memory does
# not grow with the file), not rewritten.
FIX_MAX_BYTES = 1 << 20


class Refused(Exception):
    """Why a file is not rewritten (one line, without the path)."""


def tree_roots(paths: List[str]) -> List[str]:
    """The real directories being linted: each directory named, and the one holding each file
    named (a link there may point to its neighbours, not elsewhere)."""
    roots = []
    for p in paths:
        d = p if os.path.isdir(p) else os.path.dirname(os.path.abspath(p))
        roots.append(os.path.realpath(d))
    return roots


def _inside(path: str, roots: List[str]) -> bool:
    return any(path == r or path.startswith(r.rstrip(os.sep) + os.sep) for r in roots)


def target(path: str, roots: List[str]) -> str:
    """The real file `path` stands for, to read and rewrite; Refused says why not."""
    real = path
    if os.path.islink(path):
        real = os.path.realpath(path)
        if not _inside(real, roots):
            raise Refused("a symbolic link to %s, outside the linted tree" % real)
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode):
        raise Refused("not a regular file")
    if _read_only(real, st):
        raise Refused("read-only")
    if st.st_size > FIX_MAX_BYTES:
        raise Refused("%d bytes, over the %d MiB limit of --fix and --diff" % (st.st_size, FIX_MAX_BYTES >> 20))
    return real


def _read_only(path: str, st: os.stat_result) -> bool:
    # The write bits, not only access(): root may write anything, but a file made read-only
    # (chmod a-w) says "do not change this" to every user, root included.
    if not st.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        return True
    if st.st_uid == getattr(os, "geteuid", lambda: -1)() and not st.st_mode & stat.S_IWUSR:
        return True
    return not os.access(path, os.W_OK)


def digest(data: bytes) -> str:
    """What the scan records of a file's bytes (lintfile), compared before a rewrite."""
    return hashlib.sha256(data).hexdigest()


CHANGED = "changed since it was scanned"


def read_scanned(real: str, scanned_digest: str) -> bytes:
    with open(real, "rb") as f:
        data = f.read(FIX_MAX_BYTES + 1)
    if digest(data) != scanned_digest:
        raise Refused(CHANGED)
    return data


def replace(real: str, scanned_digest: str, new: bytes) -> None:
    """Write `new` over `real` if it still holds what was scanned (see the module doc)."""
    st = os.stat(real)
    if st.st_nlink > 1:
        _write_in_place(real, scanned_digest, new)
        return
    directory = os.path.dirname(real)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(real)[:64] + ".", suffix=".torchdoctor.tmp",
                               dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(new)
            f.flush()
            os.fsync(f.fileno())
        if not _give_owner(tmp, st):  # keep the inode, and with it the owner, instead
            os.unlink(tmp)
            tmp = None
            _write_in_place(real, scanned_digest, new)
            return
        os.chmod(tmp, stat.S_IMODE(st.st_mode))  # after chown, which clears the set-id bits
        read_scanned(real, scanned_digest)  # the last look, just before the rename
        os.replace(tmp, real)
        tmp = None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
    _fsync_dir(directory)


def _give_owner(tmp: str, st: os.stat_result) -> bool:
    """Give the new file the old one's owner and group; False when that is not allowed."""
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) == (st.st_uid, st.st_gid) or not hasattr(os, "chown"):
        return True
    try:
        os.chown(tmp, st.st_uid, st.st_gid)
    except OSError:
        return False
    return True


def _write_in_place(real: str, scanned_digest: str, new: bytes) -> None:
    with open(real, "r+b") as f:
        if digest(f.read(FIX_MAX_BYTES + 1)) != scanned_digest:
            raise Refused(CHANGED)
        f.seek(0)
        f.write(new)
        f.truncate()
        f.flush()
        os.fsync(f.fileno())


def _fsync_dir(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot: the rename itself is done
    finally:
        os.close(fd)
