"""The install command that is right for *this* machine.

Shared by checks (cpu-only build, driver too old, missing torch) and by
``explain`` tailoring, so every place that tells the user to reinstall torch
agrees on the version, the CUDA variant and the interpreter.

Nothing here recommends a torch that cannot be installed here: a release with no
wheel for the target's Python, a release after the last Intel-Mac wheels on an
x86_64 macOS Python, or a CUDA/ROCm variant the release never shipped gives no
commands, and ``why`` says so.
"""

from ..model.records import field, record
from typing import List, Optional

from ..model import versions as V
from ..model import derived as F
from ..model.facts import Facts
from ..kb import compat
from .commands import on_interpreter

JETSON_URL = "https://docs.nvidia.com/deeplearning/frameworks/install-pytorch-jetson-platform/index.html"
INSTALL_URL = "https://pytorch.org/get-started/locally/"


@record
class InstallAdvice:
    torch_version: Optional[str]
    variant: Optional[str]  # "cu130", "cpu", "rocm6.1" or None (macOS: no index; or nothing fits)
    commands: List[str] = field(default_factory=list)
    why: str = ""


def unavailable_reason(facts: Facts, version: str) -> Optional[str]:
    """Why no wheel of torch `version` installs into the target interpreter, or None
    (also None when that cannot be told: unknown Python, a release the KB lacks)."""
    py = F.python_minor(facts)
    if py and compat.python_supported(version, py) is False:
        return "torch %s has no wheel for Python %s (it supports Python %s)" % (
            version, py, ", ".join(compat.supported_pythons(version) or []))
    if F.macos_x86_64(facts):
        last = compat.macos_x86_64_last_release()
        minor = V.minor(version)
        if minor and V.parse(minor) > V.parse(last):
            return ("torch %s has no wheel for x86_64 macOS (Intel Macs and Pythons running under Rosetta): "
                    "the last release with one is torch %s" % (version, compat.latest_patch(last) or last))
    return None


def installable(facts: Facts, version: str) -> bool:
    return unavailable_reason(facts, version) is None


def installable_releases(facts: Facts) -> List[str]:
    """The releases (minors, newest first) with a wheel for the target's Python and platform."""
    return [m for m in reversed(compat.known_releases()) if installable(facts, compat.latest_patch(m) or m)]


def newest_installable(facts: Facts) -> Optional[str]:
    """The newest release whose wheels fit this Python and platform and, on a machine
    with an NVIDIA driver, that has a CUDA variant the driver runs (else the newest that
    merely installs: choose_variant then says the driver is too old)."""
    fits = installable_releases(facts)
    caps = [c for c in (F.capability(g) for g in F.driver_gpus(facts)) if c]
    for minor in fits:
        patch = compat.latest_patch(minor)
        if not patch:
            continue
        if F.os_name(facts) == "macos":
            return patch
        variant = choose_variant(facts, patch).variant
        if variant is None:
            continue
        arches = compat.arch_list(patch, variant) if variant.startswith("cu") else None
        if arches is not None and not all(compat.cc_supported_by(arches, c) for c in caps):
            continue  # no kernels for this machine's GPU (an old Kepler/Maxwell card): an older release
        return patch
    return compat.latest_patch(fits[0]) if fits else None


def _newest_plain(facts: Facts) -> Optional[str]:
    """The newest release that installs here, whatever the driver runs."""
    fits = installable_releases(facts)
    return (compat.latest_patch(fits[0]) or fits[0]) if fits else None


def _target_version(facts: Facts, version: Optional[str]) -> Optional[str]:
    if version:
        return version
    base = F.torch_base_version(facts)
    if base:
        return base
    return newest_installable(facts)


def rocm_variant(facts: Facts, version: str) -> Optional[str]:
    """The ROCm index for torch `version`: the installed one when the release has it,
    else the newest ROCm the release shipped."""
    rel = compat.release(version) or {}
    patch = V.patch(version) or ""
    offered = ["rocm" + x for x in rel.get("rocm_by_patch", {}).get(patch, rel.get("rocm") or [])]
    tag = F.local_tag(facts) or ""
    if tag in offered:
        return tag
    return offered[-1] if offered else None


