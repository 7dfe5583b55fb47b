"""Every install fix resolved before it is shown: a fix command is a claim about this machine.

The target interpreter's own pip, with the user's own configuration (indexes, mirrors,
find-links, constraints, PIP_* variables), dry-runs each `<python> -m pip install ...` of a
finding (pipdry). What it would install is held to what the fix means (`Want`: the release,
and the build variant that the pin's +tag or the /whl/<variant> index names) and to what must
agree afterwards (torch and its companions built for one platform, one release pair). Then:

* it resolves to the intended build: the command is pinned exactly (`==0.28.0+cpu`), an index
  that could not be reached is left out of it (pip would otherwise wait on it), and the fix
  says "resolved against your pip configuration";
* it resolves to another build, or to nothing: one line says which index was asked and what
  the reachable ones offer, and the fix becomes what does resolve here (the intended build
  from another source, the newest release in the intended variant, or another release pair
  that the reachable indexes carry, with its download size); failing that, the exact reason
  and what to change in the configuration, never a command that would exit 0 and leave the
  environment broken;
* the dry run cannot tell (no pip, pip < 22.2, a timeout): the fix says it is unverified.

An uninstall directly followed by the install of the same packages becomes one
`install --force-reinstall`: pip removes the old files only once the new ones are at hand and
puts them back when the install fails, so a failing step never leaves the user without torch.
"""

import re
from typing import Dict, List, Optional, Sequence, Tuple

from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from ..model.findings import Finding
from ..model.records import field, record
from . import pipdry
from .builds import COMPANIONS, FAMILY, installed_build, judge, planned_variant, show, untagged
from .intent import Step, Want, parse

# Fix.resolved values
OK, REPLACED, NONE, UNVERIFIED = "yes", "replaced", "no", "unverified"


@record
class Outcome:
    status: str  # OK, REPLACED, NONE, UNVERIFIED
    commands: List[str]
    note: str
    summary: Optional[str] = None  # the fix's new summary, where the commands changed meaning
    planned: List[pipdry.Planned] = field(default_factory=list)


# -- commands ---------------------------------------------------------------------------
def _drop_index(args: List[str], unreachable: Sequence[str]) -> List[str]:
    """args without the --index-url/--extra-index-url values pip could not reach."""
    out: List[str] = []
    skip = False
    for i, tok in enumerate(args):
        if skip:
            skip = False
            continue
        if tok in ("-i", "--index-url", "--extra-index-url") and i + 1 < len(args) and _dead(args[i + 1], unreachable):
            skip = True
            continue
        if "=" in tok and tok.split("=", 1)[0] in ("--index-url", "--extra-index-url") and \
                _dead(tok.split("=", 1)[1], unreachable):
            continue
        out.append(tok)
    return out


def _dead(url: str, unreachable: Sequence[str]) -> bool:
    root = url.rstrip("/") + "/"
    return any(u.startswith(root) or u.rstrip("/") + "/" == root for u in unreachable)


def _pinned(step: Step, dry: pipdry.DryRun) -> Step:
    """The step with each requirement pinned to exactly what pip resolved it to."""
    planned = {p.name: p for p in dry.planned}
    args = list(step.args)
    wants = []
    for w in step.wants:
        p = planned.get(w.name)
        if p is not None and w.spec in args:
            exact = "%s==%s" % (w.name, p.version)
            args[args.index(w.spec)] = exact
            w = Want(name=w.name, spec=exact, version=V.base(p.version), variant=w.variant)
        wants.append(w)
    return Step(head=step.head, args=args, wants=wants)


def size_of(planned: Sequence[pipdry.Planned]) -> Tuple[int, int]:
    """(bytes to download, wheels whose size could not be told)."""
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=8) as pool:
        sizes = list(pool.map(lambda p: pipdry.file_size(p.url), planned))
    return sum(s for s in sizes if s), sum(1 for s in sizes if s is None)


def human_size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return "%.1f %s" % (n / scale, unit)
    return "%d bytes" % n


