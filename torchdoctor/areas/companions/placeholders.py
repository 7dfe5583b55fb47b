"""Placeholder releases pip installs where no real wheel fits (torchcodec 0.0.0.dev0, pytorch3d 0.0.1,
oneflow 0.7.0): the commands for the package the message names, not for the others."""

from typing import Optional

from ...advice.commands import pip
from ..registry import Tailored, entry_commands, hook, match_groups


@hook("placeholder-release")
def tailor_placeholder_release(match, facts) -> Optional[Tailored]:
    g = match_groups(match)
    pkg = g.get("pkg") or (g.get("mod") or "").split(".")[0]
    if not pkg:
        return None
    commands = [pip(facts, "show %s" % pkg), pip(facts, "index versions %s" % pkg), pip(facts, "uninstall -y %s" % pkg)]
    if pkg == "pytorch3d":  # its source build (the entry's last command) is the way on macOS arm64
        commands += [c for c in entry_commands(match) if "pytorch3d.git" in c]
    return Tailored(commands=commands)
