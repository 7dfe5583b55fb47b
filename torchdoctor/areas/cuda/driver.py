"""The NVIDIA driver against the CUDA torch was built with: missing, too old, loading
another libcuda, the fabric manager, CUDA initialisation that fails or hangs.
"""

import re
from typing import Any, List, Optional, Tuple

from ...model import versions as V
from ...advice import install_advice, rocm_variant
from ...advice.commands import pip
from ...model.facts import UNKNOWN, Facts
from ...model import derived as F
from ...kb import compat
from ..registry import (ERROR, WARNING, Remedy, Tailored, rule, finding, hook, installed_torch_note, known_error_finding, remedy_verify, match_groups, entry_id_of)
from ...advice import INSTALL_URL, installable_releases
from ..cpu_only_build import tailor_cpu_only_build
from .common import hip_reading, install_commands, other_env_note
from .visibility import gpu_visibility



DRIVER_URL = "https://www.nvidia.com/en-us/drivers/"


COMPAT_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/"


DRIVER_DOWNLOAD_URL = "https://www.nvidia.com/Download/index.aspx"


def no_driver_remedy(facts: Facts) -> Remedy:
    """A CUDA build of torch where no NVIDIA driver answers: on WSL the Windows driver; with
    an NVIDIA GPU on the PCI bus, install or load the driver; with none, the CPU wheel."""
    os_ = F.os_name(facts)
    cuda = F.torch_cuda(facts)
    need = F.driver_floor(cuda, os_)
    if facts.value("os.wsl") is True:
        return Remedy("This is WSL: the NVIDIA driver is installed on the Windows side (a current Game Ready/Studio "
                      "driver), never inside the Linux distribution; WSL then exposes it as /usr/lib/wsl/lib/libcuda.so. "
                      "Update the Windows driver and restart WSL (`wsl --shutdown` in a Windows terminal).",
                      ["wsl --shutdown", "ls -l /usr/lib/wsl/lib/libcuda*", "nvidia-smi"])
    if F.pci_gpus(facts):
        return Remedy("An NVIDIA GPU is in this machine but no driver is loaded. Install the NVIDIA driver%s (or load its "
                      "kernel module: after a kernel update the module must be rebuilt; with Secure Boot it must be "
                      "signed) and reboot." % (" >= %s, which torch's CUDA %s needs" % (need, cuda) if need else ""),
                      ["lsmod | grep nvidia", "sudo dmesg | grep -i nvrm", "dkms status", "mokutil --sb-state",
                       "sudo ubuntu-drivers install"] if os_ == "linux" else [])
    amd = amd_gpus_remedy(facts)
    if amd is not None:
        return amd
    cmds = install_advice(facts, variant="cpu").commands if F.is_cuda_build(facts) else []
    # Verified by what the CPU wheel prints, not by CUDA becoming available: it cannot here.
    return Remedy("No NVIDIA driver and no NVIDIA GPU were found here, so CUDA cannot work on this machine: run on the "
                  "CPU (device='cpu', torch.load(..., map_location='cpu')) or on a machine with an NVIDIA GPU%s%s."
                  % (" (with a driver >= %s)" % need if need else "",
                     "; the CPU wheel below is the same torch without the multi-GB CUDA libraries" if cmds else ""), cmds,
                  verify=('python -c "import torch; print(torch.__version__, torch.version.cuda)"',
                          "a +cpu version and None") if cmds else None, settled=not cmds)


# gfx targets that torch's ROCm wheels on download.pytorch.org carry kernels for (PYTORCH_ROCM_ARCH of
# pytorch's ROCm wheel builds), with the torch release that added each: the ROCm 6.0 builds of torch 2.3 on,
# RX 7700/7800's gfx1101 from 2.6, RX 7600's gfx1102 from 2.7, RDNA4 with the ROCm 6.4 builds. A GPU outside
# them (most integrated Radeons, RX 6600/6700's gfx1031/1032, targets added after these) gets no ROCm advice here.
_ROCM_WHEEL_TARGETS = (("2.3", "6.0", ("gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100")),
                       ("2.6", "6.0", ("gfx1101",)),
                       ("2.7", "6.0", ("gfx1102",)),
                       ("2.8", "6.4", ("gfx1200", "gfx1201")))