def choose_variant(facts: Facts, version: str) -> InstallAdvice:
    os_ = F.os_name(facts)
    if os_ == "macos":
        return InstallAdvice(version, None, why="macOS wheels on PyPI carry CPU and MPS support; there is no CUDA on macOS.")
    if F.is_jetson(facts):
        return InstallAdvice(version, None, why="this is an NVIDIA Jetson (L4T): the CUDA wheels on download.pytorch.org "
                                                "are built for server GPUs (SBSA), not for JetPack; install the torch "
                                                "wheel NVIDIA publishes for your JetPack release (%s)." % JETSON_URL)
    driver = F.driver_version(facts)
    if driver:
        variant = compat.newest_variant_for_driver(version, driver, os_)
        if variant:
            return InstallAdvice(version, variant, why="driver %s runs the %s build of torch %s (newest CUDA variant it supports)."
                                 % (driver, variant, version))
        return InstallAdvice(version, None, why="no CUDA variant of torch %s runs on driver %s; update the NVIDIA driver first."
                             % (version, driver))
    dcuda = facts.value("driver.cuda_driver_version")
    if isinstance(dcuda, str) and V.parse(dcuda):
        # Only libcuda answered (no NVML / nvidia-smi): its CUDA version is what the driver
        # supports, and minor-version compatibility extends it to the whole CUDA major.
        variant = compat.newest_variant_for_driver_cuda(version, dcuda)
        if variant:
            return InstallAdvice(version, variant, why="the NVIDIA driver supports CUDA %s, so it runs the %s build of "
                                                       "torch %s." % (dcuda, variant, version))
        return InstallAdvice(version, None, why="no CUDA variant of torch %s runs on a driver that supports CUDA %s; "
                                                "update the NVIDIA driver first." % (version, dcuda))
    if F.is_rocm_build(facts) and os_ == "linux":
        variant = rocm_variant(facts, version)
        if variant:
            return InstallAdvice(version, variant, why="the installed torch is a ROCm build, so this keeps ROCm (%s)." % variant)
        return InstallAdvice(version, None, why="the installed torch is a ROCm build, and torch %s has no ROCm build on "
                                                "download.pytorch.org." % version)
    nvcc = F.nvcc_version(facts)
    pci = facts.value("driver.pci_gpus")
    if nvcc and isinstance(pci, list) and pci:
        # A GPU without a loaded driver: the toolkit says which CUDA the machine is set up
        # for. Without any GPU the toolkit alone makes no CUDA build usable: CPU below.
        variant = compat.variant_for_cuda(nvcc)
        if variant in compat.cuda_variants(version):
            return InstallAdvice(version, variant, why="no NVIDIA driver is visible, so this picks the variant matching the installed CUDA toolkit %s; it will only use a GPU once a driver >= the one CUDA %s needs is installed." % (nvcc, nvcc))
    return InstallAdvice(version, "cpu", why="no NVIDIA driver or GPU is visible, so the CPU build is the one that works here.")


