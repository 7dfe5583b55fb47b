"""The TD4xx rules over one environment Group: companions that do not pair with the torch
pin (TD401), index URLs or local tags for a variant the release lacks (TD402), no wheel
for the declared Python (TD403), a CUDA base image against the wheel's CUDA (TD404,
TD406), torch unpinned beside pinned companions (TD405). The compatibility tables
(torchdoctor.kb.compat) answer every question.
"""

import re
from typing import List, Optional, Tuple

from ...model import versions as V
from ...kb import compat
from .envfiles import COMPANIONS, Group, Pin


def _torch_patches(group: Group) -> Optional[List[str]]:
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


def _exact(pin: Pin) -> Optional[str]:
    m = re.fullmatch(r"===?\s*([0-9][0-9A-Za-z.+]*)", pin.spec.strip())
    return m.group(1).split("+")[0] if m and "*" not in m.group(1) else None


def _short(patches: List[str]) -> str:
    if len(patches) == 1:
        return "torch " + patches[0]
    return "torch %s ... %s" % (patches[0], patches[-1])


def check_group(group: Group, python: Optional[Pin] = None) -> List[Tuple[str, int, int, str]]:
    """(code, line, col, message) for one environment group."""
    out: List[Tuple[str, int, int, str]] = []
    patches = _torch_patches(group)
    torch_pins = group.of("torch")
    tp = torch_pins[0] if torch_pins else None
    # TD401: companions no release pairs with the torch pin
    if patches:
        for name in COMPANIONS:
            ok_fn = compat.torchvision_compatible if name == "torchvision" else compat.torchaudio_compatible
            for pin in group.of(name):
                ver = _exact(pin)
                if not ver:
                    continue
                answers = [ok_fn(p, ver) for p in patches]
                if any(a is True for a in answers) or not answers or any(a is None for a in answers):
                    continue
                best = (compat.torch_for_torchvision(ver) if name == "torchvision" else None)
                pairs = "; %s %s goes with torch %s" % (name, ver, best) if best else ""
                match = (compat.matching_torchvision(patches[-1]) if name == "torchvision"
                         else compat.matching_torchaudio(patches[-1]))
                shown = tp.text or ("torch" + tp.spec)
                within = "" if len(patches) == 1 and shown.endswith(patches[0]) else " (%s)" % _short(patches)
                out.append(("TD401", pin.line, pin.col, "%s==%s does not pair with %s%s: torch %s pairs with %s %s%s" % (
                    name, ver, shown, within, patches[-1], name, match or "(unknown)", pairs)))
    # TD405: torch unpinned beside pinned companions
    if torch_pins and all(not p.spec and not p.local for p in torch_pins):
        for name in COMPANIONS:
            for pin in group.of(name):
                ver = _exact(pin)
                if not ver:
                    continue
                want = compat.torch_for_torchvision(ver) if name == "torchvision" else None
                hint = " (it was released with torch %s: pin torch==%s)" % (want, want) if want and want[0].isdigit() else ""
                out.append(("TD405", torch_pins[0].line, torch_pins[0].col,
                            "torch is not pinned but %s is (%s==%s)%s; whichever install runs last decides the "
                            "torch you get" % (name, name, ver, hint)))
                break
            else:
                continue
            break
    # TD402: index URL / local tag for a variant that does not exist or lacks the pin
    all_variants = set()
    for m in compat.known_releases():
        all_variants.update(compat.cuda_variants(m))
    variants = [(v, url, line) for v, url, line in group.indexes]
    variants += [(p.local, "torch" + p.spec, p.line) for p in torch_pins if p.local]
    for variant, url, line in variants:
        if variant in ("cpu", "nightly", "test"):
            continue
        if variant.startswith("cu"):
            if variant not in all_variants:
                out.append(("TD402", line, 1, "%s: no torch release the tables know was built for %s (CUDA %s)"
                            % (url, variant, compat.cuda_of_variant(variant) or "?")))
                continue
            if patches:
                carry = [p for p in patches if variant in compat.cuda_variants(p)]
                if not carry:
                    have = sorted({v for p in patches for v in compat.cuda_variants(p)})
                    out.append(("TD402", line, 1, "%s: %s has no %s wheels (it was built for %s)"
                                % (url, _short(patches), variant, ", ".join(have) or "CPU only")))
        elif variant.startswith("rocm") and patches:
            ver = variant[4:]
            rocm = {x for p in patches for x in ((compat.release(p) or {}).get("rocm") or [])}
            if rocm and ver not in rocm:
                out.append(("TD402", line, 1, "%s: %s was not built for ROCm %s (ROCm %s)"
                            % (url, _short(patches), ver, ", ".join(sorted(rocm)))))
    # TD403: no wheel for the declared Python
    py = group.python or python
    if patches and py and py.spec:
        lowest = _lowest_python(py.spec)
        if lowest:
            ok = [compat.python_supported(p, lowest) for p in patches]
            if ok and all(a is False for a in ok):
                sup = compat.supported_pythons(patches[-1]) or []
                out.append(("TD403", (tp.line if tp else py.line), (tp.col if tp else 1),
                            "%s has no wheel for Python %s, which %s admits (%s: Python %s)" % (
                                _short(patches), lowest, "%s %s" % (py.where, py.spec),
                                _short(patches[-1:]), ", ".join(sup))))
    # TD404 / TD406: CUDA base image against the wheel's CUDA
    if group.images and patches:
        variant = next((p.local for p in torch_pins if p.local), None) or \
            next((v for v, _, _ in group.indexes if v.startswith("cu")), None)
        if not variant and len(patches) == 1:
            variant = compat.default_cuda(patches[0])
        info = compat.variant_info(variant) if variant and variant.startswith("cu") else None
        for cuda, image, line in group.images:
            img = compat.min_driver(cuda, "linux")
            if not info or not img or not img.get("full"):
                continue
            wheel_mvc, wheel_full = info["linux"].get("mvc"), info["linux"].get("full")
            if wheel_mvc and V.older(img["full"], wheel_mvc):
                out.append(("TD404", line, 1,
                            "%s admits hosts whose driver supports CUDA %s (>= %s), but %s (%s) needs a driver "
                            ">= %s: on hosts in between torch.cuda.is_available() is False" % (
                                image, cuda, img["full"], _short(patches), variant, wheel_mvc)))
            elif wheel_full and V.release(cuda)[0] > V.release(compat.cuda_of_variant(variant))[0]:
                out.append(("TD406", line, 1,
                            "%s needs a driver >= %s (CUDA %s), while %s (%s) runs on drivers from %s: hosts "
                            "with a driver in between refuse to start the container" % (
                                image, img["full"], cuda, _short(patches), variant, wheel_mvc or wheel_full)))
    return out


def _lowest_python(spec: str) -> Optional[str]:
    from packaging.specifiers import SpecifierSet
    s = SpecifierSet(spec)
    if s.contains("3.6.0") or s.contains("3.6.99"):
        return None  # no lower bound worth checking
    for minor in range(7, 17):
        if s.contains("3.%d.0" % minor) or s.contains("3.%d.99" % minor):
            return "3.%d" % minor
    return None
