"""onnxruntime-gpu's CUDA execution provider against the CUDA and cuDNN this environment has
(torch's nvidia-* wheels): which majors the installed build wants, which torch brings; and the
releases that refused a session without providers."""

import re
from typing import Optional, Tuple

from ...advice.commands import on_interpreter
from ...model import derived as F
from ...model import versions as V
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

# PyPI's onnxruntime-gpu: CUDA 11.8 + cuDNN 8 up to 1.18, CUDA 12 + cuDNN 9 from 1.19 (the
# requirements table of onnxruntime's CUDA execution provider page). Later majors are not claimed.
_CUDA11_FEED = "https://aiinfra.pkgs.visualstudio.com/PublicPackages/_packaging/onnxruntime-cuda-11/pypi/simple/"
_CHECK = "python -c \"import torch, onnxruntime as ort; print(ort.__version__, ort.get_available_providers())\""
_CHECK_ORT = "python -c \"import onnxruntime as ort; print(ort.__version__, ort.get_available_providers())\""
# The other builds that write the same `onnxruntime` folder: their provider lists are theirs.
_OTHER_BUILDS = ("onnxruntime-directml", "onnxruntime-openvino", "onnxruntime-rocm", "onnxruntime-silicon",
                 "onnxruntime-qnn", "onnxruntime-training")
# A library's file version is its CUDA major only for these; cuFFT 10 is CUDA 11's and 11 CUDA
# 12's, while cuRAND and cuSOLVER keep one file version across CUDA majors (not read).
_SAME_AS_CUDA = ("cublas", "cublasLt", "cudart", "nvrtc")
_CUFFT = {10: 11, 11: 12}


def _wanted(lib: str) -> Tuple[Optional[str], Optional[int]]:
    """('cuda'|'cudnn', major) from the library the provider could not load."""
    m = re.match(r"(?:lib)?(cudnn|cublasLt|cublas|cudart|nvrtc|cufft)[a-z_]{0,12}?(?:\.so\.(\d{1,2})|64_(\d{1,2})\.dll)",
                 lib)
    if not m:
        return None, None
    name, major = m.group(1), int(m.group(2) or m.group(3))
    if name == "cudnn":
        return "cudnn", major
    if name == "cufft":
        return ("cuda", _CUFFT[major]) if major in _CUFFT else (None, None)
    return "cuda", major


def _ort_build(v: Optional[str]) -> Optional[Tuple[int, int]]:
    """(CUDA major, cuDNN major) of PyPI's build of this onnxruntime-gpu release."""
    t = V.minor_tuple(v)
    if not t or t[0] != 1:
        return None
    if t < (1, 19):
        return (11, 8)
    return (12, 9) if t <= (1, 23) else None


def _upgrade(facts: Facts, ort: Optional[str]) -> str:
    """PyPI's CUDA 12 build: an upgrade from before 1.19, else the same release reinstalled from
    PyPI (a 1.19+ that wants CUDA 11 came from the CUDA 11 feed)."""
    t = V.minor_tuple(ort)
    if t and t >= (1, 19):
        return on_interpreter("pip install --force-reinstall --no-deps \"onnxruntime-gpu==%s\"" % ort, facts)
    return on_interpreter("pip install --upgrade \"onnxruntime-gpu>=1.19\"", facts)


