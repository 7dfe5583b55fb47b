"""What the companion hooks share: versions, tags and pins of torch and its companions.
"""

from typing import Optional, Tuple

from ...model import versions as V
from ...model.facts import Facts
from ...model import derived as F


def torch_meta_version(facts: Facts) -> Optional[str]:
    """torch's version as its dist-info says it (carries +cpu/+cu130 for wheels from
    download.pytorch.org, no tag for PyPI wheels), else what the import reported."""
    return F.package_version(facts, "torch") or F.torch_version_str(facts)


def macos_version(facts: Facts) -> Optional[str]:
    v = facts.value("os.macos_version")
    return v if isinstance(v, str) and v else None


def python_minor(facts: Facts) -> Optional[Tuple[int, int]]:
    """derived.python_minor as a comparable (3, 11)."""
    return V.minor_tuple(F.python_minor(facts))
