"""rsl_rl's runner, environment and algorithm out of step. legged_gym and its Isaac Gym forks are
written for rsl_rl v1.0.2 (a git tag only: PyPI's rsl-rl-lib starts at 2.1.1), Isaac Lab for the
rsl-rl-lib its isaaclab_rl pins; the same unpacking error comes from either side, so what is
installed beside rsl_rl decides which way to move."""

from typing import Optional

from ...advice.commands import pip
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook

LEGGED_GYM_RELEASE = "v1.0.2"  # legged_gym's README: `git checkout v1.0.2` (its commit 42f129f)


def _clone_v1(facts: Facts) -> str:
    return ("git clone https://github.com/leggedrobotics/rsl_rl && cd rsl_rl && git checkout %s && %s"
            % (LEGGED_GYM_RELEASE, pip(facts, "install -e .")))


@hook("rsl-rl-env-runner-api-mismatch")
def rsl_rl_api(match, facts: Facts) -> Optional[Tailored]:
    lib, git = F.package_release(facts, "rsl-rl-lib"), F.package_release(facts, "rsl-rl")
    installed = lib or git
    notes = ["installed %s %s" % (n, v) for n, v in (("rsl-rl-lib", lib), ("rsl_rl (git)", git)) if v]
    lab = [n for n in ("isaaclab-rl", "isaaclab") if F.package_release(facts, n)]
    gym = [n for n in ("legged-gym", "isaacgym") if F.package_release(facts, n)]
    notes += ["installed %s" % n for n in lab + gym]
    if lab:
        return Tailored(summary="Isaac Lab is installed here (%s): its RL wrapper and scripts follow the rsl-rl-lib its "
                                "release pins. Reinstall that one with Isaac Lab's own installer instead of another "
                                "rsl_rl." % ", ".join(lab),
                        commands=["./isaaclab.sh --install rsl_rl", pip(facts, "show rsl-rl-lib isaaclab_rl")],
                        notes=notes)
    if not gym or not installed:
        return None
    release = V.minor_tuple(installed)
    if release is not None and release < (2, 0):
        return Tailored(summary="rsl_rl %s is installed beside %s, the release legged_gym needs: the code that failed "
                                "was written for a newer rsl_rl (a newer project's runner or config). Install the "
                                "version that project pins, in an environment of its own if legged_gym must keep "
                                "1.0.2." % (installed, ", ".join(gym)),
                        commands=[pip(facts, 'install "rsl-rl-lib==<the version the project pins>"')], notes=notes)
    return Tailored(summary="rsl_rl %s is installed beside %s, whose environments return one observation tensor: "
                            "legged_gym and its forks need rsl_rl %s from git (PyPI has no release older than 2.1.1). "
                            "Remove the installed one and check out the tag."
                            % (installed, ", ".join(gym), LEGGED_GYM_RELEASE),
                    commands=[pip(facts, "uninstall -y rsl-rl-lib rsl_rl"), _clone_v1(facts)], notes=notes)
