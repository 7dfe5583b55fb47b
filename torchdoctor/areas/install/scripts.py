"""A package's console script the shell did not find (torchrun, accelerate, hf...): which release
has the name, whether the package is installed in the interpreter at hand, whether its script is
in a folder this shell's PATH holds; and the `python -m` form, which needs no PATH at all.
"""

from typing import NamedTuple, Optional

from ...advice import shells as S
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
    other: str = ""  # the module of the script that stands in before `added` or after `removed`
    pin: str = ""  # the requirement that brings the script back where the newest release lacks it


# Read from the wheels' entry_points.txt (torch's from setup.py: torchrun since 1.10, PR 64049;
# torch.distributed.run itself since 1.9, launch --use_env before it).
SCRIPTS = {
    "torchrun": Script("torch", "torch.distributed.run", added="1.10.0", other="torch.distributed.run"),
    "accelerate": Script("accelerate", "accelerate.commands.accelerate_cli"),
    "deepspeed": Script("deepspeed", "deepspeed.launcher.runner"),
    "huggingface-cli": Script("huggingface-hub", "huggingface_hub.commands.huggingface_cli", removed="1.0.0",
                              other="huggingface_hub.cli.hf", pin="huggingface-hub<1.0"),
    "hf": Script("huggingface-hub", "huggingface_hub.cli.hf", added="0.34.0",
                 other="huggingface_hub.commands.huggingface_cli"),
    "tensorboard": Script("tensorboard", "tensorboard.main"),
}


def _python_m(facts: Facts, module: str, shell: str) -> str:
    exe = facts.value("python.executable")
    return "%s -m %s --help" % (S.program(facts, exe, shell) if isinstance(exe, str) else "python", module)


