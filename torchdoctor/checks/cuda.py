"""CUDA build vs driver vs GPU: can this torch actually use this GPU?"""

import re

from ..advice import install_advice, installable_releases, unavailable_reason
from ..kb import compat
from . import ERROR, INFO, WARNING, check, finding, known_error_finding
from . import _facts as F

INSTALL_URL = "https://pytorch.org/get-started/locally/"
DRIVER_URL = "https://www.nvidia.com/en-us/drivers/"
COMPAT_URL = "https://docs.nvidia.com/deploy/cuda-compatibility/"


def _pci_gpus(facts):
    g = facts.value("driver.pci_gpus")
    return g if isinstance(g, list) else []


def _gpu_names(facts):
    return ", ".join(F.gpu_desc(g) for g in F.all_gpus(facts))


@check("cpu-only-build", category="cpu-only-build", severity=ERROR)
def cpu_only_build(facts):
    """A CPU-only torch on a machine with an NVIDIA GPU or a CUDA toolkit."""
    if F.is_cuda_build(facts) is not False or F.is_rocm_build(facts) or F.os_name(facts) == "macos":
        return None
    version = F.torch_version_str(facts)
    gpus = F.all_gpus(facts)
    nvcc = F.nvcc_version(facts)
    if gpus or F.has_nvidia_driver(facts):
        adv = install_advice(facts)
        if adv.variant == "cpu":  # nothing tells which CUDA build this driver runs: no CPU-to-CPU "fix"
            adv.commands, adv.why = [], "The driver's version is unknown, so which CUDA build of torch it runs is too."
        return finding(
            "torch %s is a CPU-only build, but this machine has an NVIDIA GPU" % version,
            detail="torch.version.cuda is None, so torch.cuda.is_available() is False and every .cuda() call fails with "
                   "'Torch not compiled with CUDA enabled'. GPU(s): %s; driver %s (supports CUDA up to %s). %s"
                   % (_gpu_names(facts) or "present", F.driver_version(facts) or "?",
                      F.driver_cuda(facts) or "?", adv.why),
            fix="Reinstall torch %s as the %s build." % (adv.torch_version, adv.variant) if adv.commands else adv.why,
            commands=adv.commands, links=[INSTALL_URL])
    if nvcc:
        variant = compat.variant_for_cuda(nvcc)
        base = F.torch_base_version(facts)
        offered = compat.cuda_variants(base) if base else []
        pick = variant if variant in offered else (offered[-1] if offered else None)
        pci = _pci_gpus(facts)
        later = ("the %s build of torch %s" % (pick, base)) if pick else "a CUDA build of torch"
        toolkit = "nvcc %s is installed%s" % (nvcc, " (%s)" % facts.value("toolkit.nvcc_path")
                                            if facts.has("toolkit.nvcc_path") else "")
        if not pci:
            # No GPU and no driver: the CPU build is the one that works here, as the install
            # advice for a torch-less environment says too. A note for later, nothing to run now.
            return finding(
                "CPU-only torch %s beside CUDA toolkit %s (no GPU here)" % (version, nvcc), severity=INFO,
                detail="%s, but no NVIDIA driver or GPU is visible, so the CPU build of torch is the right one for "
                       "this machine now. pip wheels do not use the toolkit (they bundle their CUDA runtime); only "
                       "the NVIDIA driver is needed for GPU work." % toolkit,
                fix="Nothing to do for CPU work. Once this machine has an NVIDIA GPU and driver, install %s." % later,
                links=[INSTALL_URL])
        cmds = install_advice(facts, version=base, variant=pick).commands if pick and base else []
        return finding(
            "CPU-only torch %s beside CUDA toolkit %s" % (version, nvcc), severity=ERROR,
            detail="%s, which suggests this machine is meant for GPU work, but torch %s has no CUDA support; an "
                   "NVIDIA GPU is on the PCI bus (%d device(s)) but no driver is loaded. The toolkit is not needed by "
                   "pip wheels (they bundle their CUDA runtime); only the NVIDIA driver is." % (toolkit, version, len(pci)),
            fix="For GPU work: install the NVIDIA driver, then %s." % later,
            commands=cmds, links=[INSTALL_URL])
    return None


