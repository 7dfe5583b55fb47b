"""Building C++/CUDA/HIP extensions with torch.utils.cpp_extension: the host compiler, ninja,
the ROCm toolchain, and the setuptools release torch's build helper still works with.
"""

from typing import Optional

from ..advice.commands import pip
from ..model import derived as F
from ..model import versions as V
from ..model.facts import Facts
from .registry import Tailored, hook, match_groups

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


@hook("cpp-extension-cuda-lib")
def cpp_extension_cuda_lib(match, facts: Facts) -> Optional[Tailored]:
    """Which CUDA_HOME the build linked against: a conda environment (lib, not lib64; the dev
    package) or a toolkit without the library."""
    lib = match_groups(match).get("lib") or "cudart"
    home = F.env(facts, "CUDA_HOME") or F.env(facts, "CUDA_PATH")
    prefix = facts.value("python.prefix") if facts.value("python.conda") is True else None
    if not home:
        return None
    notes = ["CUDA_HOME=%s" % home]
    if prefix and home.rstrip("/") == str(prefix).rstrip("/"):
        return Tailored(summary="CUDA_HOME is this conda environment (%s), whose CUDA libraries sit in lib, not lib64, "
                                "and whose lib%s.so (the name the linker needs) comes only with the CUDA development "
                                "packages: install them for torch's CUDA version, and for an older torch that looks only "
                                "in lib64, link lib64 to lib." % (home, lib),
                        commands=["conda install -c nvidia cuda-cudart-dev=%s" % (F.torch_cuda(facts) or "<torch's CUDA version>"),
                                  "[ -e %s/lib64 ] || ln -s %s/lib %s/lib64" % (home, home, home)], notes=notes)
    return Tailored(summary="CUDA_HOME is %s: the linker found no lib%s.so in its lib64 (or lib). Point CUDA_HOME at a "
                            "full CUDA toolkit of torch's CUDA version (e.g. /usr/local/cuda-%s) and rebuild."
                            % (home, lib, F.torch_cuda(facts) or "X.Y"),
                    commands=["ls %s/lib64/lib%s.so %s/lib/lib%s.so" % (home, lib, home, lib)], notes=notes)
