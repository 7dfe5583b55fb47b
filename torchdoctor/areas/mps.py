"""Apple GPUs (MPS) on macOS: built, available, the settings around it, and MPS errors.
"""

from typing import Optional, Tuple

from ..advice import install_advice
from ..model.facts import Facts
from ..model import derived as F
from ..kb import compat
from .registry import Remedy, ERROR, INFO, WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups
from ..advice.commands import plain_install
from .companions.common import macos_version
from ..model import versions as V




MPS_URL = "https://docs.pytorch.org/docs/stable/notes/mps.html"


def on_macos(facts) -> bool:
    return F.os_name(facts) == "macos" and F.torch_imported(facts)


def _macos_version(facts) -> Optional[Tuple[int, ...]]:
    v = facts.value("os.macos_version")
    if not isinstance(v, str) or not v.strip():
        return None
    try:
        return tuple(int(x) for x in v.strip().split(".")[:3])
    except ValueError:
        return None


def _python_arch(facts) -> Optional[str]:
    """Architecture of the *target* interpreter (the doctor's own may differ)."""
    m = facts.value("python.machine")
    return m if isinstance(m, str) and m else None


def _under_rosetta(facts) -> bool:
    """An x86_64 interpreter on an Apple-silicon Mac (runs translated by Rosetta)."""
    arch = _python_arch(facts)
    if arch == "x86_64":
        return facts.value("os.apple_silicon") is True or facts.value("os.rosetta") is True
    return arch is None and facts.value("os.rosetta") is True


def _apple_silicon(facts) -> bool:
    return facts.value("os.apple_silicon") is True or facts.value("os.rosetta") is True or _python_arch(facts) == "arm64"


def _mps(facts, attr):
    return F.backend_value(facts, "mps", attr)


def _rosetta_finding(facts):
    """The interpreter is x86_64 on Apple silicon: torch there cannot use the Apple GPU."""
    base = F.torch_base_version(facts)
    pins = plain_install(facts, base, None, os="macos", companions=False) if base else []
    install = pins[0][len(F.pip_cmd(facts)) + 1:] if pins and pins[0].startswith(F.pip_cmd(facts) + " ") else "install torch"
    return finding(
        "Python runs as x86_64 under Rosetta, so torch cannot use the Apple GPU", severity=ERROR,
        detail="This Mac has Apple silicon, but %s is an x86_64 interpreter (platform.machine() = %s%s), so it runs "
               "translated and installs x86_64 torch wheels, which are built for Intel Macs; PyTorch supports MPS on "
               "Apple silicon from a native arm64 Python. Here "
               "torch.backends.mps.is_built() is %s and is_available() is %s for torch %s. Intel-Mac wheels also "
               "stopped at older torch releases."
               % (facts.value("python.executable", "this Python"), _python_arch(facts) or "x86_64",
                  ", running under Rosetta translation" if facts.value("os.rosetta") is True else "",
                  facts.describe("backends.mps.is_built"), facts.describe("backends.mps.is_available"),
                  F.torch_version_str(facts)),
        fix="Use an arm64 Python (python.org universal2 installer, Homebrew in /opt/homebrew, or an arm64 "
            "Miniforge) and install torch there. `arch -arm64` runs the arm64 half of a universal2 Python; it "
            "fails on an x86_64-only one.",
        commands=["%s -c \"import platform; print(platform.machine())\"" % F.python_cmd(facts),
                  "arch -arm64 python3 -m venv .venv-arm64",
                  ".venv-arm64/bin/python -c \"import platform; print(platform.machine())\"",
                  ".venv-arm64/bin/python -m pip " + install],
        links=[MPS_URL])


@rule("check", "mps-not-built", category="mps-unavailable", severity=ERROR,
       verify=('python -c "import torch; print(torch.backends.mps.is_available())"', 'True'))
def mps_not_built(facts):
    """torch on an Apple-silicon Mac was built without MPS (an x86_64 Python under Rosetta, usually)."""
    if not on_macos(facts) or not _apple_silicon(facts) or _mps(facts, "is_built") is not False:
        return None
    if _under_rosetta(facts):
        return _rosetta_finding(facts)
    adv = install_advice(facts)
    return finding(
        "torch %s was built without MPS support" % F.torch_version_str(facts),
        detail="torch.backends.mps.is_built() is False although %s is an arm64 Python on Apple silicon: this torch "
               "is a build without the MPS backend (a source build with USE_MPS=0 or a CPU-only third-party "
               "package)." % facts.value("python.executable", "this Python"),
        fix="Install the PyPI wheel, which includes MPS.", commands=adv.commands, links=[MPS_URL])


