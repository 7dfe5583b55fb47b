"""ROCm's HIP errors read with this machine's facts: the gfx override that makes the runtime load
kernels built for another instruction set than the GPU's.
"""

import re
from typing import Dict, List, Optional

from ..model import derived as F
from ..model.facts import PRESENT, Facts
from .registry import Tailored, hook, installed_torch_note

OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"
# The runtime reads the value as three decimal numbers, major.minor.stepping (leading blanks
# allowed, nothing after), and does not use anything else; the gfx target writes them together
# with the stepping in hex (9.0.10 is gfx90a).
_VERSION = re.compile(r"^\s{0,8}(\d{1,4})\.(\d{1,4})\.(\d{1,4})$")


def gfx_of(override: str) -> Optional[str]:
    """'10.3.0' -> 'gfx1030', '9.0.10' -> 'gfx90a'; None for a value the runtime cannot read."""
    m = _VERSION.match(override)
    if not m:
        return None
    return "gfx%d%d%x" % (int(m.group(1)), int(m.group(2)), int(m.group(3)))


def overrides(facts: Facts) -> Dict[str, str]:
    """The override variables set here: the global one and the per-node HSA_OVERRIDE_GFX_VERSION_<n>
    (read first for the GPU at node n; node 0 is the CPU, so _0 overrides nothing)."""
    env = facts.value("env")
    if not isinstance(env, dict):
        return {}
    return {k: v for k, v in env.items() if isinstance(v, str) and (k == OVERRIDE or re.match(OVERRIDE + r"_\d{1,3}$", k))}


def _reading(name: str, value: str) -> str:
    if name == OVERRIDE + "_0":
        return "%s=%s overrides nothing: node 0 is the CPU" % (name, value[:40])
    if not value:
        return "%s is set but empty (older ROCm reads that as gfx000, a target no GPU has)" % name
    target = gfx_of(value)
    if target is None:
        return ("%s=%s is not major.minor.stepping: newer ROCm ignores it, older ROCm fails to start the GPU"
                % (name, value[:40]))
    return "%s=%s (the runtime loads %s's kernels for that GPU)" % (name, value[:40], target)


@hook("hip-launch-failure")
def hip_launch_failure(match, facts: Facts) -> Optional[Tailored]:
    """Whether an override is set here decides where to look first; only a ROCm torch on Linux
    reads it (ROCm on Windows ignores the variable)."""
    if facts.state("env") != PRESENT or not F.is_rocm_build(facts):
        return None
    notes: List[str] = installed_torch_note(facts)
    found = overrides(facts)
    if F.os_name(facts) == "windows":
        notes.append("ROCm on Windows does not read %s" % OVERRIDE)
        return Tailored(summary="Rerun with AMD_SERIALIZE_KERNEL=3 to find the failing kernel. On Windows a kernel that "
                                "runs for more than about 2 seconds on the GPU that drives the display is stopped by "
                                "the driver's timeout (TDR): use smaller batches or tiles. Update the AMD driver, ROCm "
                                "and torch; if it fails in a convolution, try once with MIOpen off "
                                "(torch.backends.cudnn.enabled = False).",
                        commands=["set AMD_SERIALIZE_KERNEL=3", "python your_script.py"], notes=notes)
    if not found:
        notes.append("%s is not set here" % OVERRIDE)
        return Tailored(summary="%s is not set in this environment, so an override is not the cause here (unless the "
                                "failing process set it: its launcher, container or service). Rerun with "
                                "AMD_SERIALIZE_KERNEL=3 to find the failing kernel, look in the kernel log for amdgpu "
                                "faults or resets, and if it fails in a convolution try once with MIOpen off "
                                "(torch.backends.cudnn.enabled = False); update ROCm and torch." % OVERRIDE,
                        commands=["rocminfo | grep -i gfx", "AMD_SERIALIZE_KERNEL=3 python your_script.py",
                                  "sudo dmesg | grep -i amdgpu"], notes=notes)
    notes += [_reading(k, v) for k, v in sorted(found.items())]
    found.pop(OVERRIDE + "_0", None)
    if not found:
        return Tailored(summary="Only %s_0 is set here, which overrides nothing (node 0 is the CPU). Rerun with "
                                "AMD_SERIALIZE_KERNEL=3 to find the failing kernel and look in the kernel log for amdgpu "
                                "faults or resets." % OVERRIDE,
                        commands=["AMD_SERIALIZE_KERNEL=3 python your_script.py", "sudo dmesg | grep -i amdgpu"],
                        notes=notes)
    return override_set(facts, found, notes)


