"""Version strings, the one place they are parsed: torch ('2.13.0+cpu'), CUDA ('12.4'),
drivers ('550.54.15'), companions, Python ('3.11.7').

Nothing here raises: odd input ('garbage', None, True, []) gives None or (). packaging is
imported on first use, not at import time, because this module sits on explain's
start-up path.
"""

import functools
from typing import Any, Optional, Tuple


@functools.lru_cache(maxsize=2048)
def _parse(text: str):
    from packaging.version import InvalidVersion, Version
    try:
        return Version(text)
    except (InvalidVersion, TypeError, ValueError):
        return None


def parse(value: Any):
    """packaging Version of ``value`` (a str, a number or already a Version), or None."""
    if hasattr(value, "release") and hasattr(value, "base_version"):
        return value
    if value is None or isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    text = str(value).strip()
    return _parse(text) if text else None


def release(value: Any) -> Tuple[int, ...]:
    """(2, 13, 0) for '2.13.0+cpu'; () when it does not parse."""
    v = parse(value)
    return tuple(v.release) if v else ()


def minor(value: Any) -> Optional[str]:
    """'2.13' for '2.13.0+cpu' (syntactic: whether such a release exists is compat's question)."""
    r = release(value)
    return "%d.%d" % r[:2] if len(r) >= 2 else None


def minor_tuple(value: Any) -> Optional[Tuple[int, int]]:
    r = release(value)
    return (r[0], r[1]) if len(r) >= 2 else None


def patch(value: Any) -> Optional[str]:
    """'2.13.0' for '2.13.0+cpu'; None for '2.13' (no patch given)."""
    r = release(value)
    return "%d.%d.%d" % r[:3] if len(r) >= 3 else None


def base(value: Any) -> Optional[str]:
    """The release numbers alone, as packaging's base_version: '2.13.0' for '2.13.0+cpu', '2.3.0' for '2.3.0a0'."""
    v = parse(value)
    return v.base_version if v else None


def local_tag(value: Any) -> Optional[str]:
    """'cpu', 'cu130', 'rocm6.2' from '2.13.0+cpu'; None when there is none."""
    if not isinstance(value, str) or "+" not in value:
        return None
    tag = value.split("+", 1)[1].strip()
    return tag or None


def at_least(value: Any, floor: Any) -> Optional[bool]:
    """value >= floor comparing release numbers only (2.3.0a0 counts as 2.3); None if either is odd."""
    a, b = release(value), release(floor)
    if not a or not b:
        return None
    width = max(len(a), len(b))
    return a + (0,) * (width - len(a)) >= b + (0,) * (width - len(b))


def older(value: Any, other: Any) -> Optional[bool]:
    """value < other by release numbers; None if either is odd."""
    r = at_least(value, other)
    return None if r is None else not r


def admits(spec: str, version: str) -> Optional[bool]:
    """Whether a requirement specifier ('<3.13,>=3.9') admits ``version``; None when it does not parse."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        return SpecifierSet(spec).contains(version, prereleases=True)
    except (InvalidSpecifier, TypeError, ValueError):
        return None


def lower_bound(spec: str):
    """(the largest lower bound, whether it is admitted) of a requirement specifier: ('0.2.0',
    True) for '>=0.2.0', ('1.0', False) for '>1.0', ('2.5', True) for '==2.5.*', as a Version and
    a bool; None when it has no lower bound or does not parse."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet
    try:
        specs = SpecifierSet(spec)
    except (InvalidSpecifier, TypeError, ValueError):
        return None
    bounds = []
    for s in specs:
        if s.operator in (">=", ">", "==", "~=", "==="):
            v = parse(s.version[:-2] if s.version.endswith(".*") else s.version)
            if v is not None:
                bounds.append((v, s.operator != ">"))
    # the largest bound; of two equal ones the exclusive one is the stricter
    return max(bounds, key=lambda b: (b[0], not b[1])) if bounds else None
