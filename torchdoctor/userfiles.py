"""The files a user names: reading them (a saved report for `check --from`, `diff` and
`triage`, a log for `explain --file`, a tune result for `tune --from`) and writing every file
a user names for output (`report -o`, `lint -o`, `tune`/`dist --report`, `run --report`/`--json
PATH`, pytest's `--torchdoctor-report`, IPython's `%torchdoctor report -o`): `write_output`, the
one writer. What a saved report's facts are is gather/saved.py's business; this module only
gets its bytes safely.

One way to open a user-given file, `open_input`, for every verb:

* ``-`` is standard input (refused when it is a terminal: nothing was piped);
* a directory, a missing file, a socket or a device (`/dev/zero` never ends, a
  terminal waits for typing) is a one-line error;
* a pipe or process substitution (`--from <(cat report.json)`, `/dev/fd/63`) is read
  to its end: its size of 0 says nothing (only a regular file's size is trusted);
* a named pipe (FIFO) is opened without blocking: a writer that is there is waited
  for as long as it writes (a slow `<(torchdoctor report --format json)`), but with no
  writer at all the wait for one is `FIFO_WAIT_S` seconds, then a one-line error;
* every read is bounded (`<(cat /dev/zero)`, a 200 MB file): the first bytes decide
  "binary", and more than the limit is an error without reading the rest.
"""

import json
import os
import stat
import sys
from typing import IO, Optional

MAX_REPORT_BYTES = 64 * 1024 * 1024
FIFO_WAIT_S = 10.0  # how long a named pipe with no writer is waited for
CHUNK = 1 << 20
HEAD = 4096  # the bytes that decide "binary"


def display_name(path: str) -> str:
    return "standard input" if path == "-" else path


def _cannot_read(path: str, e: OSError) -> ValueError:
    return ValueError("cannot read %s: %s" % (display_name(path), e.strerror or e))


class _Reader:
    """A binary reader over a descriptor, with bytes already read in front of it, that
    closes only what it opened (standard input stays open)."""

    def __init__(self, fh: IO[bytes], head: bytes = b"", close: bool = True):
        self.fh, self.head, self._close = fh, head, close

    def read(self, n: int = -1) -> bytes:
        if self.head:
            if n is None or n < 0:
                out, self.head = self.head + (self.fh.read() or b""), b""
                return out
            out, self.head = self.head[:n], self.head[n:]
            if len(out) < n:
                out += self.fh.read(n - len(out)) or b""
            return out
        return self.fh.read(n) if n is not None else self.fh.read()

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self.fh.fileno()

    def close(self) -> None:
        if self._close:
            self.fh.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _open_fifo(path: str, wait: float) -> _Reader:
    """A named pipe, without blocking on a writer that never comes (see the module doc)."""
    import select
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        try:
            head = os.read(fd, CHUNK)
        except BlockingIOError:  # a writer is there, still writing: wait for it as long as it takes
            head = b""
        else:
            if not head:  # nobody writes now: wait a while for a writer to come and write
                ready, _, _ = select.select([fd], [], [], wait)
                if not ready:
                    raise ValueError("%s is a pipe with no writer: nothing came in %g s (start the program "
                                     "that writes it first, or give a file)" % (path, wait))
                try:
                    head = os.read(fd, CHUNK)
                except BlockingIOError:
                    head = b""
        os.set_blocking(fd, True)
        return _Reader(os.fdopen(fd, "rb"), head)
    except BaseException:
        os.close(fd)
        raise


def open_input(path: str, kind: str = "report", fifo_wait: Optional[float] = None) -> _Reader:
    """A binary reader on a user-given path ('-' for standard input), or ValueError with
    one line that says why not (every verb that reads a file answers the same way)."""
    if path == "":
        raise ValueError("an empty file name: give a %s file, or - for standard input" % kind)
    if path == "-":
        stdin = getattr(sys.stdin, "buffer", None)
        if stdin is None:
            raise ValueError("standard input cannot be read")
        if sys.stdin.isatty():
            raise ValueError("standard input is a terminal: pipe the %s into it, or give a file" % kind)
        return _Reader(stdin, close=False)
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ValueError("no such file: %s" % path)
    except OSError as e:
        raise _cannot_read(path, e)
    if stat.S_ISDIR(st.st_mode):
        raise ValueError("%s is a directory, not a %s" % (path, kind))
    try:
        if stat.S_ISFIFO(st.st_mode) and hasattr(os, "O_NONBLOCK"):
            return _open_fifo(path, FIFO_WAIT_S if fifo_wait is None else fifo_wait)
        if stat.S_ISSOCK(st.st_mode):
            raise ValueError("%s is a socket, not a %s" % (path, kind))
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
            # /dev/zero never ends, a terminal waits for typing, a disk is not a report
            raise ValueError("%s is a device, not a %s file" % (path, kind))
        fh = open(path, "rb")
    except OSError as e:
        raise _cannot_read(path, e)
    return _Reader(fh)


def read_bounded(fh, path: str, limit: int, binary_check: bool = False, kind: str = "report") -> bytes:
    """Up to `limit` + 1 bytes of an open input (so a caller can tell "more than the
    limit"), in chunks; with `binary_check`, NUL bytes at the start stop at once."""
    parts, got = [], 0
    try:
        while got <= limit:
            chunk = fh.read(min(CHUNK, limit + 1 - got))
            if not chunk:
                break
            if binary_check and not parts and _is_binary(chunk):
                raise ValueError("%s is a binary file, not a %s" % (path, kind))
            parts.append(chunk)
            got += len(chunk)
    except OSError as e:
        raise _cannot_read(path, e)
    return b"".join(parts)