def _wheel_targets(torch: str, variant: str) -> List[str]:
    rocm = variant[len("rocm"):]
    return [t for since, floor, targets in _ROCM_WHEEL_TARGETS
            if V.at_least(torch, since) and V.at_least(rocm, floor) for t in targets]


def amd_cards(facts: Facts) -> List[str]:
    """The gfx targets amdgpu's compute driver reports here (one per AMD GPU), as strings."""
    g = facts.value("driver.amd_gfx_targets")
    return [t for t in g if isinstance(t, str)] if isinstance(g, list) else []


def amd_gpus_remedy(facts: Facts) -> Optional[Remedy]:
    """A CUDA build on a Linux x86_64 machine whose GPUs are AMD's and run the ROCm wheel's kernels:
    torch's ROCm build, not the CPU one. Installers and requirement files that pin the CUDA wheel put
    it there; in a container the image must be a ROCm one and see the GPU's device nodes."""
    if F.os_name(facts) != "linux" or not F.is_cuda_build(facts) or F.pci_gpus(facts) or not F.pci_amd_gpus(facts):
        return None
    if F.machine(facts) not in ("x86_64", "amd64"):
        return None  # ROCm's wheels are x86_64 only
    version = F.torch_base_version(facts)
    variant = rocm_variant(facts, version) if version else None
    targets = amd_cards(facts)
    runs = [t for t in targets if variant and t in _wheel_targets(version, variant)]
    if not runs:
        return None
    # an integrated GPU beside the card: ROCm sees it too, and torch may pick it or fail on it
    others = sorted(set(targets) - set(runs))
    adv = install_advice(facts, variant=variant)
    if not adv.commands:
        return None
    # the CUDA build's triton and ROCm's pytorch-triton-rocm both write `triton/`: the old one goes first
    first = [pip(facts, "uninstall -y triton")] if F.package_version(facts, "triton") else []
    return Remedy("No NVIDIA GPU is here, but amdgpu drives %s: a CUDA build of torch cannot use it, torch's ROCm build "
                  "(%s) carries kernels for it. An installer or a requirements file that pins the CUDA wheel put this one "
                  "here. To open the GPU your user needs the render and video groups; in a container, use a ROCm image "
                  "started with `--device /dev/kfd --device /dev/dri`.%s" % (" and ".join(sorted(set(runs))), variant,
                  " ROCm also sees %s, which these wheels may carry no kernels for: if torch picks it or fails on it, "
                  "hide it with HIP_VISIBLE_DEVICES (the index of the card among the AMD GPUs) or disable it in the "
                  "BIOS." % " and ".join(others) if others else ""),
                  first + adv.commands,
                  verify=('python -c "import torch; print(torch.version.hip, torch.cuda.is_available())"',
                          "a HIP version and True"))


@rule("check", "no-gpu-driver", category="no-gpu-driver", severity=ERROR, requires=('driver.driver_version',),
       verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
def no_gpu_driver(facts):
    """A CUDA build of torch, but no NVIDIA driver."""
    if not F.is_cuda_build(facts) or F.has_nvidia_driver(facts) or F.os_name(facts) == "macos":
        return None
    if facts.value("cuda.is_available") is True:
        return None  # the driver probes failed but torch initialised CUDA fine
    cuda = F.torch_cuda(facts) or "?"
    pci = F.pci_gpus(facts)
    version = F.torch_version_str(facts)
    sources = facts.value("driver.sources") or {}
    tried = "; ".join("%s: %s" % (k, facts.reason("driver.sources." + k)) for k in sources
                      if facts.state("driver.sources." + k) != "present")
    remedy = no_driver_remedy(facts)
    if pci:
        return finding(
            "NVIDIA GPU present but no NVIDIA driver is loaded",
            detail="torch %s is built for CUDA %s and %d NVIDIA device(s) sit on the PCI bus (%s), but no driver answers "
                   "(%s), so torch.cuda.is_available() is False." % (version, cuda, len(pci),
                                                                     ", ".join(d["slot"] for d in pci[:4]), tried),
            fix=remedy.summary, commands=remedy.commands, links=[DRIVER_URL], verify=remedy_verify(remedy, facts))
    if facts.value("os.wsl") is not True and amd_gpus_remedy(facts) is not None:
        return finding(
            "CUDA build of torch on a machine whose GPU is AMD: torch will only use the CPU",
            severity=WARNING,
            detail="torch %s is built for CUDA %s, and this machine has no NVIDIA GPU but AMD GPU(s) (%s), which only a "
                   "ROCm build of torch drives." % (version, cuda, ", ".join(amd_cards(facts))),
            fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL], verify=remedy_verify(remedy, facts))
    return finding(
        "CUDA build of torch, but no NVIDIA driver: torch will only use the CPU",
        severity=WARNING,
        detail="torch %s is built for CUDA %s, but this machine has no NVIDIA driver (%s) and no NVIDIA GPU on the PCI bus, "
               "so torch.cuda.is_available() is False. In a container this usually means it was started without GPU access "
               "(`docker run --gpus all`, the NVIDIA container toolkit)." % (version, cuda, tried or "none found"),
        fix=remedy.summary, commands=remedy.commands, links=[DRIVER_URL, INSTALL_URL], verify=remedy_verify(remedy, facts))


