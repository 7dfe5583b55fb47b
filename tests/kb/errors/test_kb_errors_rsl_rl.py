"""rsl_rl's runner, environment and algorithm out of step (legged_gym needs rsl_rl v1.0.2, Isaac Lab
the rsl-rl-lib its release pins). The failure runs for real: legged_gym's own training config and
an environment returning one observation tensor, under rsl-rl-lib 2.3.3 from this machine's pip."""

import pytest

from torchdoctor.areas.registry import all_hooks
from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import facts, pyproject, top, venv_with

ENTRY = "rsl-rl-env-runner-api-mismatch"
FRAME = '  File "/home/u/venv/lib/python3.8/site-packages/rsl_rl/runners/on_policy_runner.py", line 29, in __init__\n'
UNPACK = FRAME + "    obs, extras = self.env.get_observations()\nValueError: too many values to unpack (expected 2)"
UPDATE_5 = ("    mean_value_loss, mean_surrogate_loss, mean_entropy, mean_rnd_loss, mean_symmetry_loss = self.alg.update()\n"
            "ValueError: not enough values to unpack (expected 5, got 3)")
UPDATE_2 = "    mean_value_loss, mean_surrogate_loss = self.alg.update()\nValueError: too many values to unpack (expected 2)"
CLASS_NAME = FRAME + '    if self.alg_cfg["class_name"] == "PPO":\nKeyError: \'class_name\''


@pytest.mark.parametrize("text, confidence", [
    (UNPACK, HIGH), (UPDATE_2, HIGH), (UPDATE_5, HIGH), (CLASS_NAME, HIGH),
    # each release's first config read under a config of another layout
    (FRAME + '    self.num_steps_per_env = self.cfg["num_steps_per_env"]\nKeyError: \'num_steps_per_env\'', HIGH),
    (FRAME + '    self.cfg["obs_groups"] = resolve_obs_groups(obs, self.cfg["obs_groups"], '
     'self._get_default_obs_sets())\n                                                     ~~~~~~~~^^^^^^^^^^^^^^\n'
     "KeyError: 'obs_groups'", HIGH),
    (FRAME + '    alg_class: type[PPO] = resolve_callable(self.cfg["algorithm"]["class_name"])  # type: ignore\n'
     "KeyError: 'class_name'", HIGH),
    (FRAME + '    self.alg = alg_class.construct_algorithm(obs, self.env, self.cfg, self.device)\n'
     '  File "/v/rsl_rl/algorithms/ppo.py", line 431, in construct_algorithm\n'
     '    actor_class, actor_cfg = resolve_class(cfg["actor"])\nKeyError: \'actor\'', HIGH),
    # a blank line between the source line and the error: the pair cannot join, the words still say it
    ("    obs, extras = self.env.get_observations()\n\nValueError: too many values to unpack (expected 2)", POSSIBLE),
])
def test_the_runners_failures_are_read(text, confidence):
    m = top(text)
    assert m.id == ENTRY and m.confidence == confidence


@pytest.mark.parametrize("text", [
    "ValueError: too many values to unpack (expected 2)",  # any code's
    "    x, y = batch\nValueError: too many values to unpack (expected 2)",
    '    if cfg["class_name"] == "PPO":\nKeyError: \'class_name\'',  # not rsl_rl's runner
])
def test_a_bare_error_is_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def hook(text, **packages):
    return all_hooks()[ENTRY](top(text), facts(packages={n.replace("_", "-"): {"version": v}
                                                         for n, v in packages.items()}))


def test_legged_gym_with_a_newer_rsl_rl_gets_the_v1_tag_from_git():
    for text in (UNPACK, CLASS_NAME):
        t = hook(text, rsl_rl_lib="2.3.3", legged_gym="1.0.0")
        assert "2.3.3" in t.summary and "v1.0.2" in t.summary
        assert t.commands[0].endswith("pip uninstall -y rsl-rl-lib rsl_rl")
        assert t.commands[1].endswith('install "rsl_rl @ git+https://github.com/leggedrobotics/rsl_rl@v1.0.2"')
    assert hook(UNPACK, rsl_rl_lib="5.5.1", unitree_rl_gym="1.0.0").commands[1].endswith("@v1.0.2\"")