@check("no-gpu-driver", category="no-gpu-driver", severity=ERROR, requires=('driver.driver_version',))
def no_gpu_driver(facts):
    """A CUDA build of torch, but no NVIDIA driver."""
    if not F.is_cuda_build(facts) or F.has_nvidia_driver(facts) or F.os_name(facts) == "macos":
        return None
    if facts.value("cuda.is_available") is True:
        return None  # the driver probes failed but torch initialised CUDA fine
    cuda = F.torch_cuda(facts) or "?"
    need = F.driver_floor(cuda, F.os_name(facts))
    pci = _pci_gpus(facts)
    version = F.torch_version_str(facts)
    sources = facts.value("driver.sources") or {}
    tried = "; ".join("%s: %s" % (k, facts.reason("driver.sources." + k)) for k in sources
                      if facts.state("driver.sources." + k) != "present")
    cpu = install_advice(facts, variant="cpu")
    if pci:
        return finding(
            "NVIDIA GPU present but no NVIDIA driver is loaded",
            detail="torch %s is built for CUDA %s and %d NVIDIA device(s) sit on the PCI bus (%s), but no driver answers "
                   "(%s), so torch.cuda.is_available() is False." % (version, cuda, len(pci),
                                                                     ", ".join(d["slot"] for d in pci[:4]), tried),
            fix="Install the NVIDIA driver%s and reboot (or load the kernel module)." % (" >= %s (CUDA %s)" % (need, cuda) if need else ""),
            commands=["nvidia-smi", "lsmod | grep nvidia"], links=[DRIVER_URL])
    return finding(
        "CUDA build of torch, but no NVIDIA driver: torch will only use the CPU",
        severity=WARNING,
        detail="torch %s is built for CUDA %s, but this machine has no NVIDIA driver (%s) and no NVIDIA GPU on the PCI bus, "
               "so torch.cuda.is_available() is False. In a container this usually means it was started without GPU access "
               "(`docker run --gpus all`, the NVIDIA container toolkit)." % (version, cuda, tried or "none found"),
        fix="On a GPU machine install an NVIDIA driver%s. For CPU-only work the CPU wheel is the same torch without the "
            "multi-GB CUDA libraries." % (" >= %s" % need if need else ""),
        commands=cpu.commands, links=[DRIVER_URL, INSTALL_URL])


@check("driver-too-old", category="driver-too-old", severity=ERROR)
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
    base = F.torch_base_version(facts)
    alt = compat.newest_variant_for_driver(base, driver, os_) if base else None
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
    cmds = install_advice(facts, version=base, variant=alt).commands if alt else []
    return finding(
        "NVIDIA driver %s is too old for torch %s (CUDA %s)" % (driver, F.torch_version_str(facts), cuda),
        detail="CUDA %s needs driver >= %s%s; this driver supports CUDA up to %s.%s"
               % (cuda, need or "?",
                  " (full feature set: >= %s)" % md["full"] if md.get("full") and md.get("full") != md.get("mvc") else "",
                  F.driver_cuda(facts) or "?",
                  ("\ntorch said: " + warn.splitlines()[0]) if warn else ""),
        fix=("Update the NVIDIA driver to >= %s, or install the %s build of torch %s, the newest this driver runs."
             % (need, alt, base)) if alt else
            "Update the NVIDIA driver to >= %s." % (need or "the version CUDA %s needs" % cuda),
        commands=cmds, links=[COMPAT_URL, DRIVER_URL])


