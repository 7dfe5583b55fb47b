#!/usr/bin/env python3
"""Ask PyPI (through pip) what torch, torchvision and torchaudio have published, and print
what torchdoctor's compatibility tables (torchdoctor/kb/data/compat.json) lack or contradict.

A maintainer tool, not part of the test run: it needs the network and takes a few minutes.

    python tools/check_releases.py            # every release in the tables' range
    python tools/check_releases.py --quick    # newest patch of each minor + what is new

What it asks, all through `pip` (metadata only, with `--use-feature=fast-deps`: pip reads the
METADATA file out of the remote wheel with HTTP range requests instead of downloading it):

* `pip index versions` per CPython (3.6 ... 3.15, and the free-threaded 3.13t ... 3.15t) for a
  Linux x86_64 wheel: which releases exist and which Pythons each has wheels for;
* `pip install --dry-run --no-deps --report` of one Linux x86_64 wheel per release: its
  Requires-Python, the `cuda-toolkit` / `nvidia-cuda-runtime-cuXX` pin that gives the PyPI
  default CUDA variant, the cuDNN / NCCL / triton pins, and a companion's `torch` requirement;
* `pip index versions cuda-toolkit`: CUDA toolkits newer than the driver table knows.

It also prints the rows `torchdoctor.kb.compat_rows` finds incomplete. It cannot see
download.pytorch.org (the CUDA variants besides the PyPI default), GPU arch lists or NVIDIA's
driver tables: those stay with the release notes, RELEASE.md and the NVIDIA documentation.

By default pip is run with no configuration files and only PyPI as index (PIP_CONFIG_FILE is
os.devnull, find-links / extra indexes / constraints from the environment are dropped), so a
local mirror or cap cannot change the answer; `--keep-pip-config` keeps them.

Exit status: 0 nothing lacking or contradicting, 1 findings, 2 pip failed or bad usage.
"""

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import tempfile
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from packaging.markers import default_environment  # noqa: E402
from packaging.requirements import InvalidRequirement, Requirement  # noqa: E402
from packaging.version import InvalidVersion, Version  # noqa: E402

from torchdoctor.model import versions  # noqa: E402
from torchdoctor.kb import compat_rows  # noqa: E402

PYPI = "https://pypi.org/simple"
PACKAGES = ("torch", "torchvision", "torchaudio")
PYTHONS = ("3.6", "3.7", "3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15")
FREE_THREADED = ("3.13t", "3.14t", "3.15t")
# Enough Pythons to see every companion release (cp36..cp39 wheels up to 2021, py3-none later).
COMPANION_PYTHONS = ("3.8", "3.10", "3.12", "3.14")
PLATFORMS = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64",
             "manylinux2010_x86_64", "manylinux1_x86_64", "linux_x86_64")
# Environment variables that point pip elsewhere than PyPI.
PIP_REDIRECTS = ("PIP_FIND_LINKS", "PIP_EXTRA_INDEX_URL", "PIP_INDEX_URL", "PIP_CONSTRAINT", "PIP_NO_INDEX",
                 "PIP_REQUIREMENT", "PIP_PRE")

Runner = Callable[[List[str]], Tuple[int, str, str]]


