"""What a complete release row of ``kb/data/compat.json`` holds, checked.

A torch release is one entry under ``releases`` plus its ``arch`` lists; everything a row
names (its CUDA variants, their toolkits and drivers) must be described elsewhere in the
file. ``problems()`` lists every piece that is missing. A piece may be unknown, but then the
data must say so and why ("unknown, because ..."): an ``unverified`` entry naming the
field, a ``*_unverified`` map for a companion pair, ``unknown`` next to a null driver, a
``note`` on an arch list marked ``verified: false``. Silent absence is a problem.

Used by the test suite (so adding a release is one data change the suite checks) and by
``tools/check_releases.py``. Reads only the data it is given; never raises on odd data.
"""

import json
import os
from typing import Any, Dict, Iterable, List, Optional

from ..model import versions

DATA_PATH = os.path.join(os.path.dirname(__file__), "data", "compat.json")
COMPANIONS = ("torchvision", "torchaudio")
OSES = ("linux", "windows")
# Keys the accessors of torchdoctor.kb.compat read from every row without a default.
ROW_KEYS = ("patches", "python", "python_experimental", "torchvision", "torchaudio", "cuda",
            "cuda_experimental", "default_cuda", "rocm", "numpy2", "pip_style", "unverified", "source")
SOURCED = ("python", "torchaudio", "cuda", "numpy2", "install")


def load(path: Optional[str] = None) -> Dict[str, Any]:
    with open(path or DATA_PATH, encoding="utf-8") as f:
        return json.load(f)


def _named_unverified(row: Dict[str, Any], field: str, patch: Optional[str] = None) -> bool:
    """Whether row['unverified'] says `field` (of `patch`) is unknown, with a reason:
    'field', 'field[patch]' or 'field[p1,p2]'."""
    for key, why in (row.get("unverified") or {}).items():
        if not isinstance(why, str) or len(why.strip()) < 5:
            continue
        name, _, rest = key.partition("[")
        if name != field:
            continue
        if not rest or patch is None or patch in [p.strip() for p in rest.rstrip("]").split(",")]:
            return True
    return False


def _variants_of(row: Dict[str, Any]) -> List[str]:
    out = list(row.get("cuda") or [])
    for vs in (row.get("cuda_by_patch") or {}).values():
        out += [v for v in vs if v not in out]
    return out


def _in_range(patch: str, spec: str) -> bool:
    return versions.admits(spec, patch) is True


def _row_problems(data: Dict[str, Any], minor: str, row: Any) -> Iterable[str]:
    if not isinstance(row, dict):
        yield "%s: the release row is not an object" % minor
        return
    for key in ROW_KEYS:
        if key not in row:
            yield "%s: no '%s'" % (minor, key)
    patches = row.get("patches") or []
    if not patches:
        yield "%s: no patch releases listed" % minor
    for p in patches:
        if versions.minor(p) != minor or versions.patch(p) != p:
            yield "%s: patch %r is not a %s.N release" % (minor, p, minor)
    src = row.get("source") if isinstance(row.get("source"), dict) else {}
    for field in SOURCED:
        if not src.get(field):
            yield "%s: no source for '%s'" % (minor, field)

    # Python range
    py = row.get("python")
    if not isinstance(py, list) or not py or not all(isinstance(x, str) and versions.minor(x) for x in py):
        yield "%s: no Python range (python: %r)" % (minor, py)

    # companions, per patch
    ranges = (data.get("companions") or {})
    for kind in COMPANIONS:
        pairs = row.get(kind) if isinstance(row.get(kind), dict) else {}
        unconfirmed = row.get(kind + "_unverified") or {}
        for p in pairs:
            if p not in patches:
                yield "%s: %s pair for %s, which is not a patch of this release" % (minor, kind, p)
        if pairs and not src.get(kind):
            yield "%s: no source for '%s'" % (minor, kind)
        by_range = row.get(kind + "_from_ranges") is True
        for p in patches:
            if pairs.get(p) and versions.parse(pairs[p]):
                continue
            if p in unconfirmed or _named_unverified(row, kind, p):
                continue
            if by_range and any(_in_range(p, e.get("torch", "")) for e in (ranges.get(kind + "_ranges") or {}).values()):
                continue
            if by_range:
                yield "%s: %s_from_ranges, but no range in companions.%s_ranges admits %s" % (minor, kind, kind, p)
            else:
                yield "%s: no %s for %s (a pair, a %s_unverified entry, or %s_from_ranges)" % (
                    minor, kind, p, kind, kind)

    # CUDA variants and the PyPI default
    variants = _variants_of(row)
    known = data.get("variants") or {}
    if not variants:
        yield "%s: no CUDA variants" % minor
    for field in ("cuda_by_patch", "python_experimental_by_patch", "torchvision_also", "torchaudio_also"):
        for p in (row.get(field) or {}):
            if p not in patches:
                yield "%s: %s for %s, which is not a patch of this release" % (minor, field, p)
    for v in row.get("cuda_dropped") or []:
        if v in variants:
            yield "%s: %s is listed as dropped and as a variant" % (minor, v)
    if row.get("cuda_dropped") and not src.get("cuda_dropped"):
        yield "%s: no source for 'cuda_dropped'" % minor
    for v in row.get("cuda_experimental") or []:
        if v not in (row.get("cuda") or []):
            yield "%s: experimental variant %s is not in 'cuda'" % (minor, v)
    default = row.get("default_cuda")
    if _named_unverified(row, "default_cuda"):
        pass
    elif not default:
        yield "%s: no PyPI default CUDA (default_cuda), and no unverified['default_cuda'] reason" % minor
    else:
        if not src.get("default_cuda"):
            yield "%s: no source for 'default_cuda'" % minor
        on_pypi = [p for p in patches if p not in _not_on_pypi(data, row)]
        for p in on_pypi:
            offered = (row.get("cuda_by_patch") or {}).get(p, row.get("cuda") or [])
            if default not in offered:
                yield "%s: default_cuda %s is not among the variants of %s" % (minor, default, p)

    # driver floor of every variant, via the toolkit table; arch list of every variant
    arch = (data.get("arch") or {}).get(minor) or {}
    for v in variants:
        if v not in known:
            yield "%s: variant %s is not described under 'variants'" % (minor, v)
        e = arch.get(v)
        if not isinstance(e, dict):
            yield "%s: no arch list for %s (an entry, verified or 'verified': false with a note)" % (minor, v)
        elif e.get("verified") is not True and not (isinstance(e.get("note"), str) and e["note"].strip()):
            yield "%s: arch list for %s is not verified and says not why (no note)" % (minor, v)
        elif e.get("verified") is True and not e.get("x86_64"):
            yield "%s: arch list for %s is verified but empty" % (minor, v)


