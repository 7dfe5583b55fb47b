"""The install command that is right for *this* machine.

Shared by checks (cpu-only build, driver too old, missing torch) and by
``explain`` tailoring, so every place that tells the user to reinstall torch
agrees on the version, the CUDA variant and the interpreter.
"""

from dataclasses import dataclass, field
from typing import List, Optional

from .checks import _facts as F
from .facts import Facts
from .kb import compat


@dataclass
class InstallAdvice:
    torch_version: Optional[str]
    variant: Optional[str]  # "cu130", "cpu" or None (macOS: no index)
    commands: List[str] = field(default_factory=list)
    why: str = ""


def _target_version(facts: Facts, version: Optional[str]) -> Optional[str]:
    if version:
        return version
    base = F.torch_base_version(facts)
    if base:
        return base
    py = facts.value("python.version")
    minor = compat.newest_torch_for_python(py) if isinstance(py, str) else None
    minor = minor or compat.latest_release()
    return compat.latest_patch(minor) if minor else None


def choose_variant(facts: Facts, version: str) -> InstallAdvice:
    os_ = F.os_name(facts)
    if os_ == "macos":
        return InstallAdvice(version, None, why="macOS wheels on PyPI carry CPU and MPS support; there is no CUDA on macOS.")
    driver = F.driver_version(facts)
    if driver:
        variant = compat.newest_variant_for_driver(version, driver, os_)
        if variant:
            return InstallAdvice(version, variant, why="driver %s runs the %s build of torch %s (newest CUDA variant it supports)."
                                 % (driver, variant, version))
        return InstallAdvice(version, None, why="no CUDA variant of torch %s runs on driver %s; update the NVIDIA driver first."
                             % (version, driver))
    nvcc = F.nvcc_version(facts)
    if nvcc:
        variant = compat.variant_for_cuda(nvcc)
        if variant in compat.cuda_variants(version):
            return InstallAdvice(version, variant, why="no NVIDIA driver is visible, so this picks the variant matching the installed CUDA toolkit %s; it will only use a GPU once a driver >= the one CUDA %s needs is installed." % (nvcc, nvcc))
    return InstallAdvice(version, "cpu", why="no NVIDIA driver or GPU is visible, so the CPU build is the one that works here.")


def install_advice(facts: Facts, version: Optional[str] = None, variant: Optional[str] = None) -> InstallAdvice:
    """Commands that install torch `version` (default: the installed one, else
    the newest release for this Python) in the variant this machine can run."""
    target = _target_version(facts, version)
    if not target:
        return InstallAdvice(None, None, why="unknown torch version")
    adv = choose_variant(facts, target) if variant is None else InstallAdvice(target, variant)
    if adv.variant is None and F.os_name(facts) != "macos":
        return adv  # no variant runs; the caller explains the driver update
    installer = "conda" if F.installed_with_conda(facts) else "pip"
    companions = [n for n in ("torchvision", "torchaudio") if F.package_version(facts, n)]
    cmds = compat.install_command(target, adv.variant, installer=installer, os=F.os_name(facts),
                                  with_companions=companions)
    if not cmds and installer == "conda":  # no conda packages for this release: pip inside the env
        cmds = compat.install_command(target, adv.variant, os=F.os_name(facts), with_companions=companions)
    installed = F.torch_version_str(facts)
    if cmds and installed and cmds[0].startswith("pip "):
        # `torch==2.13.0` is already satisfied by an installed 2.13.0+cpu (PEP 440
        # ignores the local tag), so pip would keep the wrong build: remove it first.
        cmds = ["pip uninstall -y " + " ".join(["torch"] + companions)] + cmds
    adv.commands = [_with_interpreter(c, facts) for c in cmds]
    return adv


def _with_interpreter(cmd: str, facts: Facts) -> str:
    """`pip install ...` -> `/path/to/python -m pip install ...` for the target env."""
    if cmd.startswith("pip "):
        return F.pip_cmd(facts) + cmd[3:]
    return cmd
