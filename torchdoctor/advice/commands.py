"""Fix commands as this machine runs them: the target interpreter's pip, the right index for
a build, pins quoted for the shell. The builders every area uses; nothing else calls
compat.install_command or spells a pip command line. `finish` is the last step every
finding and explanation takes: its commands and verification as this machine runs them.
"""

import re
from typing import Callable, List, Optional

from ..kb import compat
from ..model import derived as F
from ..model.facts import Facts
from ..model.findings import INFO, NOTHING_TO_VERIFY, Finding, Verify

WHL = "https://download.pytorch.org/whl"


def on_interpreter(cmd: str, facts: Facts) -> str:
    """`pip install ...` -> `/path/to/python -m pip install ...` for the target env."""
    if cmd.startswith("pip "):
        return F.pip_cmd(facts) + cmd[3:]
    return cmd


_SYSTEM_INSTALL = {"apt": "sudo apt-get install -y %s", "dnf": "sudo dnf install -y %s",
                   "pacman": "sudo pacman -S --needed %s"}


def system_install(facts: Facts, apt: str, dnf: Optional[str] = None, pacman: Optional[str] = None) -> str:
    """The Linux distribution's install command for a system package, named per package manager
    family (derived.distro_family) where the names differ; `apt`'s name otherwise."""
    family = F.distro_family(facts)
    return _SYSTEM_INSTALL[family] % {"apt": apt, "dnf": dnf or apt, "pacman": pacman or apt}[family]


def program_install(facts: Facts, name: str, windows: str) -> str:
    """The install of a program a library runs from PATH (ffmpeg, swig): conda-forge's into a conda
    environment, Homebrew's on macOS, `windows` on Windows, the distribution's package on Linux."""
    if facts.value("python.conda") is True:
        return "conda install -y -c conda-forge %s" % name
    os_ = F.os_of(facts)
    if os_ == "macos":
        return "brew install %s" % name
    if os_ == "windows":
        return windows
    return system_install(facts, name)


def pip(facts: Facts, args: str) -> str:
    """`<target python> -m pip <args>`."""
    return "%s %s" % (F.pip_cmd(facts), args)


def which_import(facts: Facts, module: str, has_version: bool = True) -> str:
    """The target interpreter printing which `module` it imports: its version and its file. Some
    packages define no `__version__` in some releases (spconv 1.x, OpenAI's clip): the caller
    says so and the command prints a placeholder rather than failing."""
    if has_version:
        return '%s -c "import %s; print(%s.__version__, %s.__file__)"' % (F.python_cmd(facts), module, module, module)
    return ('%s -c "import %s as m; print(getattr(m, \'__version__\', \'no __version__\'), m.__file__)"'
            % (F.python_cmd(facts), module))


def plain_install(facts: Facts, version: str, variant: Optional[str], os: Optional[str] = None,
                  companions=None, installer: str = "pip") -> List[str]:
    """The install command(s) of torch `version` in `variant` (None: PyPI's), for the target
    interpreter, without the choice install_advice makes: for callers that already know
    which build they want."""
    kw = {} if companions is None else {"with_companions": companions}
    return [on_interpreter(c, facts) for c in compat.install_command(version, variant, installer=installer,
                                                                     os=os or F.os_name(facts), **kw)]


def torch_command(facts: Facts, version: Optional[str] = None, variant: Optional[str] = "keep",
                  reinstall: bool = False, companions: bool = False) -> List[str]:
    """Install command(s) for torch `version` (default: the installed one) in the installed
    variant ("keep"), for the target interpreter (conda where torch came from conda); []
    when the KB cannot say."""
    version = version or F.torch_base_version(facts)
    if not version:
        return []
    if variant == "keep":
        variant = F.local_tag(facts)
    os_ = F.os_of(facts) or "linux"
    installer = "conda" if F.installed_with_conda(facts) else "pip"
    cmds = compat.install_command(version, variant, installer=installer, with_companions=companions, os=os_)
    if not cmds and installer == "conda":  # no conda package of that release: pip it is
        cmds = compat.install_command(version, variant, installer="pip", with_companions=companions, os=os_)
    out = []
    for c in cmds:
        if reinstall and c.startswith("pip install "):
            c = "pip install --force-reinstall --no-cache-dir " + c[len("pip install "):]
        out.append(on_interpreter(c, facts))
    return out


