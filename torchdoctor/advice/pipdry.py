"""Dry runs of the target environment's own installer: what `pip install ARGS` would do there,
with everything the user's own `pip install` would see (pip.conf / pip.ini, PIP_* variables,
constraints files, extra indexes, find-links), without installing or downloading a wheel
where pip can avoid it (pip >= 22.3 reads PEP 658 metadata files; file:// wheels are read
in place).

`dry_run` runs `<python> -m pip install --dry-run --report FILE --log FILE ARGS` with a time
limit and gives back what would be installed (name, version, where from, what it requires),
which sources could not be reached and what each source offered for the requested names (read
from pip's own log, which records every link it considered). An environment managed by uv
(no pip in it, `uv` on PATH) gets `uv pip install --dry-run` instead, which says less.
"""

import json
import os
import re
import shutil
import tempfile
import time
from typing import Dict, List, Optional, Tuple

from ..model.records import field, record

DRY_RUN_TIMEOUT = 90.0
# pip added --dry-run and --report in 22.2, and the JSON report's format is stable since 23.0
# (22.x wrote the same keys under "version": "0").
MIN_PIP = (22, 2)
# Per-request socket limit for the dry run: an index that does not answer is named as such in
# seconds, not after pip's default 15 s x 5 retries (or the 180 s a pip.conf may set).
SOCKET_TIMEOUT = "8"


@record
class Planned:
    """One distribution the installer would install."""
    name: str  # normalised (PEP 503)
    version: str
    url: str = ""
    requires: List[str] = field(default_factory=list)

    @property
    def local_path(self) -> Optional[str]:
        if self.url.startswith("file://"):
            from urllib.parse import unquote, urlparse
            return unquote(urlparse(self.url).path)
        return None


@record
class DryRun:
    tool: str = ""  # "pip 23.2.1", "uv 0.5.1"
    ok: bool = False  # resolved: exit 0 and the report read
    planned: List[Planned] = field(default_factory=list)
    errors: List[str] = field(default_factory=list)  # the installer's ERROR lines
    unreachable: List[str] = field(default_factory=list)  # pages it could not fetch
    offers: Dict[str, List[Tuple[str, str]]] = field(default_factory=dict)  # name -> [(version, source)]
    sources: Dict[str, str] = field(default_factory=dict)  # wheel URL (no #fragment) -> the index or folder
    timed_out: bool = False
    unsupported: str = ""  # why no dry run could be made
    seconds: float = 0.0


def normalize(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_INSTALLERS: Dict[str, Tuple[str, Optional[Tuple[int, ...]], str]] = {}


def installer(python: str) -> Tuple[str, Optional[Tuple[int, ...]], str]:
    """('pip', (23, 2, 1), '') for the target's pip, ('uv', version, path to uv) for a uv-managed
    environment without pip, ('', None, why) when neither can run there. Cached per interpreter."""
    if python in _INSTALLERS:
        return _INSTALLERS[python]
    from ..children import timed
    r = timed.run([python, "-m", "pip", "--version"], timeout=30.0, env=_env())
    m = re.match(r"pip (\d+(?:\.\d+)*)", r.stdout.strip()) if r.ok else None
    if m:
        got: Tuple[str, Optional[Tuple[int, ...]], str] = ("pip", tuple(int(x) for x in m.group(1).split(".")), "")
    else:
        uv = timed.which("uv")
        if uv and uv_managed(python):
            u = timed.run([uv, "--version"], timeout=15.0)
            um = re.search(r"(\d+(?:\.\d+)+)", u.stdout) if u.ok else None
            got = ("uv", tuple(int(x) for x in um.group(1).split(".")) if um else None, uv)
        else:
            said = timed.last_lines(r.stderr or r.stdout or r.start_error or "", 1)
            got = ("", None, "%s has no pip (%s)%s" % (python, said or "`-m pip` failed",
                                                        "; it is uv-managed, but uv is not on PATH"
                                                        if uv_managed(python) else ""))
    _INSTALLERS[python] = got
    return got


def uv_managed(python: str) -> bool:
    """A virtual environment that uv made: its pyvenv.cfg names uv."""
    cfg = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(python))), "pyvenv.cfg")
    try:
        with open(cfg, encoding="utf-8", errors="replace") as fh:
            return any(line.split("=", 1)[0].strip() == "uv" for line in fh)
    except OSError:
        return False