def test_legged_gym_with_the_v1_tag_installed_points_at_the_newer_projects_pin():
    t = hook(UNPACK, rsl_rl="1.0.2", legged_gym="1.0.0")
    assert "1.0.2 is installed" in t.summary and "rsl-rl-lib==" in t.commands[1]


def test_the_update_unpacking_says_which_release_the_runner_was_written_for():
    t = hook(UPDATE_5, rsl_rl_lib="2.3.3", legged_gym="1.0.0")  # a 2.2.x runner: v1.0.2 would fail again
    py = facts().value("python.executable")
    assert "2.2.x" in t.summary and t.commands == [py + " -m pip uninstall -y rsl-rl-lib rsl_rl",
                                                    py + ' -m pip install "rsl-rl-lib>=2.2,<2.3"']
    # the bare error without its source line: five values come only from update()
    bare = hook("    mean_value_loss, mean_surrogate_loss = self.alg.update()\n\n"
                "ValueError: not enough values to unpack (expected 5, got 3)", rsl_rl_lib="2.3.3", legged_gym="1.0.0")
    assert "2.2.x" in bare.summary
    assert hook(UPDATE_5, rsl_rl_lib="2.2.4") is None  # the release it was written for: the values differ elsewhere
    t = hook(UPDATE_2, rsl_rl_lib="2.2.4", legged_gym="1.0.0")
    assert "five" in t.summary and t.commands[1].endswith("@v1.0.2\"")
    assert hook(UPDATE_2, rsl_rl_lib="2.3.0").commands[1].endswith('install "rsl-rl-lib>=2.1.1,<2.2"')


def test_isaac_lab_reinstalls_its_own_pin():
    t = hook(UNPACK, rsl_rl_lib="2.0.2", isaaclab_rl="0.1.4")
    assert t.commands[0] == "./isaaclab.sh --install rsl_rl"


def test_without_legged_gym_or_isaac_lab_the_entry_speaks():
    assert hook(UNPACK, rsl_rl_lib="2.3.3") is None
    assert hook(UNPACK, rsl_rl_lib="2.3.3", isaacgym="1.0rc4") is None  # Isaac Gym alone names no contract
    assert hook(UNPACK, legged_gym="1.0.0") is None


@pytest.mark.slow
def test_legged_gyms_config_under_rsl_rl_lib_2_3_fails_and_is_read(tmp_path):
    from torchdoctor.gather.light import light_facts

    py, run, env = venv_with(tmp_path, "torch==2.13.0", "rsl-rl-lib==2.3.3")
    script = tmp_path / "train.py"
    # legged_gym's BaseTask shape and LeggedRobotCfgPPO as task_registry.py hands it to OnPolicyRunner
    script.write_text(
        "import torch\nfrom rsl_rl.runners import OnPolicyRunner\n\n"
        "class Env:\n"
        "    num_envs, num_obs, num_privileged_obs, num_actions, max_episode_length, device = 4, 48, None, 12, 1000, 'cpu'\n"
        "    def get_observations(self):\n        return torch.zeros(self.num_envs, self.num_obs)\n\n"
        "cfg = {'seed': 1, 'runner_class_name': 'OnPolicyRunner',\n"
        "       'policy': {'init_noise_std': 1.0, 'actor_hidden_dims': [512, 256, 128], 'activation': 'elu'},\n"
        "       'algorithm': {'value_loss_coef': 1.0, 'clip_param': 0.2, 'learning_rate': 1e-3},\n"
        "       'runner': {'policy_class_name': 'ActorCritic', 'algorithm_class_name': 'PPO', 'num_steps_per_env': 24,\n"
        "                  'max_iterations': 1500, 'save_interval': 50, 'experiment_name': 'test'}}\n"
        "OnPolicyRunner(Env(), cfg, None, device='cpu')\n")
    failed = run(py, str(script))
    assert failed.returncode != 0 and "KeyError: 'class_name'" in failed.stderr, failed.stderr[-600:]
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
    import subprocess

    done = subprocess.run(t.commands[0], shell=True, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0 and run(py, "-c", "import rsl_rl").returncode != 0  # the newer one is gone