def macos_too_old_remedy(facts: Facts, mac: str, need: str) -> Remedy:
    """macOS older than the MPS backend of this torch needs: update macOS, or stay on this
    macOS with the last torch release whose MPS runs there."""
    cmds = ["softwareupdate --list"]
    summary = "macOS %s is older than the %s this torch needs for MPS: update macOS" % (mac, need)
    try:
        last = compat.last_torch_for_macos(tuple(int(x) for x in mac.split(".")[:2]))
    except ValueError:
        last = None
    if last and not V.older(mac, "%d.%d" % compat.mps_min_macos()):
        cmds += plain_install(facts, last, None, os="macos")
        summary += ", or stay on macOS %s with torch %s, the last release that runs MPS there" % (mac, last)
    return Remedy(summary + "; until then torch runs on the CPU.", cmds)


@rule("check", "mps-unavailable", category="mps-unavailable", severity=WARNING,
       verify=('python -c "import torch; print(torch.backends.mps.is_available())"', 'True'))
def mps_unavailable(facts):
    """MPS is built into torch but not available on this Mac."""
    if not on_macos(facts) or _mps(facts, "is_built") is not True or _mps(facts, "is_available") is not False:
        return None
    if _under_rosetta(facts):
        return _rosetta_finding(facts)
    mac = _macos_version(facts)
    mac_s = facts.value("os.macos_version") or "unknown"
    check_cmd = "%s -c \"import torch; torch.ones(1, device='mps')\"" % F.python_cmd(facts)
    need = compat.mps_min_macos(F.torch_base_version(facts))
    if mac and mac[:2] < need:
        return finding(
            "MPS needs macOS %d.%d or newer; this Mac runs macOS %s" % (need + (mac_s,)),
            detail="torch.backends.mps.is_built() is True but is_available() is False: the MPS backend of torch %s "
                   "needs the Metal Performance Shaders Graph of macOS %d.%d+." % ((F.torch_version_str(facts),) + need),
            fix=macos_too_old_remedy(facts, mac_s, "%d.%d" % need).summary,
            commands=macos_too_old_remedy(facts, mac_s, "%d.%d" % need).commands, links=[MPS_URL])
    model = facts.value("cpu.model")
    virtual = isinstance(model, str) and "virtual" in model.lower()
    if virtual:
        why = ("The CPU reports itself as %r: this is a macOS virtual machine, and macOS VMs expose no Metal GPU "
               "that MPS can use." % model)
        fix = "Run on the host macOS instead of the VM, or use the CPU."
    elif not _apple_silicon(facts):
        why = ("This is an Intel Mac: MPS needs a Metal-capable AMD GPU there, and recent torch releases ship no "
               "Intel-Mac wheels at all.")
        fix = "Use the CPU, or an Apple-silicon Mac for GPU work."
    else:
        why = ("Usual causes: this torch release needs a newer macOS than %s (the error then reads 'The MPS backend "
               "is supported on MacOS 14.0+'), the process runs in a sandbox or VM without Metal access, or a "
               "remote/headless session has no GPU. The command below prints torch's own reason." % mac_s)
        fix = "Run the command below to see torch's reason; update macOS if it names a newer version."
    return finding(
        "MPS is built into torch %s but not available (macOS %s)" % (F.torch_version_str(facts), mac_s),
        detail="torch.backends.mps.is_built() is True, is_available() is False. " + why,
        fix=fix, commands=[check_cmd, "sw_vers -productVersion"], links=[MPS_URL])


@rule("check", "mps-fallback-enabled", category="mps-op-unsupported", severity=INFO)
def mps_fallback_enabled(facts):
    """PYTORCH_ENABLE_MPS_FALLBACK is set: ops MPS lacks run on the CPU."""
    if F.os_name(facts) != "macos":
        return None
    v = F.env(facts, "PYTORCH_ENABLE_MPS_FALLBACK")
    if v is None:
        return None
    on = v.strip() == "1"
    return finding(
        "PYTORCH_ENABLE_MPS_FALLBACK=%s%s" % (v, "" if on else " (torch documents the value 1)"),
        detail=("Operators not implemented for MPS run on the CPU instead of raising `NotImplementedError: The "
                "operator ... is not currently implemented for the MPS device`. torch warns once per operator; each "
                "fallback copies tensors between GPU and CPU, so a model that hits it often is slower than expected. "
                "It is read when torch starts, so it must be set before `import torch`.") if on else
               ("The fallback is switched on by the value 1; with %r it may not be active, and unsupported operators "
                "raise NotImplementedError on MPS." % v),
        fix="Keep it while you need an operator MPS lacks; unset it to find which operators fall back."
        if on else "Set it to 1 if you want the CPU fallback.",
        commands=[F.unset_env_cmd(facts, "PYTORCH_ENABLE_MPS_FALLBACK")] if on
        else [F.set_env_cmd(facts, "PYTORCH_ENABLE_MPS_FALLBACK", "1")],
        links=[MPS_URL])


