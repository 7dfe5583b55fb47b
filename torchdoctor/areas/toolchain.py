"""Building C++/CUDA/HIP extensions with torch.utils.cpp_extension: the host compiler, ninja,
the ROCm toolchain, a build lock a killed build left behind, and the setuptools release torch's
build helper still works with.
"""

import shlex
from typing import Optional

from ..advice.commands import pip, program_install, system_install, torch_command
from ..model import derived as F
from ..model import versions as V
from ..model.facts import ABSENT, Facts
from .registry import Tailored, hook, installed_torch_note, match_groups

# torch/utils/cpp_extension.py imported `from pkg_resources import packaging` up to 2.1;
# setuptools removed that re-export in 70 and pkg_resources itself in 81.
_LAST_TORCH_WITH_PKG_RESOURCES = "2.1"
_SETUPTOOLS_WITHOUT_PACKAGING = "70"


@hook("setuptools-pkg-resources")
def setuptools_pkg_resources(match, facts: Facts) -> Optional[Tailored]:
    tv, st = F.torch_base_version(facts), F.package_version(facts, "setuptools")
    if not tv or not st:
        return None
    notes = ["torch %s and setuptools %s are installed" % (tv, st)]
    if V.older(_LAST_TORCH_WITH_PKG_RESOURCES + ".99", tv):
        return Tailored(summary="torch %s's cpp_extension no longer imports pkg_resources, so the failing import ran "
                                "with another, older torch (another interpreter or environment)." % tv,
                        commands=['python -c "import sys, torch; print(sys.executable, torch.__version__)"'],
                        notes=notes)
    if V.older(st, _SETUPTOOLS_WITHOUT_PACKAGING):
        return None  # setuptools already predates the removal: something else shadows pkg_resources
    return Tailored(summary="torch %s's cpp_extension imports pkg_resources.packaging, which setuptools %s no longer "
                            "has: install setuptools below 70 here, or upgrade torch to 2.2 or newer." % (tv, st),
                    commands=[pip(facts, 'install "setuptools<70"')], notes=notes)


@hook("cpp-extension-compiler")
def cpp_extension_compiler(match, facts: Facts) -> Optional[Tailored]:
    cc = match_groups(match).get("cc", "")
    os_ = F.os_of(facts)
    text = getattr(match, "text", "")
    # MSVC's name in the message (nvdiffrast's own search) says Windows whatever machine reads it.
    windows = os_ == "windows" or cc.startswith("cl") or "MSVC" in text or "Microsoft Visual C++" in text
    if windows:
        return Tailored(summary="Install Visual Studio Build Tools with the \"Desktop development with C++\" workload, then "
                                "build from an \"x64 Native Tools Command Prompt for VS\" (or run vcvars64.bat first) so "
                                "cl.exe is on PATH; set DISTUTILS_USE_SDK=1 there.",
                        commands=["where cl"], notes=["compiler: %s" % (cc or "cl")])
    if os_ == "macos":
        return Tailored(summary="Install Apple's command-line tools (clang) and build again.",
                        commands=["xcode-select --install"], notes=["compiler: %s on macOS" % (cc or "c++")])
    if os_ == "linux":
        return Tailored(summary="Install a C++ compiler (g++) and build again.",
                        commands=["sudo apt-get install -y build-essential", "which c++ g++"],
                        notes=["compiler: %s on Linux" % (cc or "c++")])
    return None


@hook("cpp-extension-ninja")
def cpp_extension_ninja(match, facts: Facts) -> Optional[Tailored]:
    have = F.package_version(facts, "ninja")
    exe = facts.value("python.executable")
    if have:
        return Tailored(summary="The ninja package %s is installed in this environment, but its `ninja` executable is "
                                "not on the PATH of the failing process: activate the environment (its scripts "
                                "directory next to %s) before running." % (have, exe or "the interpreter"),
                        commands=["ninja --version"], notes=["ninja %s is installed" % have])
    return Tailored(summary="Install ninja into this environment.",
                    commands=[pip(facts, "install ninja"), "ninja --version"], notes=["ninja is not installed"])


# The conda development package that carries each library's link-time name (lib<name>.so), from
# NVIDIA's channel; its label pins the CUDA release (nvidia/label/cuda-12.4.0).
_CONDA_DEV = {"cudart": "cuda-cudart-dev", "cublas": "libcublas-dev", "cublasLt": "libcublas-dev",
              "curand": "libcurand-dev", "cufft": "libcufft-dev", "cusparse": "libcusparse-dev",
              "cusolver": "libcusolver-dev", "nvrtc": "cuda-nvrtc-dev"}


