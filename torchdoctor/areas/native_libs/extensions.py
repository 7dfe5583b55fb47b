"""Compiled extensions and the CUDA toolkit that builds them: built for another torch,
xformers, libtorch not found, nvcc against torch's CUDA.
"""

import re
import shlex
from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ...model import versions as V
from ...kb import compat
from ..registry import Remedy, WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups
from ..cpu_only_build import tailor_cpu_only_build
from ..cuda.arch import tailor_arch_unsupported
from ..install.common import INDEX, advice_for, installed_version, python_note
from ...advice.commands import pip, torch_command
from ..optional_packages import dist_name, report_key




def toolkit_remedy(facts: Facts, nvcc: str, tcuda: str) -> Remedy:
    """nvcc and torch's CUDA differ: build with a toolkit of torch's CUDA (CUDA_HOME), or
    switch torch to the variant that matches nvcc where the installed release has one."""
    nvcc_mm = ".".join(str(nvcc).split(".")[:2])
    home = (F.set_env_cmd(facts, "CUDA_HOME", "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v%s" % tcuda)
            if F.os_name(facts) == "windows" else F.set_env_cmd(facts, "CUDA_HOME", "/usr/local/cuda-%s" % tcuda))
    base = F.torch_base_version(facts)
    variant = compat.variant_for_cuda(nvcc_mm)
    switch = torch_command(facts, variant=variant, reinstall=True) if base and variant and \
        variant in compat.cuda_variants(base) and compat.cuda_of_variant(variant) != tcuda else []
    summary = "Build with a CUDA %s toolkit (set CUDA_HOME to it)%s." % (
        tcuda, ", or switch torch to its %s build so it matches nvcc %s" % (variant, nvcc_mm) if switch else "")
    return Remedy(summary, [home] + switch)


@rule("check", "cuda-toolkit-mismatch", category="cuda-toolkit-mismatch", severity=WARNING,
       verify=('nvcc --version', 'the CUDA release torch was built with'))
def toolkit_mismatch(facts):
    """System nvcc has another CUDA major version than torch: extension builds fail."""
    cuda, nvcc = F.torch_cuda(facts), F.nvcc_version(facts)
    if not cuda or not nvcc:
        return None
    if cuda.split(".")[0] == nvcc.split(".")[0]:
        return None
    return finding(
        "System CUDA toolkit %s differs from torch's CUDA %s" % (nvcc, cuda),
        detail="torch runs fine (its wheel bundles the CUDA %s runtime), but compiling CUDA extensions "
               "(torch.utils.cpp_extension, pip install of flash-attn, apex, …) with nvcc %s at %s fails with "
               "'The detected CUDA version (%s) mismatches the version that was used to compile PyTorch (%s)'."
               % (cuda, nvcc, facts.value("toolkit.nvcc_path"), nvcc, cuda),
        fix=toolkit_remedy(facts, nvcc, cuda).summary, commands=toolkit_remedy(facts, nvcc, cuda).commands)


_EXT_PACKAGES = (
    ("flash_attn", "flash-attn"), ("xformers", "xformers"), ("mmcv", "mmcv"), ("detectron2", "detectron2"),
    ("pytorch3d", "pytorch3d"), ("torch_scatter", "torch-scatter"), ("torch_sparse", "torch-sparse"),
    ("torch_cluster", "torch-cluster"), ("amp_C", "apex"), ("fused_layer_norm", "apex"), ("apex", "apex"),
    ("deepspeed", "deepspeed"), ("bitsandbytes", "bitsandbytes"), ("torchaudio", "torchaudio"),
    ("vllm", "vllm"), ("exllamav2", "exllamav2"), ("causal_conv1d", "causal-conv1d"),
    ("selective_scan", "mamba-ssm"), ("mamba", "mamba-ssm"), ("_XLAC", "torch_xla"),
    ("transformer_engine", "transformer_engine[pytorch]"),
)
# The library a loader names: `/.../site-packages/_XLAC.cpython-38-...so: undefined symbol` (a
# top-level module) or `/.../site-packages/diff_gaussian_rasterization/_C.so` (a package's part).
_LOADED = re.compile(r"(?:(?:site|dist)-packages[\\/](?P<top>[A-Za-z_][\w.-]{0,80}?)[\\/](?:[^\s:'\"]{0,300}?[\\/]|)|"
                     r"(?:site|dist)-packages[\\/]|[\\/]|^|\s)(?P<so>[\w.-]{1,120}\.so)[\d.]{0,6}: undefined symbol")


def _ext_package(so: str) -> Optional[str]:
    name = so.split(".")[0].lower()
    for prefix, pkg in _EXT_PACKAGES:
        if name.startswith(prefix.lower()):
            return pkg
    return None


