"""A snapshot of an environment's packages that restores it exactly: `pip freeze --all` as it
was, byte for byte, and the distributions a fix will replace or remove, repacked from their
installed files into wheels (so the restore needs no index, no network and no build: the
files go back as they were, wherever they came from).

`restore` puts the snapshot back: the repacked wheels reinstalled (pip --isolated, so no
configuration or constraint of the user's can pick another build), what the fix added
uninstalled, and the installer metadata that decides `pip freeze` (INSTALLER, REQUESTED,
direct_url.json) as it was; then `pip freeze --all` is compared with the snapshot's.
"""

import csv
import io
import os
import re
import zipfile
from typing import Dict, List, Optional, Sequence, Tuple

from ...advice.pipdry import normalize
from ...children import timed

PIP_TIMEOUT = 3600.0  # a restore of several GB of CUDA wheels, on a slow disk
META_FILES = ("INSTALLER", "REQUESTED", "direct_url.json")


def pip_env() -> Dict[str, str]:
    env = dict(os.environ)
    env.update(PIP_NO_INPUT="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONIOENCODING="utf-8")
    return env


def freeze(python: str) -> Tuple[Optional[str], str]:
    """(`pip freeze --all` output, error)."""
    r = timed.run([python, "-m", "pip", "freeze", "--all"], timeout=300.0, env=pip_env())
    if not r.ok:
        return None, timed.last_lines(r.stderr or r.stdout or r.start_error or "", 2) or "pip freeze failed"
    return r.stdout, ""


_LINE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:==|@|===)")


def freeze_map(text: str) -> Dict[str, str]:
    """name -> its line in `pip freeze` output (an editable's `-e` line keyed by its #egg= name,
    or the comment line before it)."""
    out: Dict[str, str] = {}
    pending = None
    for line in text.splitlines():
        m = _LINE.match(line)
        if m:
            out[normalize(m.group(1))] = line
            continue
        c = re.match(r"^# Editable .*?\(([A-Za-z0-9._\-]+)==", line)
        if c:
            pending = normalize(c.group(1))
            continue
        if line.startswith("-e "):
            egg = re.search(r"#egg=([A-Za-z0-9._\-]+)", line)
            key = normalize(egg.group(1)) if egg else pending or line
            out[key] = line
            pending = None
    return out


def site_dirs(python: str) -> Tuple[List[str], str]:
    """(the interpreter's site-packages folders, its sys.prefix), asked of the interpreter."""
    code = ("import json, site, sys\n"
            "d = [p for p in sys.path if p.endswith(('site-packages', 'dist-packages'))]\n"
            "print(json.dumps([d, sys.prefix]))")
    r = timed.run([python, "-c", code], timeout=60.0)
    import json
    try:
        dirs, prefix = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return [], ""
    return [d for d in dirs if isinstance(d, str)], str(prefix)


def find_dist(dirs: Sequence[str], name: str) -> Optional[Tuple[str, str]]:
    """(site dir, dist-info folder) of the installed distribution `name`."""
    want = normalize(name)
    for d in dirs:
        try:
            entries = os.listdir(d)
        except OSError:
            continue
        for fn in entries:
            if fn.endswith(".dist-info") and normalize(fn[:-len(".dist-info")].rsplit("-", 1)[0]) == want:
                return d, fn
    return None


def _entry_scripts(info: str) -> set:
    names = set()
    try:
        with open(os.path.join(info, "entry_points.txt"), encoding="utf-8", errors="replace") as fh:
            section = ""
            for line in fh:
                line = line.strip()
                if line.startswith("["):
                    section = line
                elif "=" in line and section in ("[console_scripts]", "[gui_scripts]"):
                    names.add(line.split("=", 1)[0].strip())
    except OSError:
        pass
    return names