def release_variant(target: str, tag: Optional[str]) -> Optional[str]:
    """The variant of release `target` closest to the installed build `tag`: the same
    one if shipped, else the newest CUDA variant with the same major (None = PyPI)."""
    if not tag:
        return None
    variants = compat.cuda_variants(target)
    if tag == "cpu" or tag in variants:
        return tag
    m = re.match(r"cu(\d+?)(\d)$", tag)
    if m:
        same_major = [v for v in variants if re.match(r"cu%s\d$" % m.group(1), v)]
        if same_major:
            return sorted(same_major)[-1]
    return None


def torch_near_build(facts: Facts, target: str, tag: Optional[str]) -> List[str]:
    """Install torch `target` in the variant closest to the installed build `tag`."""
    variant = release_variant(target, tag)
    cmds = compat.install_command(target, variant, os=F.os_name(facts))
    if not cmds and variant is not None:
        cmds = compat.install_command(target, None, os=F.os_name(facts))
    return [on_interpreter(c, facts) for c in cmds]


def pin_spec(name: str, version: str) -> str:
    """name==1.2.3, name==0.28.* for a bare series, name<spec> for a specifier."""
    if version[:1] in "=<>~!":
        return '"%s%s"' % (name, version)
    if version.endswith(".*"):
        return "%s==%s" % (name, version)
    return "%s==%s%s" % (name, version, ".*" if version.count(".") == 1 else "")


def build_kind(tag: Optional[str]) -> Optional[str]:
    """'cpu', 'cuda12', 'rocm6.2', ... of a build's local tag: what must agree between torch and
    its companions (a CUDA build's minor may differ, its major may not)."""
    if not tag:
        return None
    if tag in ("cpu", "xpu"):
        return tag
    cuda = compat.cuda_of_variant(tag)
    if cuda:
        return "cuda" + cuda.split(".")[0]
    m = re.match(r"^(rocm\d+(?:\.\d+)?)", tag)
    return m.group(1) if m else None


def index_args(tag: Optional[str]) -> str:
    """The wheel index a companion must come from to match torch's build variant."""
    return " --index-url %s/%s" % (WHL, tag) if tag else ""


_BARE_PYTHON = ("python ", "python3 ")
_BARE_PIP = ("pip ", "pip3 ")


def finish(f: Finding, facts: Optional[Facts], usual: Callable[[], Optional[Verify]]) -> Finding:
    """The last step of every finding and every explanation before it is shown: its fix
    commands as this machine runs them, and how to see the fix worked (the verification the
    finding chose, none where it said NOTHING_TO_VERIFY, else `usual()`, the condition's
    own; a note needs no fixing, so it gets none)."""
    if facts is not None:
        f.fix.commands = runnable_here(f.fix.commands, facts)
    if f.verify is NOTHING_TO_VERIFY:
        f.verify = None
    elif f.verify is None and f.severity != INFO:
        f.verify = usual()
    return f


def runnable_verify(verify: Verify, facts: Optional[Facts]) -> Optional[Verify]:
    """A verification as this machine runs it (its command through runnable_here); None
    when the command cannot run here."""
    cmds = runnable_here([verify.command], facts)
    return Verify(cmds[0], verify.expect) if cmds else None


def runnable_here(commands: List[str], facts: Optional[Facts]) -> List[str]:
    """Fix commands as this machine must run them: a bare `python`/`pip` becomes the target
    interpreter (the environment the facts describe, not whichever python is first on
    PATH), and a step that cannot run here is dropped (`nvidia-smi` where the probe found
    no nvidia-smi). Every finding's and every explanation's commands pass through here."""
    if facts is None:
        return list(commands)
    known_python = isinstance(facts.value("python.executable") or facts.value("probe.python"), str)
    no_smi = facts.state("driver.sources.nvidia_smi") == "absent"
    out = []
    for cmd in commands:
        if no_smi and (cmd == "nvidia-smi" or cmd.startswith(("nvidia-smi ", "nvidia-smi|"))):
            continue
        if known_python:
            if cmd.startswith(_BARE_PYTHON):
                cmd = F.python_cmd(facts) + cmd[cmd.index(" "):]
            elif cmd.startswith(_BARE_PIP):
                cmd = F.pip_cmd(facts) + cmd[cmd.index(" "):]
        out.append(cmd)
    if facts.value("live.kernel") in NOTEBOOK_KERNELS:
        return notebook_commands(out, facts)
    return out


# A notebook kernel (Jupyter, Colab) runs commands in a cell: `%pip` installs into the
# kernel's own environment (IPython's docs: "%pip ... Run the pip package manager within
# the current kernel"); any other shell step needs a leading `!`.
NOTEBOOK_KERNELS = ("ipykernel", "colab")


