"""TensorRT's libraries against what this environment installed: which major a loader asked for,
which TensorRT pip put here (and where its libraries sit), and a library path naming a placeholder."""

import os
import re
import shlex
from typing import List, Optional

from ...advice.commands import on_interpreter
from ...model import derived as F
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

# pip's TensorRT: the front package, its CUDA-suffixed builds, and the split bindings and libraries wheels
_TRT_DISTS = ("tensorrt", "tensorrt-cu11", "tensorrt-cu12", "tensorrt-cu13")
_SPLIT_DISTS = tuple("%s-%s" % (d, part) for d in _TRT_DISTS for part in ("libs", "bindings"))
# A path a guide wrote as <TensorRT-${version}/lib>: copied as is, the loader reads the brackets.
_PLACEHOLDER = re.compile(r"[<>]|\$\{")
# tensorrt-cu11's releases stop at TensorRT 10.13.
_CU11_LAST_MAJOR = 10


def _major(version: Optional[str]) -> Optional[str]:
    m = re.match(r"(\d{1,2})\.", version or "")
    return m.group(1) if m else None


def _install(facts: Facts, want: str) -> List[str]:
    """pip's command for TensorRT `want` built for torch's CUDA major, where PyPI has one: the
    CUDA-suffixed wheels start with TensorRT 10; TensorRT 8.6's PyPI package is an sdist that fetches
    its wheels from NVIDIA's index; TensorRT 7 and older were never on PyPI."""
    if int(want) < 8 or int(want) == 9:  # TensorRT 7 was never on PyPI, 9 only TensorRT-LLM's preview
        return []
    if int(want) < 10:
        return [on_interpreter("pip install \"tensorrt==8.6.*\" --extra-index-url https://pypi.nvidia.com", facts)]
    cuda = _major((F.torch_cuda(facts) or "12") + ".") or "12"
    if cuda == "11" and int(want) > _CU11_LAST_MAJOR:
        return []
    return [on_interpreter("pip install \"tensorrt-cu%s==%s.*\"" % (cuda, want), facts)]


@hook("tensorrt-libs")
def tensorrt_libs(match, facts: Facts) -> Optional[Tailored]:
    want = match_groups(match).get("major")
    notes: List[str] = []
    linux = F.os_name(facts) == "linux"
    ld = F.path_var_read(facts, "LD_LIBRARY_PATH") if linux else None
    bad = [e for e in ld or [] if _PLACEHOLDER.search(e)]
    if bad:
        notes.append("LD_LIBRARY_PATH holds %s" % ", ".join(bad[:3]))
        fixed = [re.sub(r"[<>]", "", e) for e in bad]
        usable = all(f.startswith("/") and "$" not in f and " " not in f for f in fixed)
        return Tailored(summary="LD_LIBRARY_PATH here holds %s: a guide's placeholder copied as it is, which the "
                                "loader reads as part of the folder's name, so TensorRT's lib folder is never searched. "
                                "Write the absolute path of the folder that holds libnvinfer.so* instead." % ", ".join(bad[:3]),
                        commands=["ls %s" % shlex.quote(fixed[0]),
                                  F.set_env_cmd(facts, "LD_LIBRARY_PATH", shlex.quote(":".join(
                                      [e for e in ld if e not in bad] + fixed)))] if usable else [],
                        notes=notes)
    found = ["%s %s" % (n, F.package_version(facts, n)) for n in _TRT_DISTS + _SPLIT_DISTS if F.package_version(facts, n)]
    if F.package_version(facts, "torch-tensorrt"):
        notes.append("torch-tensorrt %s" % F.package_version(facts, "torch-tensorrt"))
    if not found:
        if not F.package_absent(facts, "tensorrt"):
            return None  # nobody listed this environment's packages: say nothing of them
        notes.append("no TensorRT installed by pip here")
        return Tailored(summary="pip installed no TensorRT in this environment: install the TensorRT%s that the "
                                "failing module was built for here, or, for a tar or zip install, put its lib folder on "
                                "%s as an absolute path." % (" " + want if want else "",
                                                              "LD_LIBRARY_PATH" if linux else "PATH"),
                        commands=_install(facts, want) if want else [], notes=notes)
    notes.append("installed by pip: %s" % ", ".join(found))
    majors = sorted({m for m in (_major(F.package_version(facts, n)) for n in _TRT_DISTS + _SPLIT_DISTS) if m}, key=int)
    if want and majors and want not in majors:
        # both majors write site-packages/tensorrt and tensorrt_libs: one replaces the other
        return Tailored(summary="The loader asks for TensorRT %s (the .so.%s it was built against), but pip installed "
                                "TensorRT %s here, and another major never satisfies it. Install the release of the "
                                "failing module built for TensorRT %s (torch-tensorrt pins one major per release); "
                                "TensorRT %s itself belongs in another environment, since both majors install the same "
                                "tensorrt folders." % (want, want, " and ".join(majors), majors[-1], want),
                        commands=[], notes=notes)
    location = next((facts.value("packages.installed.%s.location" % n) for n in _SPLIT_DISTS + _TRT_DISTS
                     if isinstance(facts.value("packages.installed.%s.location" % n), str)), None)
    libs = os.path.join(location, "tensorrt_libs") if location else None
    where = "in %s" % libs if libs else "in site-packages/tensorrt_libs"
    var = "LD_LIBRARY_PATH" if linux else "PATH"
    return Tailored(summary="pip's TensorRT%s is here, with its libraries %s: they load only inside a Python process that "
                            "imports tensorrt first. A loader that does not (a C++ program, another library's native "
                            "loader, a module imported before tensorrt) needs that folder on %s."
                            % (" " + want if want else "", where, var),
                    commands=["ls %s" % shlex.quote(libs),
                              F.prepend_path_cmd("LD_LIBRARY_PATH", shlex.quote(libs))]
                    if libs and linux else [], notes=notes)
