"""What the companion hooks share: versions, tags and pins of torch and its companions.
"""

import re
from typing import Any, Dict, List, Optional, Tuple

from ...facts import Facts
from ...facts import derived as F
from ...kb import compat


WHL = "https://download.pytorch.org/whl"


def tag_of(version: Optional[str]) -> Optional[str]:
    """Local tag of a version string: 'cpu', 'cu130', 'rocm6.2'; None when it has none."""
    return version.split("+", 1)[1] if version and "+" in version else None


def _minor(version: Optional[str]) -> Optional[Tuple[int, int]]:
    v = F.parse_version(version)
    return tuple(v.release[:2]) if v and len(v.release) >= 2 else None  # type: ignore[return-value]


def is_older(a: Optional[str], b: Optional[str]) -> Optional[bool]:
    va, vb = F.parse_version(a), F.parse_version(b)
    if va is None or vb is None:
        return None
    return va.release < vb.release


def pip_line(facts: Facts, args: str) -> str:
    return "%s %s" % (F.pip_cmd(facts), args)


def with_interpreter(cmd: str, facts: Facts) -> str:
    return F.pip_cmd(facts) + cmd[3:] if cmd.startswith("pip ") else cmd


def pin_spec(name: str, version: str) -> str:
    """name==1.2.3, name==0.28.* for a bare series, name<spec> for a specifier."""
    if version[:1] in "=<>~!":
        return '"%s%s"' % (name, version)
    if version.endswith(".*"):
        return "%s==%s" % (name, version)
    return "%s==%s%s" % (name, version, ".*" if version.count(".") == 1 else "")


def index_args(tag: Optional[str]) -> str:
    """The wheel index a companion must come from to match torch's build variant."""
    return " --index-url %s/%s" % (WHL, tag) if tag else ""


def torch_meta_version(facts: Facts) -> Optional[str]:
    """torch's version as its dist-info says it (carries +cpu/+cu130 for wheels from
    download.pytorch.org, no tag for PyPI wheels), else what the import reported."""
    return F.package_version(facts, "torch") or F.torch_version_str(facts)


def macos_version(facts: Facts) -> Optional[str]:
    v = facts.value("os.macos_version")
    return v if isinstance(v, str) and v else None


def python_minor(facts: Facts) -> Optional[Tuple[int, int]]:
    return _minor(facts.value("python.version"))


def release_variant(target: str, tag: Optional[str]) -> Optional[str]:
    """The variant of release `target` closest to the installed build `tag`: the same
    one if shipped, else the newest CUDA variant with the same major (None = PyPI)."""
    if not tag:
        return None
    variants = compat.cuda_variants(target)
    if tag == "cpu" or tag in variants:
        return tag
    m = re.match(r"cu(\d+?)(\d)$", tag)
    if m:
        same_major = [v for v in variants if re.match(r"cu%s\d$" % m.group(1), v)]
        if same_major:
            return sorted(same_major)[-1]
    return None


def torch_install(facts: Facts, target: str, tag: Optional[str]) -> List[str]:
    variant = release_variant(target, tag)
    cmds = compat.install_command(target, variant, os=F.os_name(facts))
    if not cmds and variant is not None:
        cmds = compat.install_command(target, None, os=F.os_name(facts))
    return [with_interpreter(c, facts) for c in cmds]


def match_groups(match: Any) -> Dict[str, str]:
    g = getattr(match, "groups", None)
    return g if isinstance(g, dict) else {}


def entry_id_of(match: Any) -> str:
    return getattr(match, "id", "") or getattr(getattr(match, "entry", None), "id", "")
