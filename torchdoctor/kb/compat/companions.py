"""torchvision and torchaudio against torch: the release each torch patch was paired with,
and for the stable-ABI wheels the torch ranges they declare.
"""

import functools
from typing import Any, Dict, Optional, Tuple

from ...model import versions as V
from .tables import data, release_row


# Before the stable ABI every companion wheel pinned exactly one torch patch (torch==X),
# so the per-patch pairs decide. torchvision 0.29.1+ and torchaudio 2.11.x declare torch
# ranges instead (companions.*_ranges in the JSON), and those decide.
def _in_range(torch_version: Any, spec: str) -> Optional[bool]:
    v = V.parse(torch_version)
    return V.admits(spec, v.base_version) if v else None


@functools.lru_cache(maxsize=None)
def _paired_torch(kind: str) -> Dict[str, Tuple[str, ...]]:
    """companion version -> torch patches it was released with (pip and conda pairs, and the
    further releases pinned to a patch, '<kind>_also')."""
    out: Dict[str, set] = {}
    for r in data()["releases"].values():
        pairs = list(r[kind].items())
        pairs += [(p, c[kind]) for p, c in r.get("conda_companions", {}).items() if kind in c]
        pairs += [(p, c) for p, cs in r.get(kind + "_also", {}).items() for c in cs]  # e.g. 0.11.1 -> 1.10.0
        for torch_patch, comp in pairs:
            out.setdefault(comp, set()).add(torch_patch)
    return {c: tuple(sorted(ps, key=lambda p: V.parse(p).release)) for c, ps in out.items()}


def _companion_ok(kind: str, torch_version: Any, comp_version: Any) -> Optional[bool]:
    cv = V.parse(comp_version)
    if release_row(torch_version) is None or cv is None:
        return None
    comp, ranges = cv.public, data()["companions"][kind + "_ranges"]
    if comp in ranges:
        return _in_range(torch_version, ranges[comp]["torch"])
    paired, patch, minor = _paired_torch(kind), V.patch(torch_version), V.minor(torch_version)
    if comp in paired:
        if patch:
            return patch in paired[comp]
        return None if any(V.minor(p) == minor for p in paired[comp]) else False
    if cv >= min(V.parse(k) for k in ranges):
        return None  # an unknown release of the range era
    # unknown exact-pin release: it can only pair with the minor its series belongs to
    owners = {V.minor(p) for c, ps in paired.items() if V.parse(c).release[:2] == cv.release[:2] for p in ps}
    return None if not owners or minor in owners else False


def matching_torchvision(torch_version: Any) -> Optional[str]:
    """torchvision released with that torch patch ("0.28.0"); the series ("0.28") when only
    the minor is given or the patch pairing is unconfirmed; None if unknown (2.15)."""
    r = release_row(torch_version)
    return (r["torchvision"].get(V.patch(torch_version) or "") or r.get("torchvision_series")) if r else None


def matching_torchaudio(torch_version: Any) -> Optional[str]:
    """torchaudio for that torch. Up to 2.11: the same-release pair (its series if only the
    minor is given). From 2.12 there is no torchaudio of the same number; torchaudio 2.11 is
    built on the stable ABI and documented to work with every later torch, so this returns
    the newest torchaudio whose declared range admits the torch, i.e. what pip installs."""
    r = release_row(torch_version)
    if not r:
        return None
    if r["torchaudio"]:
        exact = r["torchaudio"].get(V.patch(torch_version) or "")
        return exact or ".".join(next(iter(r["torchaudio"].values())).split(".")[:2])
    ranges = data()["companions"]["torchaudio_ranges"]
    fits = [ta for ta, e in ranges.items() if _in_range(torch_version, e["torch"])]
    return max(fits, key=V.parse) if fits else None


def torchvision_compatible(torch_version: Any, torchvision_version: Any) -> Optional[bool]:
    """By the official pairs, or the declared range of stable-ABI wheels (0.29.1+)."""
    return _companion_ok("torchvision", torch_version, torchvision_version)


def torchaudio_compatible(torch_version: Any, torchaudio_version: Any) -> Optional[bool]:
    """By the official pairs, or the declared range of stable-ABI wheels (2.11.x)."""
    return _companion_ok("torchaudio", torch_version, torchaudio_version)


def torch_for_torchvision(torchvision_version: Any) -> Optional[str]:
    """torch patch a torchvision was released with ("2.13.0"); the torch minor for a series
    ("0.28" -> "2.13"); for a range-only release its specifier (">=2.14.0")."""
    cv = V.parse(torchvision_version)
    if cv is None:
        return None
    paired = _paired_torch("torchvision").get(cv.public)
    rng = data()["companions"]["torchvision_ranges"].get(cv.public)
    if paired or rng:
        return paired[-1] if paired else rng["torch"]
    series = [m for m, r in data()["releases"].items() if r.get("torchvision_series") == cv.public]
    return series[0] if series and len(cv.release) == 2 else None


# torchcodec does not declare the torch it was built for; its README pairs each minor with a
# torch minor (a range from 0.12). A mismatch only shows when its libraries fail to load.
def _torchcodec_spec(torchcodec_version: Any) -> Optional[str]:
    cv = V.parse(torchcodec_version)
    if cv is None:
        return None
    table = data()["companions"]["torchcodec_torch"]
    for key in (cv.base_version, "%d.%d" % cv.release[:2]):
        if key in table:
            return table[key]["torch"]
    return None


def torchcodec_compatible(torch_version: Any, torchcodec_version: Any) -> Optional[bool]:
    """By the README's table; None when either version or the torchcodec release is unknown."""
    spec = _torchcodec_spec(torchcodec_version)
    return _in_range(torch_version, spec) if spec else None


def torchcodec_for_torch(torch_version: Any) -> Optional[str]:
    """The newest torchcodec minor the table pairs with that torch ("0.10" for 2.10.x)."""
    table = data()["companions"]["torchcodec_torch"]
    fits = [tc for tc, e in table.items() if _in_range(torch_version, e["torch"])]
    return max(fits, key=V.parse) if fits else None