def _cpu_package(facts: Facts, notes, elsewhere: bool) -> Optional[Tailored]:
    """PyPI's onnxruntime (CPU only) installed here, alone or beside onnxruntime-gpu: both packages
    write the one `onnxruntime` folder, so the last one installed is the one imported. `elsewhere`:
    the error came from a GPU build, so a CPU build alone here means another environment ran."""
    if not F.package_installed(facts, "onnxruntime"):
        return None
    if F.installed_with_conda(facts, "onnxruntime", "onnxruntime"):
        return None  # conda's CPU and CUDA builds share the name `onnxruntime`: which one is here is not read
    gpu = _gpu_install(facts)
    if F.package_installed(facts, "onnxruntime-gpu"):
        return Tailored(summary="Both onnxruntime (CPU only) and onnxruntime-gpu are installed, and they share one "
                                "folder: remove both, then install onnxruntime-gpu alone.",
                        commands=[on_interpreter("pip uninstall -y onnxruntime onnxruntime-gpu", facts), gpu, _CHECK_ORT],
                        notes=notes + ["onnxruntime %s installed too" % F.package_version(facts, "onnxruntime")])
    return Tailored(summary=("Only onnxruntime (CPU only, no CUDA provider) is installed here%s. To run on the GPU%s, "
                             "replace it with onnxruntime-gpu." % (
                                 ": the failing process ran another environment" if elsewhere else "",
                                 " here" if elsewhere else "")),
                    commands=[on_interpreter("pip uninstall -y onnxruntime", facts), gpu, _CHECK_ORT],
                    notes=["onnxruntime %s installed" % F.package_version(facts, "onnxruntime")])


def _gpu_install(facts: Facts) -> str:
    """onnxruntime-gpu for the CUDA torch brings: PyPI's builds are CUDA 12's from 1.19, so a CUDA 11
    torch takes the CUDA 11 feed's (which holds onnxruntime alone: its dependencies stay from the
    package just removed)."""
    cuda = V.minor_tuple(F.torch_cuda(facts))
    if cuda and cuda[0] == 11:
        return on_interpreter("pip install --no-deps onnxruntime-gpu --index-url " + _CUDA11_FEED, facts)
    return on_interpreter("pip install onnxruntime-gpu", facts)


@hook("onnxruntime-cpu-build")
def onnxruntime_cpu_build(match, facts: Facts) -> Optional[Tailored]:
    """The providers the session offered lack CUDA's: which onnxruntime packages are installed here."""
    if F.os_name(facts) == "macos" or any(F.package_installed(facts, n) for n in _OTHER_BUILDS):
        return None  # no onnxruntime-gpu for macOS; another build's folder: the entry's words only
    ort = F.package_release(facts, "onnxruntime-gpu")
    notes = ["onnxruntime-gpu %s installed" % ort] if ort else []
    found = _cpu_package(facts, notes, elsewhere=False)
    if found is not None or not ort:
        return found
    return Tailored(summary="onnxruntime-gpu %s is the only onnxruntime installed here, with its CUDA provider: the "
                            "failing process imported another environment's onnxruntime." % ort,
                    commands=[_CHECK_ORT], notes=notes)


