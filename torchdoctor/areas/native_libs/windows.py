"""Windows DLL loading failures.
"""

from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ..registry import Tailored, hook, installed_torch_note
from ..install.common import installed_version, python_note, ver_tuple
from ...advice.commands import on_interpreter, torch_command




VC_REDIST = "https://aka.ms/vs/17/release/vc_redist.x64.exe"


@hook("windows-dll")
def windows_dll(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_of(facts)
    if os_ is not None and os_ != "windows":
        return None
    if not facts.value("python.executable") and not F.torch_version_str(facts):
        return None
    notes = installed_torch_note(facts) + python_note(facts)
    entry_id = match.entry.id
    base = F.torch_base_version(facts)
    if facts.value("python.bits") == 32:
        return Tailored(cause="This Python is 32-bit; torch's DLLs are 64-bit only.",
                        summary="Install a 64-bit Python and reinstall torch with it.", notes=notes)
    if entry_id == "windows-fbgemm-dll-missing-libomp" and base == "2.4.0":
        cmds = torch_command(facts, version="2.4.1", companions=bool(installed_version(facts, "torchvision")))
        return Tailored(cause="The installed torch is 2.4.0, the release whose fbgemm.dll needs the unshipped "
                              "libomp140.x86_64.dll.",
                        summary="Upgrade to torch 2.4.1 (same variant%s)."
                                % (", with the matching torchvision" if installed_version(facts, "torchvision") else ""),
                        commands=cmds or [on_interpreter('pip install --upgrade "torch>=2.4.1"', facts)], notes=notes)
    reinstall = torch_command(facts, reinstall=True)
    if entry_id == "windows-dll-init-failed-1114" and base and ver_tuple(base) >= (2, 9):
        return Tailored(cause="torch %s is built with MSVC 14.42 and needs msvcp140.dll 14.40 or newer." % base,
                        summary="Install the latest Visual C++ Redistributable (x64) and reboot; if another package "
                                "imported before torch brings an older msvcp140.dll, import torch first.",
                        commands=[VC_REDIST,
                                  "(Get-Item C:\\Windows\\System32\\msvcp140.dll).VersionInfo.FileVersion"],
                        notes=notes)
    if entry_id in ("windows-vc-redist-not-installed",):
        return Tailored(commands=[VC_REDIST], notes=notes) if notes else None
    if not reinstall:
        return None
    return Tailored(commands=[VC_REDIST] + reinstall, notes=notes)
