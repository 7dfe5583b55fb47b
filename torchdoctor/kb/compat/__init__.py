"""The compatibility tables of ``kb/data/compat.json`` and the answers read from them; the
facts live there, each with a ``source`` key (``source()`` gives the citation).

Versions are strings; local tags (``2.13.0+cpu``) are ignored except where they change
the answer (triton pin, cuDNN of the variant). ``None`` means unknown: odd input, facts
the KB lacks, or values the sources could not confirm (those are absent from the JSON or
marked ``verified: false``, and never returned as plain answers). Nothing here raises.
The JSON is loaded once, lazily (~1 ms); ``packaging`` is imported on first use, not at
import time, because this package sits on the ``explain`` start-up path.

One module per kind of question, all of them this package's API (``__all__``):

* ``tables``     - loading the JSON, the release row of a torch version, source citations;
* ``releases``   - torch releases and the Pythons they have wheels for;
* ``companions`` - torchvision / torchaudio / torchcodec against torch (exact pins, then declared ranges);
* ``cuda``       - CUDA wheel variants, toolkits and the drivers that run them;
* ``arch``       - GPU architectures: arch lists and which GPUs a build runs on;
* ``pins``       - NumPy 2, triton and cuDNN pins of a release;
* ``runtime``    - runtime rules (cuDNN/cuBLAS/MPS/compile) and the torch.backends API history.

Here: ``install_command``, the one builder of install commands over the tables (callers
go through torchdoctor.advice).
"""

from typing import Any, List, Tuple

from ...model import versions as V
from .arch import (arch_info, arch_list, cc_supported_by, gpu_family, newest_release_supporting_cc,
                   variants_supporting_cc)
from .companions import (matching_torchaudio, matching_torchvision, torch_for_torchvision,
                         torchaudio_compatible, torchcodec_compatible, torchcodec_for_torch, torchvision_compatible)
from .cuda import (cuda_of_variant, cuda_variants, default_cuda, driver_supports_cuda, max_cuda_for_driver,
                   min_driver, newest_variant_for_driver, newest_variant_for_driver_cuda, variant_for_cuda,
                   variant_info)
from .pins import (cudnn_int_to_version, expected_cudnn, expected_cudnn_int, numpy2_supported,
                   triton_requirement)
from .releases import (known_releases, latest_patch, latest_release, macos_x86_64_last_release,
                       newest_torch_for_python, python_supported, release, supported_pythons)
from .runtime import (alloc_conf_keys, backend_api, backend_paths, compile_min_torch_for_python,
                      cublas_deterministic_values, cublas_env_required, cudnn_sm_floor, last_torch_for_macos,
                      mps_min_macos, windows_inductor_min)
from .tables import data, os_name, release_row, source

__all__ = [
    "alloc_conf_keys", "arch_info", "arch_list", "backend_api", "backend_paths", "cc_supported_by",
    "compile_min_torch_for_python", "cublas_deterministic_values", "cublas_env_required", "cuda_of_variant",
    "cuda_variants", "cudnn_int_to_version", "cudnn_sm_floor", "default_cuda", "driver_supports_cuda",
    "expected_cudnn", "expected_cudnn_int", "gpu_family", "install_command", "known_releases",
    "last_torch_for_macos", "latest_patch", "latest_release", "macos_x86_64_last_release",
    "matching_torchaudio", "matching_torchvision", "max_cuda_for_driver", "min_driver", "mps_min_macos",
    "newest_release_supporting_cc", "newest_torch_for_python", "newest_variant_for_driver",
    "newest_variant_for_driver_cuda", "numpy2_supported", "python_supported", "release", "source",
    "supported_pythons", "torch_for_torchvision", "torchaudio_compatible", "torchcodec_compatible",
    "torchcodec_for_torch", "torchvision_compatible",
    "triton_requirement", "variant_for_cuda", "variant_info", "variants_supporting_cc",
    "windows_inductor_min",
]


