"""What `fix` would do, shown before anything runs: the findings it takes (the error-level ones,
or those named), each one's commands sorted into what fix runs (the target's pip, resolved
first; a file move), what is for the user's shell (a variable to unset or change: fix cannot
change the shell it was started from) and what it leaves alone (checks to run afterwards,
conda, deletions), and which distributions a run would replace (the snapshot's content).
"""

import re
import shlex
from typing import Dict, List, Sequence

from ...advice import resolve as R
from ...model import derived as F
from ...model.facts import Facts
from ...model.findings import ERROR, Finding
from ...model.records import asdict, field, record

PIP, MOVE, SHELL, LEFT = "pip", "move", "shell", "left"
_SHELL_STATE = re.compile(r"^(?:export|unset|set)\s+[A-Za-z_][A-Za-z0-9_]*")


@record
class Step:
    kind: str  # PIP, MOVE, SHELL, LEFT
    command: str
    argv: List[str] = field(default_factory=list)  # PIP: the args after `-m pip`; MOVE: [src, dst]
    why: str = ""  # LEFT: why fix does not run it


@record
class Item:
    """One finding and what fixing it takes."""
    finding: Finding
    steps: List[Step] = field(default_factory=list)
    runnable: bool = False  # fix can apply it (every PIP step resolved, something to run)
    blocked: str = ""  # why not, when it cannot
    replaces: List[str] = field(default_factory=list)  # installed distributions a run replaces or removes
    installs: List[str] = field(default_factory=list)  # name==version it would install

    def to_dict(self) -> dict:
        return {"id": self.finding.id, "title": self.finding.title, "severity": self.finding.severity,
                "summary": self.finding.fix.summary, "resolved": self.finding.fix.resolved,
                "resolution": self.finding.fix.resolution, "runnable": self.runnable, "blocked": self.blocked,
                "steps": [asdict(s) for s in self.steps], "replaces": self.replaces, "installs": self.installs}


def select(findings: Sequence[Finding], ids: Sequence[str]) -> List[Finding]:
    """The findings named (by finding id or check id), else every error-level one."""
    if ids:
        wanted = set(ids)
        return [f for f in findings if f.id in wanted or f.check in wanted]
    return [f for f in findings if f.severity == ERROR]


def classify(cmd: str, facts: Facts) -> Step:
    head = F.pip_cmd(facts) + " "
    if cmd.startswith(head + "install ") or cmd.startswith(head + "uninstall "):
        try:
            return Step(PIP, cmd, shlex.split(cmd[len(head):]))
        except ValueError:
            return Step(LEFT, cmd, why="cannot be split into arguments")
    if _SHELL_STATE.match(cmd):
        return Step(SHELL, cmd, why="changes the shell's environment, which fix cannot reach: run it in your shell")
    try:
        tokens = shlex.split(cmd) if F.os_name(facts) != "windows" else cmd.split()
    except ValueError:
        tokens = []
    if len(tokens) == 3 and tokens[0] in ("mv", "ren"):
        return Step(MOVE, cmd, tokens[1:])
    if tokens[:1] == ["conda"]:
        return Step(LEFT, cmd, why="conda commands are shown, not run (the snapshot covers pip's packages)")
    if tokens[:1] in (["rm"], ["rmdir"], ["del"]):
        return Step(LEFT, cmd, why="fix deletes nothing")
    return Step(LEFT, cmd, why="not a change to the environment")


def plan_item(f: Finding, facts: Facts, outcomes: Sequence[R.Outcome]) -> Item:
    """The steps of one finding, after its commands were resolved (`outcomes`)."""
    item = Item(finding=f, steps=[classify(c, facts) for c in f.fix.commands])
    pip_steps = [s for s in item.steps if s.kind == PIP]
    moves = [s for s in item.steps if s.kind == MOVE]
    if pip_steps and f.fix.resolved not in (R.OK, R.REPLACED):
        item.blocked = f.fix.resolution or "its install commands were not resolved"
    elif any(s.kind == SHELL for s in item.steps) and not (pip_steps or moves):
        item.blocked = "its fix is a change to your shell's environment: run it in your shell"
    elif not (pip_steps or moves):
        item.blocked = "its fix has nothing fix can run" if f.fix.commands else "its fix has no commands"
    else:
        item.runnable = True
    installed = _installed(facts)
    for o in outcomes:
        for p in o.planned:
            item.installs.append("%s==%s" % (p.name, p.version))
            if p.name in installed:
                item.replaces.append(p.name)
    for s in pip_steps:
        if s.argv[:1] == ["uninstall"]:
            item.replaces += [R.pipdry.normalize(a) for a in s.argv[1:] if not a.startswith("-")]
    item.replaces = sorted(set(item.replaces))
    return item


def _installed(facts: Facts) -> Dict[str, str]:
    inst = facts.value("packages.installed")
    return {k: v.get("version") for k, v in inst.items()
            if isinstance(v, dict) and v.get("version")} if isinstance(inst, dict) else {}


def resolve_and_plan(findings: Sequence[Finding], facts: Facts) -> List[Item]:
    """Resolve the findings' install commands (side by side) and plan each."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=max(1, min(4, len(findings)))) as pool:
        outcomes = list(pool.map(lambda f: R.resolve_finding(f, facts), findings))
    return [plan_item(f, facts, o) for f, o in zip(findings, outcomes)]


def describe(items: Sequence[Item]) -> List[str]:
    """The plan as lines for the terminal: exactly what would run, and what would not."""
    out: List[str] = []
    for it in items:
        f = it.finding
        out.append("%s [%s]" % (f.title, f.id))
        if f.fix.summary:
            out.append("  " + f.fix.summary)
        for s in it.steps:
            if s.kind in (PIP, MOVE):
                out.append("  will run:      %s" % s.command)
            elif s.kind == SHELL:
                out.append("  in your shell: %s" % s.command)
            else:
                out.append("  not run:       %s  (%s)" % (s.command, s.why))
        if f.fix.resolution:
            out.append("  " + f.fix.resolution[:1].upper() + f.fix.resolution[1:])
        if it.replaces:
            out.append("  snapshot first: %s (repacked from the installed files, for --undo)" % ", ".join(it.replaces))
        if not it.runnable:
            out.append("  not applied: %s" % it.blocked)
    return out


def plan_dict(items: Sequence[Item]) -> dict:
    return {"findings": [it.to_dict() for it in items]}

