"""A download.pytorch.org index for a CUDA/ROCm variant that does not exist, or that does not carry the pinned torch.

## What it finds
An index URL (`--index-url https://download.pytorch.org/whl/cu124`, `--extra-index-url`,
`-f`) or a local version tag (`torch==2.1.0+cu124`) naming a CUDA or ROCm variant that no
torch release was built for, or that the pinned torch was not built for.

## Why it matters
pip finds no such wheel there: it fails, or falls back to PyPI's default build (another
CUDA, or none).

## Fix
Use a variant the pinned release was built for (the message lists them).
"""

from ....kb import compat
from ....model.findings import ERROR
from ....model.rules import rule
from ..envcheck import short
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("--extra-index-url https://download.pytorch.org/whl/cu124\ntorch==2.1.0\n", file="requirements.txt"),)
QUIET = (Example("--extra-index-url https://download.pytorch.org/whl/cu121\ntorch==2.1.0\n", file="requirements.txt"),)


@rule("lint", "TD402", severity=ERROR, category="lint", name="index-url-variant", on="env", fixable=False,
      source="kb/data/compat.json (REL, PREV)+PIP_INDEX", links=("https://pytorch.org/get-started/previous-versions/",))
def index_url_variant(case):
    patches = case.patches
    all_variants = set()
    for m in compat.known_releases():
        all_variants.update(compat.cuda_variants(m))
    variants = [(v, url, line) for v, url, line in case.group.indexes]
    variants += [(p.local, "torch" + p.spec, p.line) for p in case.torch_pins if p.local]
    out = []
    for variant, url, line in variants:
        if variant in ("cpu", "nightly", "test"):
            continue
        if variant.startswith("cu"):
            if variant not in all_variants:
                out.append(hit(Pos(line, 1), "%s: no torch release the tables know was built for %s (CUDA %s)"
                               % (url, variant, compat.cuda_of_variant(variant) or "?")))
                continue
            if patches:
                carry = [p for p in patches if variant in compat.cuda_variants(p)]
                if not carry:
                    have = sorted({v for p in patches for v in compat.cuda_variants(p)})
                    out.append(hit(Pos(line, 1), "%s: %s has no %s wheels (it was built for %s)"
                                   % (url, short(patches), variant, ", ".join(have) or "CPU only")))
        elif variant.startswith("rocm") and patches:
            ver = variant[4:]
            rocm = {x for p in patches for x in ((compat.release(p) or {}).get("rocm") or [])}
            if rocm and ver not in rocm:
                out.append(hit(Pos(line, 1), "%s: %s was not built for ROCm %s (ROCm %s)"
                               % (url, short(patches), ver, ", ".join(sorted(rocm)))))
    return out