@check("arch-unsupported", category="arch-unsupported", severity=ERROR)
def arch_unsupported(facts):
    """A GPU whose compute capability this torch build has no kernels for."""
    if not F.is_cuda_build(facts):
        return None
    arch, where = F.arch_list(facts)
    if not arch:
        return None
    out = []
    seen = set()
    for g in F.all_gpus(facts):
        cap = F.capability(g)
        if not cap or compat.cc_supported_by(arch, cap) or (g.get("name"), cap) in seen:
            continue
        seen.add((g.get("name"), cap))
        base = F.torch_base_version(facts)
        variants = compat.variants_supporting_cc(base, cap) if base else []
        sm = "sm_%d%d" % cap
        fam = compat.gpu_family(cap)
        if variants:
            pick = variants[-1]
            cmds = install_advice(facts, version=base, variant=pick).commands
            fix = "Install the %s build of torch %s, which has %s kernels." % (pick, base, sm)
            pick_cuda = compat.cuda_of_variant(pick) or ""
            drv = F.driver_version(facts)
            if drv and compat.driver_supports_cuda(drv, pick_cuda, F.os_name(facts)) is False:
                fix += " It needs driver >= %s (you have %s)." % (F.driver_floor(pick_cuda, F.os_name(facts)), drv)
        else:
            newest = compat.newest_release_supporting_cc(cap, F.driver_version(facts), F.os_name(facts))
            usable = compat.newest_release_supporting_cc(cap, F.driver_version(facts), F.os_name(facts),
                                                         releases=installable_releases(facts))
            cmds = []
            if usable:
                minor, variant = usable
                fix = "No variant of torch %s supports %s; the newest release that does is torch %s (%s)." % (base, sm, minor, variant)
                cmds = install_advice(facts, version=minor, variant=variant).commands
            elif newest:
                minor, variant = newest
                fix = ("No variant of torch %s supports %s; the newest release that does is torch %s (%s), but %s. "
                       "Use an interpreter that release supports, or build torch from source with "
                       "TORCH_CUDA_ARCH_LIST=%d.%d." % ((base, sm, minor, variant,
                                                         unavailable_reason(facts, compat.latest_patch(minor) or minor))
                                                        + cap))
            else:
                fix = "No published torch build supports %s; build torch from source with TORCH_CUDA_ARCH_LIST=%d.%d." % ((sm,) + cap)
        out.append(finding(
            "%s (%s%s) is not supported by torch %s" % (g.get("name", "GPU"), sm, ", " + fam if fam else "", F.torch_version_str(facts)),
            detail="This build has kernels for %s (from %s); a %s GPU needs %s (or PTX for an older arch), so CUDA ops "
                   "fail with 'no kernel image is available for execution on the device'." % (" ".join(arch), where, sm, sm),
            fix=fix, commands=cmds, links=[INSTALL_URL]))
    return out


