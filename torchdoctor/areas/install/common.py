"""What the install hooks share: the target's OS, Python and machine, and the torch
install command for it.
"""

import re
from typing import List, Optional, Tuple

from ...advice import install_advice
from ...facts import Facts
from ...facts import derived as F
from ...kb import compat


INDEX = "https://download.pytorch.org/whl/"


def os_of(facts: Facts) -> Optional[str]:
    """linux/windows/macos from the OS facts, else from sys.platform; None if unknown."""
    if facts.has("os.system"):
        return F.os_name(facts)
    plat = facts.value("python.platform")
    if isinstance(plat, str):
        if plat.startswith("win"):
            return "windows"
        if plat == "darwin":
            return "macos"
        if plat.startswith("linux"):
            return "linux"
    return None


def py_minor(facts: Facts) -> Optional[str]:
    v = facts.value("python.version")
    if not isinstance(v, str):
        return None
    m = re.match(r"(\d+)\.(\d+)", v)
    return "%s.%s" % m.groups() if m else None


def machine_of(facts: Facts) -> str:
    m = facts.value("python.machine") or facts.value("os.machine") or ""
    return str(m).lower()


def python_note(facts: Facts) -> List[str]:
    exe = facts.value("python.executable")
    if not exe:
        return []
    parts = ["Python %s" % facts.value("python.version", "?")]
    if facts.value("python.bits"):
        parts.append("%s-bit" % facts.value("python.bits"))
    if machine_of(facts):
        parts.append(machine_of(facts))
    return ["%s at %s" % (", ".join(parts), exe)]


def pip_line(cmd: str, facts: Facts) -> str:
    """`pip install ...` -> `/path/python -m pip install ...`."""
    return F.pip_cmd(facts) + cmd[3:] if cmd.startswith("pip ") else cmd


def torch_variant(facts: Facts) -> Optional[str]:
    """The installed wheel's variant ('cu121', 'cpu', 'rocm6.2'); None if unknown or plain."""
    return F.local_tag(facts)


def torch_install(facts: Facts, version: Optional[str] = None, variant: Optional[str] = "keep",
                   reinstall: bool = False, companions: bool = False) -> List[str]:
    """Install command(s) for torch `version` (default: the installed one) in the installed
    variant ("keep"), for the target interpreter; [] when the KB cannot say."""
    version = version or F.torch_base_version(facts)
    if not version:
        return []
    if variant == "keep":
        variant = torch_variant(facts)
    os_ = os_of(facts) or "linux"
    installer = "conda" if F.installed_with_conda(facts) else "pip"
    cmds = compat.install_command(version, variant, installer=installer, with_companions=companions, os=os_)
    if not cmds and installer == "conda":  # no conda package of that release: pip it is
        cmds = compat.install_command(version, variant, installer="pip", with_companions=companions, os=os_)
    out = []
    for c in cmds:
        if reinstall and c.startswith("pip install "):
            c = "pip install --force-reinstall --no-cache-dir " + c[len("pip install "):]
        out.append(pip_line(c, facts))
    return out


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
    target = max(stable, key=ver_tuple)
    if os_of(facts) == "windows":
        return ["py -%s -m venv .venv" % target, ".venv\\Scripts\\python -m pip install torch"]
    return ["python%s -m venv .venv" % target, ".venv/bin/python -m pip install torch"]
