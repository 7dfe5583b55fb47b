"""Wheels and sdists read as archives (never installed), and `pip download` to fetch them."""

import email.parser
import hashlib
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from typing import IO, Dict, Iterator, List, Optional, Tuple


class Archive:
    """A wheel (zip) or an sdist (.tar.gz, .zip) by its member names; an sdist's top folder
    (``flash_attn-2.8.3/``) is left out of the names, so both list ``flash_attn/...``."""

    def __init__(self, path: str):
        self.path = path
        self.filename = os.path.basename(path)
        self.is_wheel = path.endswith(".whl")
        self._zip: Optional[zipfile.ZipFile] = None
        self._tar: Optional[tarfile.TarFile] = None
        try:
            if path.endswith((".whl", ".zip")):
                self._zip = zipfile.ZipFile(path)
                raw = [(i.filename, i.file_size) for i in self._zip.infolist() if not i.is_dir()]
            elif path.endswith((".tar.gz", ".tgz", ".tar")):
                self._tar = tarfile.open(path)
                raw = [(m.name, m.size) for m in self._tar.getmembers() if m.isfile()]
            else:
                raise ValueError("%s: not a wheel or an sdist (.whl, .tar.gz, .zip)" % path)
        except (zipfile.BadZipFile, tarfile.TarError, EOFError) as e:
            raise ValueError("%s: not a readable archive (%s)" % (path, e))
        prefix = "" if self.is_wheel else _common_top(n for n, _ in raw)
        self._real = {n[len(prefix):]: n for n, _ in raw}
        self.sizes = {n[len(prefix):]: s for n, s in raw}

    def names(self) -> List[str]:
        return sorted(self._real)

    def open(self, name: str) -> IO[bytes]:
        real = self._real[name]
        if self._zip is not None:
            return self._zip.open(real)
        fh = self._tar.extractfile(real)  # type: ignore[union-attr]
        if fh is None:
            raise KeyError(name)
        return fh

    def read_text(self, name: str) -> str:
        with self.open(name) as fh:
            return fh.read().decode("utf-8", "replace")

    def metadata(self) -> Dict[str, object]:
        """Name, version and Requires-Dist of the distribution (a wheel's METADATA, an sdist's
        PKG-INFO); what it lacks is None / empty."""
        meta = next((n for n in self.names() if n.endswith(".dist-info/METADATA")), None) if self.is_wheel \
            else ("PKG-INFO" if "PKG-INFO" in self._real else None)
        if meta is None:
            return {"name": None, "version": None, "requires": []}
        msg = email.parser.Parser().parsestr(self.read_text(meta), headersonly=True)
        return {"name": msg.get("Name"), "version": msg.get("Version"), "requires": msg.get_all("Requires-Dist") or []}

    def close(self) -> None:
        (self._zip or self._tar).close()  # type: ignore[union-attr]


def _common_top(names: Iterator[str]) -> str:
    tops = {n.split("/", 1)[0] for n in names}
    return tops.pop() + "/" if len(tops) == 1 else ""


def sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


class DownloadError(Exception):
    """pip could not get a distribution; the message is pip's last error line."""


def pip_download(spec: str, dest: str, env: Optional[Dict[str, str]] = None, no_build_isolation: bool = False,
                 timeout: int = 1800) -> str:
    """`pip download --no-deps SPEC` into `dest` (pip's configuration is the maintainer's:
    indexes, find-links, constraints) and the path of the file it saved or found there."""
    os.makedirs(dest, exist_ok=True)
    before = set(os.listdir(dest))
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--progress-bar", "off", "-d", dest, spec]
    if no_build_isolation:
        cmd.insert(4, "--no-build-isolation")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=dict(os.environ, **(env or {})))
    except subprocess.TimeoutExpired:
        raise DownloadError("pip download %s timed out after %d s" % (spec, timeout))
    if p.returncode != 0:
        lines = [ln.strip() for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("WARNING: Location")]
        errors = [ln for ln in lines if ln.startswith(("ERROR", "error"))]
        raise DownloadError((errors or lines or ["pip exited with status %d" % p.returncode])[-1])
    saved = re.findall(r"(?:Saved|File was already downloaded) (\S+)", p.stdout)
    if saved:
        return os.path.abspath(saved[-1])
    new = sorted(set(os.listdir(dest)) - before)
    if new:
        return os.path.join(dest, new[-1])
    raise DownloadError("pip download %s saved no file" % spec)


def requirement_pins(requires: List[str], names: Tuple[str, ...]) -> Dict[str, str]:
    """name -> the version an `==` requirement pins (`nvidia-nccl-cu13==2.30.7; ...` gives
    "2.30.7", `==13.0.96.*` gives "13.0.96.*"): `name==` + it is a requirement pip takes. Extras
    on the requirement are kept out of the name."""
    out = {}
    for req in requires:
        m = re.match(r"\s*([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?\s*\(?\s*==\s*([0-9][\w.]*(?:\.\*)?)\s*\)?\s*(?:;|$)", req)
        if m and m.group(1).lower().replace("_", "-") in names:
            out.setdefault(m.group(1).lower().replace("_", "-"), m.group(2))
    return out