def _loaded_package(g, line: str, facts: Facts) -> Optional[str]:
    """The distribution whose library failed to load: the pattern's `so` group, else the loader's
    path on the matched line (a known top-level module, or a package folder under site-packages
    whose distribution the facts show installed: a folder's name on PyPI may be another project's,
    simple_knn's for one)."""
    m = _LOADED.search(line or "")
    so = g.get("so") or (m.group("so") if m else "")
    pkg = _ext_package(so)
    if pkg is None and m and m.group("top") and m.group("so") == so:
        dist = dist_name(m.group("top"))
        # torch's own libraries and Triton's: a bare reinstall would bring PyPI's latest, not torch's pin
        own = dist.lower() in ("torch", "triton", "pytorch-triton") or dist.lower().startswith("nvidia")
        pkg = dist if not own and F.package_version(facts, report_key(dist)) else None
    return pkg


@hook("extension-rebuild")
def extension_rebuild(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    tv = F.torch_version_str(facts)
    pkg = _loaded_package(g, getattr(match, "text", "") or "", facts)
    if not tv and not pkg:
        return None
    notes = installed_torch_note(facts) if tv else []
    pver = installed_version(facts, report_key(pkg)) if pkg else None
    if pkg:
        notes.append("%s %s" % (pkg, pver or "(version unknown)"))
    cause = None
    if "__cxx11" in (g.get("sym") or ""):
        # the extension was compiled with the cxx11 std::string ABI; torch's own setting decides
        # whether that is the mismatch (a pre-cxx11 torch: pip's wheels before 2.7) or only the
        # symbol's spelling (the function is gone from this torch release)
        cause = ("The missing symbol uses the cxx11 std::string ABI: if torch._C._GLIBCXX_USE_CXX11_ABI prints False, "
                 "the extension was built with the other ABI setting than this torch (for prebuilt wheels pick the "
                 "cxx11abiTRUE/FALSE file that matches it); if True, the function is simply not in this torch release.")
    check = ('%s -c "import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)"'
             % F.python_cmd(facts))
    if pkg == "torch_xla":
        # torch_xla's _XLAC is built against one torch release: the two are installed as a pair,
        # and torch_xla's releases stop before torch's (PyPI's latest may be older than this torch)
        xla = ".".join((pver or "").split("+")[0].split(".")[:2])  # torch_xla 2.8.1 goes with torch 2.8.x
        summary = ("torch_xla is built for exactly one torch release (torch_xla X.Y.Z with torch X.Y.Z; a nightly "
                   "torch_xla with the nightly torch of the same day): install the torch of the installed "
                   "torch_xla's release%s, or a torch_xla built for this torch where one exists."
                   % (" (%s)" % xla if xla else ""))
        cmds = [check, pip(facts, "show torch torch_xla")]
        if xla and V.release(xla) and "dev" not in (pver or ""):
            cmds.append(pip(facts, 'install "torch==%s.*"' % xla))
        return Tailored(cause=cause, summary=summary, commands=cmds, notes=notes)
    target = pkg or "<extension-package>"
    # --no-deps: a forced reinstall of the extension alone, without pip fetching torch again (from
    # the configured index, which may serve another build of it)
    cmds = [check, "%s install --no-build-isolation --no-cache-dir --force-reinstall --no-deps %s" % (
        F.pip_cmd(facts), '"%s"' % target if "[" in target else target)]
    summary = "Rebuild/reinstall %s against the installed torch%s." % (target, " %s" % tv if tv else "")
    return Tailored(cause=cause, summary=summary, commands=cmds, notes=notes)


@hook("xformers-mismatch")
def xformers_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    tv = F.torch_version_str(facts) or g.get("have")
    if not tv:
        return None
    tag = tv.partition("+")[2] or None
    base = tv.split("+")[0]
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else ["torch %s (from the message)" % tv]
    xv = installed_version(facts, "xformers")
    if xv:
        notes.append("xformers %s" % xv)
    if g.get("built"):
        notes.append("xformers was built for torch %s" % g["built"])
    if tag == "cpu":
        adv = advice_for(facts)
        cuda_variant = adv.variant if adv.variant and adv.variant.startswith("cu") else None
        cmds = list(adv.commands) if cuda_variant else []
        if cuda_variant:
            cmds.append("%s install -U xformers --index-url %s%s" % (F.pip_cmd(facts), INDEX, cuda_variant))
        return Tailored(cause="The installed torch %s is a CPU-only build; xformers' kernels need a CUDA torch." % tv,
                        summary="Install a CUDA build of torch first, then the xformers built for it. " + (adv.why or ""),
                        commands=cmds or None, notes=notes)
    if tag and tag.startswith("cu"):
        return Tailored(summary="Install xformers from the PyTorch index for %s together with the torch you have, so "
                                "pip picks the xformers release built for torch %s." % (tag, base),
                        commands=["%s install torch==%s xformers --index-url %s%s" % (F.pip_cmd(facts), base, INDEX, tag)],
                        notes=notes)
    return None


@hook("cuda-toolkit-mismatch")
def tailor_cuda_toolkit_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    nvcc = g.get("nvcc") or F.nvcc_version(facts)
    tcuda = g.get("torch_cuda") or F.torch_cuda(facts) or compat.cuda_of_variant(F.local_tag(facts))
    if not nvcc or not tcuda:
        return None
    notes = ["CUDA toolkit (nvcc) %s" % nvcc, "torch built with CUDA %s" % tcuda]
    if F.torch_version_str(facts):
        notes = installed_torch_note(facts) + notes
    remedy = toolkit_remedy(facts, nvcc, tcuda)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("torch-cmake-cuda")
def tailor_torch_cmake_cuda(match, facts: Facts) -> Optional[Tailored]:
    """torch's cuda.cmake refused the CUDA toolkit it found: torch's own CUDA, named to CMake (FindCUDA
    reads CUDA_TOOLKIT_ROOT_DIR, CUDA_PATH and PATH, not CUDA_HOME; the compiler is CMAKE_CUDA_COMPILER).
    The torch read here may not be the libtorch the project finds: the note says which it is."""
    nvcc, tcuda = F.nvcc_version(facts), F.torch_cuda(facts)
    if not tcuda or match_groups(match).get("cudnn"):
        return None  # no CUDA torch here; a cuDNN refusal: the entry's words
    windows = F.os_name(facts) == "windows"
    root = ("C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v%s" % tcuda if windows
            else "/usr/local/cuda-%s" % tcuda)
    notes = installed_torch_note(facts) + (["nvcc %s at %s" % (nvcc, facts.value("toolkit.nvcc_path") or "?")]
                                           if nvcc else ["no nvcc found on this machine's PATH"])
    site = facts.value("packages.installed.torch.location")
    prefix = ("%s/torch/share/cmake" % str(site).replace("\\", "/")) if isinstance(site, str) else None
    if windows:  # Visual Studio's generator picks the toolkit with -T cuda=, not CMAKE_CUDA_COMPILER
        commands = ["del CMakeCache.txt", 'cmake -T cuda="%s" -DCUDA_TOOLKIT_ROOT_DIR="%s"%s ..' % (
            root, root, ' -DCMAKE_PREFIX_PATH="%s"' % prefix if prefix else "")]
    else:
        commands = ["rm -f CMakeCache.txt", "cmake -DCUDA_TOOLKIT_ROOT_DIR=%s -DCMAKE_CUDA_COMPILER=%s/bin/nvcc%s .." % (
            shlex.quote(root), shlex.quote(root), " -DCMAKE_PREFIX_PATH=%s" % shlex.quote(prefix) if prefix else "")]
    return Tailored(summary="torch here is built with CUDA %s: configure with that toolkit (install it if it is not "
                            "there), named to CMake rather than found on PATH, from an emptied build folder." % tcuda,
                    commands=commands, notes=notes)


@hook("extension-libtorch")
def extension_libtorch(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    lib = groups.get("lib") or ""
    if groups.get("prog"):
        # A program, not Python: the dynamic loader's path decides, whatever torch this environment has.
        prog = groups["prog"]
        return Tailored(cause="%s was linked against libtorch without an rpath, and the dynamic loader finds %s neither in "
                              "LD_LIBRARY_PATH nor in the system's library folders." % (prog, lib),
                        summary="Put the lib folder of the libtorch the program was built with on LD_LIBRARY_PATH (check "
                                "the variable's spelling: a typo leaves it unset), or relink it with an rpath; ldd then "
                                "shows every libtorch library found.",
                        commands=["echo \"$LD_LIBRARY_PATH\"", "export LD_LIBRARY_PATH=<libtorch>/lib:$LD_LIBRARY_PATH",
                                  "ldd %s | grep -E 'torch|c10'" % shlex.quote(prog)])
    tv = F.torch_version_str(facts)
    if not tv:
        if not facts.value("python.executable"):
            return None
        adv = advice_for(facts)
        return Tailored(cause="torch is not installed in %s, so nothing provides %s." %
                              (facts.value("python.executable"), lib or "torch's libraries"),
                        summary="Install torch first: %s" % adv.why, commands=adv.commands or None,
                        notes=python_note(facts))
    notes = installed_torch_note(facts)
    if "cuda" in lib and F.is_cuda_build(facts) is False:
        adv = advice_for(facts)
        return Tailored(cause="The extension is a CUDA build but the installed torch %s is CPU-only, so %s does not "
                              "exist here." % (tv, lib),
                        summary="Install the CPU build of the extension, or a CUDA build of torch: %s" % adv.why,
                        commands=adv.commands or None, notes=notes)
    return None


@hook("extension-needs-cuda-torch")
def extension_needs_cuda_torch(match, facts: Facts) -> Optional[Tailored]:
    """An extension that needs CUDA (xFormers' kernels, a CUDA build) beside a CPU-only torch:
    the CPU-only build's fix."""
    return tailor_cpu_only_build(match, facts)


@hook("extension-arch-unsupported")
def extension_arch_unsupported(match, facts: Facts) -> Optional[Tailored]:
    """An extension build that names a GPU architecture the installed torch does not know: the
    architecture's fix."""
    return tailor_arch_unsupported(match, facts)


# torchao release -> the torch release its C++/CUDA kernels load with (torchao/__init__.py of
# each tag; pytorch/ao#2919's table). From 0.17 the kernels use torch's stable ABI: any torch
# from 2.11 on.
TORCHAO_FOR_TORCH = (("2.10.0", "0.16.0"), ("2.9.1", "0.15.0"), ("2.9.0", "0.14.1"), ("2.8.0", "0.13.0"),
                     ("2.7.1", "0.12.0"), ("2.7.0", "0.11.0"), ("2.6.0", "0.12.0"), ("2.5.0", "0.12.0"))
TORCHAO_STABLE_ABI = ("2.11.0", "0.17.0")


@hook("torchao-release")
def tailor_torchao_release(match, facts: Facts) -> Optional[Tailored]:
    """The torchao release whose kernels load with the torch the message names."""
    groups = match_groups(match)
    have = F.parse_version((groups.get("torch") or "").split("+")[0])
    if have is None:
        return None
    triple = "%d.%d.%d" % (have.major, have.minor, have.micro)
    if have >= F.parse_version(TORCHAO_STABLE_ABI[0]):
        ao = TORCHAO_STABLE_ABI[1]
        spec = "torchao>=%s" % ao
    else:
        ao = next((a for t, a in TORCHAO_FOR_TORCH if t == triple), None)
        if ao is None:
            return Tailored(summary="No torchao release is built for torch %s: install the torch release a torchao "
                                    "release is built for (torch 2.11 or newer takes any torchao from 0.17)." % triple,
                            notes=["torch %s" % triple])
        spec = "torchao==%s" % ao
    return Tailored(summary="torchao %s is built for torch %s: install it (or upgrade torch to 2.11 or newer, which "
                            "takes any torchao from 0.17)." % (ao, triple),
                    commands=['python -m pip install "%s"' % spec], notes=["torch %s" % triple])


@hook("extension-without-cuda")
def extension_without_cuda(match, facts: Facts) -> Optional[Tailored]:
    """An extension's own words for a build without CUDA: mmcv's per-op device registry, and pykeops,
    which builds no package but compiles each formula on first use into its cache, so a formula
    compiled where CUDA was not found stays CPU-only until the cache is cleared."""
    groups = match_groups(match)
    if groups.get("mmcv_op"):
        return _mmcv_without_cuda(groups["mmcv_op"], facts)
    if not groups.get("keops"):
        return None
    py = F.python_cmd(facts)
    return Tailored(summary="pykeops compiled this formula where it found no CUDA (nvcc and the CUDA headers, CUDA_HOME or "
                            "CUDA_PATH): make CUDA visible to the process, empty pykeops' cache so the formula is "
                            "compiled again, and check the GPU bindings; or compute on the CPU (tagHostDevice=0).",
                    commands=['%s -c "import pykeops; pykeops.clean_pykeops(); pykeops.test_torch_bindings()"' % py])


def _mmcv_without_cuda(op: str, facts: Facts) -> Tailored:
    """mmcv registers each op's kernels per device when it is compiled: none for CUDA means it was
    built where no CUDA was found. The same release is built again, so mmdet and its pins stay."""
    check = ('%s -c "import mmcv, torch; from mmcv.ops import get_compiling_cuda_version; '
             'print(mmcv.__version__, get_compiling_cuda_version(), torch.version.cuda)"' % F.python_cmd(facts))
    installed = next(((d, F.package_release(facts, d)) for d in ("mmcv", "mmcv-full") if F.package_release(facts, d)),
                     None)
    commands = [check]
    if installed:
        commands.append("MMCV_WITH_OPS=1 FORCE_CUDA=1 %s" % pip(
            facts, "install --no-cache-dir --no-build-isolation --force-reinstall --no-deps %s==%s" % installed))
    return Tailored(summary="mmcv's compiled ops have no CUDA kernel for %s: this mmcv was built without CUDA (a CPU "
                            "wheel, mmcv-lite, or a source build where no GPU or CUDA_HOME was found, such as a login "
                            "node; its CUDA compiler then reads 'not available'). Build the same release again where "
                            "torch sees CUDA, with MMCV_WITH_OPS=1 FORCE_CUDA=1, or install OpenMMLab's prebuilt "
                            "wheel for this torch and CUDA." % op, commands=commands)
