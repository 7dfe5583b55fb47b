"""Commands in the dialect of the shell an error came from: cmd.exe, PowerShell, csh, fish, a
POSIX shell, or bash from Git for Windows (MSYS), whose paths are /c/... and whose quoting eats
backslashes. The shell is read from the words it printed."""

import re
import shlex
from typing import Optional

from ..model import derived as F
from ..model.facts import Facts

CMD, POWERSHELL, CSH, FISH, MSYS, POSIX = "cmd", "powershell", "csh", "fish", "msys", "posix"


def shell_of(text: str, facts: Facts) -> str:
    """Which shell printed `text` (its "not found" wording), given the machine's OS."""
    if "is not recognized as the name of a cmdlet" in text or "is not recognized as a name of a cmdlet" in text:
        return POWERSHELL
    if "is not recognized as an internal or external command" in text:
        return CMD
    if re.search(r": Command not found\.", text):
        return CSH
    if "fish: Unknown command" in text:
        return FISH
    if F.os_of(facts) != "windows":
        return POSIX
    # on Windows only a bash-like shell (Git Bash, MSYS, Cygwin) prints "command not found" or a
    # `bash:` prefix; pip's warning carries no shell's words (see windows_unknown)
    if re.search(r"[Cc]ommand not found|: not found|(?:^|\n)[^\n]{0,80}\b(?:ba)?sh(?:\.exe)?: ", text):
        return MSYS
    return CMD


def windows_unknown(shell: str, text: str, facts: Facts) -> bool:
    """A Windows text (read by shell_of as `shell`) that shows no shell's own words: cmd and
    PowerShell are equally likely."""
    return F.os_of(facts) == "windows" and shell == CMD and "is not recognized" not in text


def msys_path(path: str) -> str:
    """C:\\venv\\Scripts -> /c/venv/Scripts."""
    m = re.match(r"^([A-Za-z]):[\\/](.*)$", path)
    return "/%s/%s" % (m.group(1).lower(), m.group(2).replace("\\", "/")) if m else path.replace("\\", "/")


def program(facts: Facts, path: str, shell: str) -> str:
    """A program's path as the first word of a command in `shell`."""
    if shell == MSYS:
        return shlex.quote(msys_path(path))
    if shell == POWERSHELL:
        return "& '%s'" % path.replace("'", "''") if any(c in path for c in " &()'") else path
    if shell == CMD:
        return '"%s"' % path if any(c in path for c in " &()^") else path
    return F.shell_path(facts, path)


def prepend_path(folder: str, shell: str) -> str:
    """Put `folder` first in PATH for this shell session."""
    if shell == CMD:
        return "set PATH=%s;%%PATH%%" % folder
    if shell == POWERSHELL:
        return "$env:Path = '%s;' + $env:Path" % folder.replace("'", "''")
    if shell == CSH:
        return 'setenv PATH "%s:$PATH"' % folder
    if shell == FISH:
        return "set -gx PATH %s $PATH" % shlex.quote(folder)
    if shell == MSYS:
        return 'export PATH="%s:$PATH"' % msys_path(folder)
    return F.prepend_path_cmd("PATH", shlex.quote(folder))


def activate(facts: Facts, shell: str) -> Optional[str]:
    """The command that activates the target interpreter's environment, where it is one."""
    prefix = facts.value("python.prefix")
    if not isinstance(prefix, str):
        return None
    if facts.value("python.conda") is True:
        return "conda activate %s" % (shlex.quote(prefix) if shell not in (CMD, POWERSHELL) else '"%s"' % prefix)
    if facts.value("python.virtualenv") is not True:
        return None
    if shell == CMD:
        return '"%s\\Scripts\\activate.bat"' % prefix
    if shell == POWERSHELL:
        return "& '%s\\Scripts\\Activate.ps1'" % prefix.replace("'", "''")
    if shell == MSYS:
        return "source %s" % shlex.quote(msys_path(prefix) + "/Scripts/activate")
    if shell == CSH:
        return "source %s" % shlex.quote(prefix + "/bin/activate.csh")
    if shell == FISH:
        return "source %s" % shlex.quote(prefix + "/bin/activate.fish")
    return ". %s" % shlex.quote(prefix + "/bin/activate")  # dash (sh) has no `source`
