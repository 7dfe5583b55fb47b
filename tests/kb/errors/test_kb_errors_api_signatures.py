"""Code written for one torch calling another torch's signatures: a keyword argument a public
function gained later (meshgrid's indexing, interpolate's antialias), and an internal operator
whose arguments changed (aten::grid_sampler_2d_backward's output_mask, fetched through
torch._C._jit_get_operation)."""

import pytest

from torchdoctor.areas.registry import all_hooks as hooks
from torchdoctor.match.matcher import match_text

from hook_facts import facts, top




@pytest.mark.parametrize("text,api,need", [
    ("TypeError: meshgrid() got an unexpected keyword argument 'indexing'", "torch.meshgrid(indexing=...)", "1.10"),
    ("TypeError: interpolate() got an unexpected keyword argument 'antialias'",
     "torch.nn.functional.interpolate(antialias=...)", "1.11"),
])
def test_a_keyword_a_later_torch_added_is_read_against_the_installed_torch(text, api, need):
    m = top(text)
    assert m.id == "torch-api-newer-than-installed" and m.confidence == "high"
    hook = hooks()[m.entry.tailor]
    old = hook(m, facts(torch="1.9.0+cu111"))
    assert "predates %s (first in torch %s)" % (api, need) in old.summary
    new = hook(m, facts(torch="2.13.0+cpu"))
    assert "imported a different, older torch" in new.cause


READ_VIDEO = "TypeError: read_video() got an unexpected keyword argument 'output_format'"


@pytest.mark.parametrize("torch,tv,want,cmd", [
    # pip upgrading torch alone leaves torchvision 0.12 beside torch 1.12: only torchvision moves, from torch's index
    ("1.12.1+cu116", "0.12.0", "The installed torchvision 0.12.0 predates torchvision.io.read_video(output_format=...) "
                               "(first in torchvision 0.13): install the torchvision built for this torch 1.12.1+cu116",
     'install "torchvision==0.13.1" "torch==1.12.1+cu116" --index-url https://download.pytorch.org/whl/cu116'),
    # only the series known: torch held, or pip would take the series' newest torchvision and its torch
    ("2.1.0", "0.12.0", "The installed torchvision 0.12.0 predates", 'install "torchvision==0.16.*" "torch==2.1.0"'),
    ("2.3.0+rocm6.0", "0.12.0", "The installed torchvision 0.12.0 predates",
     '"torch==2.3.0+rocm6.0" --index-url https://download.pytorch.org/whl/rocm6.0'),
    # torch past the last torchvision that decodes video: both move back to 2.10
    ("2.12.0", "0.12.0", "The installed torchvision 0.12.0 predates", "torch==2.10.0 torchvision==0.25.0"),
    # torchvision unknown: an old torch says it; the upgrade stops at 2.10, the last torch whose torchvision reads video
    ("1.10.0", None, "The installed torch 1.10.0 predates", "torch==2.10.0 torchvision==0.25.0"),
    ("1.12.1", "0.13.1", "torchvision 0.13.1 here has", "import torchvision"),
])
def test_torchvisions_read_video_keyword_is_read_against_the_installed_torchvision(torch, tv, want, cmd):
    m = top(READ_VIDEO)
    assert m.id == "torch-api-newer-than-installed" and m.confidence == "high"
    t = hooks()[m.entry.tailor](m, facts(torch=torch, packages={"torchvision": {"version": tv}} if tv else {}))
    assert t.summary.startswith(want) and cmd in t.commands[0]


@pytest.mark.parametrize("torch", ["2.1.0a0+git1234", "2.4.0a0+3bcc3cddb5.nv24.07", "2.5.0.dev20240801+cu121"])
def test_a_prerelease_or_a_containers_own_torch_gets_no_torchvision_that_would_replace_it(torch):
    m = top(READ_VIDEO)
    t = hooks()[m.entry.tailor](m, facts(torch=torch, packages={"torchvision": {"version": "0.12.0"}}))
    assert "pre-release or a build of its own" in t.summary and t.commands == []


def test_no_release_in_the_range_for_this_python_is_said_and_nothing_printed():
    m = top(READ_VIDEO)
    t = hooks()[m.entry.tailor](m, facts(torch="1.10.0", py="3.6.9"))
    assert "no torch from 1.12 to 2.10 has wheels for this Python (3.6)" in t.summary and t.commands == []


def test_a_new_torch_says_nothing_of_the_torchvision_beside_it():
    m = top(READ_VIDEO)
    assert hooks()[m.entry.tailor](m, facts(torch="2.1.0")) is None


@pytest.mark.parametrize("text", [
    # other functions and keywords: their own libraries' signatures, not torch's releases
    "TypeError: meshgrid() got an unexpected keyword argument 'sparse'",
    "TypeError: resize() got an unexpected keyword argument 'antialias'",
    "TypeError: my_meshgrid() got an unexpected keyword argument 'indexing'",
    "TypeError: gelu() got an unexpected keyword argument 'approximate'",
    "TypeError: read_video() got an unexpected keyword argument 'pts_unit_x'",
    "TypeError: my_read_video() got an unexpected keyword argument 'output_format'",
])
def test_other_keywords_are_not_claimed(text):
    assert "torch-api-newer-than-installed" not in [m.id for m in match_text(text)]


def test_an_internal_operators_changed_arguments_are_a_private_api_of_another_torch():
    m = top("RuntimeError: aten::grid_sampler_2d_backward() is missing value for argument 'output_mask'. Declaration: "
            "aten::grid_sampler_2d_backward(Tensor grad_output, Tensor input, Tensor grid, int interpolation_mode, "
            "int padding_mode, bool align_corners, bool[2] output_mask) -> (Tensor, Tensor)")
    assert m.id == "torch-private-module-missing" and m.groups["op"] == "grid_sampler_2d_backward"
    assert m.groups["arg"] == "output_mask"


@pytest.mark.parametrize("text", [
    # a public operator called with too few arguments in the user's own TorchScript: their code
    "RuntimeError: aten::add() is missing value for argument 'other'.",
    "RuntimeError: aten::linear() is missing value for argument 'weight'.",
])
def test_a_public_operators_missing_argument_is_not_claimed(text):
    assert "torch-private-module-missing" not in [m.id for m in match_text(text)]


@pytest.mark.parametrize("text,library_version", [
    ("ModuleNotFoundError: No module named 'torchvision.transforms.v2'", True),
    ("ModuleNotFoundError: No module named 'torchvision.models.mobilenetv3'", True),
    # torchvision's compiled core is a build or ABI question, not a submodule of another release
    ("ModuleNotFoundError: No module named 'torchvision._C'", False),
])
def test_a_missing_torchvision_submodule_is_its_release_against_the_code(text, library_version):
    ids = [m.id for m in match_text(text)]
    assert ("hf-library-version-mismatch" in ids[:1]) == library_version, ids
