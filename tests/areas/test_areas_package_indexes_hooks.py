"""Where torch is installed from: uv's first-index rule and conda channels without PyTorch."""

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

CONDA = ("PackagesNotFoundError: The following packages are not available from current channels:\n\n"
         "  - pytorch-cuda=12.1\n\nCurrent channels:\n\n  - https://conda.anaconda.org/pytorch/linux-64\n")


def test_a_conda_list_names_the_missing_pytorch_package():
    m = match_text(CONDA)[0]
    assert m.id == "conda-torch-not-in-channels"
    e = explain_match(m, Facts({"os": {"system": "Linux"}}))
    assert "pytorch-cuda" in e.cause


def test_a_yaml_list_without_condas_error_is_not_claimed():
    assert match_text("dependencies:\n  - pytorch-cuda=12.1\n  - torchvision\n") == []


def test_uvs_hint():
    text = ("  hint: `torch` was found on https://download.pytorch.org/whl/cu121, but not at the requested version "
            "(torch==2.5.1). A compatible version may be available on a subsequent index")
    assert match_text(text)[0].id == "uv-first-index-strategy"