# -- talking to pip ---------------------------------------------------------------------------------
def make_runner(pip: Sequence[str], keep_config: bool, index_url: str, timeout: float) -> Runner:
    env = dict(os.environ)
    if not keep_config:
        env["PIP_CONFIG_FILE"] = os.devnull
        for k in PIP_REDIRECTS:
            env.pop(k, None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    env["PIP_NO_INPUT"] = "1"

    def run(args: List[str]) -> Tuple[int, str, str]:
        redirect = not keep_config and args[:1] in (["index"], ["install"])
        cmd = list(pip) + args[:1] + (["--index-url", index_url] if redirect else []) + args[1:]
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return 124, "", "timed out after %ds: %s" % (timeout, " ".join(cmd))
        except OSError as e:
            return 127, "", "cannot run %s: %s" % (cmd[0], e)
        return p.returncode, p.stdout, p.stderr
    return run


def _target(python: str) -> List[str]:
    # the newest micro release, so a floor like Requires-Python >=3.6.2 does not hide cp36 wheels
    args = ["--python-version", python.rstrip("t") + ".99", "--implementation", "cp", "--only-binary=:all:"]
    if python.endswith("t"):
        args += ["--abi", "cp%st" % python.rstrip("t").replace(".", "")]
    for p in PLATFORMS:
        args += ["--platform", p]
    return args


def index_versions(run: Runner, package: str, python: str) -> List[str]:
    """Releases of `package` with a Linux x86_64 wheel for that CPython ([] when none)."""
    rc, out, err = run(["index", "versions", package] + _target(python))
    offline = re.search(r"^.*(connection error|Failed to establish|Retrying \(Retry|Could not fetch URL).*$",
                        out + "\n" + err, re.M)
    if offline:
        raise PipError("pip cannot reach the index: %s" % offline.group(0).strip()[:300])
    m = re.search(r"^Available versions:\s*(.+)$", out, re.M)
    if m:
        return [v.strip() for v in m.group(1).split(",") if v.strip()]
    if rc != 0 and "No matching distribution" in (out + err):
        return []
    raise PipError("pip index versions %s (Python %s) failed: %s" % (package, python, (err or out).strip()[-400:]))


def wheel_metadata(run: Runner, package: str, version: str, python: str) -> Dict[str, Any]:
    """Core metadata (pip's report form) of the Linux x86_64 wheel of package===version."""
    with tempfile.TemporaryDirectory(prefix="check-releases-") as tmp:
        report = os.path.join(tmp, "report.json")
        # '===' so a local build (2.13.0+cpu in a find-links folder) can never stand in
        rc, out, err = run(["install", "--dry-run", "--ignore-installed", "--no-deps", "--quiet",
                            "--use-feature=fast-deps", "--report", report] + _target(python)
                           + ["%s===%s" % (package, version)])
        if rc != 0 or not os.path.exists(report):
            raise PipError("pip could not read the metadata of %s %s (Python %s): %s"
                           % (package, version, python, (err or out).strip()[-400:]))
        with open(report, encoding="utf-8") as f:
            items = json.load(f).get("install") or []
    if not items:
        raise PipError("pip reported nothing for %s %s" % (package, version))
    meta = dict(items[0].get("metadata") or {})
    meta["_url"] = (items[0].get("download_info") or {}).get("url", "")
    return meta


class PipError(RuntimeError):
    pass


# -- reading metadata -------------------------------------------------------------------------------
def _reqs(meta: Dict[str, Any], python: str) -> List[Requirement]:
    """Requires-Dist entries that apply to a Linux x86_64 CPython `python` without extras."""
    env = default_environment()
    env.update(platform_system="Linux", sys_platform="linux", platform_machine="x86_64", os_name="posix",
               python_version=python.rstrip("t"), python_full_version=python.rstrip("t") + ".99",
               implementation_name="cpython", platform_python_implementation="CPython", extra="")
    out = []
    for text in meta.get("requires_dist") or []:
        try:
            r = Requirement(text)
        except InvalidRequirement:
            continue
        if r.marker is None or r.marker.evaluate(env):
            out.append(r)
    return out


def _pin(r: Requirement) -> Optional[str]:
    specs = list(r.specifier)
    return specs[0].version if len(specs) == 1 and specs[0].operator in ("==", "===") else None


def torch_pins(meta: Dict[str, Any], python: str) -> Dict[str, Any]:
    """{'default_cuda': 'cu132' | None, 'toolkit': '13.2.2', 'cudnn', 'nccl', 'triton'} from a torch wheel."""
    out: Dict[str, Any] = {"default_cuda": None, "toolkit": None, "cudnn": None, "nccl": None, "triton": None}
    for r in _reqs(meta, python):
        name = r.name.lower().replace("_", "-")
        if name == "cuda-toolkit" or re.fullmatch(r"nvidia-cuda-runtime(-cu\d+)?", name):
            v = _pin(r)
            if v and versions.minor(v):
                out["toolkit"] = v
                out["default_cuda"] = "cu%d%d" % versions.release(v)[:2]
        elif re.fullmatch(r"nvidia-cudnn-cu\d+", name):
            out["cudnn"] = _pin(r)
        elif re.fullmatch(r"nvidia-nccl-cu\d+", name):
            out["nccl"] = _pin(r)
        elif name in ("triton", "pytorch-triton"):
            out["triton"] = str(r.specifier) or None
    return out


def torch_requirement(meta: Dict[str, Any], python: str) -> Optional[str]:
    """A companion's requirement on torch: '==2.13.0', '>=2.14.0', or None (undeclared)."""
    for r in _reqs(meta, python):
        if r.name.lower() == "torch":
            return str(r.specifier) or None
    return None


# -- the comparison -----------------------------------------------------------------------------------
class Findings:
    KINDS = ("LACKS", "CONTRADICTS", "INCOMPLETE", "CONFIRMS", "NOTE")

    def __init__(self) -> None:
        self.items: List[Tuple[str, str]] = []
        self.checked = 0

    def add(self, kind: str, text: str) -> None:
        self.items.append((kind, text))

    def ok(self) -> None:
        self.checked += 1

    def count(self, *kinds: str) -> int:
        return sum(1 for k, _ in self.items if k in kinds)


def _key(v: str):
    try:
        return Version(v)
    except InvalidVersion:
        return Version("0")


def _patch_index(data: Dict[str, Any]) -> Dict[str, str]:
    return {p: m for m, r in data["releases"].items() for p in r.get("patches", [])}


def _table_pair(data: Dict[str, Any], kind: str, patch: str) -> Tuple[Optional[str], Optional[str]]:
    """(confirmed pair, unconfirmed pair) of the tables for a torch patch."""
    r = data["releases"].get(versions.minor(patch) or "", {})
    conda = (r.get("conda_companions") or {}).get(patch, {}).get(kind)
    return (r.get(kind) or {}).get(patch) or conda, (r.get(kind + "_unverified") or {}).get(patch)


def compare_torch(data: Dict[str, Any], f: Findings, pythons: Dict[str, List[str]],
                  metas: Dict[str, Tuple[str, Dict[str, Any]]]) -> None:
    """pythons: torch version -> Python tags with a wheel; metas: version -> (python, metadata)."""
    rels = data["releases"]
    where = _patch_index(data)
    oldest = min(rels, key=lambda m: versions.release(m))
    published = sorted((v for v in pythons if versions.at_least(v, oldest)), key=_key)
    for v in published:
        if versions.local_tag(v):
            continue
        minor = versions.minor(v)
        if minor not in rels:
            f.add("LACKS", "torch %s is on PyPI; the tables have no %s release row" % (v, minor))
            continue
        if v not in where:
            f.add("LACKS", "torch %s is on PyPI; release %s lists patches %s" % (v, minor, rels[minor]["patches"]))
            continue
        f.ok()
    lts = {p for m, r in rels.items() for p, s in (r.get("pip_style_by_patch") or {}).items()
           if data["_meta"]["pip_styles"].get(s, {}).get("on_pypi", True) is False}
    for p in sorted(where, key=_key):
        if p not in pythons and p not in lts:
            f.add("CONTRADICTS", "torch %s is in the tables but PyPI has no Linux x86_64 wheel of it" % p)

    for v in published:
        r = rels.get(versions.minor(v) or "")
        if not r or v not in r["patches"]:
            continue
        have = set(pythons[v])
        experimental = (r.get("python_experimental_by_patch") or {}).get(v, r.get("python_experimental", []))
        listed = set(r["python"]) | set(experimental)
        extra, missing = sorted(have - listed, key=_pykey), sorted(listed - have, key=_pykey)
        if extra:
            f.add("LACKS", "torch %s: PyPI has Linux x86_64 wheels for Python %s, the tables list %s%s"
                  % (v, ", ".join(extra), r["python"], " (+%s)" % experimental if experimental else ""))
        plain = [p for p in missing if not p.endswith("t")]
        if plain:
            f.add("CONTRADICTS", "torch %s: the tables list Python %s, PyPI has no Linux x86_64 wheel for it"
                  % (v, ", ".join(plain)))
        if len(plain) < len(missing):
            f.add("NOTE", "torch %s: the tables list free-threaded Python %s (RELEASE.md), PyPI has no wheel: "
                  "download.pytorch.org only, or never built (not checkable with pip)"
                  % (v, ", ".join(p for p in missing if p.endswith("t"))))
        if not extra and not missing:
            f.ok()

    bundled = []
    for v, (py, meta) in sorted(metas.items(), key=lambda kv: _key(kv[0])):
        r = rels.get(versions.minor(v) or "")
        if not r or v not in r["patches"]:
            continue
        rp = meta.get("requires_python")
        if rp:
            outside = [p for p in r["python"] if not _admits(rp, p)]
            if outside:
                f.add("CONTRADICTS", "torch %s: Requires-Python %s excludes %s, which the tables list"
                      % (v, rp, ", ".join(outside)))
            else:
                f.ok()
        pins = torch_pins(meta, py)
        default, verified = r.get("default_cuda"), "default_cuda" not in r.get("unverified", {})
        if pins["default_cuda"] is None:
            bundled.append(v)
        elif pins["default_cuda"] != default:
            f.add("CONTRADICTS", "torch %s: PyPI wheel pins CUDA %s (%s), the tables say default_cuda %s%s"
                  % (v, pins["toolkit"], pins["default_cuda"], default, "" if verified else " (unverified)"))
        elif not verified:
            f.add("CONFIRMS", "torch %s: PyPI wheel pins CUDA %s: default_cuda %s can be marked verified"
                  % (v, pins["toolkit"], default))
        else:
            f.ok()
        if pins["default_cuda"] and pins["default_cuda"] not in _variants(r, v):
            f.add("CONTRADICTS", "torch %s: the PyPI default %s is not among its variants %s"
                  % (v, pins["default_cuda"], _variants(r, v)))
        for field in ("cudnn", "nccl"):
            want = (r.get(field) or {}).get(pins["default_cuda"] or "")
            why = r.get("unverified", {}).get("%s[%s]" % (field, pins["default_cuda"]))
            if pins[field] and why:
                f.add("NOTE", "torch %s: PyPI wheel pins %s %s; the tables leave %s of %s unverified: %s"
                      % (v, field, pins[field], field, pins["default_cuda"], why))
            elif pins[field] and want and pins[field] != want:
                f.add("CONTRADICTS", "torch %s: PyPI wheel pins %s %s, the tables say %s for %s"
                      % (v, field, pins[field], want, pins["default_cuda"]))
            elif pins[field] and not want and pins["default_cuda"]:
                f.add("LACKS", "torch %s: PyPI wheel pins %s %s; the tables have no %s for %s"
                      % (v, field, pins[field], field, pins["default_cuda"]))
            elif pins[field]:
                f.ok()
        want = (r.get("triton") or {}).get(v)
        if pins["triton"] and want and pins["triton"] != want:
            f.add("CONTRADICTS", "torch %s: PyPI wheel requires triton%s, the tables say %s" % (v, pins["triton"], want))
        elif pins["triton"] and not want:
            f.add("NOTE", "torch %s: PyPI wheel requires triton%s; the tables record no triton pin for this patch"
                  % (v, pins["triton"]))
        elif pins["triton"]:
            f.ok()
    if bundled:
        f.add("NOTE", "torch %s: no CUDA runtime pin in the metadata (CUDA is bundled in the wheel), so the "
              "PyPI default CUDA cannot be read from it" % ", ".join(bundled))


def compare_companion(data: Dict[str, Any], f: Findings, kind: str, metas: Dict[str, Tuple[str, Dict[str, Any]]]) -> None:
    ranges = data["companions"][kind + "_ranges"]
    where = _patch_index(data)
    for cv, (py, meta) in sorted(metas.items(), key=lambda kv: _key(kv[0])):
        spec = torch_requirement(meta, py)
        pinned = re.fullmatch(r"===?([\w.]+)", spec or "")
        if cv in ranges:
            if spec and _norm_spec(spec) != _norm_spec(ranges[cv]["torch"]):
                f.add("CONTRADICTS", "%s %s requires torch%s, the tables say %s" % (kind, cv, spec, ranges[cv]["torch"]))
            elif not spec:
                f.add("NOTE", "%s %s declares no torch requirement; the tables give the documented range %s"
                      % (kind, cv, ranges[cv]["torch"]))
            else:
                f.ok()
            continue
        if not pinned:
            if spec:
                f.add("LACKS", "%s %s requires torch%s; the tables have neither a pair nor companions.%s_ranges entry"
                      % (kind, cv, spec, kind))
            else:
                f.add("NOTE", "%s %s declares no torch requirement" % (kind, cv))
            continue
        torch_patch = pinned.group(1)
        confirmed, unconfirmed = _table_pair(data, kind, torch_patch)
        if torch_patch not in where:
            f.add("LACKS", "%s %s pins torch==%s, a torch release the tables do not have" % (kind, cv, torch_patch))
        elif confirmed == cv or cv in _all_pairs(data, kind, torch_patch):
            f.ok()
        elif unconfirmed == cv:
            f.add("CONFIRMS", "%s %s pins torch==%s: the unverified pair %s -> %s is confirmed by PyPI metadata"
                  % (kind, cv, torch_patch, torch_patch, cv))
        elif confirmed:
            f.add("CONTRADICTS", "%s %s pins torch==%s, but the tables pair torch %s with %s %s"
                  % (kind, cv, torch_patch, torch_patch, kind, confirmed))
        else:
            f.add("LACKS", "%s %s pins torch==%s; the tables have no %s for torch %s"
                  % (kind, cv, torch_patch, kind, torch_patch))


def _all_pairs(data: Dict[str, Any], kind: str, patch: str) -> List[str]:
    r = data["releases"].get(versions.minor(patch) or "", {})
    out = [(r.get(kind) or {}).get(patch)]
    out += [c.get(kind) for p, c in (r.get("conda_companions") or {}).items() if p == patch]
    out += (r.get(kind + "_also") or {}).get(patch, [])
    return [x for x in out if x]


def compare_published(data: Dict[str, Any], f: Findings, kind: str, published: Iterable[str]) -> None:
    """Companion releases on PyPI the tables know nothing of (neither pair nor range)."""
    known = set(data["companions"][kind + "_ranges"])
    for r in data["releases"].values():
        known.update((r.get(kind) or {}).values())
        known.update((r.get(kind + "_unverified") or {}).values())
        known.update(c.get(kind) for c in (r.get("conda_companions") or {}).values() if c.get(kind))
        known.update(c for cs in (r.get(kind + "_also") or {}).values() for c in cs)
    oldest = min(known, key=_key)
    for cv in sorted(published, key=_key):
        if versions.local_tag(cv) or _key(cv) < _key(oldest):
            continue
        if cv not in known:
            f.add("LACKS", "%s %s is on PyPI; the tables neither pair it with a torch patch nor give its range"
                  % (kind, cv))
        else:
            f.ok()
    latest = data["companions"].get(kind + "_latest")
    newest = max(published, key=_key) if published else None
    if latest and newest and newest != latest["version"]:
        f.add("LACKS", "%s: the newest on PyPI is %s, the tables say %s" % (kind, newest, latest["version"]))


def compare_toolkits(data: Dict[str, Any], f: Findings, toolkit_versions: Iterable[str]) -> None:
    known = set(data["toolkits"])
    newest_known = max(known, key=lambda m: versions.release(m))
    seen = sorted({versions.minor(v) for v in toolkit_versions if versions.minor(v)}, key=lambda m: versions.release(m))
    for m in seen:
        if m not in known and versions.at_least(m, newest_known):
            f.add("LACKS", "CUDA %s: cuda-toolkit %s is on PyPI; the driver table has no %s row"
                  % (m, max((v for v in toolkit_versions if versions.minor(v) == m), key=_key), m))


def _variants(r: Dict[str, Any], patch: str) -> List[str]:
    return list((r.get("cuda_by_patch") or {}).get(patch, r.get("cuda") or []))


def _admits(spec: str, python: str) -> bool:
    from packaging.specifiers import SpecifierSet
    try:
        return SpecifierSet(spec).contains(python.rstrip("t") + ".99", prereleases=True)
    except Exception:
        return True


def _norm_spec(spec: str) -> str:
    from packaging.specifiers import SpecifierSet
    try:
        return str(SpecifierSet(spec))
    except Exception:
        return spec.replace(" ", "")


def _pykey(p: str):
    return versions.release(p.rstrip("t")), p.endswith("t")


# -- the run -----------------------------------------------------------------------------------------------
def gather(run: Runner, data: Dict[str, Any], quick: bool, jobs: int, log: Callable[[str], None]):
    """Ask pip everything; returns (torch pythons, torch metas, companion versions, companion metas, toolkits)."""
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs))
    try:
        tags = PYTHONS + FREE_THREADED
        jobs_idx = {(pkg, py): pool.submit(index_versions, run, pkg, py)
                    for pkg in PACKAGES for py in (tags if pkg == "torch" else COMPANION_PYTHONS)}
        toolkit_job = pool.submit(index_versions, run, "cuda-toolkit", "3.12")
        by_pkg: Dict[str, Dict[str, List[str]]] = {p: {} for p in PACKAGES}
        for (pkg, py), job in jobs_idx.items():
            for v in job.result():
                by_pkg[pkg].setdefault(v, []).append(py)
        for pkg in PACKAGES:
            if not by_pkg[pkg]:  # a mirror without it, or an index pip silently failed to read
                raise PipError("pip found no %s release at all on the index" % pkg)
        log("pip index versions: %d torch, %d torchvision, %d torchaudio releases with Linux x86_64 wheels"
            % tuple(len(by_pkg[p]) for p in PACKAGES))
        where = _patch_index(data)
        wanted: Dict[str, List[str]] = {}
        for pkg in PACKAGES:
            vs = [v for v in by_pkg[pkg] if not versions.local_tag(v)]
            if pkg == "torch":
                oldest = min(data["releases"], key=lambda m: versions.release(m))
                vs = [v for v in vs if versions.at_least(v, oldest)]
                if quick:
                    newest = {}
                    for v in vs:
                        m = versions.minor(v)
                        newest[m] = max(newest.get(m, v), v, key=_key)
                    vs = [v for v in vs if v == newest[versions.minor(v)] or v not in where]
            else:
                paired = _companion_versions(data, pkg)
                oldest = min(paired, key=_key)
                vs = [v for v in vs if _key(v) >= _key(oldest)]
                if quick:
                    vs = [v for v in vs if v not in paired or v in data["companions"][pkg + "_ranges"]
                          or v == max(vs, key=_key)]
            wanted[pkg] = sorted(vs, key=_key)

        def py_for(pkg: str, v: str) -> str:
            plain = [p for p in by_pkg[pkg][v] if not p.endswith("t")] or by_pkg[pkg][v]
            return max(plain, key=_pykey)

        meta_jobs = {(pkg, v): pool.submit(wheel_metadata, run, pkg, v, py_for(pkg, v))
                     for pkg in PACKAGES for v in wanted[pkg]}
        metas: Dict[str, Dict[str, Tuple[str, Dict[str, Any]]]] = {p: {} for p in PACKAGES}
        for (pkg, v), job in meta_jobs.items():
            meta = job.result()
            if meta.get("version") != v:
                raise PipError("pip resolved %s===%s to %s (%s)" % (pkg, v, meta.get("version"), meta.get("_url")))
            metas[pkg][v] = (py_for(pkg, v), meta)
        log("wheel metadata read: %s" % ", ".join("%d %s" % (len(metas[p]), p) for p in PACKAGES))
        return by_pkg, metas, toolkit_job.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _companion_versions(data: Dict[str, Any], kind: str) -> set:
    out = set(data["companions"][kind + "_ranges"])
    for r in data["releases"].values():
        out.update((r.get(kind) or {}).values())
        out.update((r.get(kind + "_unverified") or {}).values())
    return out