def _download_note(planned: Sequence[pipdry.Planned]) -> str:
    if not planned:
        return "nothing to download"
    total, unknown = size_of(planned)
    return "%d wheel(s), %s to download%s" % (len(planned), human_size(total),
                                              " plus %d of unknown size" % unknown if unknown else "")


def _dead_indexes(dry: pipdry.DryRun) -> List[str]:
    """The indexes behind the pages pip could not fetch (https://x/whl/cpu/torch/ -> https://x/whl/cpu)."""
    return sorted({re.sub(r"/[^/]+/?$", "", u) for u in dry.unreachable})


def _where(dry: pipdry.DryRun, wants: Sequence[Want], facts: Facts) -> str:
    """Which sources could not be reached and what the reachable ones offered for the wants."""
    parts = []
    dead = _dead_indexes(dry)
    if dead:
        parts.append("%s could not be reached" % ", ".join(dead))
    for w in wants:
        by_src: Dict[str, List[str]] = {}
        for v, src in dry.offers.get(w.name) or []:
            if not w.version or V.base(v) == w.version:
                by_src.setdefault(src, []).append(show(w.name, v, None if "+" in v else untagged(w.name, v, facts)))
        parts += ["%s offers %s" % (src, ", ".join(vs[:4])) for src, vs in by_src.items()]
    return "; ".join(parts)


def _candidates(step: Step, dry: pipdry.DryRun, facts: Facts) -> List[Tuple[Step, bool, str]]:
    """What else to try, best first: (step, judged by intent?, how to say it)."""
    out: List[Tuple[Step, bool, str]] = []
    base_args = _drop_index(step.args, dry.unreachable)
    # the intended build from a source that carries it under its +tag
    exact_args, exact_wants, found = list(base_args), [], True
    for w in step.wants:
        if w.variant and w.version:
            tagged = "%s+%s" % (w.version, w.variant)
            if not any(v == tagged for v, _ in dry.offers.get(w.name) or []):
                found = False
            if w.spec in exact_args:
                exact_args[exact_args.index(w.spec)] = "%s==%s" % (w.name, tagged)
            exact_wants.append(Want(w.name, "%s==%s" % (w.name, tagged), w.version, w.variant))
        else:
            exact_wants.append(w)
    if found and exact_args != step.args:
        out.append((Step(step.head, exact_args, exact_wants), True, "the intended build"))
    # the newest torch of the intended variant that a reachable source carries
    torch_want = next((w for w in step.wants if w.name == "torch" and w.variant), None)
    if torch_want is not None and len(step.wants) == 1:
        tagged = sorted({v for v, _ in dry.offers.get("torch") or [] if V.local_tag(v) == torch_want.variant},
                        key=lambda v: V.parse(v) or V.parse("0"), reverse=True)
        for v in tagged[:1]:
            args = [a if a != torch_want.spec else "torch==%s" % v for a in base_args]
            out.append((Step(step.head, args, [Want("torch", "torch==%s" % v, V.base(v), torch_want.variant)]), True,
                        "the newest %s build of torch your configured sources carry" % torch_want.variant))
    # another release pair, in whatever build the reachable indexes carry
    names = ["torch"] + [n for n in COMPANIONS if installed_build(facts, n) or any(w.name == n for w in step.wants)]
    if any(w.name in FAMILY for w in step.wants):
        out.append((Step(step.head, ["-U"] + names, [Want(n, n) for n in names]), False,
                    "another release pair"))
    return out


def _wants_text(wants: Sequence[Want]) -> str:
    return ", ".join(w.spec + (" (the %s build)" % w.variant if w.variant and "+" not in w.spec else "")
                     for w in wants)


def _fits(alt: Step, by_intent: bool, d: pipdry.DryRun, facts: Facts) -> bool:
    return d.ok and not judge(alt.wants, d, facts, intent=by_intent)


