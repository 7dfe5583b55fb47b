"""Placeholder releases: the commands name the package the message names (oneflow's placeholder gets
oneflow's, not torchcodec's)."""

import pytest

from hook_facts import facts, tailored_as

ENTRY = "companion-placeholder-release-installed"


@pytest.mark.parametrize("text, pkg", [
    ("RuntimeError: This package is a placeholder. Please install oneflow following the instructions in "
     "https://github.com/Oneflow-Inc/oneflow#install-oneflow", "oneflow"),
    ("ModuleNotFoundError: No module named 'torchcodec.decoders'", "torchcodec"),
    ("pytorch3d 0.0.1", "pytorch3d"),
])
def test_the_commands_are_the_named_packages(text, pkg):
    _, t = tailored_as(ENTRY, text, facts())
    assert t.commands[2].endswith("uninstall -y %s" % pkg), t.commands
    others = {"oneflow", "torchcodec", "pytorch3d"} - {pkg}
    assert not [c for c in t.commands if any(o + " " in c + " " for o in others)], t.commands
