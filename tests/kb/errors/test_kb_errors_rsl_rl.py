"""rsl_rl's runner, environment and algorithm out of step (legged_gym needs rsl_rl v1.0.2, Isaac Lab
the rsl-rl-lib its release pins). The unpacking error runs for real: a legged_gym-style environment
(one observation tensor) under rsl-rl-lib 2.3.3 from this machine's pip."""

import subprocess

import pytest

from torchdoctor.areas.registry import all_hooks
from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import facts, pyproject, top, venv_with

ENTRY = "rsl-rl-env-runner-api-mismatch"
UNPACK = ('  File "/home/u/rsl_rl/rsl_rl/runners/on_policy_runner.py", line 29, in __init__\n'
          "    obs, extras = self.env.get_observations()\nValueError: too many values to unpack (expected 2)")


@pytest.mark.parametrize("text, confidence", [
    (UNPACK, HIGH),
    ("    mean_value_loss, mean_surrogate_loss = self.alg.update()\nValueError: too many values to unpack (expected 2)",
     HIGH),
    # a blank line between the source line and the error: the pair cannot join, the words still say it
    ("    obs, extras = self.env.get_observations()\n\nValueError: too many values to unpack (expected 2)", POSSIBLE),
])
def test_the_unpacking_errors_are_read(text, confidence):
    m = top(text)
    assert m.id == ENTRY and m.confidence == confidence


@pytest.mark.parametrize("text", [
    "ValueError: too many values to unpack (expected 2)",  # any code's
    "    x, y = batch\nValueError: too many values to unpack (expected 2)",
])
def test_a_bare_unpacking_error_is_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def hook(f):
    return all_hooks()["rsl-rl-env-runner-api-mismatch"](top(UNPACK), f)


def test_legged_gym_with_a_newer_rsl_rl_gets_the_v1_tag():
    t = hook(facts(packages={"rsl-rl-lib": {"version": "2.3.3"}, "legged-gym": {"version": "1.0.0"}}))
    assert "2.3.3" in t.summary and "v1.0.2" in t.summary
    assert t.commands[0].endswith("pip uninstall -y rsl-rl-lib rsl_rl")
    assert "git checkout v1.0.2" in t.commands[1]


def test_legged_gym_with_the_v1_tag_installed_points_at_the_newer_projects_pin():
    t = hook(facts(packages={"rsl-rl": {"version": "1.0.2"}, "isaacgym": {"version": "1.0.0rc4"}}))
    assert "1.0.2 is installed" in t.summary and "rsl-rl-lib==" in t.commands[0]


def test_isaac_lab_reinstalls_its_own_pin():
    t = hook(facts(packages={"rsl-rl-lib": {"version": "2.0.2"}, "isaaclab-rl": {"version": "0.1.4"}}))
    assert t.commands[0] == "./isaaclab.sh --install rsl_rl"


def test_without_legged_gym_or_isaac_lab_the_entry_speaks():
    assert hook(facts(packages={"rsl-rl-lib": {"version": "2.3.3"}})) is None
    assert hook(facts(packages={"legged-gym": {"version": "1.0.0"}})) is None


@pytest.mark.slow
def test_a_legged_gym_style_env_under_rsl_rl_lib_2_fails_and_is_read(tmp_path):
    from torchdoctor.gather.light import light_facts

    py, run, env = venv_with(tmp_path, "torch==2.13.0", "rsl-rl-lib==2.3.3")
    script = tmp_path / "train.py"
    script.write_text(
        "import torch\nfrom rsl_rl.runners import OnPolicyRunner\n\n"
        "class Env:  # rsl_rl 1.0.2's contract: get_observations returns one tensor\n"
        "    num_envs, num_obs, num_privileged_obs, num_actions, max_episode_length, device, cfg = 4, 8, None, 2, 10, "
        "'cpu', {}\n"
        "    def get_observations(self):\n        return torch.zeros(self.num_envs, self.num_obs)\n\n"
        "cfg = {'runner': {}, 'algorithm': {'class_name': 'PPO'}, 'policy': {'class_name': 'ActorCritic'},\n"
        "       'num_steps_per_env': 24, 'save_interval': 50, 'empirical_normalization': False}\n"
        "OnPolicyRunner(Env(), cfg, log_dir=None, device='cpu')\n")
    failed = run(py, str(script))
    assert failed.returncode != 0
    m = top(failed.stderr)
    assert m is not None and m.id == ENTRY and m.confidence == HIGH, failed.stderr[-600:]
    assert all_hooks()[ENTRY](m, light_facts(py)) is None  # rsl-rl-lib alone: nothing says which side moves
    # a stand-in legged_gym distribution (the real one installs from GitHub with Isaac Gym)
    proj = tmp_path / "legged_gym"
    (proj / "legged_gym").mkdir(parents=True)
    (proj / "legged_gym" / "__init__.py").write_text("")
    (proj / "pyproject.toml").write_text(pyproject("legged_gym", "1.0.0"))
    assert run(py, "-m", "pip", "install", "-q", "--no-deps", str(proj), timeout=600).returncode == 0
    t = all_hooks()[ENTRY](m, light_facts(py))
    assert "rsl_rl 2.3.3 is installed beside legged-gym" in t.summary
    done = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0 and run(py, "-c", "import rsl_rl").returncode != 0  # the newer one is gone
