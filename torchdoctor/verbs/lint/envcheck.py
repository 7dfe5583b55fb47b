"""What the environment rules (rules/td4xx) read: one environment Group (the pins, indexes,
declared Python and base images of one file) with the declared Python it inherits, as an
EnvCase, and the questions they share about it (the torch patches its pins admit, an exact
pin's version, a range of patches in words, the lowest Python a specifier admits). The
compatibility tables (torchdoctor.kb.compat) answer every question.
"""

import re
from typing import Any, Dict, List, Optional

from ...kb import compat
from ...model import versions as V
from ...model.records import record
from .envfiles import Group, Pin


def torch_patches(group: Group) -> Optional[List[str]]:
    """Known torch patches every torch pin of the group admits; None when torch is unpinned."""
    from packaging.specifiers import SpecifierSet
    specs = [p.spec for p in group.of("torch") if p.spec]
    if not specs:
        return None
    s = SpecifierSet(",".join(specs))
    out = []
    for m in compat.known_releases():
        for patch in (compat.release(m) or {}).get("patches") or []:
            if s.contains(patch, prereleases=True) or any(s.contains("%s+%s" % (patch, p.local), prereleases=True)
                                                           for p in group.of("torch") if p.local):
                out.append(patch)
    return out


def exact(pin: Pin) -> Optional[str]:
    m = re.fullmatch(r"===?\s*([0-9][0-9A-Za-z.+]*)", pin.spec.strip())
    return m.group(1).split("+")[0] if m and "*" not in m.group(1) else None


def short(patches: List[str]) -> str:
    if len(patches) == 1:
        return "torch " + patches[0]
    return "torch %s ... %s" % (patches[0], patches[-1])


def lowest_python(spec: str) -> Optional[str]:
    from packaging.specifiers import SpecifierSet
    s = SpecifierSet(spec)
    if s.contains("3.6.0") or s.contains("3.6.99"):
        return None  # no lower bound worth checking
    for minor in range(7, 17):
        if s.contains("3.%d.0" % minor) or s.contains("3.%d.99" % minor):
            return "3.%d" % minor
    return None


def image_verdicts(case: "EnvCase") -> List[Dict[str, Any]]:
    """For each CUDA base image of the group, how its CUDA compares with the pinned wheel's:
    {"kind": "too-old" (it admits drivers the wheel cannot use) | "driver-floor" (it demands a
    newer driver than the wheel), "image", "cuda", "line", "variant", "wheel_mvc", "wheel_full",
    "image_driver"}; images the tables cannot place are left out."""
    group, patches = case.group, case.patches
    if not group.images or not patches:
        return []
    variant = next((p.local for p in case.torch_pins if p.local), None) or \
        next((v for v, _, _ in group.indexes if v.startswith("cu")), None)
    if not variant and len(patches) == 1:
        variant = compat.default_cuda(patches[0])
    info = compat.variant_info(variant) if variant and variant.startswith("cu") else None
    out = []
    for cuda, image, line in group.images:
        img = compat.min_driver(cuda, "linux")
        if not info or not img or not img.get("full"):
            continue
        wheel_mvc, wheel_full = info["linux"].get("mvc"), info["linux"].get("full")
        kind = None
        if wheel_mvc and V.older(img["full"], wheel_mvc):
            kind = "too-old"
        elif wheel_full and V.release(cuda)[0] > V.release(compat.cuda_of_variant(variant))[0]:
            kind = "driver-floor"
        if kind:
            out.append({"kind": kind, "image": image, "cuda": cuda, "line": line, "variant": variant,
                        "wheel_mvc": wheel_mvc, "wheel_full": wheel_full, "image_driver": img["full"]})
    return out


_UNSET = object()


@record(eq=False)
class EnvCase:
    """The subject of the environment rules: a group and the Python declared beside it (a
    requirements file inherits its directory's pyproject.toml or setup.cfg Python)."""
    group: Group
    python: Optional[Pin] = None
    _patches: object = _UNSET

    @property
    def patches(self) -> Optional[List[str]]:
        """torch_patches(group), computed once for every rule that asks."""
        if self._patches is _UNSET:
            self._patches = torch_patches(self.group)
        return self._patches  # type: ignore[return-value]

    @property
    def torch_pins(self) -> List[Pin]:
        return self.group.of("torch")