def check(data: Dict[str, Any], by_pkg, metas, toolkit_versions) -> Findings:
    f = Findings()
    for p in compat_rows.problems(data):
        f.add("INCOMPLETE", p)
    compare_torch(data, f, by_pkg["torch"], metas["torch"])
    for kind in ("torchvision", "torchaudio"):
        compare_published(data, f, kind, [v for v in by_pkg[kind] if not versions.local_tag(v)])
        compare_companion(data, f, kind, metas[kind])
    compare_toolkits(data, f, toolkit_versions)
    return f


def render(f: Findings, out) -> None:
    for kind in Findings.KINDS:
        lines = [t for k, t in f.items if k == kind]
        if lines:
            print("\n%s (%d)" % (kind, len(lines)), file=out)
            for t in lines:
                print("  " + t, file=out)
    print("\n%d checks agree; %d lacking, %d contradicting, %d incomplete rows, %d unverified facts PyPI confirms, "
          "%d notes" % (f.checked, f.count("LACKS"), f.count("CONTRADICTS"), f.count("INCOMPLETE"),
                        f.count("CONFIRMS"), f.count("NOTE")), file=out)
    print("Not checkable with pip: CUDA variants on download.pytorch.org, GPU arch lists, NVIDIA driver minimums "
          "(see the 'unverified' entries of the tables).", file=out)


