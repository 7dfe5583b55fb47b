"""A torchvision model builder called with `pretrained=` / `pretrained_backbone=` or positional arguments (deprecated in torchvision 0.13).

## What it finds
A call of a torchvision model builder (`torchvision.models.resnet50`,
`torchvision.models.detection.ssdlite320_mobilenet_v3_large` and every other builder
torchvision decorates for its legacy interface, through any import or alias) with the legacy
`pretrained=` or `pretrained_backbone=` keyword, or with positional arguments, where a release
of the target pairs with torchvision 0.13 or later (torch 1.12+, by the release table).

## Why it matters
torchvision 0.13 replaced them with `weights=` and `weights_backbone=`: every such call warns
("The parameter 'pretrained' is deprecated since 0.13", "Using 'weights' as positional
parameter(s) is deprecated since 0.13"), and `pretrained=True` downloads whatever weights the
builder's legacy default is, which the message spells out only at run time. torchvision
0.12 (torch 1.11) and older have no `weights=`: there `pretrained=` is the only spelling.

## Fix
Pass the weights by keyword: `resnet50(weights=ResNet50_Weights.IMAGENET1K_V1)` for
`pretrained=True` (or `.DEFAULT`, the best weights of the installed release),
`weights=None` for `pretrained=False`; `weights_backbone=` likewise for `pretrained_backbone=`.
Where the target also includes torch 1.11 or older, branch on the torchvision version.
"""

import ast

from ....model.findings import WARNING
from ....model.rules import rule
from .. import history as H
from ..examples import Example
from ..located import hit

FIRES = (Example("import torchvision\nmodel = torchvision.models.resnet50(pretrained=True)\n", torch="1.12"),
         Example("from torchvision.models.detection import ssdlite320_mobilenet_v3_large as ssd\n"
                 "model = ssd(pretrained_backbone=False)\n", torch=">=1.11",
                 note="through an alias; a range that reaches torch 1.12"),
         Example("from torchvision import models\nmodel = models.resnet50(True)\n", torch="2.4",
                 note="positional: torchvision takes the first as weights= and warns"))
QUIET = (Example("import torchvision\nmodel = torchvision.models.resnet50(pretrained=True)\n", torch="1.11",
                 note="torchvision 0.12 has no weights= yet"),
         Example("from torchvision.models import resnet50, ResNet50_Weights\n"
                 "model = resnet50(weights=ResNet50_Weights.IMAGENET1K_V1)\n"),
         Example("from torchvision.models.vgg import make_layers, cfgs\nlayers = make_layers(cfgs['D'], False)\n",
                 note="not a model builder"))


@rule("lint", "TD205", severity=WARNING, category="lint", name="torchvision-legacy-weights", on="use",
      fixable=False, since="torchvision 0.13 (torch 1.12)", source="TV_WHEELS",
      links=("https://pytorch.org/vision/stable/models.html",))
def torchvision_legacy_weights(use):
    call = use.call
    if use.via_import or not isinstance(call, ast.Call) or use.parts[:2] != ["torchvision", "models"]:
        return None
    lw = H.legacy_weights()
    legacy = lw["builders"].get(use.parts[-1])
    since = H.mt(lw["deprecated"])
    if legacy is None or not any(t >= since for t in use.targets):
        return None
    when = "since " + H.release_words(lw, "deprecated")
    named = [k.arg for k in call.keywords if k.arg in legacy]
    if named:
        return hit(use.pos(call), "%s(%s) is deprecated %s; use %s" % (
            use.path, ", ".join("%s=" % n for n in named), when,
            ", ".join("%s= (a weights enum, or None for False)" % lw["params"][n] for n in named)))
    if any(not isinstance(a, ast.Starred) for a in call.args):
        return hit(use.pos(call), "%s with positional arguments is deprecated %s: the first is taken as weights=, "
                   "a True or False as the legacy pretrained=; pass weights= (a weights enum, or None) by keyword"
                   % (use.path, when))
    return None
