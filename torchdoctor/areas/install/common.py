"""What the install hooks share: the target's OS, Python and machine, and the torch
install command for it.
"""

import re
from typing import List, Optional, Tuple

from ...advice import install_advice
from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat


INDEX = "https://download.pytorch.org/whl/"


def python_note(facts: Facts) -> List[str]:
    exe = facts.value("python.executable")
    if not exe:
        return []
    parts = ["Python %s" % facts.value("python.version", "?")]
    if facts.value("python.bits"):
        parts.append("%s-bit" % facts.value("python.bits"))
    if F.machine(facts):
        parts.append(F.machine(facts))
    return ["%s at %s" % (", ".join(parts), exe)]


def advice_for(facts: Facts):
    return install_advice(facts)


def installed_version(facts: Facts, name: str) -> Optional[str]:
    return F.package_version(facts, name)


def cuda_major_of(variant: Optional[str]) -> Optional[str]:
    m = re.fullmatch(r"cu(\d{2})\d", variant or "")
    return m.group(1) if m else None


def ver_tuple(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


def new_env_commands(facts: Facts, torch_minor: str) -> List[str]:
    rel = compat.release(torch_minor) or {}
    stable = [p for p in rel.get("python", []) if p not in rel.get("python_experimental", [])]
    if not stable:
        return []
    return venv_commands(facts, max(stable, key=ver_tuple), "torch")


def venv_commands(facts: Facts, python_minor: str, package: str) -> List[str]:
    """A venv on Python `python_minor` and `package` installed in it, in this OS's words."""
    if F.os_of(facts) == "windows":
        return ["py -%s -m venv .venv" % python_minor, ".venv\\Scripts\\python -m pip install %s" % package]
    return ["python%s -m venv .venv" % python_minor, ".venv/bin/python -m pip install %s" % package]
