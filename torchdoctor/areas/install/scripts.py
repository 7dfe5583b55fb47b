"""A package's console script the shell did not find (torchrun, accelerate, hf...): which release
has the name, whether the package is installed in the interpreter at hand, whether its script is
in a folder this shell's PATH holds; and the `python -m` form, which needs no PATH at all.
"""

from typing import NamedTuple, Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import ABSENT, Facts
from ..registry import Tailored, hook, match_groups


class Script(NamedTuple):
    package: str  # the distribution that installs it, as the probe files it (PEP 503 name)
    module: str  # what `python -m` runs in its place (its entry point's module, with a __main__ guard)
    added: Optional[str] = None  # the first release with the script
    removed: Optional[str] = None  # the first release without it
    instead: str = ""  # what replaces it from `removed` (or what to run before `added`)


# Read from the wheels' entry_points.txt (torch's from setup.py: torchrun since 1.10, PR 64049).
SCRIPTS = {
    "torchrun": Script("torch", "torch.distributed.run", added="1.10.0",
                       instead="python -m torch.distributed.launch --use_env"),
    "accelerate": Script("accelerate", "accelerate.commands.accelerate_cli"),
    "deepspeed": Script("deepspeed", "deepspeed.launcher.runner"),
    "huggingface-cli": Script("huggingface-hub", "huggingface_hub.commands.huggingface_cli", removed="1.0.0",
                              instead="hf"),
    "hf": Script("huggingface-hub", "huggingface_hub.cli.hf", added="0.34.0", instead="huggingface-cli"),
    "tensorboard": Script("tensorboard", "tensorboard.main"),
}


def _python_m(facts: Facts, script: Script) -> str:
    return "%s -m %s" % (F.python_cmd(facts), script.module)


@hook("console-script-not-found")
def console_script_not_found(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    name = groups.get("prog") or ""
    script = SCRIPTS.get(name)
    if script is None:
        return None
    pip_dir = groups.get("dir")
    if pip_dir:  # pip's own warning: the paste says where the script went
        dirs = facts.value("scripts.dirs")
        ours = isinstance(dirs, list) and pip_dir.rstrip("/\\") in dirs  # this interpreter's folder
        return Tailored(summary="pip installed %s into %s, a folder not on PATH: add it to PATH (in the shell's "
                                "start-up file to keep it), or run `python -m %s` with that interpreter."
                                % (name, pip_dir, script.module),
                        commands=[_path_cmd(facts, pip_dir), _python_m(facts, script) if ours else
                                  "python -m %s" % script.module],
                        notes=["pip's warning names %s" % pip_dir])
    exe = facts.value("python.executable") or "this Python"
    if not F.package_installed(facts, script.package):
        if facts.state("packages") != "present":
            return None  # nothing was read about this interpreter's packages: claim nothing
        return Tailored(summary="%s is not installed in %s, so it has no %s: the command ran where the environment "
                                "that has it was not activated, or it was never installed. Activate that environment "
                                "(or run its python with -m), or install %s here."
                                % (script.package, exe, name, script.package),
                        commands=([] if script.package == "torch" else [pip(facts, "install %s" % script.package)]),
                        notes=["%s is not installed in %s" % (script.package, exe)])
    version = F.package_release(facts, script.package)
    notes = ["%s %s is installed in %s" % (script.package, version or "(version unread)", exe)]
    if version and script.added and V.older(version, script.added):
        upgrade = [] if script.package == "torch" else [pip(facts, 'install "%s>=%s"' % (script.package, script.added))]
        return Tailored(summary="%s %s predates %s (added in %s): run `%s` with it, or upgrade %s."
                                % (script.package, version, name, script.added, script.instead, script.package),
                        commands=[_instead_cmd(facts, script)] + upgrade, notes=notes)
    if version and script.removed and not V.older(version, script.removed):
        return Tailored(summary="%s %s no longer has %s (gone in %s): its command is `%s` (`%s download ...`, "
                                "`%s login`)." % (script.package, version, name, script.removed, script.instead,
                                                  script.instead, script.instead),
                        commands=["%s --help" % script.instead], notes=notes)
    found = facts.value("scripts.found.%s" % name)
    on_path = facts.value("scripts.on_path")
    if isinstance(found, str) and isinstance(on_path, list):
        folder = found[:max(found.rfind("/"), found.rfind("\\"))]
        if folder not in on_path:
            return Tailored(summary="%s is installed at %s, in a folder this shell's PATH does not hold (pip's `--user` "
                                    "folder, or an environment that is not activated): add the folder to PATH, or run "
                                    "`python -m %s` with %s." % (name, found, script.module, exe),
                            commands=[_path_cmd(facts, folder), _python_m(facts, script)],
                            notes=notes + ["%s is not on PATH" % folder])
        return Tailored(summary="This shell finds %s (%s), so the failing command ran with another PATH: an environment "
                                "not activated in that shell or job script, sudo (which resets PATH), a remote node's "
                                "non-interactive shell. Run it there through the interpreter: `%s`."
                                % (name, found, _python_m(facts, script)),
                        commands=[_python_m(facts, script) + " --help"], notes=notes)
    if facts.state("scripts.found.%s" % name) == ABSENT:
        notes.append("no %s in %s's scripts folders" % (name, exe))
    return Tailored(summary="%s is installed in %s: run its launcher through that interpreter, which needs no PATH: "
                            "`%s`." % (script.package, exe, _python_m(facts, script)),
                    commands=[_python_m(facts, script) + " --help"], notes=notes)


def _instead_cmd(facts: Facts, script: Script) -> str:
    if script.instead.startswith("python "):
        return "%s %s" % (F.python_cmd(facts), script.instead[len("python "):])
    return script.instead + " --help"


def _path_cmd(facts: Facts, folder: str) -> str:
    if F.os_name(facts) == "windows":  # this cmd session; setx would truncate a long PATH
        return F.set_env_cmd(facts, "PATH", "%s;%%PATH%%" % folder)
    return F.prepend_path_cmd("PATH", F.shell_path(facts, folder))