def main(argv: Optional[List[str]] = None, run: Optional[Runner] = None) -> int:
    """`run` replaces pip (the tests' fake PyPI)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=compat_rows.DATA_PATH, help="compat.json to check (default: the package's)")
    ap.add_argument("--pip", default=None, help="pip command (default: '%s -m pip')" % os.path.basename(sys.executable))
    ap.add_argument("--index-url", default=PYPI, help="index to ask (default: %(default)s)")
    ap.add_argument("--keep-pip-config", action="store_true",
                    help="use pip's configuration files and PIP_* index settings instead of PyPI alone")
    ap.add_argument("--quick", action="store_true", help="newest patch of each minor and releases the tables lack")
    ap.add_argument("--jobs", type=int, default=4, help="pip processes at once (default: %(default)s)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per pip call (default: %(default)s)")
    args = ap.parse_args(argv)
    try:
        data = compat_rows.load(args.data)
    except (OSError, ValueError) as e:
        print("check_releases: error: cannot read %s: %s" % (args.data, e), file=sys.stderr)
        return 2
    pip = args.pip.split() if args.pip else [sys.executable, "-m", "pip"]
    run = run or make_runner(pip, args.keep_pip_config, args.index_url, args.timeout)
    rc, out, err = run(["--version"])
    if rc != 0:
        print("check_releases: error: pip does not run: %s" % (err or out).strip(), file=sys.stderr)
        return 2
    print("tables: %s (generated %s)" % (os.path.relpath(args.data), data.get("_meta", {}).get("generated")))
    print("asking %s with %s" % ("pip's configured indexes" if args.keep_pip_config else args.index_url, out.strip()))
    try:
        by_pkg, metas, toolkits = gather(run, data, args.quick, args.jobs, lambda s: print(s, flush=True))
    except PipError as e:
        print("check_releases: error: %s" % e, file=sys.stderr)
        return 2
    f = check(data, by_pkg, metas, toolkits)
    render(f, sys.stdout)
    return 1 if f.count("LACKS", "CONTRADICTS", "INCOMPLETE") else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        print("check_releases: interrupted", file=sys.stderr)
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(1)