def notebook_commands(commands: List[str], facts: Facts) -> List[str]:
    """Fix commands as cells of the notebook whose kernel the facts describe."""
    pip = F.pip_cmd(facts) + " "
    out = []
    for cmd in commands:
        if cmd.startswith(pip):
            out.append("%pip " + cmd[len(pip):])
        elif cmd.startswith(_BARE_PIP):
            out.append("%pip " + cmd[cmd.index(" ") + 1:])
        elif cmd.startswith(("%", "!")):
            out.append(cmd)
        elif cmd.startswith(("export ", "unset ")) and kernel_env(cmd):
            out.append(kernel_env(cmd))
        else:
            out.append("!" + cmd)
    return out


# `!export X=1` sets X in a shell that exits at once: the kernel, where torch runs, never sees it.
KERNEL_ENV_NOTE = ("  # before torch first reads it (at import or at the first CUDA use); "
                   "if that has happened, restart the kernel and run this first")


def kernel_env(cmd: str) -> Optional[str]:
    """`export A=1 B=2` / `unset A` as Python that sets them in the kernel's own environment
    (IPython's %env does the same for one variable); None for what is not plain assignments."""
    import shlex
    try:
        words = shlex.split(cmd)
    except ValueError:
        return None
    if words[0] == "unset" and len(words) > 1 and all(re.fullmatch(r"[A-Za-z_]\w*", w) for w in words[1:]):
        return "import os; " + "; ".join('os.environ.pop("%s", None)' % w for w in words[1:])
    pairs = [w.partition("=") for w in words[1:]]
    if words[0] != "export" or not pairs or not all(eq and re.fullmatch(r"[A-Za-z_]\w*", k) for k, eq, _ in pairs):
        return None
    sets = ["os.environ[%s] = %s" % (_py_str(k), "os.path.expandvars(%s)" % _py_str(v) if "$" in v else _py_str(v))
            for k, _, v in pairs]
    return "import os; " + "; ".join(sets) + KERNEL_ENV_NOTE


def _py_str(text: str) -> str:
    """A Python string literal, double-quoted."""
    return '"%s"' % text.replace("\\", "\\\\").replace('"', '\\"')


def torch_index_tag(facts: Facts) -> Optional[str]:
    """The index the installed torch came from, by its local tag; None = plain PyPI."""
    return index_tag_of(F.local_tag(facts))


def index_tag_of(tag: Optional[str]) -> Optional[str]:
    """A local tag that names one of download.pytorch.org's indexes, else None: AMD's own ROCm
    wheels (+rocm6.3.4.git7cecbf6d), vendor and source builds name no index there."""
    if tag and re.fullmatch(r"cpu|xpu|cu\d{2,3}|rocm\d{1,2}\.\d{1,2}(?:\.\d{1,2})?", tag):
        return tag
    return None


def _quote(token: str) -> str:
    return '"%s"' % token if any(c in token for c in "*<>|") else token


def companion_command(facts: Facts, names, installer: Optional[str] = None) -> List[str]:
    """`pip install torch==X <names pinned to X's pairs> --index-url <torch's index>` for this
    interpreter. torch stays pinned to its installed version so pip cannot swap it."""
    base = F.torch_base_version(facts)
    if not base:
        return []
    variant, os_ = torch_index_tag(facts), F.os_name(facts)
    wanted = list(names) or False
    cmds: List[str] = []
    if installer is None and F.installed_with_conda(facts):
        # conda's pytorch has no +tag: its build string says CPU or which CUDA. Without it the
        # command would pin the channel's default CUDA and swap a CPU (or cu118) pytorch.
        conda_variant = F.conda_torch_variant(facts)
        if conda_variant:
            cmds = compat.install_command(base, conda_variant, installer="conda", with_companions=wanted, os=os_)
    if not cmds:
        cmds = compat.install_command(base, variant, installer="pip", with_companions=wanted, os=os_,
                                      machine=F.python_machine(facts))
    out = []
    for cmd in cmds:
        line = " ".join(_quote(tok) for tok in cmd.split())
        out.append(F.pip_cmd(facts) + line[3:] if line.startswith("pip ") else line)
    return out


def companion_reinstall(facts: Facts, name: str, want: str, tag: Optional[str]) -> List[str]:
    """Put companion `name` back at release `want`, from the index of torch's build `tag`,
    touching nothing else: --no-deps keeps pip from swapping torch, --force-reinstall replaces
    a same-version build of another variant (which `name==X` alone would call satisfied:
    PEP 440 ignores local tags). conda environments get conda's command."""
    if F.installed_with_conda(facts):
        cmds = companion_command(facts, (name,))
        if cmds:
            return cmds
    return [pip(facts, "install --no-deps --force-reinstall %s%s" % (_quote(pin_spec(name, want)), index_args(tag)))]