@hook("console-script-not-found")
def console_script_not_found(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    name = groups.get("prog") or ""
    script = SCRIPTS.get(name)
    if script is None:
        return None
    line = getattr(match, "text", "") or ""
    shell = S.shell_of(line, facts)
    pip_dir = groups.get("dir")
    if pip_dir:  # pip's own warning: the paste says where the script went
        dirs = facts.value("scripts.dirs")
        ours = isinstance(dirs, list) and pip_dir.rstrip("/\\") in dirs  # this interpreter's folder
        return Tailored(summary="pip installed %s into %s, a folder not on PATH: add it to PATH (in the shell's "
                                "start-up file to keep it), or run `python -m %s` with that interpreter."
                                % (name, pip_dir, script.module),
                        commands=[S.prepend_path(pip_dir, shell)]
                        + ([S.prepend_path(pip_dir, S.POWERSHELL)] if S.windows_unknown(shell, line, facts) else [])
                        + [_python_m(facts, script.module, shell) if ours else "python -m %s --help" % script.module],
                        notes=["pip's warning names %s" % pip_dir])
    exe = facts.value("python.executable") or "this Python"
    if not F.package_installed(facts, script.package):
        if facts.state("packages") != "present":
            return None  # nothing was read about this interpreter's packages: claim nothing
        spec = script.pin or script.package
        return Tailored(summary="%s is not installed in %s, so it has no %s: the command ran where the environment "
                                "that has it was not activated, or it was never installed. Activate that environment "
                                "(or run its python with -m), or install %s here%s."
                                % (script.package, exe, name, script.package,
                                   " (below 1.0: from 1.0 its command is `hf`)" if script.pin else ""),
                        commands=([] if script.package == "torch" else [pip(facts, 'install "%s"' % spec)]),
                        notes=["%s is not installed in %s" % (script.package, exe)])
    version = F.package_release(facts, script.package)
    notes = ["%s %s is installed in %s" % (script.package, version or "(version unread)", exe)]
    if version and script.added and V.older(version, script.added):
        other = script.other
        if script.package == "torch" and V.older(version, "1.9.0"):
            other = "torch.distributed.launch --use_env"  # torch.distributed.run came in 1.9
        upgrade = [] if script.package == "torch" else [pip(facts, 'install "%s>=%s"' % (script.package, script.added))]
        return Tailored(summary="%s %s predates %s (added in %s): run `python -m %s` with it, or upgrade %s."
                                % (script.package, version, name, script.added, other, script.package),
                        commands=[_python_m(facts, other, shell)] + upgrade, notes=notes)
    if version and script.removed and not V.older(version, script.removed):
        return Tailored(summary="%s %s no longer has %s (gone in %s): its command is `hf` (`hf download ...`, "
                                "`hf auth login`), also `python -m %s`." % (script.package, version, name,
                                                                          script.removed, script.other),
                        commands=[_python_m(facts, script.other, shell)], notes=notes)
    found = facts.value("scripts.found.%s" % name)
    on_path = facts.value("scripts.on_path")
    named_path = groups.get("path")
    interp = facts.value("scripts.interpreters.%s" % name)
    # dash, execve, nohup and Python report a launcher whose #! interpreter is gone as not found;
    # bash says "bad interpreter" instead, so its "command not found" is PATH's
    execs_it = any(w in line for w in (": not found", "execve", "failed to run command", "FileNotFoundError"))
    here = found[:max(found.rfind("/"), found.rfind("\\"))] if isinstance(found, str) else None
    if named_path and here and named_path.rstrip("/") == here:
        gone = isinstance(interp, dict) and interp.get("exists") is False
        return Tailored(summary=("%s exists in that folder here (%s) and its #! line names %s, which is gone: the "
                                 "environment was moved or renamed after the install. " % (name, found, interp.get("path"))
                                 if gone else
                                 "%s exists in that folder now (%s): it was installed after the failure, the failure "
                                 "ran on another machine, or the file cannot start (Windows line endings). " % (
                                     name, found))
                                + "Run `python -m %s` with %s, or reinstall %s's launchers." % (
                                    script.module, exe, script.package),
                        commands=[_python_m(facts, script.module, shell)], notes=notes)
    if (execs_it and not named_path and isinstance(found, str) and isinstance(interp, dict)
            and interp.get("exists") is False):
        return Tailored(summary="%s's launcher (%s) starts with #!%s, which no longer exists: the environment was "
                                "moved, renamed or copied after pip wrote it, and the shell reports the launcher itself "
                                "as not found. Run `python -m %s` with %s, or reinstall %s's launchers there."
                                % (name, found, interp.get("path"), script.module, exe, script.package),
                        commands=[_python_m(facts, script.module, shell)],
                        notes=notes + ["#!%s does not exist" % interp.get("path")])
    if named_path:
        # a full path: PATH played no part; the file is missing there
        return Tailored(summary="The command named a full path (%s%s), so PATH played no part: there is no %s there (that "
                                "environment lacks %s), or it cannot start (its environment was moved after the "
                                "install). Run `python -m %s` with an interpreter that has %s (%s does)." % (
                                    named_path, name, name, script.package, script.module, script.package, exe),
                        commands=[_python_m(facts, script.module, shell)], notes=notes)
    if here is not None and isinstance(on_path, list):
        if here not in on_path:
            act = S.activate(facts, shell)
            own = here in (facts.value("scripts.dirs") or [])[:1]  # the environment's own folder, not --user's
            return Tailored(summary="%s is installed at %s, in a folder this shell's PATH does not hold (%s): %s, or "
                                    "run `python -m %s` with %s." % (
                                        name, found, "an environment that is not activated" if own else
                                        "pip's `--user` folder", "activate the environment" if own and act else
                                        "add the folder to PATH", script.module, exe),
                            commands=[act if own and act else S.prepend_path(here, shell),
                                      _python_m(facts, script.module, shell)],
                            notes=notes + ["%s is not on PATH" % here])
        if shell == S.CSH:  # csh looks commands up in a table it built before the install
            return Tailored(summary="%s is on this PATH (%s): csh and tcsh keep a table of the commands they found when "
                                    "they started, so a launcher installed since is not found until `rehash`." % (
                                        name, found), commands=["rehash"], notes=notes)
        return Tailored(summary="This shell finds %s (%s), so the failing command ran with another PATH: an environment "
                                "not activated in that shell or job script, sudo (which resets PATH), a remote node's "
                                "non-interactive shell. Run it there through the interpreter: `python -m %s`."
                                % (name, found, script.module),
                        commands=[_python_m(facts, script.module, shell)], notes=notes)
    if facts.state("scripts.found.%s" % name) == ABSENT:
        notes.append("no %s in %s's scripts folders" % (name, exe))
    return Tailored(summary="%s is installed in %s: run its launcher through that interpreter, which needs no PATH: "
                            "`python -m %s`." % (script.package, exe, script.module),
                    commands=[_python_m(facts, script.module, shell)], notes=notes)
