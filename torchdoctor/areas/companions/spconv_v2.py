"""spconv 1.x code on spconv 2.x (or the reverse): read against the spconv distributions installed,
which are named per CUDA (spconv-cu113, spconv-cu118...) and all import as `spconv`."""

from typing import Optional

from ...advice.commands import which_import
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups


def _installed(facts: Facts):
    """(distribution, version) of every spconv wheel here: spconv and spconv-cuXXX share one import name."""
    return [(d, F.package_release(facts, d)) for d in F.installed_starting(facts, "spconv")
            if d == "spconv" or d.startswith("spconv-")]


@hook("spconv-major")
def tailor_spconv_major(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    wants_v2 = bool(g.get("v2"))
    have = _installed(facts)
    notes = ["installed: %s" % (", ".join("%s %s" % (d, v or "?") for d, v in have) or "no spconv distribution")]
    if len(have) > 1:
        # two wheels write the same spconv/ folder: the last one installed wins, file by file
        return Tailored(summary="Several spconv distributions are installed (%s) and share one `spconv` folder: "
                                "uninstall all of them, then install the one the code is written for."
                                % ", ".join(d for d, _ in have),
                        commands=["%s uninstall -y %s" % (F.pip_cmd(facts), " ".join(d for d, _ in have))], notes=notes)
    majors = [(V.release(v) or (None,))[0] for _, v in have]
    major = majors[0] if majors else None
    if major is not None and (major >= 2) == wants_v2:
        return Tailored(summary="spconv %s is installed here, the major the code expects, so the failing process "
                                "imported another spconv: a `spconv/` folder (the source checkout, or the project's "
                                "copy) in the working directory shadows it. Print which one it imports." % have[0][1],
                        commands=[which_import(facts, "spconv", has_version=False)], notes=notes)
    if wants_v2:
        return Tailored(summary="The code imports spconv.pytorch (spconv 2.x) and the spconv it found has none: a 1.x "
                                "build, or a `spconv/` folder in the working directory. Uninstall a 1.x spconv and "
                                "install the spconv-cuXXX wheel for torch's CUDA.",
                        commands=[which_import(facts, "spconv", has_version=False)], notes=notes)
    return Tailored(summary="The code uses spconv 1.x's API%s, which 2.0 moved to `spconv.pytorch` (and whose voxel "
                            "generator it replaced): change `import spconv` to `import spconv.pytorch as spconv` "
                            "(VoxelGenerator: spconv.utils.Point2VoxelCPU3d or spconv.pytorch.utils.PointToVoxel), or "
                            "build the spconv 1.2.1 the project pins from its source; no 1.x wheel is on PyPI."
                            % (" (%s)" % g["name"] if g.get("name") else ""),
                    commands=[which_import(facts, "spconv", has_version=False)], notes=notes)