def install_advice(facts: Facts, version: Optional[str] = None, variant: Optional[str] = None,
                   companions: Optional[List[str]] = None) -> InstallAdvice:
    """Commands that install torch `version` (default: the installed one, else
    the newest release for this Python and driver) in the variant this machine can run,
    with the `companions` pinned to match (default: the installed torchvision/torchaudio)."""
    target = _target_version(facts, version)
    if not target:
        py = F.python_minor(facts)
        return InstallAdvice(None, None, why="no PyTorch release has wheels for Python %s on this platform" % py
                             if py else "unknown torch version")
    blocked = unavailable_reason(facts, target)
    if blocked:
        return InstallAdvice(target, None, why=blocked + ".")
    adv = choose_variant(facts, target) if variant is None else InstallAdvice(target, variant)
    if not version and not F.torch_base_version(facts):
        newest = _newest_plain(facts)
        if newest and newest != target:
            adv.why += (" torch %s is the newest release with a build this machine runs; torch %s has no CUDA "
                        "variant that driver %s and these GPUs run." % (target, newest, F.driver_version(facts)))
    if adv.variant is None and F.os_name(facts) != "macos":
        return adv  # no variant runs; the caller explains the driver update
    installer = "conda" if F.installed_with_conda(facts) else "pip"
    if companions is None:
        companions = [n for n in ("torchvision", "torchaudio") if F.package_installed(facts, n)]
    machine = F.python_machine(facts)
    cmds = compat.install_command(target, adv.variant, installer=installer, os=F.os_name(facts),
                                  with_companions=companions, machine=machine)
    if not cmds and installer == "conda":  # no conda packages for this release: pip inside the env
        cmds = compat.install_command(target, adv.variant, os=F.os_name(facts), with_companions=companions,
                                      machine=machine)
    if not cmds:
        adv.why = (adv.why + " " if adv.why else "") + "torch %s has no %s build%s." % (
            target, adv.variant or "matching", " on %s" % F.os_name(facts) if adv.variant else "")
        return adv
    if cmds[0].startswith("conda install") and (adv.variant or "").startswith("cu") \
            and F.conda_torch_variant(facts) == "cpu":
        # The pytorch channel's mutex lets conda go from a CUDA build to cpuonly but not back:
        # with the CPU build (and cpuonly) still installed, `conda install ... pytorch-cuda=X`
        # keeps the CPU build or refuses (pytorch/pytorch#101801). Remove them first.
        cmds = ["conda remove -y pytorch" + (" cpuonly" if F.package_installed(facts, "conda:cpuonly") else "")] + cmds
    installed = F.torch_version_str(facts)
    if cmds and installed and V.base(installed) == V.base(target) and cmds[0].startswith("pip install "):
        # `torch==2.13.0` is already satisfied by an installed 2.13.0+cpu (PEP 440 ignores the
        # local tag), so pip would keep the wrong build: --force-reinstall replaces it. Not an
        # uninstall first: pip removes the old files only once the new ones are at hand, and puts
        # them back when the install fails, so a failing install never leaves no torch.
        cmds = ["pip install --force-reinstall " + cmds[0][len("pip install "):]] + cmds[1:]
    adv.commands = [on_interpreter(c, facts) for c in cmds]
    return adv


def reinstall_same_build(facts: Facts, clean: bool = False) -> InstallAdvice:
    """Commands that put back the installed torch exactly: same version, same variant, from
    the index that variant comes from. `clean=False` (files missing or changed, RECORD says
    which): overwrite in place with --force-reinstall --no-deps, leaving every other package
    alone. `clean=True` (files of two installs mixed): reinstall it with its dependencies."""
    base = F.torch_base_version(facts)
    if not base:
        return InstallAdvice(None, None, why="the installed torch version is unknown")
    tag, osn = F.local_tag(facts), F.os_name(facts)
    # Untagged: the PyPI wheel of that OS (Linux: the default CUDA variant; Windows: CPU).
    variant = tag or (compat.default_cuda(base) if osn == "linux" else "cpu" if osn == "windows" else None)
    adv = install_advice(facts, version=base, variant=variant, companions=[])
    installs = [c for c in adv.commands if " uninstall " not in c]
    if not installs:
        return adv
    # clean: --force-reinstall uninstalls every file the installed RECORD lists (the mix of two
    # installs) and installs afresh, in one step that pip rolls back if it fails.
    flags = " install --force-reinstall --no-cache-dir " if clean else " install --force-reinstall --no-deps --no-cache-dir "
    cmds = [c.replace(" install --force-reinstall ", " install ", 1).replace(" install ", flags, 1) for c in installs]
    adv.commands = cmds
    return adv