def _env() -> Dict[str, str]:
    """The user's environment as it is (PIP_* variables are part of their configuration),
    minus what would make pip stop and ask or print a version warning."""
    env = dict(os.environ)
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONIOENCODING="utf-8")
    return env


def dry_run(python: str, args: List[str], timeout: Optional[float] = None) -> DryRun:
    """What `<python> -m pip install ARGS` would install in that environment, with its own
    configuration; never installs anything. timeout: DRY_RUN_TIMEOUT."""
    timeout = timeout or DRY_RUN_TIMEOUT
    kind, version, extra = installer(python)
    if kind == "uv":
        return _uv_dry_run(extra, python, args, timeout)
    if kind != "pip":
        return DryRun(unsupported=extra)
    tool = "pip " + ".".join(map(str, version or ()))
    if version is not None and version < MIN_PIP:
        return DryRun(tool=tool, unsupported="%s cannot dry-run an install (needs pip >= 22.2; upgrade it with "
                                             "`%s -m pip install -U pip`)" % (tool, python))
    from ..children import timed
    work = tempfile.mkdtemp(prefix="torchdoctor-resolve-")
    report, log = os.path.join(work, "report.json"), os.path.join(work, "pip.log")
    argv = [python, "-m", "pip", "install", "--dry-run", "--report", report, "--log", log, "--quiet",
            "--timeout", SOCKET_TIMEOUT, "--retries", "0"] + list(args)
    t0 = time.monotonic()
    try:
        r = timed.run(argv, timeout=timeout, env=_env())
        out = DryRun(tool=tool, seconds=round(time.monotonic() - t0, 2), timed_out=r.timed_out)
        log_text = _read(log)
        out.unreachable = _unreachable(log_text)
        out.offers, out.sources = _offers(log_text)
        out.errors = [ln[len("ERROR: "):].strip() for ln in (r.stderr or "").splitlines() if ln.startswith("ERROR:")]
        if r.start_error:
            out.unsupported = "could not run %s: %s" % (python, r.start_error)
        elif r.ok:
            try:
                with open(report, encoding="utf-8") as fh:
                    out.planned = [_planned(item) for item in json.load(fh).get("install") or []]
                out.ok = True
            except (OSError, ValueError, AttributeError) as e:
                out.errors.append("unreadable install report: %s" % e)
        elif not out.errors and not r.timed_out:
            out.errors = [timed.last_lines(r.stderr or r.stdout, 1) or "pip exited with status %s" % r.returncode]
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read(8 << 20)
    except OSError:
        return ""


def _planned(item: dict) -> Planned:
    meta = item.get("metadata") or {}
    return Planned(name=normalize(str(meta.get("name", ""))), version=str(meta.get("version", "")),
                   url=str((item.get("download_info") or {}).get("url", "")),
                   requires=[str(r) for r in meta.get("requires_dist") or []])


_UNREACHABLE = re.compile(r"Could not fetch URL (\S+?): .*? - skipping")
# "Found link URL (from PAGE), version: V" (an index) or "Found link URL, version: V" (find-links)
_FOUND = re.compile(r"Found link (\S+?)(?: \(from (\S+?)\))?(?: \(requires-python:[^)]*\))?, version: (\S+)")


def _unreachable(log_text: str) -> List[str]:
    out: List[str] = []
    for m in _UNREACHABLE.finditer(log_text):
        if m.group(1) not in out:
            out.append(m.group(1))
    return out


