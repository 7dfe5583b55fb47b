"""Tailoring for CUDA errors: build vs driver vs GPU, cuDNN/cuBLAS, memory, NCCL.

Every hook turns a known error plus this machine's facts into the exact fix.
They read the cheap `explain` facts (installed packages, driver, OS, loaded
lazily) and, when `--probe` ran, the full `check` facts (torch.cuda, env, ...).
A hook returns None when the facts add nothing to the entry's generic text.
"""

import re
from typing import Any, Dict, List, Optional, Tuple

from ...checks import _facts as F
from ...facts import UNKNOWN, Facts
from ...kb import compat
from ..tailor import Tailored, hook, installed_torch_note

DRIVER_URL = "https://www.nvidia.com/Download/index.aspx"


# ---------------------------------------------------------------- helpers ---
def _cuda_from_driver_int(found: Any) -> Optional[str]:
    """torch prints the driver's CUDA level as an int: 11040 -> "11.4", 6050 -> "6.5"."""
    if not str(found or "").isdigit():
        return None
    n = int(found)
    return "%d.%d" % (n // 1000, (n % 1000) // 10) if n >= 1000 else None


def _vt(v: Optional[str]) -> Tuple[int, ...]:
    try:
        return tuple(int(x) for x in str(v).split("."))
    except ValueError:
        return ()


def _variant_for_driver_cuda(base: str, driver_cuda: str) -> Optional[str]:
    """Newest CUDA variant of torch `base` a driver reporting CUDA `driver_cuda` runs:
    an older-or-equal CUDA, or (CUDA >= 11) one of the same major under minor-version
    compatibility, whose floor every driver of that major meets."""
    have = _vt(driver_cuda)
    best = None
    for v in compat.cuda_variants(base):
        c = _vt(compat.cuda_of_variant(v))
        if not c or not have:
            continue
        # minor-version compatibility floors: 11.x >= 450.80.02 (newer than the 11.0 GA driver), 12.x/13.x: any driver
        # of that major
        if c <= have or (c[0] == have[0] and (c[0] >= 12 or (c[0] == 11 and have >= (11, 1)))):
            if best is None or c > _vt(compat.cuda_of_variant(best)):
                best = v
    return best


def _install(facts: Facts, version: Optional[str], variant: Optional[str]) -> List[str]:
    """Install commands for torch `version`+`variant`, run by the target interpreter."""
    from ...advice import install_advice
    if not version or not variant:
        return []
    return install_advice(facts, version=version, variant=variant).commands


def _gpus(facts: Facts) -> List[Dict[str, Any]]:
    return F.all_gpus(facts)


# --------------------------------------------------------------- cpu-only ---
@hook("cpu_only_build")
def cpu_only_build(match, facts: Facts) -> Optional[Tailored]:
    from ...advice import install_advice
    notes = installed_torch_note(facts)
    tag = F.local_tag(facts)
    cuda_build = F.is_cuda_build(facts)
    if F.os_name(facts) == "macos":
        return Tailored(summary="macOS has no CUDA: use device='mps' on Apple silicon (torch.backends.mps.is_available()) or 'cpu'.",
                        commands=["python -c \"import torch; print(torch.backends.mps.is_available())\""], notes=notes)
    driver = F.driver_version(facts)
    if driver:
        notes.append(F.driver_desc(facts))
    else:
        notes.append("no NVIDIA driver found (%s)" % facts.reason("driver.driver_version"))
    if cuda_build:
        return Tailored(cause="Yet the installed torch (%s) *is* a CUDA build: the process that failed probably ran another "
                              "interpreter or environment. Compare `which python` with %s."
                              % (F.torch_version_str(facts), facts.value("python.executable")), notes=notes)
    if not driver:
        return Tailored(summary="This machine has no usable NVIDIA driver, so no torch build can use CUDA here: run on the CPU "
                                "(device='cpu'), or install the NVIDIA driver first and then a CUDA build of torch.",
                        commands=["nvidia-smi"], notes=notes)
    adv = install_advice(facts)
    if not adv.commands:
        return Tailored(summary=adv.why, notes=notes)
    what = "the installed wheel is +%s" % tag if tag else "the installed wheel has no CUDA"
    return Tailored(summary="%s; %s" % (what, adv.why), commands=adv.commands, notes=notes)


@hook("cuda_not_available")
def cuda_not_available(match, facts: Facts) -> Optional[Tailored]:
    """torch.cuda.is_available() is False / a CUDA initialization warning: walk the usual causes."""
    if F.is_cuda_build(facts) is False or F.os_name(facts) == "macos":
        return cpu_only_build(match, facts)
    if not F.torch_version_str(facts):
        return None
    if not F.has_nvidia_driver(facts):
        return no_gpu_driver(match, facts)
    cuda, driver = F.torch_cuda(facts), F.driver_version(facts)
    if cuda and driver and compat.driver_supports_cuda(driver, cuda, F.os_name(facts)) is False:
        return driver_too_old(match, facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if cvd is not None and (cvd.strip() == "" or cvd.strip().startswith("-1")):
        return gpu_visibility(match, facts)
    return None


# ---------------------------------------------------------- driver / GPUs ---
@hook("no_gpu_driver")
def no_gpu_driver(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    os_ = F.os_name(facts)
    if os_ == "macos":
        return Tailored(summary="macOS has no NVIDIA/CUDA support: use device='mps' on Apple silicon or 'cpu'.",
                        commands=["python -c \"import torch; print(torch.backends.mps.is_available())\""], notes=notes)
    if facts.state("driver.present") == UNKNOWN:
        return None  # nobody looked for a driver: say nothing rather than "there is none"
    cuda = F.torch_cuda(facts)
    need = F.driver_floor(cuda, os_)
    pci = facts.value("driver.pci_gpus")
    pci = pci if isinstance(pci, list) else []
    if F.has_nvidia_driver(facts):
        gpus = ", ".join(F.gpu_desc(g) for g in F.driver_gpus(facts)) or "its GPUs"
        notes.append(F.driver_desc(facts) or "NVIDIA driver present")
        return Tailored(
            summary="On this machine the NVIDIA driver works (%s sees %s), so the failing process ran somewhere without "
                    "GPU access: a container started without `--gpus all` (NVIDIA Container Toolkit), another host, or a "
                    "job that was not allocated a GPU." % (F.driver_version(facts), gpus),
            commands=["nvidia-smi", "docker run --rm --gpus all <image> nvidia-smi"], notes=notes)
    notes.append("no NVIDIA driver found (%s)" % facts.reason("driver.driver_version"))
    if facts.value("os.wsl") is True:
        return Tailored(
            summary="This is WSL: the NVIDIA driver is installed on the Windows side (a current Game Ready/Studio driver), "
                    "never inside the Linux distribution; WSL then exposes it as /usr/lib/wsl/lib/libcuda.so. Update the "
                    "Windows driver and restart WSL (`wsl --shutdown` in a Windows terminal).",
            commands=["wsl --shutdown", "ls -l /usr/lib/wsl/lib/libcuda*", "nvidia-smi"], notes=notes)
    if pci:
        notes.append("%d NVIDIA device(s) on the PCI bus: %s" % (len(pci), ", ".join(d.get("slot", "?") for d in pci[:4])))
        return Tailored(
            summary="An NVIDIA GPU is in this machine but no driver is loaded. Install the NVIDIA driver%s (or load its "
                    "kernel module: after a kernel update the module must be rebuilt; with Secure Boot it must be signed) "
                    "and reboot." % (" >= %s, which torch's CUDA %s needs" % (need, cuda) if need else ""),
            commands=["lsmod | grep nvidia", "sudo dmesg | grep -i nvrm", "dkms status", "mokutil --sb-state",
                      "sudo ubuntu-drivers install"], notes=notes)
    cmds = []
    if F.is_cuda_build(facts):
        from ...advice import install_advice
        cmds = install_advice(facts, variant="cpu").commands
    return Tailored(
        summary="No NVIDIA driver and no NVIDIA GPU were found here, so CUDA cannot work on this machine: run on the CPU "
                "(device='cpu', torch.load(..., map_location='cpu')) or on a machine with an NVIDIA GPU%s."
                % ("; the CPU wheel below is the same torch without the CUDA libraries" if cmds else ""),
        commands=cmds, notes=notes)


@hook("driver_too_old")
def driver_too_old(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_name(facts)
    notes = installed_torch_note(facts)
    base = F.torch_base_version(facts)
    cuda = F.torch_cuda(facts)
    driver = F.driver_version(facts)
    drv_cuda = facts.value("driver.cuda_driver_version")
    found = _cuda_from_driver_int((match.groups or {}).get("found"))
    if not isinstance(drv_cuda, str):
        drv_cuda = found or F.driver_cuda(facts)
    if not cuda and not drv_cuda:
        return None
    need = F.driver_floor(cuda, os_)
    if cuda:
        notes.append("torch is built with CUDA %s: needs driver >= %s on %s" % (cuda, need or "?", os_))
    if driver or drv_cuda:
        notes.append("NVIDIA driver %s (supports CUDA up to %s)" % (driver or "?", drv_cuda or "?"))
    alt = None
    if base and driver:
        alt = compat.newest_variant_for_driver(base, driver, os_)
    if base and not alt and drv_cuda:
        alt = _variant_for_driver_cuda(base, drv_cuda)
    if alt and cuda and compat.cuda_of_variant(alt) == cuda:
        alt = None  # the installed variant is already the newest this driver runs: the driver is the problem
    update = "Update the NVIDIA driver to %s" % ("%s or newer" % need if need else "a current release")
    other_env = _other_env(facts)
    if alt:
        return Tailored(
            summary="%s (from %s), or keep this driver and install the %s build of torch %s (CUDA %s), the newest variant "
                    "it runs." % (update, DRIVER_URL, alt, base, compat.cuda_of_variant(alt)),
            commands=["nvidia-smi"] + _install(facts, base, alt), notes=notes, cause=other_env)
    older = _newest_release_for_driver(driver, drv_cuda, os_)
    if older:
        minor, variant = older
        version = compat.latest_patch(minor)
        return Tailored(
            summary="%s (from %s). No CUDA build of torch %s runs on this driver; the newest release that does is torch %s "
                    "(%s, CUDA %s)." % (update, DRIVER_URL, base or "(installed)", version, variant, compat.cuda_of_variant(variant)),
            commands=["nvidia-smi"] + _install(facts, version, variant), notes=notes, cause=other_env)
    return Tailored(summary="%s (from %s); no CUDA build of torch %s runs on a driver this old." % (update, DRIVER_URL, base or ""),
                    commands=["nvidia-smi"], notes=notes, cause=other_env)


def _newest_release_for_driver(driver: Optional[str], drv_cuda: Optional[str], os_: str) -> Optional[Tuple[str, str]]:
    """(minor, variant) of the newest torch release with a CUDA variant this driver runs."""
    for minor in reversed(compat.known_releases()):
        v = compat.newest_variant_for_driver(minor, driver, os_) if driver else None
        if not v and drv_cuda:
            v = _variant_for_driver_cuda(minor, drv_cuda)
        if v:
            return minor, v
    return None


@hook("fabric_manager")
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


@hook("cuda_device_count_error")
def cuda_device_count_error(match, facts: Facts) -> Optional[Tailored]:
    code = (match.groups or {}).get("code")
    why = _DEVICE_COUNT_CODES.get(code or "")
    if code in ("35", "804"):
        return driver_too_old(match, facts)
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


@hook("cuda_unknown_error")
def cuda_unknown_error(match, facts: Facts) -> Optional[Tailored]:
    notes = [n for n in (F.driver_desc(facts),) if n]
    if facts.value("os.wsl") is True:
        return Tailored(summary="This is WSL: restart the WSL VM (and update the Windows NVIDIA driver if it persists).",
                        commands=["wsl --shutdown"], notes=notes + ["running under WSL"])
    if F.os_name(facts) == "windows":
        return Tailored(summary="On Windows, restart the machine; if it persists reinstall the NVIDIA driver (clean install).",
                        commands=["nvidia-smi"], notes=notes)
    if F.os_name(facts) != "linux":
        return None
    container = facts.value("os.container")
    if isinstance(container, str) and container:
        return Tailored(summary="This runs in a container (%s): reload nvidia_uvm on the *host* (or reboot it), then restart "
                                "the container; inside it, check that /dev/nvidia-uvm exists." % container,
                        commands=["ls -l /dev/nvidia-uvm*", "sudo rmmod nvidia_uvm && sudo modprobe nvidia_uvm"],
                        notes=notes + ["container: %s" % container])
    return None


@hook("gpu_visibility")
def gpu_visibility(match, facts: Facts) -> Optional[Tailored]:
    gpus = F.driver_gpus(facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if not gpus and cvd is None:
        return None
    notes = []
    if gpus:
        notes.append("the driver sees %d GPU(s): %s" % (len(gpus), ", ".join("%d: %s" % (i, F.gpu_desc(g)) for i, g in enumerate(gpus))))
    if cvd is not None:
        notes.append("CUDA_VISIBLE_DEVICES=%r" % cvd)
        ids = [x.strip() for x in cvd.split(",") if x.strip()]
        if cvd.strip() == "" or cvd.strip().startswith("-1"):
            return Tailored(summary="CUDA_VISIBLE_DEVICES=%r hides every GPU from this process: unset it or list the GPUs to "
                                    "use, before the process starts." % cvd,
                            commands=["unset CUDA_VISIBLE_DEVICES", "export CUDA_VISIBLE_DEVICES=0"], notes=notes)
        bad = [x for x in ids if x.isdigit() and gpus and int(x) >= len(gpus)]
        if bad:
            return Tailored(summary="CUDA_VISIBLE_DEVICES=%s names GPU %s, but this machine has only GPU 0..%d. Use existing "
                                    "indices (or GPU UUIDs from `nvidia-smi -L`)." % (cvd, ", ".join(bad), len(gpus) - 1),
                            commands=["nvidia-smi -L", "export CUDA_VISIBLE_DEVICES=%s" % ",".join(str(i) for i in range(len(gpus)))],
                            notes=notes)
        if ids:
            return Tailored(summary="With CUDA_VISIBLE_DEVICES=%s the process sees %d GPU(s), renumbered from 0: use "
                                    "'cuda:0'..'cuda:%d' (not the physical numbers), and start at most %d ranks per node."
                                    % (cvd, len(ids), len(ids) - 1, len(ids)),
                            commands=["nvidia-smi -L"], notes=notes)
    return Tailored(summary="This machine has %d GPU(s), so valid devices are 'cuda:0'..'cuda:%d'. Use an index below %d in the "
                            "code/config (and --nproc_per_node <= %d), or pick GPUs with CUDA_VISIBLE_DEVICES before start."
                            % (len(gpus), len(gpus) - 1, len(gpus), len(gpus)),
                    commands=["nvidia-smi -L", "python -c \"import torch; print(torch.cuda.device_count())\""], notes=notes)


# ------------------------------------------------------------ architectures ---
def _cap_from_groups(groups: Dict[str, str]) -> Optional[Tuple[int, int]]:
    sm = groups.get("sm")
    if sm and sm.isdigit() and len(sm) >= 2:
        return int(sm[:-1]), int(sm[-1])
    cap = groups.get("cap")
    m = re.fullmatch(r"(\d{1,2})\.(\d{1,2})", cap or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


_GPU_IN_TEXT = (
    re.compile(r"Found GPU ?\d{1,2} (?P<gpu>[\w .()/-]{1,80}?) which is of (?:cuda|compute) capability (?:\(CC\) )?"
               r"(?P<cap>\d{1,2}\.\d{1,2})"),
    re.compile(r"(?P<gpu>\w[\w .()/-]{0,60}) with CUDA capability sm_(?P<sm>\d{2,3}) is not compatible"),
)


def _gpu_from_text(text: str) -> Dict[str, str]:
    """GPU name and capability from the matched line when the best pattern had no groups."""
    for rx in _GPU_IN_TEXT:
        m = rx.search(text or "")
        if m:
            return {k: v for k, v in m.groupdict().items() if v}
    return {}


@hook("arch_unsupported")
def arch_unsupported(match, facts: Facts) -> Optional[Tailored]:
    groups = dict(_gpu_from_text(getattr(match, "text", "")), **(match.groups or {}))
    os_ = F.os_name(facts)
    base = F.torch_base_version(facts)
    arch, where = F.arch_list(facts)
    cap = _cap_from_groups(groups)
    name = (groups.get("gpu") or "").strip()
    if cap is None:
        # No capability in the message: use the GPUs of this machine the build cannot run on.
        for g in _gpus(facts):
            c = F.capability(g)
            if c and (arch is None or not compat.cc_supported_by(arch, c)):
                cap, name = c, g.get("name", "GPU")
                if arch is not None:
                    break
        if cap is None or arch is None:
            return None
    sm = "sm_%d%d" % cap
    fam = compat.gpu_family(cap)
    notes = installed_torch_note(facts) + ["GPU: %s %s%s" % (name or "GPU", sm, " (%s)" % fam if fam else "")]
    if arch:
        notes.append("kernels in this build (%s): %s" % (where, " ".join(arch)))
        if compat.cc_supported_by(arch, cap):
            return Tailored(
                summary="This build does include kernels that run on %s (%s): the message is a false alarm of torch's "
                        "capability check for this GPU (compare torch.cuda.get_arch_list()). If CUDA ops really fail, look "
                        "for another cause, e.g. a custom extension built for other arches." % (sm, " ".join(arch)),
                commands=["python -c \"import torch; print(torch.cuda.get_arch_list(), torch.cuda.get_device_capability())\""],
                notes=notes)
    variants = compat.variants_supporting_cc(base, cap) if base else []
    drv = F.driver_version(facts)
    if variants:
        pick = max(variants, key=lambda v: _vt(compat.cuda_of_variant(v)))
        if drv:  # prefer the newest variant this driver also runs
            ok = [v for v in variants if compat.driver_supports_cuda(drv, compat.cuda_of_variant(v), os_) is not False]
            pick = max(ok, key=lambda v: _vt(compat.cuda_of_variant(v))) if ok else pick
        summary = "Install the %s build of torch %s: its kernels run on %s." % (pick, base, sm)
        if drv and compat.driver_supports_cuda(drv, compat.cuda_of_variant(pick), os_) is False:
            summary += " It needs NVIDIA driver >= %s (you have %s): update the driver first." % (
                F.driver_floor(compat.cuda_of_variant(pick), os_), drv)
        return Tailored(summary=summary, commands=_install(facts, base, pick), notes=notes, cause=_other_env(facts))
    newest = compat.newest_release_supporting_cc(cap, drv, os_)
    if newest:
        minor, variant = newest
        version = compat.latest_patch(minor)
        older = base and _vt(minor) < _vt(".".join(base.split(".")[:2]))
        runs = compat.driver_supports_cuda(drv, compat.cuda_of_variant(variant), os_) if drv else None
        summary = ("No build of torch %s supports %s%s. The newest release that does%s is torch %s (%s)%s."
                   % (base or "(installed)", sm, " (%s)" % fam if fam else "",
                      " and runs on driver %s" % drv if runs else "", version, variant,
                      ": this GPU is too old for newer releases, so stay on it (or build from source with "
                      "TORCH_CUDA_ARCH_LIST=%d.%d)" % cap if older else ""))
        if runs is False:
            summary += " It needs NVIDIA driver >= %s (you have %s): update the driver first." % (
                F.driver_floor(compat.cuda_of_variant(variant), os_), drv)
        return Tailored(summary=summary, commands=_install(facts, version, variant), notes=notes, cause=_other_env(facts))
    return Tailored(summary="None of the torch releases whose architecture lists torchdoctor knows supports %s: use an older "
                            "release that still shipped it (see https://pytorch.org/get-started/previous-versions/) or build "
                            "torch from source with TORCH_CUDA_ARCH_LIST=%d.%d." % ((sm,) + cap), commands=[], notes=notes)


def _other_env(facts: Facts) -> Optional[str]:
    if F.is_cuda_build(facts) is False:
        return ("The torch installed here (%s) is CPU-only, so this message came from another environment or machine; the "
                "advice is computed for this machine." % F.torch_version_str(facts))
    return None


@hook("cublas_not_supported")
def cublas_not_supported(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    bf16 = "16BF" in text or "bf16" in text.lower()
    old = [g for g in _gpus(facts) if F.capability(g) and F.capability(g) < (8, 0)]
    if bf16 and (old or not _gpus(facts)):
        notes = ["GPU: " + F.gpu_desc(g) for g in old] or ["the failing call uses bfloat16 (CUDA_R_16BF)"]
        return Tailored(
            summary="bfloat16 matrix multiplies need compute capability >= 8.0 (Ampere)%s. Run this model in float16 or "
                    "float32 (e.g. torch_dtype=torch.float16, autocast(dtype=torch.float16)), or on a newer GPU."
                    % (": %s is older" % F.gpu_desc(old[0]) if old else ""),
            commands=["python -c \"import torch; print(torch.cuda.get_device_capability(), torch.cuda.is_bf16_supported())\""],
            notes=notes)
    return arch_unsupported(match, facts)


# -------------------------------------------------------------------- cuDNN ---
def _cudnn_pkg(facts: Facts) -> Tuple[Optional[str], Optional[str]]:
    for name in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"):
        v = F.package_version(facts, name)
        if v:
            return name, v
    return None, None


def _tuple_version(text: Optional[str]) -> Optional[str]:
    """"(8, 9, 2)" -> "8.9.2"; "7401" -> "7.4.1"; "91002" -> "9.10.2"."""
    if not text:
        return None
    nums = re.findall(r"\d+", text)
    if len(nums) >= 3:
        return ".".join(nums[:3])
    if len(nums) == 1:
        return compat.cudnn_int_to_version(nums[0])
    return None


@hook("cudnn_version_mismatch")
def cudnn_version_mismatch(match, facts: Facts) -> Optional[Tailored]:
    groups = match.groups or {}
    compiled, runtime = _tuple_version(groups.get("compiled")), _tuple_version(groups.get("runtime"))
    version = F.torch_version_str(facts)
    expected = compat.expected_cudnn(version) if version else None
    pkg, pkg_v = _cudnn_pkg(facts)
    ld = F.env(facts, "LD_LIBRARY_PATH")
    notes = installed_torch_note(facts)
    if compiled or runtime:
        notes.append("torch expects cuDNN %s, the process loaded %s" % (compiled or "?", runtime or "?"))
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    if pkg:
        notes.append("installed %s %s" % (pkg, pkg_v))
    if ld:
        notes.append("LD_LIBRARY_PATH=%s" % ld)
    if not (expected or pkg or ld):
        return None
    probe = "%s -c \"import torch; print(torch.backends.cudnn.version())\"" % F.python_cmd(facts)
    cmds = [probe]
    summary = []
    if F.os_name(facts) == "linux":
        summary.append("Make the process load the cuDNN that torch ships: remove system CUDA/cuDNN directories from "
                       "LD_LIBRARY_PATH%s." % (" (now %s)" % ld if ld else ""))
        cmds.insert(0, "env -u LD_LIBRARY_PATH " + probe)
    if pkg and expected and pkg_v and pkg_v.split(".")[:3] != expected.split(".")[:3]:
        summary.append("The installed %s %s is not the %s torch %s was built with: reinstall it." % (pkg, pkg_v, expected, version))
        cmds.append("%s install --force-reinstall %s==%s" % (F.pip_cmd(facts), pkg, expected))
    if not summary:
        return Tailored(notes=notes, cause="The runtime cuDNN must match the one torch was built with (same major, "
                                           "not older minor); a copy earlier on the library path wins.")
    return Tailored(summary=" ".join(summary), commands=cmds, notes=notes)


@hook("cudnn_runtime")
def cudnn_runtime(match, facts: Facts) -> Optional[Tailored]:
    """CUDNN_STATUS_* failures: check the SM 7.5 floor of new cuDNN, the arch list and the cuDNN wheel."""
    version = F.torch_version_str(facts)
    base = F.torch_base_version(facts)
    expected = compat.expected_cudnn(version) if version else None
    exp_int = compat.expected_cudnn_int(version) if version else None
    notes = installed_torch_note(facts)
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    old = [g for g in _gpus(facts) if F.capability(g) and F.capability(g) < (7, 5)]
    if old and exp_int and exp_int >= 91100 and base:
        cap = F.capability(old[0])
        variants = [v for v in compat.variants_supporting_cc(base, cap)
                    if (compat.expected_cudnn_int(base, v) or 0) < 91100]
        notes.append("GPU: %s" % F.gpu_desc(old[0]))
        return Tailored(
            summary="cuDNN %s does not support GPUs below compute capability 7.5 such as %s (cuDNN 9.11 dropped them). %s"
                    % (expected, F.gpu_desc(old[0]),
                       "Install the %s build of torch %s, which keeps an older cuDNN." % (variants[-1], base) if variants
                       else "Use a torch build with cuDNN <= 9.10, or disable cuDNN (torch.backends.cudnn.enabled = False)."),
            commands=_install(facts, base, variants[-1]) if variants else [], notes=notes)
    t = arch_unsupported(match, facts) if _gpus(facts) else None
    if t is not None and t.summary and "false alarm" not in t.summary:
        t.cause = "cuDNN/cuBLAS kernels fail like this when the torch build has no kernels for the GPU."
        return t
    pkg, pkg_v = _cudnn_pkg(facts)
    if pkg and expected and pkg_v and pkg_v.split(".")[:2] != expected.split(".")[:2]:
        notes.append("installed %s %s" % (pkg, pkg_v))
        return Tailored(summary="The cuDNN wheel (%s %s) is not the %s torch %s was built with; reinstall it."
                                % (pkg, pkg_v, expected, version),
                        commands=["%s install --force-reinstall %s==%s" % (F.pip_cmd(facts), pkg, expected)], notes=notes)
    if base == "1.8.0" and F.torch_cuda(facts) == "10.2":
        return Tailored(summary="torch 1.8.0+cu102 wheels had a cuDNN packaging bug fixed in 1.8.1: upgrade.",
                        commands=["%s install torch==1.8.1" % F.pip_cmd(facts)], notes=notes)
    return None


@hook("cudnn_plan_warning")
def cudnn_plan_warning(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts)
    if base == "2.3.0":
        return Tailored(summary="torch 2.3.0 prints this warning spuriously; it is fixed in 2.3.1. Training is not affected; "
                                "upgrade to silence it.",
                        commands=["%s install torch==2.3.1" % F.pip_cmd(facts)], notes=notes)
    return Tailored(summary="Harmless: cuDNN rejected one candidate plan and torch used another. Only if the run fails or is "
                            "slow, update torch (installed %s)." % base, notes=notes)


@hook("cudnn_lib_load")
def cudnn_lib_load(match, facts: Facts) -> Optional[Tailored]:
    groups = match.groups or {}
    missing = groups.get("missing") or ""
    notes = installed_torch_note(facts)
    pkg, pkg_v = _cudnn_pkg(facts)
    if pkg:
        notes.append("installed %s %s" % (pkg, pkg_v))
    version = F.torch_version_str(facts)
    expected = compat.expected_cudnn(version) if version else None
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    if facts.value("os.wsl") is True and missing.startswith("libcuda"):
        return Tailored(summary="This is WSL: the driver's libcuda lives in /usr/lib/wsl/lib, which the loader does not search. "
                                "Add it to the library path (and refresh the linker cache).",
                        commands=["export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH", "sudo ldconfig",
                                  "ls -l /usr/lib/wsl/lib/libcuda*"], notes=notes + ["running under WSL"])
    want = groups.get("major")
    if want and pkg and pkg_v and not pkg_v.startswith(want + "."):
        return Tailored(summary="The program needs cuDNN %s, but this environment has %s %s (torch's). Install a version of "
                                "the program built for cuDNN %s, or add a cuDNN %s to its library path."
                                % (want, pkg, pkg_v, pkg_v.split(".")[0], want), commands=[], notes=notes)
    if pkg and F.os_name(facts) == "linux":
        return Tailored(summary="The %s wheel (cuDNN %s) is installed but not on the library path of the program that loads it: "
                                "add its lib directory." % (pkg, pkg_v),
                        commands=["export LD_LIBRARY_PATH=$(%s -c \"import os, nvidia.cudnn; print(os.path.join("
                                  "nvidia.cudnn.__path__[0], 'lib'))\"):$LD_LIBRARY_PATH" % F.python_cmd(facts)],
                        notes=notes)
    return None


# ------------------------------------------------------------------- memory ---
_SIZE = r"(\d[\d.]{0,15}) ([KMGT]i?B|bytes)"


def _bytes(num: str, unit: str) -> Optional[float]:
    try:
        n = float(num)
    except ValueError:
        return None
    scale = {"bytes": 1, "B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4,
             "KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}.get(unit)
    return n * scale if scale else None


def _find(pattern: str, text: str) -> Optional[float]:
    m = re.search(pattern, text)
    return _bytes(m.group(1), m.group(2)) if m else None


def _gib(n: float) -> str:
    return "%.2f GiB" % (n / 1024 ** 3)


@hook("cuda_oom")
def cuda_oom(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    tried = _find(r"Tried to allocate " + _SIZE, text)
    total = _find(r"total capacity of " + _SIZE, text) or _find(_SIZE + r" total capacity", text)
    free = _find(r"of which " + _SIZE + r" is free", text) or _find(_SIZE + r" free", text)
    spare = _find(_SIZE + r" is reserved by PyTorch but unallocated", text)
    others = re.findall(r"Process \d{1,10} has " + _SIZE + r" memory in use", text)
    notes = []
    if tried:
        notes.append("tried to allocate %s" % _gib(tried))
    if total:
        notes.append("GPU capacity %s, %s free" % (_gib(total), _gib(free) if free is not None else "?"))
    if spare:
        notes.append("%s reserved by PyTorch but unallocated" % _gib(spare))
    if not total:
        for g in _gpus(facts):
            if isinstance(g.get("total_memory"), int):
                total = float(g["total_memory"])
                notes.append("GPU %s with %s" % (g.get("name", "?"), _gib(total)))
                break
    if tried and total and tried > total:
        return Tailored(summary="A single allocation of %s is larger than the whole GPU (%s): no allocator setting helps. "
                                "Shrink the work per step (batch size, resolution, sequence length), use float16/bfloat16, "
                                "gradient checkpointing, or offloading, or use a larger GPU." % (_gib(tried), _gib(total)),
                        notes=notes)
    if others:
        held = sum(_bytes(n, u) or 0 for n, u in others)
        notes.append("%d other process(es) hold %s" % (len(others), _gib(held)))
        return Tailored(summary="Other processes hold %s of this GPU: stop them (or use another GPU) before blaming the model."
                                % _gib(held), commands=["nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv"],
                        notes=notes)
    if spare and (not tried or spare >= tried or (total and spare > 0.2 * total)):
        return Tailored(summary="%s is reserved by PyTorch but unused: the memory is fragmented. Enable expandable segments "
                                "before the process starts, and/or reduce the batch size." % _gib(spare),
                        commands=[F.set_env_cmd(facts, "PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True")], notes=notes)
    if not notes:
        return None
    return Tailored(notes=notes)


# ------------------------------------------------------------ device/dtype ---
@hook("type_mismatch")
def type_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = match.groups or {}
    inp, weight = g.get("input") or "", g.get("weight") or ""
    if not inp or not weight:
        return None
    # torch.cuda.FloatTensor (older releases) or CUDAFloatType/HIPBFloat16Type/MPSFloatType (Tensor::toString)
    on_gpu = lambda t: ".cuda." in t or t.startswith(("CUDA", "HIP", "MPS"))  # noqa: E731
    kind = lambda t: re.sub(r"^(?:CUDA|HIP|MPS|CPU)|Type$", "", t.rsplit(".", 1)[-1])  # noqa: E731
    notes = ["input is %s, weights are %s" % (inp, weight)]
    if on_gpu(inp) != on_gpu(weight):
        where = "GPU" if on_gpu(weight) else "CPU"
        return Tailored(summary="Device mismatch: the weights are on the %s, the input is not. Move the input to the "
                                "model's device (x = x.to(next(model.parameters()).device)), or the model to the input's."
                        % where, notes=notes)
    if kind(inp) != kind(weight):
        return Tailored(summary="Same device, different dtypes (%s vs %s): cast the input to the weights' dtype "
                                "(x.to(model.dtype)) or run under torch.autocast." % (kind(inp), kind(weight)), notes=notes)
    return None


@hook("deserialize_cuda")
def deserialize_cuda(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts)
    drv = F.driver_desc(facts)
    if drv:
        notes.append(drv)
    if F.is_cuda_build(facts) is False and F.has_nvidia_driver(facts):
        from ...advice import install_advice
        adv = install_advice(facts)
        if adv.commands:
            return Tailored(summary="This machine has an NVIDIA GPU but torch is a CPU-only build (+%s): install a CUDA "
                                    "build to load the checkpoint onto the GPU (%s), or pass map_location='cpu'."
                                    % (F.local_tag(facts) or "cpu", adv.why), commands=adv.commands, notes=notes)
    if F.is_cuda_build(facts) and (F.has_nvidia_driver(facts) or facts.state("driver.present") == UNKNOWN):
        return None  # CUDA should work here (or nobody looked): the generic text applies
    if F.torch_version_str(facts):
        return Tailored(summary="There is no usable GPU here: load the checkpoint onto the CPU with "
                                "torch.load(path, map_location='cpu') (or map_location=torch.device('cpu')).",
                        notes=notes)
    return None


# -------------------------------------------------------------- determinism ---
@hook("cublas_workspace")
def cublas_workspace(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts)
    cfg = F.env(facts, "CUBLAS_WORKSPACE_CONFIG")
    if cfg is not None:
        notes.append("CUBLAS_WORKSPACE_CONFIG=%r in this environment" % cfg)
    if _vt(base)[:2] >= (2, 10):
        return Tailored(summary="torch %s no longer raises this (the check is gone from 2.10 on): the failing process runs an "
                                "older torch. Set the variable there, or upgrade it." % base,
                        commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)
    if cfg:
        return Tailored(summary="CUBLAS_WORKSPACE_CONFIG=%s is set in this shell, but the failing process did not get it (or got "
                                "it after CUDA initialised): set it in the launcher, job script or IDE run configuration that "
                                "starts the process, not via os.environ inside it." % cfg,
                        commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)
    return Tailored(summary="Set CUBLAS_WORKSPACE_CONFIG before the process starts (in the shell or the launcher; setting "
                            "os.environ after CUDA initialised is too late).",
                    commands=[F.set_env_cmd(facts, "CUBLAS_WORKSPACE_CONFIG", ":4096:8")], notes=notes)


# ---------------------------------------------------------------------- NCCL ---
@hook("nccl_missing")
def nccl_missing(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_name(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % os_]
    if os_ in ("windows", "macos"):
        return Tailored(summary="NCCL exists only on Linux: on %s use the gloo backend "
                                "(dist.init_process_group(backend='gloo'); with accelerate/lightning choose gloo or a "
                                "single process), or train under Linux/WSL2." % {"windows": "Windows", "macos": "macOS"}[os_],
                        notes=notes)
    if F.is_cuda_build(facts) is False:
        if not F.has_nvidia_driver(facts):
            if facts.state("driver.present") == UNKNOWN:
                return None
            return Tailored(summary="torch %s is a CPU-only build and this machine has no NVIDIA GPU driver, so NCCL cannot "
                                    "work here: use the gloo backend for CPU training (backend='gloo')."
                                    % F.torch_version_str(facts), notes=notes + ["no NVIDIA driver found"])
        from ...advice import install_advice
        adv = install_advice(facts)
        return Tailored(summary="torch %s is a CPU-only build, which has no NCCL: %s" % (F.torch_version_str(facts), adv.why or
                                "install a CUDA build"), commands=adv.commands, notes=notes)
    return None


@hook("nccl_duplicate_gpu")
def nccl_duplicate_gpu(match, facts: Facts) -> Optional[Tailored]:
    gpus = F.driver_gpus(facts)
    cvd = F.env(facts, "CUDA_VISIBLE_DEVICES")
    if not gpus and cvd is None:
        return None
    ids = [x.strip() for x in (cvd or "").split(",") if x.strip()]
    n = len(ids) if ids else len(gpus)
    notes = ["the driver sees %d GPU(s)" % len(gpus)] if gpus else []
    if cvd is not None:
        notes.append("CUDA_VISIBLE_DEVICES=%r" % cvd)
    groups = match.groups or {}
    clash = ("ranks %s and %s" % (groups["rank"], groups["other"])) if groups.get("rank") and groups.get("other") else "two ranks"
    return Tailored(summary="%s landed on the same GPU. This node exposes %d GPU(s)%s: start at most %d ranks per node and bind "
                            "each to its own GPU before creating the process group, with "
                            "torch.cuda.set_device(int(os.environ['LOCAL_RANK']))."
                            % (clash.capitalize(), n, " (CUDA_VISIBLE_DEVICES=%s)" % cvd if ids else "", n),
                    commands=["nvidia-smi -L", "torchrun --nproc_per_node=%d your_script.py" % max(n, 1)], notes=notes)