# -- MPS ---------------------------------------------------------------------------
@hook("mps-unavailable")
def tailor_mps_unavailable(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    torch_v = F.torch_version_str(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % osn]
    if osn != "macos":
        return Tailored(summary="MPS exists only on macOS; this machine runs %s. Use device=\"cuda\" (NVIDIA) or "
                                "\"cpu\" instead of \"mps\"." % osn.capitalize(),
                        commands=['%s -c "import torch; print(torch.cuda.is_available())"' % F.python_cmd(facts)],
                        notes=notes)
    mac = macos_version(facts)
    notes.append("macOS %s" % (mac or "?"))
    machine = facts.value("python.machine")
    if facts.value("os.rosetta") is True or machine == "x86_64":
        notes.append("Python architecture: %s" % (machine or "?"))
        return Tailored(summary="This Python is an x86_64 build (running under Rosetta on Apple silicon, or an Intel "
                                "Mac), which cannot use MPS. Install an arm64 Python (python.org universal2, Homebrew "
                                "or Miniforge arm64) and torch in it.",
                        commands=['%s -c "import platform; print(platform.machine())"' % F.python_cmd(facts)],
                        notes=notes)
    need = match_groups(match).get("min")
    floor = "%d.%d" % compat.mps_min_macos(torch_v) if torch_v else None
    if need and floor and V.older(need, floor):
        need = floor  # torch 2.5+ printed "12.3+" while requiring macOS 13 (pytorch/pytorch#139425)
    if mac and need and V.older(mac, need):
        remedy = macos_too_old_remedy(facts, mac, need)
        return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)
    if mac and need:
        return Tailored(cause="macOS %s already meets the %s+ requirement, so the check failed for another reason: a "
                              "virtual machine without Metal GPU access, or the MPS detection bugs reported on macOS 26 "
                              "with torch 2.9/2.10 (pytorch/pytorch#167679, #177819)." % (mac, need),
                        commands=['%s -c "import torch; print(torch.backends.mps.is_built(), '
                                  'torch.backends.mps.is_available())"' % F.python_cmd(facts)], notes=notes)
    return None


@hook("mps-macos-feature")
def mps_macos_feature(match, facts: Facts) -> Optional[Tailored]:
    if F.os_name(facts) != "macos":
        return None
    mac = macos_version(facts)
    need = match_groups(match).get("min")
    notes = installed_torch_note(facts) + ["macOS %s" % (mac or "?")]
    if not mac:
        return None
    if need and V.older(mac, need):
        return Tailored(summary="This MPS kernel needs macOS %s and this Mac runs %s: update macOS, cast the tensor to a "
                                "supported dtype, or run that op on the CPU (PYTORCH_ENABLE_MPS_FALLBACK=1 does not "
                                "cover it)." % (need, mac),
                        commands=["softwareupdate --list"], notes=notes)
    if need:
        return Tailored(cause="macOS %s already meets %s, so the process that failed ran elsewhere (another Mac, a VM)."
                              % (mac, need), notes=notes)
    return None


@hook("mps-op-backend-unnamed")
def mps_op_backend_unnamed(match, facts: Facts) -> Optional[Tailored]:
    """Only the list half of "Could not run 'aten::X' with arguments from the 'B' backend ... is only
    available for these backends: [...]" was given: the machine says whether B can be MPS at all."""
    osn = F.os_of(facts)
    if osn is None:
        return None
    op = match_groups(match).get("op") or "this operator"
    listed = (getattr(match, "text", "") or "").split("backends", 1)[-1]
    notes = installed_torch_note(facts) + ["OS: %s" % osn]
    if osn == "macos":
        return Tailored(cause="This is a Mac, where the backend without a kernel for %s is almost certainly MPS "
                              "(the Apple GPU)." % op,
                        summary="Let %s fall back to the CPU: set PYTORCH_ENABLE_MPS_FALLBACK=1 before torch is "
                                "imported (slower for that operator), or upgrade torch, or run on the CPU." % op,
                        commands=[F.set_env_cmd(facts, "PYTORCH_ENABLE_MPS_FALLBACK", "1")], notes=notes)
    no_cuda = "[" in listed and not any(t in listed for t in ("CUDA,", "CUDA]", "CUDA "))
    return Tailored(cause="This machine runs %s, which has no MPS backend: the backend without a kernel for %s is "
                          "another one, named in the first half of the message (\"from the '...' backend\")%s."
                          % (osn.capitalize(), op,
                             "; the list has no CUDA, so on a GPU this torch has no CUDA kernel for it (a CPU-only "
                             "build, or an operator with a CPU kernel only)" if no_cuda else ""),
                    notes=notes)
