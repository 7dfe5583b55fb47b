"""An nvidia/cuda base image whose CUDA admits drivers older than the pinned torch wheel needs.

## What it finds
A Dockerfile `FROM nvidia/cuda:X.Y...` whose CUDA runs on host drivers older than the
driver the pinned torch wheel's CUDA variant needs.

## Why it matters
The container starts on hosts with a driver in between, and there
`torch.cuda.is_available()` is False (or the first CUDA call fails): the image promises
more than the wheel inside it can do.

## Fix
Use a base image of the wheel's CUDA (or newer), or a torch variant built for the image's
CUDA.
"""

from ....model.findings import WARNING
from ....model.rules import rule
from ..envcheck import image_verdicts, short
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\nRUN pip install torch==2.4.1 "
                 "--index-url https://download.pytorch.org/whl/cu124\n", file="Dockerfile"),)
QUIET = (Example("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch==2.4.1 "
                 "--index-url https://download.pytorch.org/whl/cu124\n", file="Dockerfile"),)


@rule("lint", "TD404", severity=WARNING, category="lint", name="cuda-image-too-old", on="env", fixable=False,
      source="kb/data/compat.json (variants, toolkits)+NV_REQUIRE",
      links=("https://docs.nvidia.com/deploy/cuda-compatibility/",))
def cuda_image_too_old(case):
    return [hit(Pos(v["line"], 1), "%s admits hosts whose driver supports CUDA %s (>= %s), but %s (%s) needs a driver "
                ">= %s: on hosts in between torch.cuda.is_available() is False" % (
                    v["image"], v["cuda"], v["image_driver"], short(case.patches), v["variant"], v["wheel_mvc"]))
            for v in image_verdicts(case) if v["kind"] == "too-old"]
