"""Shared libraries beside torch: CUDA/NCCL/MKL/OpenMP/glibc libraries missing, shadowed or
duplicated, NNPACK, libuv.
"""
import re
import shlex
from typing import Dict, List, Optional

from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat
from ...kb.errors import get_entry
from ..registry import WARNING, Tailored, entry_id_of, rule, finding, hook, installed_torch_note, match_groups
from ..install.common import cuda_major_of, installed_version, python_note, ver_tuple
from ...advice.commands import on_interpreter, torch_command




@rule("check", "omp-duplicate-lib-ok", category="omp-duplicate", severity=WARNING)
def omp_duplicate_lib_ok(facts):
    """KMP_DUPLICATE_LIB_OK=TRUE hides two OpenMP runtimes in one process."""
    v = F.env(facts, "KMP_DUPLICATE_LIB_OK")
    if v is None or v.strip().lower() in F.ENV_FALSE:
        return None
    os_ = F.os_name(facts)
    if os_ == "windows":
        cmds = [F.unset_env_cmd(facts, "KMP_DUPLICATE_LIB_OK"),
                "%s -c \"import numpy, torch\"" % F.python_cmd(facts), "conda list | findstr /i \"openmp mkl intel\""]
    else:
        cmds = [F.unset_env_cmd(facts, "KMP_DUPLICATE_LIB_OK"),
                "%s -c \"import numpy, torch\"" % F.python_cmd(facts), "conda list | grep -i -E 'openmp|mkl|intel'"]
    return finding(
        "KMP_DUPLICATE_LIB_OK=%s: two OpenMP runtimes may be loaded into one process" % v,
        detail="This variable tells Intel's OpenMP to continue after 'OMP: Error #15: Initializing libiomp5 ..., but "
               "found libiomp5 already initialized' instead of aborting. Two OpenMP runtimes in one process (typically "
               "conda's MKL/intel-openmp beside the one bundled with a pip-installed torch) can crash, deadlock or give "
               "silently wrong results; Intel documents it as unsafe.",
        fix="Unset it and remove the duplicate runtime: install torch and NumPy/MKL from one source (all pip, or all "
            "conda) so one libiomp/libomp is loaded. The commands show whether the error returns and which packages "
            "bring OpenMP.",
        commands=cmds)


def _nvidia_packages(facts: Facts) -> Dict[str, str]:
    inst = facts.value("packages.installed")
    if not isinstance(inst, dict):
        return {}
    return {k: v.get("version") for k, v in inst.items()
            if (k.startswith("nvidia-") or k.startswith("cuda-")) and isinstance(v, dict) and v.get("version")}


def _runtime_lib_major(lib: str) -> Optional[str]:
    """The CUDA major of a runtime library's soname (libcudart.so.9.2 -> "9"), for the libraries
    whose soname follows the toolkit's major; None for the others (cuFFT, cuRAND... number their own)."""
    m = re.match(r"lib(?:cudart|cublas|cublasLt|nvrtc)\.so\.(\d{1,2})(?:\.|$)", lib or "")
    return m.group(1) if m else None


