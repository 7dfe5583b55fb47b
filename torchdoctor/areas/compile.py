"""torch.compile and triton: triton missing or mismatched, compilers and headers, Windows.
"""

import re
from typing import Optional, Tuple

from ..model.facts import Facts
from ..model import derived as F
from ..kb import compat
from .registry import WARNING, Remedy, Tailored, rule, finding, hook, installed_torch_note, match_groups
from .companions.common import python_minor, torch_meta_version
from ..advice.commands import pip, system_install, torch_near_build, which_import
from ..model import versions as V





def _marker_holds(facts, marker: Optional[str]) -> bool:
    """Does the wheel's triton environment marker hold for the target interpreter?"""
    if not marker:
        return True
    try:
        from packaging.markers import Marker
        env = {"platform_system": facts.value("os.system") or "Linux",
               "sys_platform": facts.value("python.platform") or "linux",
               "platform_machine": facts.value("python.machine") or facts.value("os.machine") or "",
               "python_version": F.python_minor(facts) or "",
               "python_full_version": facts.value("python.version") or "",
               "implementation_name": (facts.value("python.implementation") or "cpython").lower()}
        return bool(Marker(marker).evaluate(env))
    except Exception:  # noqa: BLE001 - an unparsable marker: assume it applies
        return True


def _satisfies(version: str, spec: str) -> Optional[bool]:
    try:
        from packaging.specifiers import SpecifierSet
        v = F.parse_version(version)
        return SpecifierSet(spec).contains(v, prereleases=True) if v else None
    except Exception:  # noqa: BLE001
        return None


@rule("check", "triton-missing", category="triton-missing", severity=WARNING, requires=('packages.installed',),
       verify=('python -c "import triton; print(triton.__version__)"', 'the triton version torch pins'))
def triton_missing(facts):
    """triton is missing or not the version torch pins: torch.compile cannot build GPU kernels."""
    if F.os_name(facts) != "linux" or F.is_cuda_build(facts) is not True or F.is_rocm_build(facts):
        return None
    tv = F.torch_version_str(facts)
    req = compat.triton_requirement(tv)
    if not req or not _marker_holds(facts, (compat.release(tv) or {}).get("triton_marker")):
        return None
    installed = [(n, F.package_version(facts, n)) for n in ("triton", "pytorch-triton")]
    installed = [(n, v) for n, v in installed if v]
    pip = F.pip_cmd(facts)
    install = '%s install "triton%s"' % (pip, req)
    if not installed:
        return finding(
            "triton is not installed; torch.compile cannot generate GPU kernels",
            detail="torch %s (a Linux CUDA build) requires triton%s, but neither `triton` nor `pytorch-triton` is "
                   "installed. Eager mode works; torch.compile / inductor on a GPU fails with "
                   "`Cannot find a working triton installation`." % (tv, req),
            fix="Install the triton version torch pins.", commands=[install])
    if any(_satisfies(v, req) for _, v in installed):
        return None
    have = ", ".join("%s %s" % nv for nv in installed)
    cmds = ["%s uninstall -y %s" % (pip, " ".join(n for n, _ in installed)), install]
    return finding(
        "triton %s does not match torch %s (needs triton%s)" % (have, tv, req),
        detail="torch %s pins triton%s, but %s is installed (another package or an old nightly replaced it). "
               "torch.compile on a GPU then fails to import triton pieces or miscompiles kernels." % (tv, req, have),
        fix="Reinstall the triton version torch pins.", commands=cmds)


# -- triton / torch.compile --------------------------------------------------------
def _marker_ok(marker: Optional[str], facts: Facts) -> Optional[bool]:
    if not marker:
        return None
    try:
        from packaging.markers import Marker
    except ImportError:  # pragma: no cover
        return None
    py = python_minor(facts)
    if not py:
        return None
    env = {"python_version": "%d.%d" % py, "platform_system": {"linux": "Linux", "windows": "Windows",
                                                              "macos": "Darwin"}.get(F.os_name(facts), "Linux"),
           "platform_machine": facts.value("python.machine") or facts.value("os.machine") or "x86_64",
           "sys_platform": {"linux": "linux", "windows": "win32", "macos": "darwin"}.get(F.os_name(facts), "linux")}
    try:
        return Marker(marker).evaluate(env)
    except Exception:  # noqa: BLE001 - an odd marker must not break the hook
        return None


def _installed_triton(facts: Facts) -> Tuple[Optional[str], Optional[str]]:
    for name in ("triton", "pytorch-triton", "triton-windows", "pytorch-triton-rocm"):
        v = F.package_version(facts, name)
        if v:
            return name, v
    return None, None


