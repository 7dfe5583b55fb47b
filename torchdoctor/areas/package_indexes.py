"""Package indexes and channels torch is installed from: uv's index order, conda channels.
"""

import re
from typing import Optional

from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook, match_groups


@hook("conda-channels")
def conda_channels(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    channel, url = groups.get("channel"), groups.get("url") or ""
    if channel and "anaconda.org" not in url and "repo.anaconda.com" not in url:
        # the name went through a mirror (channel_alias / custom_channels) that does not carry it
        return Tailored(summary="conda asked %s for the %s channel: a mirror set in .condarc (channel_alias or "
                                "custom_channels) that does not carry it. Name the channel by its full URL, or remove "
                                "the mirror's entry for it; torch 2.6 and later are on neither channel (pip)." % (
                                    url, channel),
                        commands=["conda config --show-sources",
                                  "conda install <packages> -c https://conda.anaconda.org/%s" % channel],
                        notes=["the %s channel was looked up at %s" % (channel, url)])
    pkg = groups.get("pkg", "")
    if pkg == "torch":
        return Tailored(summary="`torch` is the pip name; conda calls the package `pytorch`. Better: install torch with "
                                "pip from the PyTorch wheel index inside this environment.",
                        notes=["the missing package is named `torch`"])
    by = groups.get("by")
    if by and pkg not in ("pytorch-cuda", "cudatoolkit"):  # those come from conda channels only
        # a conda package that depends on pytorch: the channels searched have no pytorch for this
        # platform and Python (conda-forge's first Windows builds are of January 2025)
        return Tailored(summary="%s depends on %s, and the channels conda searched have none for this platform and "
                                "Python. Install %s first (pip from the PyTorch wheel index inside this environment, or "
                                "conda-forge's pytorch with a current conda), then %s; an old pin that names the pytorch "
                                "channel's builds needs that channel (-c pytorch, torch 2.5 and older)."
                                % (by, pkg, pkg, by.rsplit("-", 2)[0] if by.count("-") >= 2 else by),
                        commands=["conda config --show channels"], notes=["%s needs %s" % (by, pkg)])
    if pkg in ("pytorch-cuda", "cudatoolkit"):
        return Tailored(cause="%s comes from the nvidia/pytorch channels and exists only for the CUDA versions those "
                              "channels published; the pytorch channel stopped after torch 2.5." % pkg,
                        notes=["the missing package is %s" % pkg])
    return None


@hook("unexpanded-variable")
def unexpanded_variable(match, facts: Facts) -> Optional[Tailored]:
    """Name the placeholder the requirement still holds, say whether pip can expand that form,
    and give the command that sets it in this OS's shell."""
    groups = match_groups(match)
    ph, req = groups.get("ph") or "", (groups.get("req") or "").strip()
    form = _PLACEHOLDER.match(ph)
    if not form:
        return None
    name = form.group("name")
    # "cpu" is a value only where the placeholder stands for torch's variant (+${DEVICE}).
    value = "cpu" if name.upper() in _VARIANT_VARS and req.endswith("+" + ph) else "<value>"
    notes = ["the requirement %s still holds %s" % (req, ph)]
    setting = F.set_env_cmd(facts, name.upper(), value)
    if ph.startswith("%"):
        how = "cmd left %s as written because %s is not set: set it first (`set %s=%s`), or write the value" % (
            ph, name, name, value)
        return Tailored(summary=how + ".", commands=["set %s=%s" % (name, value)], notes=notes)
    if form.group("default"):
        how = "pip does not apply a shell default (%s): set %s, or write the value into the requirement" % (ph, name)
    elif ph == "${%s}" % name and name == name.upper():
        how = ("set %s before pip reads the requirements file (`%s`), or write the value into the requirement; on a "
               "command line the shell, not pip, must expand it (no single quotes around it)" % (name, setting))
    else:
        how = ("pip never expands %s: in a requirements file write ${%s} (braces, uppercase) and set %s, or write the "
               "value into the requirement" % (ph, name.upper(), name.upper()))
    return Tailored(summary=how[0].upper() + how[1:] + ".", commands=[setting], notes=notes)


# The forms a placeholder takes: ${NAME}, ${NAME:-default}, $(NAME), $NAME, %NAME%.
_PLACEHOLDER = re.compile(r"[$%][{(]?(?P<name>[A-Za-z_]\w*)(?P<default>:?-[^}]*)?[})%]?$")
# Placeholders setup scripts use for torch's variant (+cpu, +cu121...): "cpu" always exists.
_VARIANT_VARS = ("DEVICE", "CUDA", "CUDA_VERSION", "CU", "CUDA_TAG", "VARIANT", "COMPUTE_PLATFORM", "TORCH_VARIANT")
