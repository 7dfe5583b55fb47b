"""ROCm's HIP errors read with this machine's facts: the gfx override that makes the runtime load
kernels built for another instruction set than the GPU's.
"""

import re
from typing import Optional

from ..model import derived as F
from ..model.facts import UNKNOWN, Facts
from .registry import Tailored, hook, installed_torch_note

OVERRIDE = "HSA_OVERRIDE_GFX_VERSION"
# The override is major.minor.stepping; the gfx target writes them together, the stepping in hex
# (9.0.10 is gfx90a).
_VERSION = re.compile(r"^\s*(\d{1,2})\.(\d{1,2})\.(\d{1,2}|[0-9a-fA-F])\s*$")


def gfx_of(override: str) -> Optional[str]:
    """'10.3.0' -> 'gfx1030', '9.0.10' -> 'gfx90a'; None for a value of another form."""
    m = _VERSION.match(override)
    if not m:
        return None
    step = m.group(3)
    step = "%x" % int(step) if step.isdigit() else step.lower()
    return "gfx%s%s%s" % (m.group(1), m.group(2), step)


@hook("hip-launch-failure")
def hip_launch_failure(match, facts: Facts) -> Optional[Tailored]:
    """Whether the override is set here decides where to look first."""
    if facts.state("env") == UNKNOWN:
        return None
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    value = F.env(facts, OVERRIDE)
    if value is None:
        notes.append("%s is not set here" % OVERRIDE)
        return Tailored(summary="%s is not set in this environment, so an override is not the cause here (unless the "
                                "failing process set it: its launcher, container or service). Rerun with "
                                "AMD_SERIALIZE_KERNEL=3 to find the failing kernel, look in the kernel log for amdgpu "
                                "faults or resets, and if it fails in a convolution try once with MIOpen off "
                                "(torch.backends.cudnn.enabled = False); update ROCm and torch." % OVERRIDE,
                        commands=["rocminfo | grep -i gfx", "AMD_SERIALIZE_KERNEL=3 python your_script.py",
                                  "sudo dmesg | grep -i amdgpu"], notes=notes)
    target = gfx_of(value)
    notes.append("%s=%s%s" % (OVERRIDE, value[:40], " (the runtime loads %s's kernels)" % target if target else ""))
    return Tailored(summary="%s=%s is set here: the runtime loads the kernels of %s whatever the GPU is. Rerun without "
                            "it first; keep it only if the GPU then has no kernels at all, and then set the target "
                            "of the GPU's own family (rocminfo names the GPU's gfx target)."
                            % (OVERRIDE, value[:40], target or "the target it names"),
                    commands=[F.unset_env_cmd(facts, OVERRIDE), "rocminfo | grep -i gfx",
                              "AMD_SERIALIZE_KERNEL=3 python your_script.py"], notes=notes)