def _read(path: str) -> Optional[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def repack(site: str, info_dir: str, prefix: str, out_dir: str) -> Dict[str, object]:
    """Write the installed distribution back into a wheel, from its RECORD: the files as they
    are, scripts pip generates from entry points left to pip, files outside site-packages
    under .data/data (relative to the prefix). Returns {wheel, version, meta files, missing}."""
    info = os.path.join(site, info_dir)
    dist, version = info_dir[:-len(".dist-info")].rsplit("-", 1)
    wheel_meta = _read(os.path.join(info, "WHEEL")) or ""
    tags = re.findall(r"^Tag:\s*(\S+)", wheel_meta, re.M) or ["py3-none-any"]
    name = re.sub(r"[-_.]+", "_", dist)
    path = os.path.join(out_dir, "%s-%s-%s.whl" % (name, version, tags[0]))
    scripts = _entry_scripts(info)
    data = "%s-%s.data/data/" % (name, version)
    rows: List[str] = []
    missing: List[str] = []
    site_root = os.path.normpath(site) + os.sep
    with open(os.path.join(info, "RECORD"), encoding="utf-8", errors="replace", newline="") as fh:
        record = list(csv.reader(fh))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for row in record:
            if not row or not row[0]:
                continue
            rel = row[0]
            full = os.path.normpath(os.path.join(site, rel))
            base = os.path.basename(full)
            if rel.endswith(".pyc") or "__pycache__" in rel.replace("\\", "/").split("/"):
                continue  # pip compiles anew
            if os.path.dirname(full) == os.path.normpath(info) and base in META_FILES + ("RECORD",):
                continue  # written by the installer; the snapshot keeps them apart
            if full.startswith(site_root):
                arc = os.path.relpath(full, site).replace(os.sep, "/")
            else:
                relp = os.path.relpath(full, prefix).replace(os.sep, "/")
                stem = re.sub(r"(?:-script\.pyw?|\.exe)$", "", base)
                if relp.startswith(("bin/", "Scripts/")) and stem in scripts:
                    continue  # pip writes entry-point scripts for the interpreter it installs into
                arc = data + relp
            if not os.path.isfile(full):
                missing.append(rel)
                continue
            z.write(full, arc)
            rows.append(arc)
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        for arc in rows:
            w.writerow([arc, "", ""])
        w.writerow(["%s-%s.dist-info/RECORD" % (dist, version), "", ""])
        z.writestr("%s-%s.dist-info/RECORD" % (dist, version), buf.getvalue())
    meta = {m: _read(os.path.join(info, m)) for m in META_FILES}
    return {"wheel": path, "version": version, "info_dir": info_dir, "meta": meta, "missing": missing}


def put_back_meta(site: str, info_dir: str, meta: Dict[str, Optional[str]]) -> None:
    """The installer files of a reinstalled distribution as they were (pip writes its own:
    a wheel installed from a path gets a direct_url.json that `pip freeze` would show)."""
    info = os.path.join(site, info_dir)
    record_path = os.path.join(info, "RECORD")
    rows = []
    with open(record_path, encoding="utf-8", newline="") as fh:
        rows = [r for r in csv.reader(fh) if r]
    keep = []
    for r in rows:
        base = os.path.basename(r[0])
        if os.path.dirname(os.path.normpath(os.path.join(site, r[0]))) == os.path.normpath(info) and base in META_FILES:
            continue
        keep.append(r)
    for m in META_FILES:
        target = os.path.join(info, m)
        content = meta.get(m)
        if content is None:
            if os.path.exists(target):
                os.unlink(target)
            continue
        # a new file, then a rename: never written through a link into another environment's copy
        with open(target + ".tmp", "w", encoding="utf-8") as fh:
            fh.write(content)
        os.replace(target + ".tmp", target)
        keep.append(["%s/%s" % (info_dir, m), "", ""])
    tmp = record_path + ".tmp"
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        csv.writer(fh, lineterminator="\n").writerows(keep)
    os.replace(tmp, record_path)


def run_pip(python: str, args: List[str], isolated: bool = False, stream=None) -> Tuple[bool, str]:
    """Run pip in the target (its output to `stream`, a file object, when given); (ok, last line)."""
    import subprocess
    argv = [python, "-m", "pip"] + (["--isolated"] if isolated else []) + list(args)
    try:
        if stream is not None:
            p = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=stream, stderr=stream, env=pip_env(),
                               timeout=PIP_TIMEOUT)
            return p.returncode == 0, "pip exited with status %d" % p.returncode
        p = subprocess.run(argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, env=pip_env(),
                           timeout=PIP_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, "%s: %s" % (type(e).__name__, e)
    tail = timed.last_lines(p.stderr or p.stdout, 1)
    return p.returncode == 0, tail or "pip exited with status %d" % p.returncode
