"""The Python API: the same diagnosis as the CLI, as objects, by the same verbs (verbs/).

    import torchdoctor
    report = torchdoctor.check()                  # a child probe of this interpreter
    report = torchdoctor.check(in_process=True)   # the live torch of this process
    matches = torchdoctor.explain_text(error_text)
"""

from typing import List, Optional

from .diagnose import Explanation, explain
from .model.report import Report


def check(python: Optional[str] = None, timeout: float = 60.0, in_process: bool = False,
          only=None, skip=None, compile: bool = False) -> Report:
    """Probe and diagnose. `in_process=True` reads torch's settings as this process has
    them (cudnn.benchmark, deterministic algorithms, TF32, threads), importing torch here
    if it is not imported yet; it cannot be combined with `python`. `compile=True` also
    runs the torch.compile preflight (in a child of its own, whatever in_process says)."""
    if in_process and python:
        raise ValueError("in_process=True diagnoses this interpreter; do not pass python=")
    from .verbs.check import check as check_verb
    return check_verb(python, timeout, only=only, skip=skip, in_process=in_process, compile=compile)


def fix_plan(python: Optional[str] = None, ids=(), timeout: float = 60.0) -> dict:
    """What `torchdoctor fix` would do for `python` (default: this interpreter), changing
    nothing: the findings it would take (the error-level ones, or `ids`), each fix resolved
    against the target's pip configuration, the exact commands it would run, what it leaves to
    your shell, and the distributions it would snapshot. Applying is the CLI's alone, after the
    user agrees (`torchdoctor fix`)."""
    import sys
    from .verbs.fix.plan import plan_dict
    from .verbs.fix.verb import plan_for
    _, items = plan_for(python or sys.executable, list(ids), timeout)
    return plan_dict(items)


def explain_text(text: str, facts: Optional[object] = None, use_env: bool = True) -> List[Explanation]:
    """Known errors in `text`, best first, each with cause and a fix tailored to `facts`
    (default: the cheap facts of this interpreter; use_env=False for generic fixes)."""
    if not use_env:
        return explain(text)[0]
    from .verbs.explain import facts_for
    return explain(text, facts=facts, gather=lambda: facts_for(None))[0]