@rule("check", "driver-too-old", category="driver-too-old", severity=ERROR,
       verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
def driver_too_old(facts):
    """The driver is older than the CUDA version torch was built with."""
    cuda = F.torch_cuda(facts)
    driver = F.driver_version(facts)
    if not cuda or not driver:
        return None
    os_ = F.os_name(facts)
    ok = compat.driver_supports_cuda(driver, cuda, os_)
    warn = next((w for w in facts.value("cuda.warnings") or [] if "driver" in w.lower() and "too old" in w.lower()), None)
    if ok is not False and not warn:
        return None
    md = compat.min_driver(cuda, os_) or {}
    need = F.driver_floor(cuda, os_)
    if ok is True and warn:
        # The tables say driver `driver` runs this build, yet CUDA reported an older driver:
        # torch loaded another libcuda than the driver's own (reinstalling torch cannot help).
        found = re.search(r"found version (\d{4,6})", warn)
        found_cuda = "%d.%d" % (int(found.group(1)) // 1000, int(found.group(1)) % 1000 // 10) if found else None
        return finding(
            "torch loads an older CUDA driver library than NVIDIA driver %s" % driver,
            detail="NVIDIA driver %s supports CUDA %s, enough for torch %s (CUDA %s), but CUDA initialisation reported "
                   "an older driver%s.\ntorch said: %s\nAnother libcuda is found first: a cuda-compat package, a "
                   "libcuda.so copied into LD_LIBRARY_PATH or a container image, or a driver upgraded without reboot."
                   % (driver, F.driver_cuda(facts) or "?", F.torch_version_str(facts), cuda,
                      " (CUDA %s)" % found_cuda if found_cuda else "", warn.splitlines()[0]),
            fix="Make the driver's own libcuda the one that loads (remove the other copy from LD_LIBRARY_PATH, or "
                "reboot after a driver update).",
            commands=(["ldconfig -p | grep libcuda.so", "echo $LD_LIBRARY_PATH"] if os_ == "linux" else [])
            + ["%s -c \"import torch; print(torch.cuda.is_available())\"" % F.python_cmd(facts)],
            links=[COMPAT_URL])
    remedy = driver_remedy(facts)
    return finding(
        "NVIDIA driver %s is too old for torch %s (CUDA %s)" % (driver, F.torch_version_str(facts), cuda),
        detail="CUDA %s needs driver >= %s%s; this driver supports CUDA up to %s.%s"
               % (cuda, need or "?",
                  " (full feature set: >= %s)" % md["full"] if md.get("full") and md.get("full") != md.get("mvc") else "",
                  F.driver_cuda(facts) or "?",
                  ("\ntorch said: " + warn.splitlines()[0]) if warn else ""),
        fix=remedy.summary, commands=remedy.commands, links=[COMPAT_URL, DRIVER_URL])


@rule("check", "cuda-unavailable", category="no-gpu-driver", severity=ERROR, requires=('cuda.is_available', 'driver.gpus'),
       verify=('python -c "import torch; print(torch.version.cuda, torch.cuda.is_available())"', "torch's CUDA version and True"))
def cuda_unavailable(facts):
    """CUDA build, working driver and GPUs, yet torch.cuda.is_available() is False."""
    if not F.is_cuda_build(facts) or not F.has_nvidia_driver(facts) or not F.driver_gpus(facts):
        return None
    if facts.value("cuda.is_available") is not False:
        return None
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if cvd is not None and (cvd.strip() == "" or cvd.strip().startswith("-1")):
        return None  # gpu-hidden says why
    if F.driver_version(facts) and F.torch_cuda(facts) and \
            compat.driver_supports_cuda(F.driver_version(facts), F.torch_cuda(facts), F.os_name(facts)) is False:
        return None  # driver-too-old says why
    warnings = facts.value("cuda.warnings") or []
    text = "\n".join(warnings)
    detail = "The driver (%s) sees %s, but torch's CUDA initialisation failed.%s" % (
        F.driver_version(facts), F.gpu_names(facts), ("\ntorch warned: " + text[:1500]) if text else
        " torch printed no warning; run the command below to see the error.")
    known = known_error_finding(text, "torch cannot initialise CUDA", detail)
    if known:
        return known
    return finding("torch cannot initialise CUDA although the driver sees the GPU", detail=detail,
                   fix="Look at the CUDA initialisation error below; common causes are a driver/library mismatch after an "
                       "update without reboot, missing /dev/nvidia* permissions, or a broken CUDA_VISIBLE_DEVICES.",
                   commands=["%s -c \"import torch; torch.cuda.init()\"" % F.python_cmd(facts)])


@rule("check", "cuda-init-hang", category="cuda-init-hang", severity=ERROR, requires=('probe',))
def cuda_init_hang(facts):
    """CUDA initialisation did not finish within the probe's time limit."""
    p = facts.section("probe")
    if not p.get("timed_out") or p.get("last_stage") != "cuda":
        return None
    return finding(
        "CUDA initialisation hung for more than %.0f s" % p.get("timeout_s", 0),
        detail="`import torch` worked, but torch.cuda.is_available()/device queries did not return. Typical causes: a GPU "
               "in a bad state (Xid errors in `dmesg`), the nvidia-persistenced/fabric manager not running on NVSwitch "
               "systems, or a very slow first-time PTX JIT compile.",
        fix="Check the GPU state and driver logs; retry with a longer --timeout to rule out a slow JIT.",
        commands=["nvidia-smi", "sudo dmesg | grep -i -E 'nvrm|xid' | tail", "systemctl status nvidia-fabricmanager"]
        if F.os_name(facts) == "linux" else ["nvidia-smi"])


def _cuda_from_driver_int(found: Any) -> Optional[str]:
    """torch prints the driver's CUDA level as an int: 11040 -> "11.4", 6050 -> "6.5"."""
    if not str(found or "").isdigit():
        return None
    n = int(found)
    return "%d.%d" % (n // 1000, (n % 1000) // 10) if n >= 1000 else None


def _newest_release_for_driver(facts: Facts, driver: Optional[str], drv_cuda: Optional[str],
                               os_: str, mvc: bool) -> Optional[Tuple[str, str]]:
    """(minor, variant) of the newest release with a wheel here and a CUDA variant this driver runs."""
    for minor in installable_releases(facts):
        v = compat.newest_variant_for_driver(minor, driver, os_) if driver and mvc else None
        if not v and drv_cuda:
            v = compat.newest_variant_for_driver_cuda(minor, drv_cuda, mvc)
        if v:
            return minor, v
    return None


def driver_remedy(facts: Facts, drv_cuda: Optional[str] = None) -> Remedy:
    """A driver too old for the installed CUDA build: update it, or the newest variant of the
    installed release this driver runs, else the newest release that has one. `drv_cuda`:
    the CUDA version the driver supports when the facts lack it (torch's "found version")."""
    os_, base, cuda = F.os_name(facts), F.torch_base_version(facts), F.torch_cuda(facts)
    driver = F.driver_version(facts)
    need = F.driver_floor(cuda, os_)
    # torch says this driver is too old for a build that minor-version compatibility says it
    # runs: the observation beats the rule, so only variants of the driver's own CUDA or older.
    mvc = not (drv_cuda and cuda and compat.newest_variant_for_driver_cuda(base, drv_cuda) and
               V.release(cuda) > V.release(drv_cuda) and V.release(cuda)[:1] == V.release(drv_cuda)[:1])
    alt = compat.newest_variant_for_driver(base, driver, os_) if base and driver and mvc else None
    if base and not alt and drv_cuda:
        alt = compat.newest_variant_for_driver_cuda(base, drv_cuda, mvc)
    if alt and cuda and compat.cuda_of_variant(alt) == cuda:
        alt = None  # the installed variant is already the newest this driver runs: the driver is the problem
    update = "Update the NVIDIA driver to %s (from %s)" % ("%s or newer" % need if need else "a current release",
                                                          DRIVER_DOWNLOAD_URL)
    if alt:
        return Remedy("%s, or keep this driver and install the %s build of torch %s (CUDA %s), the newest variant it "
                      "runs." % (update, alt, base, compat.cuda_of_variant(alt)), install_commands(facts, base, alt))
    older = _newest_release_for_driver(facts, driver, drv_cuda, os_, mvc)
    if older:
        minor, variant = older
        version = compat.latest_patch(minor)
        return Remedy("%s. No CUDA build of torch %s runs on this driver; the newest release that does is torch %s "
                      "(%s, CUDA %s)." % (update, base or "(installed)", version, variant, compat.cuda_of_variant(variant)),
                      install_commands(facts, version, variant))
    return Remedy("%s; no CUDA build of torch %s runs on a driver this old." % (update, base or ""))


@hook("cuda-unavailable")
def cuda_not_available(match, facts: Facts) -> Optional[Tailored]:
    """torch.cuda.is_available() is False / a CUDA initialization warning: walk the usual causes."""
    if F.is_cuda_build(facts) is False or F.os_name(facts) == "macos":
        return tailor_cpu_only_build(match, facts)
    if not F.torch_version_str(facts):
        return None
    if not F.has_nvidia_driver(facts):
        return tailor_no_gpu_driver(match, facts)
    cuda, driver = F.torch_cuda(facts), F.driver_version(facts)
    if cuda and driver and compat.driver_supports_cuda(driver, cuda, F.os_name(facts)) is False:
        return tailor_driver_too_old(match, facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if cvd is not None and (cvd.strip() == "" or cvd.strip().startswith("-1")):
        return gpu_visibility(match, facts)
    return None


@hook("no-gpu-driver")
def tailor_no_gpu_driver(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    os_ = F.os_name(facts)
    if os_ == "macos":
        return Tailored(summary="macOS has no NVIDIA/CUDA support: use device='mps' on Apple silicon or 'cpu'.",
                        commands=["python -c \"import torch; print(torch.backends.mps.is_available())\""], notes=notes)
    if facts.state("driver.present") == UNKNOWN:
        return None  # nobody looked for a driver: say nothing rather than "there is none"
    if F.has_nvidia_driver(facts):
        gpus = ", ".join(F.gpu_desc(g) for g in F.driver_gpus(facts)) or "its GPUs"
        notes.append(F.driver_desc(facts) or "NVIDIA driver present")
        return Tailored(
            summary="On this machine the NVIDIA driver works (%s sees %s), so the failing process ran somewhere without "
                    "GPU access: a container started without `--gpus all` (NVIDIA Container Toolkit), another host, or a "
                    "job that was not allocated a GPU." % (F.driver_version(facts), gpus),
            commands=["nvidia-smi", "docker run --rm --gpus all <image> nvidia-smi"], notes=notes)
    notes.append(F.no_driver_desc(facts))
    pci = F.pci_gpus(facts)
    if pci:
        notes.append("%d NVIDIA device(s) on the PCI bus: %s" % (len(pci), ", ".join(d.get("slot", "?") for d in pci[:4])))
    remedy = no_driver_remedy(facts)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes, verify=remedy_verify(remedy, facts))


@hook("driver-too-old")
def tailor_driver_too_old(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_name(facts)
    notes = installed_torch_note(facts)
    if F.is_rocm_build(facts):
        # NVIDIA's driver advice cannot apply; CUDA's invalid-image words are HIP's there.
        if entry_id_of(match) != "cuda-ptx-jit-failed":
            return None
        return hip_reading(facts, "hip-invalid-device-function",
                           "and there is no PTX JIT or NVIDIA driver behind them. 'device kernel image is invalid' here "
                           "is HIP's hipErrorInvalidImage: the GPU code loaded for this GPU is missing, empty or built "
                           "for another gfx target.", notes)
    cuda = F.torch_cuda(facts)
    driver = F.driver_version(facts)
    drv_cuda = facts.value("driver.cuda_driver_version")
    found = _cuda_from_driver_int(match_groups(match).get("found"))
    if not isinstance(drv_cuda, str):
        drv_cuda = found or F.driver_cuda(facts)
    if not cuda and not drv_cuda:
        return None
    need = F.driver_floor(cuda, os_)
    if cuda:
        notes.append("torch is built with CUDA %s: needs driver >= %s on %s" % (cuda, need or "?", os_))
    if driver or drv_cuda:
        notes.append("NVIDIA driver %s (supports CUDA up to %s)" % (driver or "?", drv_cuda or "?"))
    remedy = driver_remedy(facts, drv_cuda)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes, cause=other_env_note(facts))


@hook("fabric-manager")
def fabric_manager(match, facts: Facts) -> Optional[Tailored]:
    driver = F.driver_version(facts)
    if not driver or F.os_name(facts) != "linux":
        return None
    branch = driver.split(".")[0]
    notes = [F.driver_desc(facts)] + ["GPU: " + F.gpu_desc(g) for g in F.driver_gpus(facts)[:4]]
    pkg = "nvidia-fabricmanager-%s" % branch
    return Tailored(
        summary="Install and start the Fabric Manager of exactly the driver's version (%s, package %s pinned to that "
                "version); a different version refuses to start. Then re-run." % (driver, pkg),
        commands=["systemctl status nvidia-fabricmanager",
                  "sudo apt-get install -y %s=$(apt-cache madison %s | awk '{print $3}' | grep '^%s' | head -1)"
                  % (pkg, pkg, re.escape(driver)),
                  "sudo systemctl enable --now nvidia-fabricmanager",
                  "nvidia-smi -q | grep -i -A2 fabric"],
        notes=[n for n in notes if n])


_DEVICE_COUNT_CODES = {
    "100": "no CUDA-capable device: the driver sees no GPU this process may use (CUDA_VISIBLE_DEVICES, container flags)",
    "101": "invalid device ordinal: CUDA_VISIBLE_DEVICES names a GPU index that does not exist",
    "3": "initialization error: the driver could not be initialised (permissions on /dev/nvidia*, a GPU in a bad state)",
    "35": "the driver is older than the CUDA runtime torch bundles",
    "802": "system not yet initialized: NVSwitch systems need the nvidia-fabricmanager service",
    "803": "the user-space driver library (libcuda) and the loaded kernel module have different versions",
    "804": "forward-compatibility libraries are in use on a GPU that does not support them",
    "999": "unknown error: usually the nvidia_uvm module after suspend/resume; reload it or reboot",
}


@hook("cuda-device-count-error")
def cuda_device_count_error(match, facts: Facts) -> Optional[Tailored]:
    code = match_groups(match).get("code")
    why = _DEVICE_COUNT_CODES.get(code or "")
    if code in ("35", "804"):
        return tailor_driver_too_old(match, facts)
    if code == "802":
        return fabric_manager(match, facts)
    if code in ("100", "101"):
        t = gpu_visibility(match, facts)
        if t is not None:
            t.cause = "Error %s means %s." % (code, why)
        return t
    if not why:
        return None
    cmds = {"803": ["cat /proc/driver/nvidia/version", "nvidia-smi", "sudo reboot"],
            "999": ["sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"],
            "3": ["ls -l /dev/nvidia*", "sudo dmesg | grep -i -E 'nvrm|xid' | tail"]}[code]
    notes = [n for n in (F.driver_desc(facts),) if n]
    return Tailored(cause="Error %s means %s." % (code, why), commands=cmds, notes=notes)


# The NVML libraries a driver installs live in the system's library folders (or the driver's own
# folder inside a container); a copy elsewhere (a proxy, a stub) lacks the newer functions.
# (/usr/local/nvidia: GKE's and nvidia-docker's mount; /run/opengl-driver: NixOS)
_DRIVER_NVML_DIRS = re.compile(r"^/(?:(?:usr/)?lib(?:64|/x86_64-linux-gnu|/aarch64-linux-gnu|/powerpc64le-linux-gnu|/wsl/lib|)"
                               r"|usr/lib/nvidia-\d{3}|usr/local/nvidia/lib(?:64|)|run/opengl-driver/lib)/libnvidia-ml")


@hook("nvml-symbol-missing")
def nvml_symbol_missing(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    sym, lib = groups.get("sym") or "an NVML function", groups.get("lib") or ""
    notes = []
    if lib and not _DRIVER_NVML_DIRS.match(lib):
        notes.append("%s is not where a driver installs NVML" % lib)
        return Tailored(summary="The libnvidia-ml.so.1 that loaded (%s) is not the driver's own: a GPU proxy's or a "
                                "copied library without %s. Put the driver's library first (LD_LIBRARY_PATH), or where "
                                "the platform provides only this one, use torch 2.2.2." % (lib, sym),
                        commands=["ldconfig -p | grep libnvidia-ml"], notes=notes)
    drv = F.driver_version(facts)
    if drv and V.minor_tuple(drv) and V.minor_tuple(drv) < (470, 0):
        return Tailored(summary="Driver %s is older than R470, whose NVML first has %s: update the driver (or use torch "
                                "2.2.2 on this one)." % (drv, sym), notes=["driver %s" % drv])
    if drv and V.minor_tuple(drv):
        return Tailored(summary="Driver %s here is new enough to have %s, so the failing process ran against an older "
                                "driver's NVML: another host, a container whose mounted driver is older, or an old copy "
                                "on LD_LIBRARY_PATH. Update the driver there, or use torch 2.2.2 on it." % (drv, sym),
                        commands=["ldconfig -p | grep libnvidia-ml"], notes=["driver %s" % drv])
    return None


# A CUDA toolkit's link-time libcuda (lib64/stubs, conda's lib/stubs): a folder by that name.
_STUBS_DIR = re.compile(r"(?:^|[/\\])stubs[/\\]?$")


@hook("cuda-driver-stub-library")
def cuda_driver_stub_library(match, facts: Facts) -> Optional[Tailored]:
    """Where the stub came from: a stubs folder on the target's LD_LIBRARY_PATH is named and taken
    out; without one, the loader's own configuration (ld.so.conf, a link) is what to read."""
    if F.os_name(facts) != "linux":
        return None
    entries = F.path_var_read(facts, "LD_LIBRARY_PATH")
    if entries is None:
        return None
    stubs = [e for e in entries if _STUBS_DIR.search(e)]
    check = '%s -c "import torch; print(torch.cuda.is_available())"' % F.python_cmd(facts)
    loader = ["ldconfig -p | grep -E 'libcuda\\.so'", "grep -rn stubs /etc/ld.so.conf /etc/ld.so.conf.d/"]
    notes = ["LD_LIBRARY_PATH: %s" % ":".join(entries)]
    if stubs and match_groups(match).get("func"):
        # Warp (and numba) open plain libcuda.so first: a toolkit's stubs folder on the path is what they load
        return Tailored(summary="LD_LIBRARY_PATH here holds %s, the CUDA toolkit's link-time libcuda.so, which Warp "
                                "opens before the driver's libcuda.so.1: take it out (keep it on LIBRARY_PATH for "
                                "linking only) and run again." % ", ".join(stubs),
                        commands=[F.path_var_without(facts, "LD_LIBRARY_PATH", stubs), check],
                        notes=notes)
    if stubs:
        # torch's CUDA runtime opens only libcuda.so.1, which a toolkit's stubs folder lacks unless a link was made
        return Tailored(summary="LD_LIBRARY_PATH here holds %s. torch's CUDA runtime opens libcuda.so.1 only, which a "
                                "toolkit's stubs folder holds only when a link was made there: if `ls` shows one, take "
                                "the folder out of LD_LIBRARY_PATH; if not, the loader finds the stub through its own "
                                "configuration (a stubs folder in /etc/ld.so.conf.d, as TensorFlow's GPU images write)."
                                % ", ".join(stubs),
                        commands=["ls -l %s" % " ".join("%s/libcuda.so*" % s.rstrip("/") for s in stubs)] + loader
                        + [F.path_var_without(facts, "LD_LIBRARY_PATH", stubs), check],
                        notes=notes)
    return Tailored(summary="No stubs folder is on LD_LIBRARY_PATH here, so the loader finds the stub through its own "
                            "configuration: a stubs folder listed in /etc/ld.so.conf.d (TensorFlow's GPU images write "
                            "z-cuda-stubs.conf), a libcuda.so.1 link into stubs/, or a library's RPATH. Find it, remove "
                            "it, run ldconfig; in a container, start it with the NVIDIA Container Toolkit (--gpus all) so "
                            "the host's driver is mounted.",
                    commands=loader + [check])
