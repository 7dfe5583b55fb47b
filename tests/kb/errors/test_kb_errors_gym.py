"""Code written for gym 0.23 or older (D4RL, pybullet_envs, dmc2gym) on gym 0.26 or gymnasium: the
registry's env_specs and MujocoEnv's observation_space. The registry's failure runs for real on gym 0.26.2
from this machine's pip, and the printed pin heals it."""

import pytest

from torchdoctor.match.matcher import HIGH, POSSIBLE

from hook_facts import run_fix_command, top, venv_with

ENTRY = "gym-new-api-under-old-rl-code"


@pytest.mark.parametrize("text, confidence", [
    ("AttributeError: 'dict' object has no attribute 'env_specs'", HIGH),
    ("TypeError: MujocoEnv.__init__() missing 1 required positional argument: 'observation_space'", HIGH),
    ("    MujocoEnv.__init__(self, file_path, frame_skip)\nTypeError: __init__() missing 1 required positional "
     "argument: 'observation_space'", HIGH),
    # Python before 3.10 names no class: any class taking an observation space prints it
    ("TypeError: __init__() missing 1 required positional argument: 'observation_space'", POSSIBLE),
])
def test_the_new_apis_refusals_are_read(text, confidence):
    m = top(text)
    assert m.id == ENTRY and m.confidence == confidence


@pytest.mark.parametrize("text", [
    # gym 0.24-0.25's warning: the old name still works there
    "/venv/lib/python3.10/site-packages/gym/envs/registration.py:440: UserWarning: WARN: The `registry.env_specs` "
    "property along with `EnvSpecTree` is deprecated. Please use `registry` directly as a dictionary instead.",
    # a stable-baselines3 features extractor, not MujocoEnv
    "TypeError: CustomCNN.__init__() missing 1 required positional argument: 'observation_space'",
    "TypeError: MujocoEnv.__init__() missing 2 required positional arguments: 'frame_skip' and 'observation_space'",
    "Gym has been unmaintained since 2022 and does not support NumPy 2.0 amongst other critical functionality.",
])
def test_near_misses_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


READ_REGISTRY = "import gym; print(len(gym.envs.registry.env_specs))"


@pytest.mark.slow
def test_the_printed_gym_pin_heals_code_that_reads_the_registrys_env_specs(tmp_path):
    py, run, env = venv_with(tmp_path, "gym==0.26.2", "numpy<2")
    broken = run(py, "-c", READ_REGISTRY)
    assert "'dict' object has no attribute 'env_specs'" in broken.stderr, broken.stderr[-600:]
    m = top(broken.stderr)
    assert m.id == ENTRY and m.confidence == HIGH
    run_fix_command(m, "gym==0.23.1", py, env)
    assert run(py, "-c", READ_REGISTRY).returncode == 0