def resolve_step(step: Step, facts: Facts, python: str, forced: bool = False) -> Outcome:
    """Resolve one install step (forced: it stands for an uninstall + install, so it is run,
    and dry-run, with --force-reinstall)."""
    if forced and "--force-reinstall" not in step.args:
        step = Step(step.head, ["--force-reinstall"] + step.args, step.wants)
    dry = pipdry.dry_run(python, _for_dry_run(step.args))
    if dry.unsupported or dry.timed_out:
        why = dry.unsupported or "the dry run of %s did not finish within %.0f s" % (dry.tool or "pip",
                                                                                     pipdry.DRY_RUN_TIMEOUT)
        return Outcome(UNVERIFIED, [step.text], "unverified: %s" % why)
    problems = judge(step.wants, dry, facts) if dry.ok else []
    if dry.ok and not problems:
        return _accepted(step, dry, facts, python)
    where = _where(dry, step.wants, facts)
    if not dry.ok:
        capped = _constraints_naming(python, step.wants)
        where = "; ".join(x for x in (where, capped) if x)
    said = "%s does not resolve here: %s%s" % (_wants_text(step.wants),
                                                "; ".join(problems or dry.errors[:1] or ["pip found nothing"]),
                                                " (%s)" % where if where else "")
    # One candidate at a time, best first: each dry run keeps pip busy for seconds, and the
    # first that fits is the answer.
    for alt, by_intent, how in _candidates(step, dry, facts):
        d = pipdry.dry_run(python, _for_dry_run(alt.args))
        if not _fits(alt, by_intent, d, facts):
            continue
        done = _pinned(alt, d)
        done.args = [a for a in done.args if a != "-U"]
        what = " with ".join(show(p.name, p.version, planned_variant(p, facts)) for p in d.planned
                             if p.name in FAMILY)
        return Outcome(REPLACED, [done.text], "%s. What resolves against your pip configuration instead: %s, %s (%s)."
                       % (said, how, what, _download_note(d.planned)),
                       summary="Install %s: %s that resolves against your pip configuration (the intended %s "
                               "does not resolve here)." % (what, how, _wants_text(step.wants)),
                       planned=d.planned)
    return Outcome(NONE, [], "%s. Nothing that would fix it resolves against your pip configuration%s."
                   % (said, _config_advice(dry, step, python)))


def _for_dry_run(args: List[str]) -> List[str]:
    """The args as the dry run takes them: pip's HTTP cache may serve the index pages (the
    resolution does not change with --no-cache-dir, only the time it takes)."""
    return [a for a in args if a != "--no-cache-dir"]


def _accepted(step: Step, dry: pipdry.DryRun, facts: Facts, python: str) -> Outcome:
    """A step that resolves as meant: pinned exactly, without an index pip could not reach."""
    done = _pinned(step, dry)
    note = ""
    lean = _drop_index(done.args, dry.unreachable)
    if lean != done.args:
        # Without the dead index pip also asks the configured index-url (PyPI by default). A pin
        # with a +tag cannot match anything there (PyPI holds no local versions): no new dry run.
        tagged = all(V.local_tag(w.spec.split("==", 1)[-1]) for w in done.wants if w.name in FAMILY)
        again = dry if tagged else pipdry.dry_run(python, _for_dry_run(lean))
        if again.ok and not judge(done.wants, again, facts):
            done = Step(done.head, lean, done.wants)
            note = "; %s could not be reached from here, so the command does without it" % ", ".join(
                _dead_indexes(dry))
    wanted = {w.name for w in step.wants}
    where = ", ".join("%s from %s" % (show(p.name, p.version, planned_variant(p, facts)), pipdry.where_from(dry, p))
                      for p in dry.planned if p.name in wanted) or "nothing to change"
    return Outcome(OK, [done.text], "resolved against your pip configuration: %s (%s)%s"
                   % (where, _download_note(dry.planned), note), planned=dry.planned)


def _config_advice(dry: pipdry.DryRun, step: Step, python: str) -> str:
    """What to change in the pip configuration so that the intended build resolves."""
    out = []
    dead = _dead_indexes(dry)
    if dead:
        out.append("make %s reachable from this machine (a proxy: `%s -m pip config set global.proxy URL`, or a "
                   "mirror of it as an extra-index-url in your pip configuration)" % (" and ".join(dead), python))
    capped = _constraints_naming(python, step.wants)
    if capped:
        out.append(capped + " (relax it there, or pin within it)")
    return ": " + "; ".join(out) if out else ""