def override_set(facts: Facts, found: Dict[str, str], notes: List[str]) -> Tailored:
    """What to do where an override that names a GPU node is set: run without it first."""
    names = " and ".join(sorted(found))
    return Tailored(summary="%s is set here: the runtime loads the kernels of the target it names, whatever the GPU is. "
                            "Rerun without it first; keep an override only if the GPU then has no kernels at all, and "
                            "then name a target of the GPU's own family (rocminfo names the GPU's gfx target)." % names,
                    commands=[F.unset_env_cmd(facts, k) for k in sorted(found)] +
                             ["rocminfo | grep -i gfx", "AMD_SERIALIZE_KERNEL=3 python your_script.py"], notes=notes)


# Linux kernels from 6.18 on: ROCm compute on RDNA3 and RDNA4 page-faults where 6.17 and the 6.12 LTS
# series do not (reported through the 7.0 series).
_FAULTING_SERIES = (6, 18)
_KERNEL = re.compile(r"^(\d{1,2})\.(\d{1,3})")


@hook("rocm-memory-fault")
def rocm_memory_fault(match, facts: Facts) -> Optional[Tailored]:
    """An override first (it makes the GPU run another ISA's kernels), then the kernel series this
    machine boots; else where to look."""
    if facts.state("env") != PRESENT or not F.is_rocm_build(facts) or F.os_name(facts) != "linux":
        return None
    notes: List[str] = installed_torch_note(facts)
    found = {k: v for k, v in overrides(facts).items() if k != OVERRIDE + "_0"}
    if found:
        return override_set(facts, found, notes + [_reading(k, v) for k, v in sorted(found.items())])
    notes.append("%s is not set here" % OVERRIDE)
    release = facts.value("os.release")
    m = _KERNEL.match(release) if isinstance(release, str) else None
    if m and (int(m.group(1)), int(m.group(2))) >= _FAULTING_SERIES:
        notes.append("Linux kernel %s" % release)
        return Tailored(summary="This machine boots Linux %s, from the 6.18 series on, where ROCm compute on RDNA3 and "
                                "RDNA4 cards was reported to page-fault (through 7.0) under loads that 6.17 and the "
                                "6.12 LTS kernels run: if the "
                                "faults began with a kernel update, boot a 6.12 LTS (or 6.17) kernel and compare; on "
                                "Strix Point and Strix Halo APUs check the amdgpu MES firmware too (0x83 of late 2025 "
                                "was reverted)." % release,
                        commands=["uname -r", "sudo dmesg | grep -i -E 'amdgpu.*(page fault|VM_L2_PROTECTION)'",
                                  "sudo sh -c 'grep -i mes /sys/kernel/debug/dri/*/amdgpu_firmware_info'"], notes=notes)
    return Tailored(summary="No override is set here. Check that this torch's ROCm supports the GPU (rocminfo names "
                            "its gfx target), look in the kernel log for the amdgpu page fault and its client, and "
                            "compare with the previous kernel or amdgpu firmware if the faults began after an update; "
                            "a fault on the same input every time, also with AMD_SERIALIZE_KERNEL=3, is a kernel bug "
                            "of the op or library.",
                    commands=["rocminfo | grep -i gfx", "sudo dmesg | grep -i -E 'amdgpu.*(page fault|VM_L2_PROTECTION)'",
                              "AMD_SERIALIZE_KERNEL=3 python your_script.py"], notes=notes)