@check("gpu-hidden", category="gpu-hidden", severity=ERROR, requires=('driver.gpus',))
def gpu_hidden(facts):
    """The driver sees GPUs that CUDA_VISIBLE_DEVICES (or the container) hides from torch."""
    n_driver = len(F.driver_gpus(facts))
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    nvd = F.env(facts, "NVIDIA_VISIBLE_DEVICES")
    n_torch = facts.value("cuda.device_count")
    if cvd is not None:
        stripped = cvd.strip()
        if n_driver and (stripped == "" or stripped.startswith("-1") or stripped.lower() in ("none", "void")):
            return finding(
                "CUDA_VISIBLE_DEVICES=%r hides all %d GPU(s) from torch" % (cvd, n_driver),
                detail="The driver sees %s, but an empty or negative CUDA_VISIBLE_DEVICES makes CUDA report no devices, "
                       "so torch.cuda.is_available() is False." % _gpu_names(facts),
                fix="Unset it, or list the GPUs to use (it must be set before the process first touches CUDA).",
                commands=[F.unset_env_cmd(facts, "CUDA_VISIBLE_DEVICES"), F.set_env_cmd(facts, "CUDA_VISIBLE_DEVICES", "0")])
        ids = [x.strip() for x in stripped.split(",") if x.strip()]
        bad = [x for x in ids if x.isdigit() and n_driver and int(x) >= n_driver]
        if bad and ids[0] in bad:
            # CUDA reads the list up to the first invalid entry: one in front hides every GPU.
            return finding(
                "CUDA_VISIBLE_DEVICES=%s names GPUs that do not exist" % cvd,
                detail="The driver sees %d GPU(s), numbered 0..%d; CUDA stops at the first invalid index (%s), so torch "
                       "sees none." % (n_driver, n_driver - 1, ids[0]),
                fix="Use indices 0..%d or GPU UUIDs (nvidia-smi -L)." % (n_driver - 1),
                commands=["nvidia-smi -L", F.set_env_cmd(facts, "CUDA_VISIBLE_DEVICES", "0")])
        if isinstance(n_torch, int) and n_driver and n_torch < n_driver and ids:
            return finding(
                "torch sees %d of the %d GPUs (CUDA_VISIBLE_DEVICES=%s)" % (n_torch, n_driver, cvd), severity=INFO,
                detail="This is deliberate masking; cuda:0 is the first *listed* GPU, not physical GPU 0.",
                fix="Nothing to do if intended.")
    if nvd is not None and nvd.strip().lower() in ("void", "none", ""):
        return finding(
            "NVIDIA_VISIBLE_DEVICES=%r: the container runtime exposes no GPU" % nvd, severity=WARNING,
            detail="The NVIDIA container runtime reads NVIDIA_VISIBLE_DEVICES; 'void', 'none' or empty mount no GPU.",
            fix="Start the container with GPUs.", commands=["docker run --gpus all ..."])
    return None


@check("cuda-unavailable", category="no-gpu-driver", severity=ERROR, requires=('cuda.is_available', 'driver.gpus'))
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
        F.driver_version(facts), _gpu_names(facts), ("\ntorch warned: " + text[:1500]) if text else
        " torch printed no warning; run the command below to see the error.")
    known = known_error_finding(text, "torch cannot initialise CUDA", detail)
    if known:
        return known
    return finding("torch cannot initialise CUDA although the driver sees the GPU", detail=detail,
                   fix="Look at the CUDA initialisation error below; common causes are a driver/library mismatch after an "
                       "update without reboot, missing /dev/nvidia* permissions, or a broken CUDA_VISIBLE_DEVICES.",
                   commands=["%s -c \"import torch; torch.cuda.init()\"" % F.python_cmd(facts)])


@check("cuda-init-hang", category="cuda-init-hang", severity=ERROR, requires=('probe',))
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


@check("cuda-toolkit-mismatch", category="cuda-toolkit-mismatch", severity=WARNING)
def toolkit_mismatch(facts):
    """System nvcc has another CUDA major version than torch: extension builds fail."""
    cuda, nvcc = F.torch_cuda(facts), F.nvcc_version(facts)
    if not cuda or not nvcc:
        return None
    if cuda.split(".")[0] == nvcc.split(".")[0]:
        return None
    return finding(
        "System CUDA toolkit %s differs from torch's CUDA %s" % (nvcc, cuda),
        detail="torch runs fine (its wheel bundles the CUDA %s runtime), but compiling CUDA extensions "
               "(torch.utils.cpp_extension, pip install of flash-attn, apex, …) with nvcc %s at %s fails with "
               "'The detected CUDA version (%s) mismatches the version that was used to compile PyTorch (%s)'."
               % (cuda, nvcc, facts.value("toolkit.nvcc_path"), nvcc, cuda),
        fix="Point CUDA_HOME at a CUDA %s toolkit when building extensions, or install the torch variant for CUDA %s."
            % (cuda.split(".")[0] + ".x", nvcc),
        commands=[F.set_env_cmd(facts, "CUDA_HOME", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v%s" % cuda
                                if F.os_name(facts) == "windows" else "/usr/local/cuda-%s" % cuda)])