def _constraints_naming(python: str, wants: Sequence[Want]) -> str:
    """'your pip constraints file F says torch<=2.14.1' for the constraints that name a want."""
    said = []
    for path in pipdry.constraint_files(python):
        lines = _constraint_lines(path, [w.name for w in wants])
        if lines:
            said.append("your pip constraints file %s says %s" % (path, ", ".join(lines)))
    return "; ".join(said)


def _constraint_lines(path: str, names: Sequence[str]) -> List[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            text = fh.read(1 << 20)
    except OSError:
        return []
    found = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.match(r"([A-Za-z0-9_.\-]+)", line)
        if m and pipdry.normalize(m.group(1)) in names:
            found.append(line)
    return found


# -- findings ---------------------------------------------------------------------------
def _steps(commands: List[str], facts: Facts) -> List[Tuple[str, Optional[Step], bool]]:
    """(command, its install Step or None, forced) with an uninstall that the next install
    puts back folded into that install."""
    head = F.pip_cmd(facts) + " uninstall "
    out: List[Tuple[str, Optional[Step], bool]] = []
    i = 0
    while i < len(commands):
        cmd = commands[i]
        nxt = parse(commands[i + 1], facts) if i + 1 < len(commands) else None
        if cmd.startswith(head) and nxt is not None:
            gone = {pipdry.normalize(t) for t in cmd[len(head):].split() if not t.startswith("-")}
            if gone and gone <= {w.name for w in nxt.wants}:
                out.append((commands[i + 1], nxt, True))
                i += 2
                continue
        out.append((cmd, parse(cmd, facts), False))
        i += 1
    return out


def needs_resolving(f: Finding, facts: Facts) -> bool:
    return any(step is not None for _, step, _ in _steps(f.fix.commands, facts))


def resolve_finding(f: Finding, facts: Facts) -> List[Outcome]:
    """Resolve the install commands of `f` in place (see the module's docstring); the outcome
    of each install step."""
    python = facts.value("python.executable")
    if not isinstance(python, str) or facts.value("source") not in (None, "probe"):
        return []
    commands: List[str] = []
    outcomes: List[Outcome] = []
    for cmd, step, forced in _steps(f.fix.commands, facts):
        if step is None:
            commands.append(cmd)
            continue
        out = resolve_step(step, facts, python, forced=forced)
        commands += out.commands
        outcomes.append(out)
        if out.summary:
            f.fix.summary = out.summary
    if outcomes:
        rank = (OK, REPLACED, UNVERIFIED, NONE)
        f.fix.commands = commands
        f.fix.resolved = max((o.status for o in outcomes), key=rank.index)
        f.fix.resolution = " ".join(o.note for o in outcomes)
    return outcomes


# What a fix says when its install commands were not dry-run (plain `check`): a mirror, a
# company's index or a constraints file can serve another build, or none, than the command names.
NOT_TRIED = ("Not dry-run against your pip configuration (indexes, mirrors, constraints): "
             "`torchdoctor check --resolve` runs pip's own dry run and says what these commands would install.")


def mark_not_tried(findings: Sequence[Finding], facts: Facts) -> None:
    """Say so on every finding whose install commands were not resolved on this machine."""
    if facts.value("source") not in (None, "probe"):
        return  # a saved report's fixes are for another machine: resolving them here means nothing
    for f in findings:
        if not f.fix.resolved and not f.fix.resolution and needs_resolving(f, facts):
            f.fix.resolution = NOT_TRIED


def resolve_findings(findings: Sequence[Finding], facts: Facts) -> None:
    """Resolve every finding that has install commands, side by side (each dry run waits on
    pip, not on this process)."""
    todo = [f for f in findings if needs_resolving(f, facts)]
    if not todo:
        return
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(max_workers=min(4, len(todo))) as pool:
        list(pool.map(lambda f: resolve_finding(f, facts), todo))
