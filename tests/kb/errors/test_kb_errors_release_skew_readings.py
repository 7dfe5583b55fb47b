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
