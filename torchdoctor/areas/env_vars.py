"""Environment variables torch and the libraries it loads read at start-up: the value this
machine has for the one a message names, and how to unset or change it here; the caching
allocator's settings, whose keys torch checks.
"""

import difflib
import re
from typing import List, Optional, Tuple

from ..kb import compat
from ..model import derived as F
from ..model.facts import Facts
from .config import ALLOC_CONF_VARS, ALLOC_URL
from .registry import WARNING, Tailored, finding, hook, rule, match_groups


@hook("env-var-misconfigured")
def env_var_misconfigured(match, facts: Facts) -> Optional[Tailored]:
    var = match_groups(match).get("var")
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


# -- the caching allocator's settings (PYTORCH_CUDA_ALLOC_CONF and its aliases) ---------------
def _items(value: str) -> List[str]:
    """The items of an allocator config string 'k:v,k2:[a:b,c:d]' (a bracketed value kept whole)."""
    return [i for i in re.split(r",(?![^\[]*\])", value) if i.strip()]


def _alloc_conf_keys(value: str) -> Tuple[List[str], List[str]]:
    """(keys, malformed items) of an allocator config string."""
    keys, bad = [], []
    for item in (re.sub(r"\[[^\]]*\]", "", i).strip() for i in _items(value)):
        if ":" in item:
            keys.append(item.split(":", 1)[0].strip())
        else:
            bad.append(item)
    return keys, bad


def _close_key(key: str) -> Optional[str]:
    """The allocator key a misspelt one was meant to be (None when none is close)."""
    close = difflib.get_close_matches(key, compat.alloc_conf_keys(), n=1)
    return close[0] if close else None


def _repaired(value: str, keys: List[str]) -> str:
    """The setting with each refused key corrected to the key it was meant to be, or removed
    with its value (a bracketed value included) when none is close; the other keys kept."""
    known = compat.alloc_conf_keys()
    out = []
    for item in _items(value):
        k = item.split(":", 1)[0].strip()
        close = _close_key(k) if k in keys and k not in known else None
        if k not in keys:
            out.append(item)
        elif close:
            out.append(re.sub(r"^\s*%s\s*" % re.escape(k), close, item, count=1))
    return ",".join(out)


def _set_cmd(facts: Facts, var: str, value: str) -> str:
    """The command that gives the variable this value (unsets it when nothing is left)."""
    if not value:
        return F.unset_env_cmd(facts, var)
    return F.set_env_cmd(facts, var, "'%s'" % value if F.os_name(facts) != "windows" else value)


@rule("check", "alloc-conf-unknown-key", category="config", severity=WARNING)
def alloc_conf_unknown_key(facts):
    """PYTORCH_(CUDA_)ALLOC_CONF holds keys torch's allocator does not recognise."""
    out = []
    for var in ALLOC_CONF_VARS:
        v = F.env(facts, var)
        if not v:
            continue
        keys, bad = _alloc_conf_keys(v)
        unknown = [k for k in keys if k not in compat.alloc_conf_keys()]
        if not unknown and not bad:
            continue
        closes = {k: _close_key(k) for k in unknown}
        hints = ["%r%s" % (k, " (did you mean %r?)" % closes[k] if closes[k] else "") for k in unknown]
        problems = (["unknown key(s) %s" % ", ".join(hints)] if hints else []) + \
            (["item(s) without 'key:value' form: %s" % ", ".join(repr(b) for b in bad)] if bad else [])
        fixed = _repaired(v, unknown + bad)
        out.append(finding(
            "%s=%s: %s" % (var, v, "; ".join(problems)),
            detail="torch parses this when the CUDA caching allocator starts and raises `Unrecognized key '...' in "
                   "CUDA allocator config` (older releases: `Unrecognized CachingAllocator option: ...`) for a key it "
                   "does not know, so the first CUDA allocation fails. Keys recognised by torch 2.14.1: %s. (That "
                   "list comes from the library strings; an older torch knows fewer keys.)"
                   % ", ".join(compat.alloc_conf_keys()),
            fix="Correct or remove the key%s." % ("s" if len(unknown) + len(bad) > 1 else ""),
            commands=[_set_cmd(facts, var, fixed)],
            links=[ALLOC_URL]))
    return out


@hook("alloc-conf-unknown-key")
def tailor_alloc_conf_unknown_key(match, facts: Facts) -> Optional[Tailored]:
    """Name what the refused key is (newer than the torch that refused it, or misspelt) and give
    the variable's value with it corrected or removed, the way the check does."""
    key = (match_groups(match).get("key") or "").strip()
    # The variable that holds exactly this key (or this malformed item), not one that merely
    # contains its letters: 'expandable_segment' is inside 'expandable_segments'.
    found = next(((var, v) for var in ALLOC_CONF_VARS for v in [F.env(facts, var)]
                  if v and key and key in sum(_alloc_conf_keys(v), [])), None)
    version = F.torch_version_str(facts)
    notes = (["%s=%s" % found] if found else []) + (["torch %s" % version] if version else [])
    if not key:
        return Tailored(notes=notes) if notes else None
    close = _close_key(key)
    if key in compat.alloc_conf_keys():
        # The torch that raised this may be another machine's: only the key's age is certain.
        summary = ("'%s' is a real allocator key that the torch which refused it does not know (a newer key, or "
                   "one another device's allocator does not take): remove it from the variable (keep the other "
                   "keys), or upgrade that torch to a release that knows it." % key)
    elif close:
        summary = "'%s' is not an allocator key: did you mean '%s'? Correct it in the variable." % (key, close)
    else:
        summary = ("'%s' is not an allocator key (keys are %s): the variable holds something other than key:value "
                   "pairs; remove it." % (key, ", ".join(compat.alloc_conf_keys()[:5]) + ", ..."))
    if found is None:
        return Tailored(summary=summary, notes=notes)
    fixed = _repaired(found[1], [key])
    return Tailored(summary=summary, commands=[_set_cmd(facts, found[0], fixed)], notes=notes)