@hook("cpp-extension-cuda-lib")
def cpp_extension_cuda_lib(match, facts: Facts) -> Optional[Tailored]:
    """Which CUDA home the build linked against (CUDA_HOME, CUDA_PATH, else nvcc's, as torch finds
    it): a conda environment (lib, not lib64; the dev packages) or a toolkit without the library."""
    if F.os_name(facts) == "windows":
        return None  # MSVC's link says LNK1104, with cudart.lib; not this message
    lib = match_groups(match).get("lib") or "cudart"
    if F.is_cuda_build(facts) is False:
        return Tailored(summary="torch here is a CPU build (%s), so its extension builds have no CUDA to link: install "
                                "torch's CUDA build before building a CUDA extension." % F.torch_version_str(facts))
    var = "CUDA_HOME" if F.env(facts, "CUDA_HOME") else "CUDA_PATH" if F.env(facts, "CUDA_PATH") else None
    home = F.env(facts, var) if var else None
    nvcc = facts.value("toolkit.nvcc_path")
    if not home and isinstance(nvcc, str) and nvcc.endswith("/bin/nvcc"):
        home, var = nvcc[:-len("/bin/nvcc")], "nvcc's folder"
    if not home:
        return None
    home = home.rstrip("/") or "/"
    cuda = F.torch_cuda(facts)
    notes = ["%s: %s" % (var, home)]
    q = shlex.quote(home)
    prefix = facts.value("python.prefix") if facts.value("python.conda") is True else None
    if prefix and home == str(prefix).rstrip("/"):
        cmds = ["conda install -y -c nvidia/label/cuda-%s.0 %s" % (cuda, _CONDA_DEV[lib])] if cuda else []
        return Tailored(summary="The CUDA home (%s) is this conda environment, whose CUDA libraries sit in lib, not "
                                "lib64, and whose lib%s.so (the name the linker needs) comes only with the CUDA "
                                "development packages: install %s for torch's CUDA %s, and for an older torch that "
                                "looks only in lib64, link lib64 to lib." % (home, lib, _CONDA_DEV[lib], cuda or "version"),
                        commands=cmds + ["[ -e %s/lib64 ] || ln -s %s/lib %s/lib64" % (q, q, q)], notes=notes)
    same = cuda and ("cuda-%s" % cuda) in home
    how = ("it is torch's CUDA %s toolkit but lacks that development library: install it there (the toolkit's "
           "%s package)" % (cuda, _CONDA_DEV[lib]) if same else
           "point CUDA_HOME at a full CUDA toolkit of torch's CUDA version%s and rebuild"
           % (" (e.g. /usr/local/cuda-%s)" % cuda if cuda else ""))
    return Tailored(summary="The CUDA home is %s (%s), and the linker found no lib%s.so in its lib64 or lib: %s."
                            % (home, var, lib, how),
                    commands=["ls %s/lib64/lib%s.so %s/lib/lib%s.so" % (q, lib, q, lib)], notes=notes)


# SWIG is a program the build runs from PATH. PyPI's `swig` wheel puts it in the environment's
# bin folder, but pip's isolated build cannot import that wheel's module, so that route needs
# --no-build-isolation; box2d-py (gymnasium's box2d extra) has a prebuilt twin on PyPI, Box2D.

@hook("swig-not-found")
def tailor_swig_not_found(match, facts: Facts) -> Optional[Tailored]:
    pkg = match_groups(match).get("pkg")
    here = facts.value("programs.swig")
    if isinstance(here, str):
        return Tailored(summary="swig is installed (this shell finds %s): the build ran with another PATH (an IDE, a "
                                "notebook or an environment that was not activated). Run the install again from this "
                                "shell." % here, commands=["%s -version" % F.shell_path(facts, here)],
                        notes=["swig on this PATH: %s" % here])
    system = program_install(facts, "swig", windows="choco install -y swig")
    lead = "No swig on this PATH." if facts.state("programs.swig") == ABSENT else "The build found no swig."
    if pkg == "box2d-py":
        return Tailored(summary="%s box2d-py has no wheel for this Python, so pip builds it, and its build runs swig. "
                                "Box2D, the same `import Box2D` with prebuilt wheels, needs neither: install it instead "
                                "(or install swig, then box2d-py)." % lead,
                        commands=[pip(facts, "install box2d"), system])
    return Tailored(summary="%s Install SWIG, then run the install again. Without root: `pip install swig setuptools "
                            "wheel` into this environment, then the install with `--no-build-isolation` and this "
                            "environment's bin folder on PATH (pip's isolated build cannot import that swig)." % lead,
                    commands=[system])


# torch/utils/cpp_extension.py's _get_build_directory: TORCH_EXTENSIONS_DIR as given, else the user
# cache's torch_extensions (torch._appdirs) with a py<XY>_<accelerator> folder under it.
_EXTENSIONS_ROOT = {"windows": "%LOCALAPPDATA%\\torch_extensions\\torch_extensions\\Cache",
                    "macos": "$HOME/Library/Caches/torch_extensions",
                    "linux": "${XDG_CACHE_HOME:-$HOME/.cache}/torch_extensions"}


