"""Environment variables torch and the libraries it loads read at start-up: the value this
machine has for the one a message names, and how to unset or change it here.
"""

from typing import Optional

from ..model import derived as F
from ..model.facts import Facts
from .registry import Tailored, hook


@hook("env-var-misconfigured")
def env_var_misconfigured(match, facts: Facts) -> Optional[Tailored]:
    var = (getattr(match, "groups", {}) or {}).get("var")
    if not var:
        return None
    value = F.env(facts, var)
    if value is None:
        return Tailored(summary="%s is not set in this environment, so the failing process got it elsewhere (its job "
                                "script, container image, launcher or service definition): fix or remove it there."
                                % var, notes=["%s is not set here" % var])
    return Tailored(summary="%s is set to %r here: give it a valid value or unset it, where it is set (shell profile, "
                            "container ENV, job script)." % (var, value[:200]),
                    commands=[F.unset_env_cmd(facts, var)], notes=["%s=%s" % (var, value[:200])])


@hook("omp-threads-default")
def omp_threads_default(match, facts: Facts) -> Optional[Tailored]:
    cores = F.usable_cores(facts)
    if not cores:
        return None
    return Tailored(summary="Nothing to fix for GPU training. This machine has %d usable CPU cores: to give each process "
                            "more OpenMP threads, set OMP_NUM_THREADS to about %d divided by the processes per node "
                            "before launching." % (cores, cores),
                    notes=["%d usable CPU cores (%s)" % (cores, F.cpu_limits_text(facts) or "no limits")])
