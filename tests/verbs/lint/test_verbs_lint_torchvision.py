"""torchvision's deprecations: the legacy pretrained= / pretrained_backbone= / positional
arguments of the model builders (TD205) and transforms.v2.ToTensor (TD201; the generic entry
test covers its versions). Their torchvision releases map to torch through the release table,
so the torch target decides."""

import ast

import pytest

from torchdoctor.kb import compat
from torchdoctor.verbs.lint import history as H
from torchdoctor.verbs.lint import pyscan
from torchdoctor.verbs.lint.target import from_option

LW = H.legacy_weights()
BUILDERS = sorted(LW["builders"].items())


def _lint(src, torch):
    t = from_option(torch)
    return [(f.code, f.line, f.message) for f in pyscan.analyze(ast.parse(src), src.encode(), t.versions, t.cuda)]


def _before(version):
    return H.fmt(max(t for t in map(H.mt, compat.known_releases()) if t < H.mt(version)))


def test_the_torchvision_releases_map_to_torch_through_the_release_table():
    assert LW["deprecated"] == "1.12" == compat.torch_for_torchvision(LW["torchvision"]["deprecated"])
    assert H.history("torchvision.transforms.v2.ToTensor")["deprecated"] == "2.0" == compat.torch_for_torchvision("0.15")


@pytest.mark.parametrize("name,legacy", BUILDERS, ids=[n for n, _ in BUILDERS])
def test_each_builder_fires_on_each_legacy_parameter_from_torchvision_0_13_and_not_before(name, legacy):
    for param in legacy:
        src = "import torchvision.models\nm = torchvision.models.%s(%s=True)\n" % (name, param)
        found = [f for f in _lint(src, LW["deprecated"]) if f[0] == "TD205"]
        assert [f[1] for f in found] == [2], (name, param, found)
        assert "%s=" % param in found[0][2] and "%s=" % LW["params"][param] in found[0][2]
        assert "torchvision 0.13 (torch 1.12)" in found[0][2]
        assert [f for f in _lint(src, _before(LW["deprecated"])) if f[0] == "TD205"] == [], (name, param)


@pytest.mark.parametrize("src", [
    "from torchvision.models import resnet50\nm = resnet50(True)\n",
    "import torchvision.models as tvm\nm = tvm.resnet50(False, True)\n",
    "from torchvision.models.resnet import resnet50 as r\nm = r(pretrained=False)\n",
    "from torchvision import models\nm = models.quantization.resnet50(pretrained=True, quantize=True)\n",
    "import torchvision\nm = torchvision.models.detection.fasterrcnn_resnet50_fpn(pretrained_backbone=flag)\n",
])
def test_every_spelling_of_a_builder_call_is_found(src):
    assert [f[:2] for f in _lint(src, ">=1.11") if f[0] == "TD205"] == [("TD205", 2)]


@pytest.mark.parametrize("src", [
    "import torchvision\nm = torchvision.models.resnet50(weights=None)\n",
    "import torchvision\nm = torchvision.models.resnet50(*args, **kw)\n",
    "from torchvision.models.vgg import make_layers, cfgs\nf = make_layers(cfgs['D'], False)\n",
    "import torchvision\nf = torchvision.models.resnet50\n",
    "def resnet50(pretrained):\n    pass\nm = resnet50(pretrained=True)\n",
])
def test_what_does_not_warn_is_quiet(src):
    assert [f for f in _lint(src, "2.13") if f[0] == "TD205"] == []


def test_to_tensor_says_the_torchvision_release_and_the_torch_it_pairs_with():
    src = "from torchvision.transforms import v2\nt = v2.ToTensor()\n"
    found = _lint(src, ">=1.11")
    assert [f[:2] for f in found] == [("TD201", 2)]
    assert "deprecated since torchvision 0.15 (torch 2.0)" in found[0][2]
    assert _lint(src, "1.13") == []
    # torch's own deprecations keep their wording
    assert "deprecated since torch 2.3;" in _lint("import torch\nc = torch.backends.cuda.sdp_kernel()\n", "2.3")[0][2]