def _specs(pins: List[Tuple[str, str]], conda: bool = False, tag: str = "") -> str:
    parts = []
    for name, ver in pins:
        if conda and name == "torch":
            name = "pytorch"
        if ver and tag and name != "torchaudio":  # old indexes: +cuXXX on torch/torchvision
            ver += "+" + tag
        parts.append(name + ("==" + ver if ver else ""))
    return " ".join(parts)


def install_command(torch_version: Any, variant: Any = None, installer: str = "pip",
                    with_companions: Any = True, os: str = "linux", machine: Any = None) -> List[str]:
    """Commands installing that torch (patch; the latest patch for a bare minor) and its
    companions, in the form the PyTorch "previous versions" page used for that era. Plain
    `pip install` when the PyPI wheel is the one wanted (Linux default variant, macOS,
    variant None). [] where no such build exists: conda after 2.5, CUDA on macOS, a
    variant the release did not ship. Unknown companion pins are left unpinned; the
    stable-ABI torchaudio is pinned as 2.11.* (which 2.11 patch each index holds is unknown).
    `with_companions`: True (torchvision and torchaudio), False, or the names to pin (the
    companions actually installed, so a fix never adds a package the user does not have).
    `machine`: the target interpreter's platform.machine(); PyPI's default CUDA wheel is the
    Linux x86_64 one, so on another Linux machine (aarch64) a CUDA variant keeps its index URL."""
    r, osn = release_row(torch_version), os_name(os)
    if not r or not osn or installer not in ("pip", "conda"):
        return []
    patch = V.patch(torch_version) or r["patches"][-1]
    if patch not in r["patches"]:
        return []
    pins = [("torch", patch)]
    if with_companions:
        conda_pair = r.get("conda_companions", {}).get(patch, {}) if installer == "conda" else {}
        ta = conda_pair.get("torchaudio") or r["torchaudio"].get(patch)
        if not ta and not r["torchaudio"]:
            ta = ".".join((matching_torchaudio(patch) or "").split(".")[:2]) + ".*"
        wanted = ("torchvision", "torchaudio") if with_companions is True else tuple(with_companions)
        pins += [p for p in (("torchvision", conda_pair.get("torchvision") or r["torchvision"].get(patch) or ""),
                             ("torchaudio", ta if ta and ta != ".*" else "")) if p[0] in wanted]
    if installer == "conda":
        if V.parse(V.minor(patch)) > V.parse(data()["_meta"]["conda_last_release"]["version"]):
            return []  # PyTorch stopped publishing to the pytorch conda channel after 2.5
        table = r.get("conda_by_patch", {}).get(patch, r.get("conda"))  # None: not on conda
        if table is None or (osn == "macos" and variant not in (None, "cpu")):
            return []
        if osn == "macos" or variant == "cpu":
            extra = "-c pytorch" if osn == "macos" else "cpuonly -c pytorch"
        else:
            extra = table.get(variant or default_cuda(patch) or "")
        return ["conda install %s %s" % (_specs(pins, conda=True), extra)] if extra else []
    style = data()["_meta"]["pip_styles"][r.get("pip_style_by_patch", {}).get(patch, r["pip_style"])]
    if osn == "macos":
        ok = variant in (None, "cpu") and style.get("macos", True)
        return ["pip install " + _specs(pins)] if ok else []
    x86 = str(machine or "x86_64").lower() in ("x86_64", "amd64")
    pypi_wheel = variant is None or (osn == "linux" and x86 and variant == default_cuda(patch))
    if pypi_wheel and style.get("on_pypi", True):
        return ["pip install " + _specs(pins)]
    variant = variant or (default_cuda(patch) if osn == "linux" else "cpu")  # 1.8.2 LTS: not on PyPI
    rocm = r.get("rocm_by_patch", {}).get(patch, r["rocm"])
    rocm = rocm if osn == "linux" and style.get("rocm", True) else []
    if variant not in cuda_variants(patch) + ["cpu"] + ["rocm" + x for x in rocm]:
        return []
    specs = _specs(pins, tag=variant if style["local_tags"] else "")
    return ["pip install %s %s" % (specs, style["args"].format(variant=variant))]
