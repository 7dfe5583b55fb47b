"""Readings of one library release against another that joined existing entries: torch.hub.load's
first argument before torch 1.7, GluonTS's moved modules and diffusers' deprecation shims past their
removal release; DGL's optional tensor-adapter warning is left alone."""

import pytest

from hook_facts import facts, tailored_as, top


def test_an_old_torch_hub_load_is_named_with_the_release_that_renamed_github():
    _, t = tailored_as("torch-api-newer-than-installed",
                       "TypeError: load() missing 1 required positional argument: 'github'", facts(torch="1.5.1"))
    assert "torch.hub.load(repo_or_dir=...)" in t.summary and "first in torch 1.7" in t.summary


def test_dgls_optional_tensor_adapter_warning_is_not_a_diagnosis():
    # DGL prints it and carries on (dmlc/dgl#3377: an optional dependency): the real error follows
    m = top("TensorDispatcher: dlopen failed: /env/lib/python3.8/site-packages/dgl/tensoradapter/pytorch/"
            "libtensoradapter_pytorch_1.10.2.so: cannot open shared object file: No such file or directory")
    assert m is None or m.id != "dgl-graphbolt-built-for-other-torch"


def test_a_diffusers_deprecation_past_its_release_names_the_pin():
    text = ("The deprecation tuple ('DualTransformer2DModel', '0.29', 'Importing `DualTransformer2DModel` from "
            "`diffusers.models.dual_transformer_2d` is deprecated.') should be removed since diffusers' version "
            "0.30.2 is >= 0.29")
    _, t = tailored_as("hf-library-version-mismatch", text, facts())
    assert t.summary.startswith("diffusers 0.30.2 is past the release (0.29)") and "below 0.29" in t.summary


def test_a_diffusers_development_build_gets_a_released_one():
    text = ("The deprecation tuple ('scale', '0.26.0', 'The `scale` argument is deprecated.') should be removed since "
            "diffusers' version 0.26.0.dev0 is >= 0.26.0")
    _, t = tailored_as("hf-library-version-mismatch", text, facts())
    assert "development build" in t.summary and 'diffusers<0.26.0' in t.commands[0]


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'gluonts.torch.modules.loss'",
    "ModuleNotFoundError: No module named 'aiohttp.signals'",
])
def test_moved_submodules_of_these_libraries_are_version_skew(text):
    assert top(text).id == "hf-library-version-mismatch"


@pytest.mark.parametrize("text", [
    "TypeError: load() missing 1 required positional argument: 'path'",
    "TypeError: MyLoader.load() missing 1 required positional argument: 'github'",
    "ModuleNotFoundError: No module named 'gluonts'",
])
def test_neighbouring_messages_are_not_these_readings(text):
    m = top(text)
    assert m is None or m.id not in ("torch-api-newer-than-installed", "hf-library-version-mismatch")


def test_a_name_scipy_removed_is_version_skew_with_scipys_own_name():
    m, t = tailored_as("hf-library-version-mismatch", "ImportError: cannot import name 'gaussian' from 'scipy.signal'",
                       facts(packages={"scipy": {"version": "1.13.1"}}))
    assert "installed scipy: 1.13.1" in t.notes and t.commands[0].endswith("show scipy")


@pytest.mark.parametrize("text", [
    "ValueError: The checkpoint you are trying to load has model type `qwen2` but Transformers does not recognize "
    "this architecture. This could be because of an issue with the checkpoint, or because your version of "
    "Transformers is out of date.",
    '    config_class = CONFIG_MAPPING[config_dict["model_type"]]\n'
    '  File "/venv/lib/python3.8/site-packages/transformers/models/auto/configuration_auto.py", line 536, in '
    "__getitem__\n    raise KeyError(key)\nKeyError: 'gpt_bigcode'",
])
def test_a_model_type_transformers_does_not_know_means_upgrade(text):
    _, t = tailored_as("hf-library-version-mismatch", text, facts(packages={"transformers": {"version": "4.25.1"}}))
    assert t.commands[0].endswith("install --upgrade transformers") and "transformers 4.25.1" in t.summary
    assert "registers itself" in t.summary


def test_a_projects_own_version_check_names_the_bound():
    _, t = tailored_as("hf-library-version-mismatch", "AssertionError: BLIP models are not compatible with "
                       "transformers>=4.27, run pip install transformers==4.25 to downgrade",
                       facts(packages={"transformers": {"version": "4.33.2"}}))
    assert "refuses transformers>=4.27 (transformers 4.33.2 is installed here)" in t.summary


def test_pkg_resources_conflict_of_a_console_script_names_the_pin():
    _, t = tailored_as("pip-package-pins-other-torch",
                       "pkg_resources.ContextualVersionConflict: (torch 1.8.1+cu111 (/usr/local/anaconda3/lib/python3.8/"
                       "site-packages), Requirement.parse('torch<1.7.0,>=1.6.0'), {'nnutils-pytorch'})",
                       facts(torch="1.8.1+cu111"))
    assert t.notes[0] == "nnutils-pytorch pins torch<1.7.0,>=1.6.0; pip saw torch 1.8.1+cu111"
    assert "nnutils-pytorch accepts torch<1.7.0,>=1.6.0" in t.summary


def test_a_bound_the_installed_release_is_outside_of_means_another_environment():
    _, t = tailored_as("hf-library-version-mismatch", "AssertionError: BLIP models are not compatible with "
                       "transformers>=4.27.", facts(packages={"transformers": {"version": "4.26.1"}}))
    assert "refuses transformers>=4.27," in t.summary and "imported another transformers" in t.summary
