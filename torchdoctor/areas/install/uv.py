"""uv's answers about torch's wheels: which of its remedies fit this machine's OS and chip."""

from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ..registry import Tailored, hook, entry_commands
from .common import python_note


@hook("uv-platform")
def uv_platform(match, facts: Facts) -> Optional[Tailored]:
    """Keep the uv commands that fit this machine: the Rosetta remedy only on Apple silicon, the
    Intel Mac pin only on an Intel Mac, neither off macOS (unknown: all of them)."""
    os_ = F.os_of(facts)
    if os_ is None:
        return None
    apple_silicon = facts.value("os.apple_silicon")
    intel_mac = os_ == "macos" and apple_silicon is False
    rosetta = os_ == "macos" and (apple_silicon is True or facts.value("os.rosetta") is True)

    def fits(cmd: str) -> bool:
        if "macos-aarch64" in cmd:
            return rosetta or (os_ == "macos" and apple_silicon is None)
        if "sys_platform == 'darwin'" in cmd:
            return intel_mac or (os_ == "macos" and apple_silicon is None)
        return True

    commands = [c for c in entry_commands(match) if fits(c)]
    return Tailored(commands=commands, notes=python_note(facts))
