"""Companion APIs that moved under code written for older releases: torchvision 0.9's save_image
reads a positional nrow as the file format; kornia 0.5 and 0.6 moved SSIM. Read only where the
paste shows that API; PIL's and Python's words alone belong to any program."""

import pytest

from hook_facts import top
from torchdoctor.match.matcher import HIGH

SAVE_INT = ('    torchvision.utils.save_image(stacked_images, filename, original_images.shape[0], normalize=False)\n'
            '  File "/usr/lib/python3.8/site-packages/torchvision/utils.py", line 135, in save_image\n'
            "    im.save(fp, format=format)\n"
            '  File "/usr/lib/python3.8/site-packages/PIL/Image.py", line 1978, in save\n'
            "    if format.upper() not in SAVE:\n"
            "AttributeError: 'int' object has no attribute 'upper'")
SAVE_KEY = ('  File "/usr/local/lib/python3.8/dist-packages/torchvision/utils.py", line 728, in save_image\n'
            "    im.save(fp, format=str(format))\n"
            '  File "/usr/local/lib/python3.8/dist-packages/PIL/Image.py", line 2123, in save\n'
            "    save_handler = SAVE[format.upper()]\n"
            "KeyError: '8'")


@pytest.mark.parametrize("text, want", [
    (SAVE_INT, "torchvision-save-image-positional-format"),
    (SAVE_KEY, "torchvision-save-image-positional-format"),
    ("    ssim = 1 - 2 * kornia.losses.ssim(encoded_images.detach(), images, window_size=5, reduction=\"mean\")\n"
     "TypeError: 'module' object is not callable", "kornia-ssim-moved"),
    ("TypeError: ssim() got an unexpected keyword argument 'reduction', (line 98, in train.py), ssim = 1 - 2 * "
     "kornia.losses.ssim(a, b, window_size=5, reduction=\"mean\")", "kornia-ssim-moved"),
    ("    ssim = 1 - 2 * kornia.losses.ssim(a, b, window_size=5, reduction=\"mean\")\n"
     "TypeError: ssim() got an unexpected keyword argument 'reduction'", "kornia-ssim-moved"),
])
def test_read_where_the_api_shows(text, want):
    m = top(text)
    assert m is not None and m.id == want and m.confidence == HIGH


@pytest.mark.parametrize("text", [
    "    if format.upper() not in SAVE:\nAttributeError: 'int' object has no attribute 'upper'",  # no save_image
    "    save_handler = SAVE[format.upper()]\nKeyError: '8'",
    "    out = skimage_ssim(a, b)\nTypeError: 'module' object is not callable",
    "TypeError: ssim() got an unexpected keyword argument 'reduction'",  # pytorch_msssim, torchmetrics...
])
def test_not_read_without_it(text):
    m = top(text)
    assert m is None or m.id not in ("torchvision-save-image-positional-format", "kornia-ssim-moved")


def test_timms_unknown_model_is_a_possibility_with_the_deit_rename_named():
    from hook_facts import facts, tailored_as
    from torchdoctor.match.matcher import POSSIBLE

    m, t = tailored_as("timm-unknown-model", "Unknown model (vit_deit_base_distilled_patch16_384)",
                       facts(packages={"timm": {"version": "0.9.2"}}))
    assert m.confidence == POSSIBLE  # a project's own unregistered model reads the same
    assert t.summary.startswith("timm 0.4.12 renamed vit_deit_base_distilled_patch16_384 to "
                                "deit_base_distilled_patch16_384")
    assert t.commands == ['/home/u/venv/bin/python -m pip install "timm<0.4.12"']
    _, t = tailored_as("timm-unknown-model", "Unknown model (vit_deit_base_distilled_patch16_384)",
                       facts(packages={"timm": {"version": "0.4.5"}}))
    assert t is None  # that timm has the name: not the rename
    _, t = tailored_as("timm-unknown-model", "RuntimeError: Unknown model (efficientformer_l1)",
                       facts(packages={"timm": {"version": "0.6.7"}}))
    assert "import the project's module that registers it" in t.summary


@pytest.mark.parametrize("text", ["Unknown model", "ValueError: Unknown model type", "unknown model (gpt)"])
def test_timms_wording_only(text):
    m = top(text)
    assert m is None or m.id != "timm-unknown-model"
