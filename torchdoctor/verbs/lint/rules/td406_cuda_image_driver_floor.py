"""An nvidia/cuda base image that demands a newer driver than the pinned torch wheel does (hosts with older drivers refuse the container).

## What it finds
A Dockerfile `FROM nvidia/cuda:X.Y...` of a newer CUDA major than the pinned torch wheel's
variant.

## Why it matters
nvidia/cuda images set `NVIDIA_REQUIRE_CUDA=cuda>=X.Y`: the NVIDIA container runtime
refuses to start them on hosts whose driver is older, although the torch wheel inside would
run there.

## Fix
Use a base image of the wheel's CUDA major (or a plain OS image: the torch wheel brings its
own CUDA libraries).
"""

from ....model.findings import INFO
from ....model.rules import rule
from ..envcheck import image_verdicts, short
from ..examples import Example
from ..located import hit
from ..pyrecords import Pos

FIRES = (Example("FROM nvidia/cuda:12.4.1-runtime-ubuntu22.04\nRUN pip install torch==2.1.2 "
                 "--index-url https://download.pytorch.org/whl/cu118\n", file="Dockerfile"),)
QUIET = (Example("FROM nvidia/cuda:11.8.0-runtime-ubuntu22.04\nRUN pip install torch==2.1.2 "
                 "--index-url https://download.pytorch.org/whl/cu118\n", file="Dockerfile"),)


@rule("lint", "TD406", severity=INFO, category="lint", name="cuda-image-driver-floor", on="env", fixable=False,
      source="kb/data/compat.json (variants, toolkits)+NV_REQUIRE",
      links=("https://docs.nvidia.com/deploy/cuda-compatibility/",))
def cuda_image_driver_floor(case):
    return [hit(Pos(v["line"], 1), "%s needs a driver >= %s (CUDA %s), while %s (%s) runs on drivers from %s: hosts "
                "with a driver in between refuse to start the container" % (
                    v["image"], v["image_driver"], v["cuda"], short(case.patches), v["variant"],
                    v["wheel_mvc"] or v["wheel_full"]))
            for v in image_verdicts(case) if v["kind"] == "driver-floor"]
