"""Versions of relevant libraries: the pip and conda lists, and what their versions and build
strings say of torch's CUDA and cuDNN."""

import re
from typing import Any, Dict

from ...model.facts import absent
from .builder import FactsBuilder
from .fields import LIBRARY_LINE
from .values import cudnn_int, missing, norm_name

_CONDA_BUILD = re.compile(r"cuda(?P<cuda>\d+\.\d+)(?:\.\d+)?_cudnn(?P<cudnn>\d+\.\d+\.\d+)")


# Packages collect_env's name patterns always list when installed.
PATTERN_COMPANIONS = ("torch", "torchvision", "torchaudio", "triton", "pytorch-triton", "numpy")


def libraries_field(b: FactsBuilder, value: str) -> None:
    inst: Dict[str, Any] = {}
    pip_lines = conda_after_pip = 0
    for line in value.splitlines():
        m = LIBRARY_LINE.match(line.strip())
        if not m:
            continue
        tool, rest = m.group("tool"), m.group("rest").strip()
        if tool == "conda" and pip_lines:
            conda_after_pip += 1
        if missing(rest):
            continue
        if tool != "conda":
            pip_lines += 1
            pm = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*(?:==|===)\s*(\S+)", rest)
            if pm:
                inst.setdefault(norm_name(pm.group(1)), {"version": pm.group(2), "source": "collect_env [%s]" % tool})
            else:
                am = re.match(r"^([A-Za-z0-9][A-Za-z0-9_.\-]*)\s*@\s*(\S+)", rest)
                if am:
                    inst.setdefault(norm_name(am.group(1)), {"url": am.group(2), "source": "collect_env [%s]" % tool})
            continue
        cols = rest.split()
        if len(cols) < 2:
            continue
        name, version = norm_name(cols[0]), cols[1]
        build = cols[2] if len(cols) > 2 else ""
        channel = cols[3] if len(cols) > 3 else ""
        if channel == "pypi" or build.startswith("pypi_"):
            inst.setdefault(name, {"version": version, "source": "collect_env [conda list, from pypi]"})
        else:
            rec = {"version": version, "build": build}
            if channel:
                rec["channel"] = channel
            inst["conda:" + name] = rec
    if pip_lines and conda_after_pip:
        # The pip list ended (the conda list follows it): what it lacks is not installed.
        for name in PATTERN_COMPANIONS:
            inst.setdefault(name, absent("not in collect_env's pip list"))
    if inst:
        b.set("packages.installed", inst, "Versions of relevant libraries")


def best_cudnn_version(b: FactsBuilder) -> None:
    """backends.cudnn.version from the best source the paste has."""
    inst = b.get("packages.installed") or {}
    if b.get("torch.cuda") is None or isinstance(b.get("torch.cuda"), dict):
        if isinstance(b.get("torch.cuda"), dict):
            b.set("backends.cudnn.version", absent("CPU-only or ROCm build: no cuDNN"))
        return
    for name, rec in sorted(inst.items()):
        if re.match(r"^nvidia-cudnn-cu\d+$", name) and isinstance(rec, dict) and cudnn_int(rec.get("version", "")):
            b.set("backends.cudnn.version", cudnn_int(rec["version"]),
                  "pip package %s %s (the cuDNN pip wheels of torch load)" % (name, rec["version"]))
            return
    for name in ("conda:pytorch", "conda:pytorch-gpu"):
        rec = inst.get(name)
        m = _CONDA_BUILD.search(rec.get("build", "")) if isinstance(rec, dict) else None
        if m and cudnn_int(m.group("cudnn")):
            b.set("backends.cudnn.version", cudnn_int(m.group("cudnn")),
                  "conda build string %s of %s" % (rec["build"], name[6:]))
            return
    rec = inst.get("conda:cudnn")
    if isinstance(rec, dict) and cudnn_int(rec.get("version", "")):
        b.set("backends.cudnn.version", cudnn_int(rec["version"]), "conda package cudnn %s" % rec["version"])
        return
    sysv = b.get("system_libs.cudnn_version")
    # Only a source build links the system's cuDNN for sure; wheels (even PyPI's untagged
    # ones) bring their own, so for them the system library says nothing.
    tv = str(b.get("torch.version", ""))
    source_build = bool(re.search(r"a0\b|a0\+|\+git|\+[0-9a-f]{7,}$", tv))
    if isinstance(sysv, str) and source_build:
        b.set("backends.cudnn.version", cudnn_int(sysv),
              "cuDNN version field: the only cuDNN on the system (collect_env lists system libraries, "
              "which a source or conda build may or may not load)")


def torch_from_packages(b: FactsBuilder) -> None:
    """torch's CUDA build from a conda build string when the header does not say (a cut paste)."""
    inst = b.get("packages.installed") or {}
    rec = inst.get("conda:pytorch")
    if not b.has("torch.cuda") and isinstance(rec, dict):
        m = _CONDA_BUILD.search(rec.get("build", ""))
        if m:
            b.set("torch.cuda", m.group("cuda"), "conda build string %s" % rec.get("build"))
        elif "cpu" in rec.get("build", ""):
            b.set("torch.cuda", absent("not built with it"), "conda build string %s" % rec.get("build"))