@hook("cpp-extension-stale-lock")
def cpp_extension_stale_lock(match, facts: Facts) -> Optional[Tailored]:
    lock = match_groups(match).get("lock")
    windows = F.os_of(facts) == "windows" or bool(lock and "\\" in lock and "/" not in lock)
    set_root = F.env(facts, "TORCH_EXTENSIONS_DIR")
    root = set_root or _EXTENSIONS_ROOT.get("windows" if windows else (F.os_of(facts) or "linux"),
                                            _EXTENSIONS_ROOT["linux"])
    lead = ("Make sure no other process is building that extension (another rank, notebook or job), then delete the "
            "leftover lock file: the build that made it was killed, and every later run waits for it forever.")
    if lock:
        cmd = 'del "%s"' % lock if windows else "rm -f %s" % shlex.quote(lock)
        return Tailored(summary=lead, commands=[cmd], notes=["the lock the message names: %s" % lock])
    notes = ["TORCH_EXTENSIONS_DIR=%s" % set_root] if set_root else []
    if windows:
        return Tailored(summary=lead + " They are the files named lock under %s." % root,
                        commands=['dir /s /b "%s\\lock"' % root.rstrip("\\")], notes=notes)
    where = shlex.quote(root) if set_root else '"%s"' % root
    return Tailored(summary=lead + " They are the files named lock under %s: list them, then delete them." % root,
                    commands=["find %s -mindepth 2 -maxdepth 3 -type f -name lock -print" % where,
                              "find %s -mindepth 2 -maxdepth 3 -type f -name lock -delete" % where], notes=notes)


# Which Debian/Ubuntu development package holds each OpenGL/EGL/X11 header or link library (file
# lists of Debian 12's libegl-dev, libgl-dev, libgles-dev, libx11-dev), and the -mesa- name that
# installs it on every release: Debian 12's libegl1-mesa-dev depends on libegl-dev (and so on),
# while releases before the libglvnd split (Ubuntu 18.04) have only the -mesa- package.
# Fedora/RHEL's names: mesa-libEGL-devel, mesa-libGL-devel, mesa-libGLES-devel, libX11-devel.
_GL_DEV = (("EGL/", "EGL", "libegl-dev", "libegl1-mesa-dev", "mesa-libEGL-devel"),
           ("GLES", "GLESv", "libgles-dev", "libgles2-mesa-dev", "mesa-libGLES-devel"),
           ("GL/", "GL", "libgl-dev", "libgl1-mesa-dev", "mesa-libGL-devel"),
           ("KHR/", None, "libgl-dev", "libgl1-mesa-dev", "mesa-libGL-devel"),
           ("X11/", "X11", "libx11-dev", "libx11-dev", "libX11-devel"))


@hook("gl-dev-files")
def gl_dev_files(match, facts: Facts) -> Optional[Tailored]:
    """The one package that holds the missing header or library, for the system that builds."""
    g = match_groups(match)
    header, lib = g.get("header") or "", g.get("lib") or ""
    row = next((r for r in _GL_DEV if header.startswith(r[0]) or lib and r[1] and
                (lib == r[1] or r[1].endswith("v") and lib.startswith(r[1]))), None)
    if row is None:
        return None
    what = header or "lib%s.so" % lib
    os_ = F.os_of(facts)
    if os_ not in (None, "linux"):
        return Tailored(summary="%s is a Linux system file that the extension's OpenGL part needs; on %s, use the "
                                "extension's CUDA path (nvdiffrast: RasterizeCudaContext) or build it under Linux or WSL."
                                % (what, os_), commands=[])
    also = "" if row[2] == row[3] else " (%s, which the command installs, brings it on newer releases and is the " \
                                      "package itself on older ones)" % row[3]
    return Tailored(summary="%s is in Debian's and Ubuntu's %s package%s (Fedora/RHEL: %s): install it, then run "
                            "again so the build goes through." % (what, row[2], also, row[4]),
                    commands=[system_install(facts, row[3], dnf=row[4])])


# The imported targets of torch's own CMake package (Caffe2Targets.cmake, TorchTargets): a file one of
# these names is torch's to reinstall; any other target belongs to another package.
_TORCH_TARGETS = ("c10", "c10_cuda", "c10_hip", "c10_xpu", "torch", "torch_cpu", "torch_cuda", "torch_hip", "torch_xpu",
                  "torch_python", "torch_global_deps", "torch_library", "shm", "kineto", "fbgemm", "XNNPACK",
                  "pytorch_qnnpack")


@hook("torch-cmake-files-missing")
def torch_cmake_files_missing(match, facts: Facts) -> Optional[Tailored]:
    """torch's CMake package names a file its install lost: the installed release and build, reinstalled whole.
    The release comes from the package's metadata, because `import torch` may fail with the file gone."""
    target = match_groups(match).get("target") or ""
    commands = torch_command(facts, reinstall=True)
    if not commands or getattr(match, "neutral", None) is not None or target not in _TORCH_TARGETS:
        return None  # another package's targets file: not torch's files to reinstall
    return Tailored(summary="Reinstall torch %s (its %s build) over itself, so that every file its CMake package names "
                            "is there again; where the CMake Error names another torch's files (a distribution's "
                            "package under /usr), fix or replace that package instead." % (
                                F.torch_version_str(facts), F.local_tag(facts) or "default"),
                    commands=commands, notes=installed_torch_note(facts))