def _is_binary(head: bytes) -> bool:
    return b"\x00" in head[:HEAD] and not head.startswith((b"\xff\xfe", b"\xfe\xff"))


def _regular_size(fh) -> Optional[int]:
    try:
        st = os.fstat(fh.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_size if stat.S_ISREG(st.st_mode) else None


def read_head(path: str, limit: int, kind: str = "report") -> bytes:
    """Up to `limit` bytes of a user-given file (ValueError with one line on failure)."""
    with open_input(path, kind) as fh:
        return read_bounded(fh, display_name(path), limit)[:limit]


def _too_big(path: str, limit: int, kind: str) -> ValueError:
    return ValueError("%s is over %d MB; a torchdoctor %s is far smaller" % (path, limit // 2 ** 20, kind))


def read_report_bytes(path: str, limit: int = MAX_REPORT_BYTES, kind: str = "report") -> bytes:
    """The bytes of a report file, or ValueError with a one-line reason."""
    name = display_name(path)
    with open_input(path, kind) as fh:
        size = _regular_size(fh)
        if size is not None and size > limit:  # a regular file's size is the truth: no need to read it
            raise _too_big(name, limit, kind)
        raw = read_bounded(fh, name, limit, binary_check=True, kind=kind)
    if len(raw) > limit:
        raise _too_big(name, limit, kind)
    if not raw:
        raise ValueError("%s is empty" % name)
    if _is_binary(raw):
        raise ValueError("%s is a binary file, not a %s" % (name, kind))
    return raw


def decode(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16", "replace")
    return raw.decode("utf-8-sig", "replace")


def parse_json_text(text: str, name: str):
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("%s nests JSON too deeply to be a torchdoctor report" % name)
    except json.JSONDecodeError as e:
        raise ValueError("%s is not JSON (%s: line %d, column %d)" % (name, e.msg, e.lineno, e.colno))
    except ValueError as e:  # an integer of more than 4300 digits, ...
        raise ValueError("%s is not JSON (%s)" % (name, str(e).split(":")[0]))


# -- writing ------------------------------------------------------------------------
def check_output(path: str, force: bool = False, what: str = "--output", forcible: bool = True):
    """Whether `path` may be written (ValueError with one line if not), before any work
    is done; `write_output` asks again when it writes. Returns its lstat, or None.
    `forcible`: the verb has a --force (the refusals then name it)."""
    if path == "":
        raise ValueError("%s needs a file name (or - for standard output)" % what)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        st = None
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (path, e.strerror or e))
    if st is None:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise ValueError("cannot write %s: no such directory %s" % (path, parent))
        return None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError("%s is a directory; give a file name for %s" % (path, what))
    if stat.S_ISLNK(st.st_mode) and not force:
        raise ValueError("%s is a symbolic link (to %s); torchdoctor does not write through links: give "
                         "another name%s" % (path, os.readlink(path),
                                             ", or --force to replace the link itself" if forcible else ""))
    if not stat.S_ISLNK(st.st_mode) and not stat.S_ISREG(st.st_mode) and not force:
        raise ValueError("%s is not a regular file (a pipe, device or socket)%s" % (
            path, "; --force writes into it" if forcible else ": give the name of a file"))
    return st


def write_output(path: str, text: str, force: bool = False, what: str = "--output", forcible: bool = True) -> None:
    """Write `text` (UTF-8) to a user-given path without harming anything else there.

    A regular file (or none) is replaced atomically: the text goes to a temporary file of a
    random name created in the same directory (mkstemp: O_EXCL, mode 0600, so a link planted
    at a name it could guess is never followed), which is then renamed over the target (a
    reader never sees half a report). An existing file of this user keeps its permissions (a
    0600 report stays 0600); a new one gets the umask's. A symbolic link is not followed (it
    may point anywhere: `~/.bashrc`); a FIFO, device or socket is not replaced. Both are
    refused unless `force`: then the link itself is replaced by the file (its target is left
    alone), and a FIFO or device is written into, opened without following a link that took
    its place since. `forcible`: the verb has a --force to offer. ValueError with one line on
    failure.
    """
    st = check_output(path, force, what, forcible)
    if st is not None and not stat.S_ISLNK(st.st_mode) and not stat.S_ISREG(st.st_mode):
        _write_into(path, text)  # --force on a pipe or device (replacing a device node is never meant)
        return
    _replace_atomically(path, text, st)


def _write_into(path: str, text: str) -> None:
    flags = os.O_WRONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (path, e.strerror or e))
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):  # a file put there since the check: not into it
            raise ValueError("cannot write %s: it turned into a regular file since it was checked" % path)
        data = text.encode("utf-8")
        while data:
            data = data[os.write(fd, data):]
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (path, e.strerror or e))
    finally:
        os.close(fd)


def _replace_atomically(path: str, text: str, old) -> None:
    import tempfile
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(dir=directory, prefix=".%s." % os.path.basename(path)[:64], suffix=".tmp")
    except OSError as e:
        raise ValueError("cannot write %s: %s" % (path, e.strerror or e))
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
            _set_mode(fh.fileno(), old)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise ValueError("cannot write %s: %s" % (path, e.strerror or e))


def _set_mode(fd: int, old) -> None:
    """The mode of the file being replaced when it is this user's (not its setuid/setgid/sticky
    bits: a report is none of those), else the umask's. On the descriptor: a name in the folder
    may be another file by now."""
    own = old is not None and stat.S_ISREG(old.st_mode) and (not hasattr(os, "geteuid") or old.st_uid == os.geteuid())
    mode = (old.st_mode & 0o777) if own else 0o666 & ~_umask()
    if hasattr(os, "fchmod"):
        os.fchmod(fd, mode)


def _umask() -> int:
    mask = os.umask(0o22)
    os.umask(mask)
    return mask