@hook("cuda-libs-missing")
def cuda_libs_missing(match, facts: Facts) -> Optional[Tailored]:
    tv = F.torch_version_str(facts)
    if not tv:
        return None
    notes = installed_torch_note(facts)
    nv = _nvidia_packages(facts)
    notes.append("%d nvidia-*/cuda-* pip packages installed" % len(nv) if nv else
                 "no nvidia-* / cuda-* pip packages installed")
    lib = match_groups(match).get("lib", "the CUDA library")
    if F.is_jetson(facts) and not nv and entry_id_of(match) == "cuda-runtime-lib-cannot-open":
        # JetPack's wheels link the board's own CUDA, not pip's nvidia-* packages (none are installed
        # here): a reinstall from PyPI would fetch a wheel that cannot use the board's GPU at all.
        # Thor's cu130 wheels do come with pip's CUDA packages and keep the general reading.
        jetson = get_entry("jetson-cuda-lib-cannot-open")
        notes.append("an NVIDIA Jetson (kernel %s)" % facts.value("os.release"))
        return Tailored(cause="On this machine, an NVIDIA Jetson, the pip packages above do not apply. " + jetson.cause,
                        summary=jetson.fix["summary"], commands=list(jetson.fix["commands"]), notes=notes)
    tag = F.local_tag(facts)
    if tag == "cpu":
        return Tailored(cause="The installed torch is a CPU build, so %s is needed by another package (onnxruntime, "
                              "TensorRT, a CUDA extension) that expects a system CUDA/cuDNN." % lib,
                        summary="Install the CUDA/cuDNN that package documents, or its CPU variant.",
                        commands=[], notes=notes)
    asked = _runtime_lib_major(lib)
    built = cuda_major_of(tag)
    if asked and built and asked != built:
        # torch's own CUDA libraries are those of its CUDA major: a request for another
        # release's runtime comes from something built against that older (or newer) toolkit.
        notes.append("torch is built for CUDA %s; %s belongs to CUDA %s" % (built, lib, asked))
        when = ("still installed after torch or CUDA changed" if int(asked) < int(built)
                else "a build for a newer CUDA than this torch's")
        return Tailored(cause="torch %s never loads %s: what asks for it is a compiled extension or another package "
                              "built against CUDA %s, %s." % (tv, lib, asked, when),
                        summary="Rebuild that extension against this torch (pip install --no-build-isolation "
                                "--force-reinstall from source, or its wheel for CUDA %s), or reinstall the package "
                                "for CUDA %s." % (built, built), commands=[], notes=notes)
    if facts.state("driver.present") != "unknown" and not F.has_nvidia_driver(facts):
        notes.append("no NVIDIA driver found")
        cmds = torch_command(facts, variant="cpu", reinstall=True)
        return Tailored(summary="There is no NVIDIA driver here, so the CUDA build cannot be used anyway: install the "
                                "CPU build of torch %s." % F.torch_base_version(facts),
                        commands=cmds or None, notes=notes)
    cmds = torch_command(facts, reinstall=True)
    if not cmds:
        return None
    return Tailored(summary="Reinstall torch %s with its CUDA dependencies (no --no-deps), then check them with "
                            "`pip check`." % tv,
                    commands=cmds + [F.pip_cmd(facts) + " check"], notes=notes)


@hook("nvidia-lib-shadowed")
def nvidia_lib_shadowed(match, facts: Facts) -> Optional[Tailored]:
    ld = F.env(facts, "LD_LIBRARY_PATH")
    nvjit = match.entry.id == "nvjitlink-undefined-symbol"
    variant = F.local_tag(facts)
    major = cuda_major_of(variant) or "12"
    pkg = ("nvidia-nvjitlink-cu%s" if nvjit else "nvidia-cublas-cu%s") % major
    if major == "13":
        pkg = "nvidia-nvjitlink" if nvjit else "nvidia-cublas"
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    pver = installed_version(facts, pkg)
    loc = facts.value("packages.installed.%s.location" % pkg)
    if pver:
        notes.append("%s %s" % (pkg, pver))
    cmds: List[str] = []
    cause = None
    py = F.python_cmd(facts)
    if ld:
        notes.append("LD_LIBRARY_PATH=%s" % ld)
        cause = "LD_LIBRARY_PATH (%s) is searched before the pip CUDA libraries, so an older copy from there is loaded." % ld
        cmds.append('env -u LD_LIBRARY_PATH %s -c "import torch; print(torch.__version__)"' % py)
        if loc:
            sub = "cu13" if major == "13" else ("nvjitlink" if nvjit else "cublas")
            cmds.append(F.prepend_path_cmd("LD_LIBRARY_PATH", "%s/nvidia/%s/lib" % (loc, sub)))
    need = match_groups(match).get("ver")
    if nvjit and need and pver:
        want = need.replace("_", ".")
        if ver_tuple(pver)[:2] < ver_tuple(want)[:2]:
            cause = (cause + " " if cause else "") + "%s %s is older than the CUDA %s nvJitLink that cusparse needs." \
                % (pkg, pver, want)
            cmds.append('%s install "%s>=%s"' % (F.pip_cmd(facts), pkg, want))
    if not cmds:
        return None
    return Tailored(cause=cause, commands=cmds, notes=notes)


