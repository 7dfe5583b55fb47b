"""`torchdoctor fix`: apply the fix of the findings after showing exactly what will run and
asking; `--undo` puts the last snapshot back. The verb lives in verbs/fix/."""

import sys

import click

from .common import InputError, chosen_python, echo, split_ids
from .options import positive


@click.command("fix")
@click.argument("ids", nargs=-1)
@click.option("--python", "python", metavar="PATH", help="Interpreter whose environment to fix (default: as for check).")
@click.option("--yes", "-y", is_flag=True, help="Apply without asking (for scripts).")
@click.option("--dry-run", is_flag=True, help="Show what would run, change nothing.")
@click.option("--undo", is_flag=True, help="Restore the package set (and moved files) of the last fix's snapshot.")
@click.option("--timeout", type=float, default=60.0, show_default=True, callback=positive,
              help="Seconds the torch probe may take, before and after the fix.")
def fix_cmd(ids, python, yes, dry_run, undo, timeout):
    """Apply the fixes of the findings (error-level ones, or IDS): resolved against your pip
    configuration, snapshot first, checked again after, rolled back unless healed."""
    from ..verbs.fix import verb
    if yes and dry_run:
        raise InputError("--yes and --dry-run contradict each other")
    wanted = split_ids(ids)

    def say(line: str) -> None:
        echo(line + "\n")

    def confirm(question: str) -> bool:
        if not sys.stdin or not sys.stdin.isatty():
            raise InputError("fix changes the environment only when you agree: run it in a terminal, or pass "
                             "--yes (--dry-run shows what it would do)")
        return click.confirm(question, default=False)

    if undo:
        if wanted:
            raise InputError("--undo takes no finding ids: it restores the last fix's snapshot")
        target = chosen_python(python) if python else None
        sys.exit(verb.run_undo(target, yes, dry_run, say, confirm))
    sys.exit(verb.run(chosen_python(python), wanted, yes, dry_run, timeout, say, confirm))