def _spec_contains(spec: str, version: str) -> Optional[bool]:
    try:
        from packaging.specifiers import SpecifierSet
        return SpecifierSet(spec).contains(F.parse_version(version).public if F.parse_version(version) else version, prereleases=True)
    except Exception:  # noqa: BLE001
        return None


def _spec_series(spec: Optional[str]) -> Optional[Tuple[int, int]]:
    m = re.search(r"(\d+)\.(\d+)", spec or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def _build_pin(torch_v: str, tag: Optional[str]) -> Optional[str]:
    """The triton requirement of this torch's CUDA build: its +cuXYZ variant's, else the release's
    (the PyPI default); a +cpu build pins nothing."""
    return compat.triton_requirement(torch_v.split("+")[0] + ("+" + tag if tag and tag.startswith("cu") else ""))


@hook("triton-compiler-error")
def triton_compiler_error(match, facts: Facts) -> Optional[Tailored]:
    """The Triton whose compiler failed, the one this torch pins, and the GPU's generation: bf16
    and several layouts need Ampere (sm_80) or newer, so an older GPU meets paths a newer one does
    not, whatever the Triton."""
    name, tv = _installed_triton(facts)
    torch_v = F.torch_version_str(facts)
    gpus = F.all_gpus(facts)
    old = [g for g in gpus if F.capability(g) and F.capability(g) < (8, 0)]
    if not tv and not gpus:
        return None
    notes = (installed_torch_note(facts) if torch_v else []) + (
        ["installed triton: %s %s" % (name, tv)] if tv else []) + ["GPU: %s" % F.gpu_desc(g) for g in gpus]
    tag = V.local_tag(torch_meta_version(facts)) if torch_v else None
    # a CUDA release build's pin only: ROCm/XPU builds use their own Triton packages, and a nightly
    # pins pytorch-triton from the nightly index
    req = _build_pin(torch_v, tag) if torch_v and (not tag or tag.startswith("cu")) and "dev" not in torch_v else None
    keep = " The entry's workarounds (float32, the library's non-Triton path, fewer warps) still apply."
    if old:
        return Tailored(summary="%s is older than Ampere (sm_80): Triton compiles bf16 and several layouts only for "
                                "sm_80 and newer, so kernels tuned on newer GPUs fail here whatever the Triton release. "
                                "Run the layer in float16 or float32, or use the library's non-Triton path, or a newer "
                                "GPU." % F.gpu_desc(old[0]), notes=notes)
    if req and tv:
        notes.append("triton pinned by torch %s: %s" % (torch_v, req))
        if _spec_contains(req, tv) is False:
            return Tailored(summary="The installed %s %s is not the Triton torch %s pins (%s): torch's own kernels and "
                                    "the library's are compiled by a Triton torch was not tested with. Install the "
                                    "pinned one, or the torch release whose pin the kernel library supports.%s"
                                    % (name, tv, torch_v, req, keep),
                            commands=[pip(facts, 'install "triton%s"' % req)], notes=notes)
    return Tailored(notes=notes)


@hook("triton-missing")
def triton(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    osn = F.os_name(facts)
    name, tv = _installed_triton(facts)
    notes = installed_torch_note(facts) + ["installed triton: %s" % ("%s %s" % (name, tv) if tv else "none"),
                                           "OS: %s" % osn]
    tag = V.local_tag(torch_meta_version(facts))
    rel = compat.release(torch_v) or {}
    req = _build_pin(torch_v, tag)
    py = python_minor(facts)
    if tag and not tag.startswith(("cu", "cpu")):
        return None  # ROCm/XPU builds use their own triton packages (pytorch-triton-rocm, ...)
    if tag == "cpu" or (osn == "windows" and not tag):
        what = "the %s build" % tag if tag else "the PyPI build, which is CPU-only on Windows"
        return Tailored(summary="This torch is %s: it pins no triton and cannot run CUDA kernels. triton is only "
                                "needed to compile for NVIDIA GPUs; on the CPU, torch.compile needs a C++ compiler "
                                "instead. Install a CUDA build of torch to compile GPU code." % what,
                        commands=['%s -c "import torch; print(torch.__version__, torch.cuda.is_available())"'
                                  % F.python_cmd(facts)], notes=notes)
    if osn == "windows":
        series = _spec_series(req)
        cmds = []
        if series:
            cmds.append(pip(facts, 'install -U "triton-windows>=%d.%d,<%d.%d"' % (series[0], series[1], series[0],
                                                                                  series[1] + 1)))
            notes.append("triton pinned by torch %s on Linux: %s" % (torch_v, req))
        else:
            cmds.append(pip(facts, "install -U triton-windows"))
        if name == "triton" or name == "pytorch-triton":
            cmds.insert(0, pip(facts, "uninstall -y %s" % name))
        return Tailored(summary="PyTorch publishes no triton for Windows. Either compile with a backend that needs no "
                                "triton (torch.compile(model, backend=\"aot_eager\")) or skip compiling, or install the "
                                "community triton-windows build of the triton series torch %s pins%s (not a PyTorch "
                                "package; it also needs the MSVC build tools)." % (torch_v, " (%s)" % req if req else ""),
                        commands=cmds, notes=notes)
    if osn == "macos":
        return Tailored(summary="triton has no macOS builds; torch.compile on a Mac generates C++ (CPU) or Metal "
                                "(MPS) code. Compile tensors on cpu/mps, or use backend=\"aot_eager\".",
                        commands=[], notes=notes)
    if not req:
        return None
    notes.append("triton pinned by torch %s: %s" % (torch_v, req))
    marker_ok = _marker_ok(rel.get("triton_marker"), facts)
    if marker_ok is False:
        need = compat.compile_min_torch_for_python("%d.%d" % py) if py else None
        target = compat.latest_patch(need) if need else None
        notes.append("pin applies only where: %s" % rel.get("triton_marker"))
        cmds = torch_near_build(facts, target, tag) if target else []
        return Tailored(summary="torch %s declares triton only for %s, so pip installed none for Python %s. Upgrade "
                                "torch%s, or use an older Python." % (
                                    torch_v, rel.get("triton_marker"), "%d.%d" % py if py else "?",
                                    " to %s or newer" % target if target else ""),
                        commands=cmds, notes=notes)
    spec = req if req[:1] in "=<>~!" else "==" + req
    fix = pip(facts, 'install "triton%s"' % spec)
    if tv and name in ("triton",) and _spec_contains(spec, tv) is False:
        return Tailored(summary="triton %s is installed but torch %s needs triton%s; the mismatch breaks Inductor's "
                                "imports (triton.common, AttrsDescriptor, ...). Install the pinned triton." % (
                                    tv, torch_v, spec), commands=[fix], notes=notes)
    if not tv:
        return Tailored(summary="triton is not installed; torch %s pins triton%s." % (torch_v, spec),
                        commands=[fix], notes=notes)
    return Tailored(summary="triton %s matches torch %s here; reinstall it in case the install is broken, and check "
                            "that the failing process uses this interpreter." % (tv, torch_v),
                    commands=[pip(facts, 'install --force-reinstall --no-deps "triton%s"' % spec),
                              which_import(facts, "triton")],
                    notes=notes)


@hook("dynamo-python")
def dynamo_python(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    py = python_minor(facts)
    groups = match_groups(match)
    if py is None and groups.get("py"):
        py = (3, int(groups["py"]))
    if not torch_v or not py:
        return None
    notes = installed_torch_note(facts) + ["Python %d.%d" % py]
    need = compat.compile_min_torch_for_python("%d.%d" % py) if py else None
    if need is None:
        return None
    if not V.older(torch_v, need):
        return Tailored(cause="torch %s already supports torch.compile on Python %d.%d, so the error came from another "
                              "interpreter or environment." % (torch_v, py[0], py[1]),
                        commands=['%s -c "import sys, torch; print(sys.version, torch.__version__)"' % F.python_cmd(facts)],
                        notes=notes)
    target = compat.latest_patch(need) or need
    cmds = torch_near_build(facts, target, V.local_tag(torch_meta_version(facts)))
    return Tailored(summary="torch.compile accepts Python %d.%d from torch %s on; torch %s is installed. Upgrade torch "
                            "(with its companions) to %s or newer, or run on an older Python." % (
                                py[0], py[1], need, torch_v, target),
                    commands=cmds, notes=notes)


def compiler_install(facts: Facts) -> Optional[Remedy]:
    """How to get the C++ compiler TorchInductor calls on this OS (None: this torch has no
    CPU compiler backend for the OS, which compiler_remedy words)."""
    osn = F.os_name(facts)
    if osn == "windows":
        return Remedy("TorchInductor on Windows compiles with MSVC's cl.exe, which must be on PATH: install "
                      "the Visual Studio Build Tools with \"Desktop development with C++\", then start Python "
                      "from a shell where vcvars64.bat has run (the \"x64 Native Tools Command Prompt\").",
                      ["winget install Microsoft.VisualStudio.2022.BuildTools --override "
                       "\"--wait --passive --add Microsoft.VisualStudio.Workload.VCTools --includeRecommended\"",
                       "\"C:\\Program Files (x86)\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Auxiliary"
                       "\\Build\\vcvars64.bat\"",
                       "where cl"])
    if osn == "macos":
        return Remedy("Install Apple's command line tools, which provide clang++ for TorchInductor.",
                      ["xcode-select --install", "clang++ --version"])
    cmd = system_install(facts, "g++", dnf="gcc-c++", pacman="gcc")
    if facts.value("python.conda") is True:
        return Remedy("Install a C++ compiler into this conda environment (or the system's g++), then retry.",
                      ["conda install -c conda-forge gxx_linux-64", cmd, "g++ --version"])
    return Remedy("Install g++ (TorchInductor's CPU backend compiles C++), or point CXX at a compiler.",
                  [cmd, "g++ --version"])


def headers_install(facts: Facts) -> Optional[Remedy]:
    """How to get Python.h for the target interpreter (None: nothing this OS's packages fix)."""
    py = python_minor(facts)
    osn = F.os_name(facts)
    if osn == "windows":
        return Remedy("The embedded or Store Python lacks Python.h and python3.lib. Use a full python.org or conda "
                      "Python, or copy its include/ and libs/ folders next to the embedded python.exe.")
    if osn == "macos":
        return Remedy("Install Apple's command line tools (their Python ships its headers), or use a python.org, "
                      "Homebrew or conda Python.", ["xcode-select --install"])
    if osn != "linux" or not py:
        return None
    if facts.value("python.conda") is True:
        return Remedy("The conda Python ships Python.h; reinstall this environment's Python to restore it.",
                      ["conda install --force-reinstall python=%d.%d" % py])
    dnf = "python%d.%d-devel" % py if py >= (3, 11) else "python3-devel"
    cmd = system_install(facts, "python%d.%d-dev" % py, dnf=dnf, pacman="python")
    return Remedy("Install the Python %d.%d development package, which puts Python.h where this Python looks." % py,
                  [cmd])


@hook("cxx-compiler")
def cxx_compiler(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    torch_v = F.torch_version_str(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % osn]
    if osn == "windows" and torch_v and V.older(torch_v, compat.windows_inductor_min()):
        return Tailored(summary="torch %s has no TorchInductor for Windows (it arrived in %s); upgrade torch, or use "
                                "backend=\"aot_eager\"." % (torch_v, compat.windows_inductor_min()),
                        commands=torch_near_build(facts, compat.latest_patch(compat.windows_inductor_min()) or compat.windows_inductor_min(),
                                                V.local_tag(torch_meta_version(facts))), notes=notes)
    r = compiler_install(facts)
    if osn == "linux" and facts.value("python.conda") is not True:
        notes = notes + ["distro: %s" % (facts.value("os.distro") or "?")]
    return Tailored(summary=r.summary, commands=r.commands, notes=notes) if r else None


@hook("python-headers")
def python_headers(match, facts: Facts) -> Optional[Tailored]:
    py = python_minor(facts)
    osn = F.os_name(facts)
    notes = ["Python %s (%s)" % ("%d.%d" % py if py else "?", facts.value("python.executable", "?")), "OS: %s" % osn]
    if osn == "macos":
        return None
    r = headers_install(facts)
    if r is None:
        return None
    summary = r.summary if osn == "windows" else "triton and TorchInductor compile C code against this Python's " \
        "headers. " + r.summary
    return Tailored(summary=summary, commands=r.commands, notes=notes)


@hook("compile-windows")
def compile_windows(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    notes = installed_torch_note(facts) + ["OS: %s" % F.os_name(facts)]
    if not V.older(torch_v, compat.windows_inductor_min()):
        return Tailored(cause="torch %s has TorchInductor for Windows, so this message came from an older torch in "
                              "another environment." % torch_v,
                        commands=[which_import(facts, "torch")],
                        notes=notes)
    target = compat.latest_patch(compat.windows_inductor_min()) or compat.windows_inductor_min()
    return Tailored(summary="torch %s refuses torch.compile's default backend on Windows; torch %s or newer compiles "
                            "for the CPU with MSVC (GPU kernels also need triton-windows). Upgrade, or pass "
                            "backend=\"aot_eager\", or skip compiling." % (torch_v, compat.windows_inductor_min()),
                    commands=torch_near_build(facts, target, V.local_tag(torch_meta_version(facts))), notes=notes)