def _not_on_pypi(data: Dict[str, Any], row: Dict[str, Any]) -> List[str]:
    """Patches whose install style says they were never on PyPI (1.8.2 LTS)."""
    styles = ((data.get("_meta") or {}).get("pip_styles") or {})
    by_patch = row.get("pip_style_by_patch") or {}
    return [p for p, s in by_patch.items() if (styles.get(s) or {}).get("on_pypi", True) is False]


def _floor_value(d: Dict[str, Any], key: str) -> Any:
    return d.get(key) if isinstance(d, dict) else None


def _variant_problems(data: Dict[str, Any], name: str, e: Any) -> Iterable[str]:
    if not isinstance(e, dict):
        yield "variant %s: not an object" % name
        return
    cuda = e.get("cuda")
    if not e.get("source"):
        yield "variant %s: no source" % name
    tk_minor = versions.minor(e.get("toolkit"))
    toolkits = data.get("toolkits") or {}
    tk = toolkits.get(tk_minor or "")
    if tk_minor != cuda or not isinstance(tk, dict):
        yield "variant %s: toolkit %r is not a CUDA %s release of the toolkit table" % (name, e.get("toolkit"), cuda)
        tk = {}
    update = (tk.get("updates") or {}).get(versions.patch(e.get("toolkit")) or "", tk)
    major = versions.release(cuda)[:1]
    mvc = (data.get("mvc") or {}).get(str(major[0])) if major and major[0] >= 11 else None
    for osn in OSES:
        floors = e.get(osn)
        if not isinstance(floors, dict):
            yield "variant %s: no %s driver floor" % (name, osn)
            continue
        why = floors.get("unknown")
        explained = isinstance(why, str) and len(why.strip()) >= 5
        full, low = floors.get("full"), floors.get("mvc")
        if full is None and not floors.get("full_branch") and not explained:
            yield "variant %s: %s full-support driver is null without an 'unknown' reason" % (name, osn)
        if low is None and not explained:
            yield "variant %s: %s minor-version-compatibility driver is null without an 'unknown' reason" % (name, osn)
        # the same numbers as the NVIDIA toolkit table the accessors use
        if full is not None and full != update.get(osn):
            yield "variant %s: %s full driver %s, but the toolkit table says %s for %s" % (
                name, osn, full, update.get(osn), e.get("toolkit"))
        if floors.get("full_branch") and floors["full_branch"] != tk.get(osn + "_branch"):
            yield "variant %s: %s driver branch %s, but the toolkit table says %s" % (
                name, osn, floors["full_branch"], tk.get(osn + "_branch"))
        expected_low = _floor_value(mvc, osn) if mvc else full
        if low is not None and expected_low is not None and low != expected_low:
            yield "variant %s: %s MVC driver %s, but the table says %s" % (name, osn, low, expected_low)


def _toolkit_problems(minor: str, tk: Any) -> Iterable[str]:
    if not isinstance(tk, dict):
        yield "toolkit %s: not an object" % minor
        return
    if not tk.get("source"):
        yield "toolkit %s: no source" % minor
    for osn in OSES:
        why = tk.get(osn + "_unknown")
        if tk.get(osn) is None and not tk.get(osn + "_branch") and not (isinstance(why, str) and why.strip()):
            yield "toolkit %s: %s driver is null without a %s_unknown reason" % (minor, osn, osn)


def problems(data: Optional[Dict[str, Any]] = None) -> List[str]:
    """Every missing piece of every release row, variant and toolkit ([] = complete)."""
    data = load() if data is None else data
    out: List[str] = []
    releases = data.get("releases") if isinstance(data, dict) else None
    if not isinstance(releases, dict) or not releases:
        return ["no releases"]
    for minor, row in releases.items():
        out.extend(_row_problems(data, minor, row))
    used = {v for r in releases.values() if isinstance(r, dict) for v in _variants_of(r)}
    for name, e in (data.get("variants") or {}).items():
        if name in used:
            out.extend(_variant_problems(data, name, e))
    for minor, tk in (data.get("toolkits") or {}).items():
        out.extend(_toolkit_problems(minor, tk))
    return out
