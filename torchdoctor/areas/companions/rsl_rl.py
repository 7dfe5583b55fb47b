"""rsl_rl's runner, environment and algorithm out of step. legged_gym and its forks are written for
rsl_rl v1.0.2 (a git tag only: PyPI's rsl-rl-lib starts at 2.1.1), Isaac Lab for the rsl-rl-lib its
isaaclab_rl pins; the same errors come from either side, so what is installed beside rsl_rl and which
call failed (the environment's observations, PPO.update's values, the runner's configuration)
decide which way to move."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

# legged_gym's README: `git checkout v1.0.2` (its commit 42f129f); pip installs the tag with or without a checkout
V1_FROM_GIT = '"rsl_rl @ git+https://github.com/leggedrobotics/rsl_rl@v1.0.2"'
# distributions that install legged_gym's package (forks that keep its name are legged-gym)
LEGGED_GYM = ("legged-gym", "unitree-rl-gym")
ISAAC_LAB = ("isaaclab-rl", "isaaclab")
# PPO.update()'s return: two values up to 2.1.2, five in 2.2.x, a dict of losses from 2.3.0
UPDATE_RETURNS_5, UPDATE_RETURNS_DICT = (2, 2), (2, 3)
# both distributions install the package rsl_rl: whichever is there goes before another is installed
REMOVE_BOTH = "uninstall -y rsl-rl-lib rsl_rl"
PROJECT_PIN = 'install "rsl-rl-lib==<the version the project pins>"'


def _installed(facts: Facts, names) -> list:
    return [n for n in names if F.package_release(facts, n)]


@hook("rsl-rl-env-runner-api-mismatch")
def rsl_rl_api(match, facts: Facts) -> Optional[Tailored]:
    lib, git = F.package_release(facts, "rsl-rl-lib"), F.package_release(facts, "rsl-rl")
    installed = lib or git
    notes = ["installed %s %s" % (n, v) for n, v in (("rsl-rl-lib", lib), ("rsl_rl (git)", git)) if v]
    lab, gym = _installed(facts, ISAAC_LAB), _installed(facts, LEGGED_GYM)
    notes += ["installed %s" % n for n in lab + gym]
    text, groups = match.text or "", match_groups(match)
    if lab:
        return Tailored(summary="Isaac Lab is installed here (%s): its RL wrapper and scripts follow the rsl-rl-lib its "
                                "release pins. Reinstall that one with Isaac Lab's own installer instead of another "
                                "rsl_rl." % ", ".join(lab),
                        commands=["./isaaclab.sh --install rsl_rl", pip(facts, "show rsl-rl-lib isaaclab_rl")],
                        notes=notes)
    release = V.minor_tuple(installed) if installed else None
    if release is None:
        return None
    # PPO.update()'s values, not the observations (five values come only from update())
    if groups.get("lhs", "").startswith("mean_value_loss") or (groups.get("expected") == "5" and not groups.get("lhs")):
        expected = groups.get("expected")
        if expected == "5" and not (UPDATE_RETURNS_5 <= release < UPDATE_RETURNS_DICT):
            return Tailored(summary="The runner that failed unpacks the five values PPO.update() returns in rsl-rl-lib "
                                    "2.2.x; rsl_rl %s returns %s. Install 2.2.x (or the release the project pins)."
                                    % (installed, "a dict of losses" if release >= UPDATE_RETURNS_DICT else "two"),
                            commands=[pip(facts, REMOVE_BOTH),
                                      pip(facts, 'install "rsl-rl-lib>=2.2,<2.3"')], notes=notes)
        if expected == "2" and release >= UPDATE_RETURNS_5:
            target = (pip(facts, "install %s" % V1_FROM_GIT) if gym
                      else pip(facts, 'install "rsl-rl-lib>=2.1.1,<2.2"'))
            return Tailored(summary="The runner that failed unpacks the two values PPO.update() returns up to rsl_rl "
                                    "2.1; rsl_rl %s returns %s. Install the release the runner was written for%s."
                                    % (installed, "a dict of losses" if release >= UPDATE_RETURNS_DICT else "five",
                                       " (legged_gym's: v1.0.2)" if gym else ""),
                            commands=[pip(facts, REMOVE_BOTH), target], notes=notes)
        return None
    if "policy_class_name" in text:
        return Tailored(summary="The runner that failed is rsl_rl 1.x's (it reads policy_class_name from the runner's "
                                "config) and the config was written for rsl_rl 2.x or later: install the rsl-rl-lib that "
                                "config's project pins (rsl_rl %s is installed here)." % installed,
                        commands=[pip(facts, REMOVE_BOTH),
                                  pip(facts, PROJECT_PIN)], notes=notes)
    if not gym:
        return None  # which side moves is the project's to say (its pin)
    if release < (2, 0):
        return Tailored(summary="rsl_rl %s is installed beside %s, the release legged_gym needs: the code that failed "
                                "was written for a newer rsl_rl (a newer project's runner or config). Install the "
                                "version that project pins, in an environment of its own if legged_gym must keep "
                                "1.0.2." % (installed, ", ".join(gym)),
                        commands=[pip(facts, REMOVE_BOTH),
                                  pip(facts, PROJECT_PIN)], notes=notes)
    return Tailored(summary="rsl_rl %s is installed beside %s, which is written for rsl_rl v1.0.2 (one observation "
                            "tensor, class names under the runner's config): remove it and install the tag from git "
                            "(PyPI has no release older than 2.1.1)." % (installed, ", ".join(gym)),
                    commands=[pip(facts, REMOVE_BOTH), pip(facts, "install %s" % V1_FROM_GIT)],
                    notes=notes)