def source_of(link: str, page: Optional[str]) -> str:
    """The index a page belongs to (https://x/simple/torch/ -> https://x/simple), else the
    folder a find-links file lies in."""
    if page:
        page = re.sub(r"/index\.html$", "/", page)
        return page.rstrip("/").rsplit("/", 1)[0]
    from urllib.parse import unquote
    return unquote(link.split("#", 1)[0]).rsplit("/", 1)[0].replace("file://", "")


def _offers(log_text: str) -> Tuple[Dict[str, List[Tuple[str, str]]], Dict[str, str]]:
    out: Dict[str, List[Tuple[str, str]]] = {}
    sources: Dict[str, str] = {}
    for m in _FOUND.finditer(log_text):
        link, page, version = m.groups()
        url = link.split("#", 1)[0]
        name = normalize(re.split(r"-\d", url.rsplit("/", 1)[-1], 1)[0])
        pair = (version, source_of(link, page))
        sources[url] = pair[1]
        if pair not in out.setdefault(name, []):
            out[name].append(pair)
    return out, sources


def where_from(dry: "DryRun", p: Planned) -> str:
    """The index (or find-links folder) a planned wheel comes from."""
    url = p.url.split("#", 1)[0]
    return dry.sources.get(url) or source_of(url, None)


def _uv_dry_run(uv: str, python: str, args: List[str], timeout: float) -> DryRun:
    """uv pip install --dry-run: it prints ` + name==version` lines (no URLs, no requirements)."""
    from ..children import timed
    t0 = time.monotonic()
    r = timed.run([uv, "pip", "install", "--dry-run", "--python", python] + list(args), timeout=timeout, env=_env())
    out = DryRun(tool="uv", seconds=round(time.monotonic() - t0, 2), timed_out=r.timed_out)
    text = (r.stderr or "") + "\n" + (r.stdout or "")
    if r.ok:
        out.ok = True
        for m in re.finditer(r"^\s*\+\s*([A-Za-z0-9_.\-]+)==(\S+)", text, re.M):
            out.planned.append(Planned(name=normalize(m.group(1)), version=m.group(2)))
    elif not r.timed_out:
        out.errors = [ln.strip() for ln in text.splitlines() if ln.strip().startswith(("error:", "×", "ERROR"))][:3] \
            or [timed.last_lines(text, 1)]
    return out


def pip_config(python: str) -> Dict[str, str]:
    """`pip config list` of the target ({'global.constraint': '/etc/...', ...}), {} when it
    cannot say: where the constraints, indexes and find-links of the user's pip come from."""
    from ..children import timed
    r = timed.run([python, "-m", "pip", "config", "list"], timeout=20.0, env=_env())
    out: Dict[str, str] = {}
    for line in (r.stdout or "").splitlines() if r.ok else []:
        m = re.match(r"([\w:.\-]+)='(.*)'$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def constraint_files(python: str) -> List[str]:
    """The constraints files the target's pip applies to every install (its config, PIP_CONSTRAINT)."""
    files: List[str] = []
    for key, value in pip_config(python).items():
        if key.endswith(".constraint") or key.endswith(".constraints"):
            files += value.split()
    files += (os.environ.get("PIP_CONSTRAINT") or "").split()
    return list(dict.fromkeys(files))


def file_size(url: str, timeout: float = 6.0) -> Optional[int]:
    """The download size of a wheel: a stat for a file:// URL, else the Content-Length of a HEAD
    request; None when it cannot be told in time."""
    if url.startswith("file://"):
        try:
            return os.path.getsize(Planned(name="", version="", url=url).local_path or "")
        except OSError:
            return None
    if not url.startswith(("http://", "https://")):
        return None
    import urllib.request
    try:
        req = urllib.request.Request(url.split("#", 1)[0], method="HEAD")
        with urllib.request.urlopen(req, timeout=timeout) as resp:  # noqa: S310 - an https/http URL pip gave
            n = resp.headers.get("Content-Length")
            return int(n) if n and n.isdigit() else None
    except (OSError, ValueError):
        return None