@hook("nccl-mismatch")
def nccl_mismatch(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    variant = F.local_tag(facts) or compat.default_cuda(base)
    pins = (compat.release(base) or {}).get("nccl") or {}
    pin = pins.get(variant) if isinstance(pins, dict) else None
    major = cuda_major_of(variant)
    notes = installed_torch_note(facts)
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if ld:
        notes.append("LD_LIBRARY_PATH=%s" % ld)
    if not pin or not major:
        return None
    pkg = "nvidia-nccl-cu%s" % major
    have = installed_version(facts, pkg)
    notes.append("%s %s (torch %s pins %s)" % (pkg, have or "not installed", base, pin))
    if have == pin and not ld:
        return None
    return Tailored(summary="Install the NCCL torch %s (%s) was built with: %s==%s%s."
                            % (base, variant, pkg, pin, "" if not ld else ", and keep other NCCL copies off "
                                                                           "LD_LIBRARY_PATH"),
                    commands=["%s install --force-reinstall %s==%s" % (F.pip_cmd(facts), pkg, pin)],
                    notes=notes)


@hook("mkl-ijit")
def mkl_ijit(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    mkl = facts.value("packages.installed.conda:mkl.version") or installed_version(facts, "mkl")
    if mkl:
        notes.append("mkl %s" % mkl)
    prefix = facts.value("python.prefix")
    if F.installed_with_conda(facts) or facts.value("python.conda") is True:
        target = ' -p "%s"' % prefix if prefix else ""
        return Tailored(summary="Pin MKL below 2024.1 in this conda environment%s."
                                % (" (it has %s)" % mkl if mkl else ""),
                        commands=['conda install -y%s "mkl=2024.0"' % target], notes=notes)
    ld = F.env(facts, "LD_LIBRARY_PATH") or ""
    if "oneapi" in ld.lower() or "intel" in ld.lower():
        return Tailored(cause="LD_LIBRARY_PATH points into an Intel oneAPI installation (%s) whose newer MKL is "
                              "loaded instead." % ld,
                        summary="Run without the oneAPI environment (do not source setvars.sh for this program).",
                        commands=['env -u LD_LIBRARY_PATH %s -c "import torch"' % F.python_cmd(facts)],
                        notes=notes)
    return None


@hook("glibcxx")
def glibcxx(match, facts: Facts) -> Optional[Tailored]:
    minor = match_groups(match).get("minor")
    need = "3.4.%s" % minor if minor else None
    if not need or not facts.value("python.executable"):
        return None
    prefix = facts.value("python.prefix")
    if facts.value("python.conda") is True and prefix:
        return Tailored(summary="Update libstdc++ in this conda env so it provides GLIBCXX_%s, then import torch "
                                "first." % need,
                        commands=['strings "%s/lib/libstdc++.so.6" | grep -x GLIBCXX_%s' % (prefix, need),
                                  'conda install -y -p "%s" -c conda-forge libstdcxx-ng' % prefix],
                        notes=python_note(facts))
    return Tailored(summary="The system libstdc++ lacks GLIBCXX_%s: upgrade the distribution's libstdc++ (or use a "
                            "newer OS/container), or run from a conda env with a newer libstdcxx-ng." % need,
                    commands=["strings /usr/lib/x86_64-linux-gnu/libstdc++.so.6 | grep -x GLIBCXX_%s" % need],
                    notes=python_note(facts))


@hook("glibc-too-old")
def glibc_too_old(match, facts: Facts) -> Optional[Tailored]:
    need = match_groups(match).get("ver")
    libc = facts.value("os.libc")
    if not need or not isinstance(libc, str) or "glibc" not in libc:
        return None
    have = libc.split()[-1]
    notes = ["system C library: %s" % libc] + (installed_torch_note(facts) if F.torch_version_str(facts) else [])
    if facts.value("os.distro"):
        notes.append("OS: %s" % facts.value("os.distro"))
    if ver_tuple(have) >= ver_tuple(need):
        return Tailored(cause="This machine's glibc %s is new enough, so the failing program ran elsewhere (a "
                              "container or another host) with an older glibc." % have, notes=notes)
    return Tailored(cause="This system has glibc %s; the torch binary needs %s." % (have, need),
                    summary="Install torch through pip from the official index (pip only picks wheels this glibc can "
                            "run), or move to a distribution/container with glibc >= %s." % need,
                    commands=[on_interpreter("pip install --force-reinstall torch", facts)], notes=notes)


@hook("omp-duplicate")
def omp_duplicate(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_of(facts)
    conda = facts.value("python.conda") is True
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    extra = [n for n in ("mkl", "intel-openmp") if installed_version(facts, n)]
    for n in extra:
        notes.append("pip package %s %s installed" % (n, installed_version(facts, n)))
    if conda and facts.value("packages.installed.conda:mkl.version"):
        notes.append("conda mkl %s" % facts.value("packages.installed.conda:mkl.version"))
    if conda:
        prefix = facts.value("python.prefix") or "$CONDA_PREFIX"
        where = ('where libiomp5md.dll' if os_ == "windows" else
                 'find "%s" -name "libiomp5*" -o -name "libomp*"' % prefix)
        return Tailored(cause="This is a conda environment: conda's MKL/numpy bring their own OpenMP runtime next to "
                              "the one torch ships.",
                        summary="Use one package manager for numpy/MKL and torch: `conda install nomkl` (numpy without "
                                "MKL/OpenMP), or a fresh venv with pip-only packages.",
                        commands=['conda install -y -p "%s" nomkl' % prefix, where], notes=notes)
    if extra:
        return Tailored(cause="The pip packages %s put a second OpenMP runtime next to torch's." % ", ".join(extra),
                        summary="Check whether something in this environment really needs them; otherwise uninstall "
                                "them and reinstall torch.",
                        commands=["%s uninstall -y %s" % (F.pip_cmd(facts), " ".join(extra))], notes=notes)
    return None


@hook("mkl-fatal")
def mkl_fatal(match, facts: Facts) -> Optional[Tailored]:
    if facts.value("python.conda") is not True:
        return None
    prefix = facts.value("python.prefix")
    env = facts.value("python.conda_env")
    activate = "conda activate %s" % (env or prefix or "<env>")
    notes = python_note(facts)
    mkl = facts.value("packages.installed.conda:mkl.version")
    if mkl:
        notes.append("conda mkl %s" % mkl)
    return Tailored(summary="Run Python from the activated conda env and reinstall its MKL.",
                    commands=[activate, 'conda install -y -p "%s" --force-reinstall mkl' % (prefix or "$CONDA_PREFIX")],
                    notes=notes)


@hook("nnpack")
def nnpack(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts)
    flags = facts.value("cpu.flags")
    if isinstance(flags, list) and flags and "avx2" not in flags:
        notes.append("CPU flags without avx2")
    if ver_tuple(base) >= (2, 3):
        return Tailored(summary="Harmless. To silence it, disable NNPACK once at start-up, before any convolution: "
                                "torch.backends.nnpack.set_flags(False).",
                        commands=['%s -c "import torch; torch.backends.nnpack.set_flags(False); '
                                  'print(torch.backends.nnpack.is_available())"' % F.python_cmd(facts)],
                        notes=notes)
    return Tailored(summary="Harmless. torch %s has no torch.backends.nnpack switch (added in 2.3); ignore the "
                            "warning or upgrade torch." % base, commands=[], notes=notes)


@hook("libuv")
def libuv(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_of(facts)
    if os_ is None:
        return None
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    if os_ == "windows":
        return Tailored(summary="Set USE_LIBUV=0 before starting torchrun/the script (Windows builds have no libuv); "
                                "multi-GPU training works best on Linux or WSL2.",
                        commands=["set USE_LIBUV=0", '$env:USE_LIBUV = "0"'], notes=notes)
    return Tailored(summary="This torch build has no libuv: set USE_LIBUV=0 for the process.",
                    commands=["export USE_LIBUV=0"], notes=notes)


@hook("nvrtc-library")
def nvrtc_library(match, facts: Facts) -> Optional[Tailored]:
    """The NVRTC pip package of torch's CUDA major, and what LD_LIBRARY_PATH puts in front of it."""
    tcuda = F.torch_cuda(facts)
    if not tcuda:
        return None
    major = tcuda.split(".")[0]
    pkg = "nvidia-cuda-nvrtc" if major == "13" else "nvidia-cuda-nvrtc-cu%s" % major
    notes = installed_torch_note(facts)
    cmds: List[str] = []
    causes: List[str] = []
    lib = match_groups(match).get("lib") or ""
    want = ".".join(lib.split(".so.")[1].split(".")[:2]) if ".so." in lib else None
    if want and want.split(".")[0] != major:
        causes.append("The libnvrtc that was loaded belongs to CUDA %s (it asks for %s), not to torch's CUDA %s: "
                      "another CUDA installation comes first on the library path." % (want, lib, tcuda))
    ver = installed_version(facts, pkg)
    if ver:
        notes.append("%s %s" % (pkg, ver))
    else:
        notes.append("%s is not installed" % pkg)
        causes.append("%s, which brings libnvrtc and its builtins for torch's CUDA %s, is not installed here."
                      % (pkg, tcuda))
        cmds.append("%s install %s" % (F.pip_cmd(facts), pkg))
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if ld and "cuda" in ld.lower():
        notes.append("LD_LIBRARY_PATH=%s" % ld)
        cmds.append('env -u LD_LIBRARY_PATH %s -c "import torch; print(torch.version.cuda)"' % F.python_cmd(facts))
    if not causes and not cmds:
        return None
    return Tailored(cause=" ".join(causes) or None, commands=cmds or None, notes=notes)


@hook("file-too-short")
def file_too_short(match, facts: Facts) -> Optional[Tailored]:
    """Look at the file the loader named, not at a placeholder: a path is listed and typed as it
    is (links followed); a bare name is looked up in the loader's cache first."""
    lib = match_groups(match).get("lib") or ""
    if not lib:
        return None
    q = shlex.quote(lib)
    if "/" in lib:
        return Tailored(commands=["ls -lL %s" % q, "file -L %s" % q])
    return Tailored(commands=["ldconfig -p | grep -F %s" % q])