@hook("onnxruntime-gpu-cuda")
def onnxruntime_gpu_cuda(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    ort = F.package_release(facts, "onnxruntime-gpu")
    notes = ["onnxruntime-gpu %s installed" % ort] if ort else []
    found = _cpu_package(facts, notes, elsewhere=True)
    if found is not None:
        return found
    kind, major = _wanted(groups.get("lib") or "")
    want_cuda = int(groups["cuda"]) if groups.get("cuda") else (major if kind == "cuda" else None)
    want_cudnn = int(groups["cudnn"]) if groups.get("cudnn") else (major if kind == "cudnn" else None)
    cuda = F.torch_cuda(facts)
    torch_cuda = V.minor_tuple(cuda)[0] if V.minor_tuple(cuda) else None
    tv = V.minor_tuple(F.torch_base_version(facts))
    torch_cudnn = (9 if tv >= (2, 4) else 8) if torch_cuda and tv else None  # torch's cuDNN: 9 from 2.4
    if torch_cuda:
        notes.append("torch %d.%d is built with CUDA %s and cuDNN %s" % (tv + (cuda, torch_cudnn)) if tv
                     else "torch is built with CUDA %s" % cuda)
    if want_cuda and torch_cuda and want_cuda != torch_cuda:
        if (want_cuda, torch_cuda) == (11, 12) and torch_cudnn == 8:
            return Tailored(summary="This onnxruntime-gpu wants CUDA 11 libraries, and torch %d.%d here brings CUDA "
                                    "12 with cuDNN 8, which PyPI's CUDA 12 builds (1.19+, cuDNN 9) do not load: install "
                                    "onnxruntime-gpu 1.18.0 from onnxruntime's CUDA 12 feed (built with cuDNN 8), or "
                                    "torch 2.4+ with onnxruntime-gpu 1.19+." % tv, commands=[_CHECK], notes=notes)
        if (want_cuda, torch_cuda) == (11, 12):
            return Tailored(summary="This onnxruntime-gpu wants CUDA 11 libraries, and torch here brings CUDA 12's: "
                                    "install PyPI's onnxruntime-gpu 1.19 or newer (built for CUDA 12 and cuDNN 9), then "
                                    "import torch before onnxruntime so it finds torch's libraries.",
                            commands=[_upgrade(facts, ort), _CHECK], notes=notes)
        if (want_cuda, torch_cuda) == (12, 11) and torch_cudnn == 9:
            return Tailored(summary="This onnxruntime-gpu wants CUDA 12 libraries, and torch here is built with CUDA "
                                    "11.8 and cuDNN 9, a pair no onnxruntime-gpu build has (its CUDA 11 builds use "
                                    "cuDNN 8): use a CUDA 12 torch with PyPI's onnxruntime-gpu 1.19+.",
                            commands=[_CHECK], notes=notes)
        if (want_cuda, torch_cuda) == (12, 11):
            return Tailored(summary="This onnxruntime-gpu wants CUDA 12 libraries, and torch here is built with CUDA "
                                    "11: install onnxruntime's CUDA 11 build from its own feed (built with cuDNN 8), or "
                                    "a CUDA 12 torch.",
                            # --index-url, not --extra-index-url: beside PyPI, pip would take PyPI's newer CUDA 12
                            # build; --no-deps because the feed holds onnxruntime alone
                            commands=[on_interpreter("pip install --force-reinstall --no-deps onnxruntime-gpu --index-url "
                                                     + _CUDA11_FEED, facts), _CHECK], notes=notes)
        return Tailored(summary="This onnxruntime-gpu wants CUDA %d libraries, and torch here brings CUDA %d's: install "
                                "the onnxruntime-gpu build for CUDA %d." % (want_cuda, torch_cuda, torch_cuda),
                        commands=[_CHECK], notes=notes)
    if want_cudnn and torch_cudnn and want_cudnn != torch_cudnn:
        if (want_cudnn, torch_cudnn) == (8, 9) and torch_cuda == 12:
            return Tailored(summary="This onnxruntime-gpu is built with cuDNN 8, and torch here brings CUDA 12 with "
                                    "cuDNN 9: install PyPI's onnxruntime-gpu 1.19 or newer.",
                            commands=[_upgrade(facts, ort), _CHECK], notes=notes)
        if want_cudnn == 9 and torch_cudnn == 8:
            return Tailored(summary="This onnxruntime-gpu wants cuDNN 9, and torch %d.%d brings cuDNN 8 (torch uses "
                                    "cuDNN 9 from 2.4): upgrade torch to 2.4 or newer, or install an onnxruntime-gpu "
                                    "built with cuDNN 8 (1.18.0 from onnxruntime's CUDA 12 feed for CUDA 12, PyPI's "
                                    "1.18 for CUDA 11.8)." % tv, commands=[_CHECK], notes=notes)
        return Tailored(summary="This onnxruntime-gpu wants cuDNN %d, and torch here brings cuDNN %d: onnxruntime's "
                                "CUDA 11 builds all use cuDNN 8, so use a CUDA 12 torch with PyPI's onnxruntime-gpu "
                                "1.19+, or install cuDNN %d where onnxruntime finds it." % (want_cudnn, torch_cudnn,
                                                                                          want_cudnn),
                        commands=[_CHECK], notes=notes)
    build = _ort_build(ort)
    if torch_cuda and build == (torch_cuda, torch_cudnn) and F.os_name(facts) != "macos":
        t = V.minor_tuple(ort)
        how = ""
        if torch_cuda >= 12:
            how = (", or call onnxruntime.preload_dlls() before creating the session" if t and t >= (1, 21)
                   else ", or upgrade to onnxruntime-gpu 1.21+ and call onnxruntime.preload_dlls()")
        return Tailored(summary="onnxruntime-gpu %s and torch here agree on CUDA %d and cuDNN %d, whose libraries sit "
                                "in torch's nvidia-* wheels where onnxruntime does not look: import torch before "
                                "onnxruntime%s." % (ort, torch_cuda, torch_cudnn, how), commands=[_CHECK], notes=notes)
    return None


# onnxruntime_inference_collection.py, read in the wheels: 1.9.0 warns, 1.10.0 to 1.16.0 raise when
# a session gets no providers and the build has several, 1.16.1 dropped the check (CPU and GPU).
_PROVIDERS_OPTIONAL_FROM = "1.16.1"


@hook("onnxruntime-providers-required")
def onnxruntime_providers_required(match, facts: Facts) -> Optional[Tailored]:
    eps = [e.strip(" '\"") for e in (match_groups(match).get("eps") or "").split(",") if e.strip()]
    accel = [e for e in eps if e not in ("CPUExecutionProvider", "AzureExecutionProvider")]
    gpu = bool(accel)
    # the build's own accelerator first (TensorRT falls back to CUDA where both are there), then the CPU
    first = next((e for e in accel if not (e == "TensorrtExecutionProvider" and "CUDAExecutionProvider" in accel)),
                 None)
    keep = "[%s]" % ", ".join("'%s'" % e for e in ([first] if first else []) + ["CPUExecutionProvider"])
    name = next((n for n in ("onnxruntime-gpu", "onnxruntime-directml", "onnxruntime-openvino", "onnxruntime")
                 if F.package_installed(facts, n)), None)
    have = F.package_release(facts, name) if name else None
    azure_cpu = set(eps) == {"AzureExecutionProvider", "CPUExecutionProvider"}  # the CPU package 1.16.0
    upgrade = on_interpreter('pip install --upgrade "onnxruntime>=%s"' % _PROVIDERS_OPTIONAL_FROM, facts)
    if not name or not have:
        # not read here: the providers the message lists say which build failed
        if not azure_cpu:
            return Tailored(summary="Pass the providers to the session, `onnxruntime.InferenceSession(path, "
                                    "providers=%s)`: an onnxruntime from 1.10.0 to 1.16.0 refuses a session without "
                                    "them on a build with several." % keep, commands=[])
        return Tailored(summary="The CPU onnxruntime 1.16.0 had %s: upgrade it to 1.16.1 or newer, which no longer asks, "
                                "or pass providers=%s." % (", ".join(eps), keep),
                        commands=[upgrade])
    notes = ["installed %s: %s" % (name, have)]
    if not V.older(have, _PROVIDERS_OPTIONAL_FROM):
        return Tailored(summary="%s %s no longer asks for providers, so the failing process imported an older "
                                "onnxruntime (another environment or interpreter)." % (name, have),
                        commands=[_CHECK], notes=notes)
    if gpu or name != "onnxruntime":
        # a GPU build's newer releases want another CUDA and cuDNN: name the providers instead
        return Tailored(summary="%s %s refuses a session without providers on a build with several: pass them, "
                                "`onnxruntime.InferenceSession(path, providers=%s)` (upgrading to 1.16.1 or newer "
                                "also drops the check, but a newer onnxruntime-gpu can want another CUDA)."
                                % (name, have, keep), commands=[], notes=notes)
    why = " because its CPU build also has AzureExecutionProvider" if "AzureExecutionProvider" in eps else ""
    return Tailored(summary="onnxruntime %s refuses a session without providers%s: upgrade to 1.16.1 or newer, which "
                            "no longer asks, or pass providers=%s." % (have, why, keep),
                    commands=[upgrade], notes=notes)
