"""Tailoring for companion packages, NumPy, triton / torch.compile, MPS and DataLoader errors.

Every hook reads the installed versions from the facts (dist-info metadata by default) and
the compatibility tables in kb/compat.py, and turns the generic fix of a known error into
the exact command for this interpreter. A hook returns None when the facts add nothing.
"""

import re
from typing import Any, Dict, List, Optional, Tuple

from ...checks import _facts as F
from ...facts import Facts
from ...kb import compat
from ..tailor import Tailored, hook, installed_torch_note

WHL = "https://download.pytorch.org/whl"



# -- small helpers -----------------------------------------------------------------
def _v(text: Any):
    return F.parse_version(text) if isinstance(text, str) else None


def _tag(version: Optional[str]) -> Optional[str]:
    """Local tag of a version string: 'cpu', 'cu130', 'rocm6.2'; None when it has none."""
    return version.split("+", 1)[1] if version and "+" in version else None


def _minor(version: Optional[str]) -> Optional[Tuple[int, int]]:
    v = _v(version)
    return tuple(v.release[:2]) if v and len(v.release) >= 2 else None  # type: ignore[return-value]


def _older(a: Optional[str], b: Optional[str]) -> Optional[bool]:
    va, vb = _v(a), _v(b)
    if va is None or vb is None:
        return None
    return va.release < vb.release


def _pip(facts: Facts, args: str) -> str:
    return "%s %s" % (F.pip_cmd(facts), args)


def _with_interpreter(cmd: str, facts: Facts) -> str:
    return F.pip_cmd(facts) + cmd[3:] if cmd.startswith("pip ") else cmd


def _pin(name: str, version: str) -> str:
    """name==1.2.3, name==0.28.* for a bare series, name<spec> for a specifier."""
    if version[:1] in "=<>~!":
        return '"%s%s"' % (name, version)
    if version.endswith(".*"):
        return "%s==%s" % (name, version)
    return "%s==%s%s" % (name, version, ".*" if version.count(".") == 1 else "")


def _index_args(tag: Optional[str]) -> str:
    """The wheel index a companion must come from to match torch's build variant."""
    return " --index-url %s/%s" % (WHL, tag) if tag else ""


def _torch_meta_version(facts: Facts) -> Optional[str]:
    """torch's version as its dist-info says it (carries +cpu/+cu130 for wheels from
    download.pytorch.org, no tag for PyPI wheels), else what the import reported."""
    return F.package_version(facts, "torch") or F.torch_version_str(facts)


def _macos_version(facts: Facts) -> Optional[str]:
    v = facts.value("os.macos_version")
    return v if isinstance(v, str) and v else None


def _python_minor(facts: Facts) -> Optional[Tuple[int, int]]:
    return _minor(facts.value("python.version"))


def _release_variant(target: str, tag: Optional[str]) -> Optional[str]:
    """The variant of release `target` closest to the installed build `tag`: the same
    one if shipped, else the newest CUDA variant with the same major (None = PyPI)."""
    if not tag:
        return None
    variants = compat.cuda_variants(target)
    if tag == "cpu" or tag in variants:
        return tag
    m = re.match(r"cu(\d+?)(\d)$", tag)
    if m:
        same_major = [v for v in variants if re.match(r"cu%s\d$" % m.group(1), v)]
        if same_major:
            return sorted(same_major)[-1]
    return None


def _torch_install(facts: Facts, target: str, tag: Optional[str]) -> List[str]:
    variant = _release_variant(target, tag)
    cmds = compat.install_command(target, variant, os=F.os_name(facts))
    if not cmds and variant is not None:
        cmds = compat.install_command(target, None, os=F.os_name(facts))
    return [_with_interpreter(c, facts) for c in cmds]


def _groups(match: Any) -> Dict[str, str]:
    g = getattr(match, "groups", None)
    return g if isinstance(g, dict) else {}


def _entry_id(match: Any) -> str:
    return getattr(match, "id", "") or getattr(getattr(match, "entry", None), "id", "")


# -- torchvision / torchaudio ------------------------------------------------------
def _companion(kind: str, match: Any, facts: Facts) -> Optional[Tailored]:
    groups = _groups(match)
    torch_v = _torch_meta_version(facts) or groups.get("have")
    comp_v = F.package_version(facts, kind) or groups.get("comp")
    if not torch_v:
        return None
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else ["torch %s (from the error text)" % torch_v]
    notes.append("installed %s: %s" % (kind, comp_v or "not installed"))
    if kind == "torchvision":
        want = compat.matching_torchvision(torch_v)
        ok = compat.torchvision_compatible(torch_v, comp_v) if comp_v else None
    else:
        want = compat.matching_torchaudio(torch_v)
        ok = compat.torchaudio_compatible(torch_v, comp_v) if comp_v else None
        rel = compat.release(torch_v) or {}
        if want and not rel.get("torchaudio"):
            # stable-ABI era: any torchaudio 2.11.x fits; which patch each index carries
            # is not recorded, so pin the series (as kb/compat.install_command does)
            want = ".".join(want.split(".")[:2]) + ".*"
    check = '%s -c "import torch, %s; print(torch.__version__, %s.__version__)"' % (
        F.python_cmd(facts), kind, kind)
    if not want:
        return Tailored(
            summary="No %s release is recorded as the match for torch %s yet; install the newest %s "
                    "that declares support for it, from the same index as torch, or move torch to a "
                    "release with a known pairing." % (kind, torch_v, kind),
            commands=[_pip(facts, "install --no-deps --upgrade %s%s" % (kind, _index_args(_tag(torch_v)))), check],
            notes=notes)
    tag = _tag(torch_v)
    fix = _pip(facts, "install --no-deps --force-reinstall %s%s" % (_pin(kind, want), _index_args(tag)))
    where = ("the %s index (%s/%s)" % (tag, WHL, tag)) if tag else (
        "PyPI (the CUDA build on Linux, CPU on Windows)" if F.os_name(facts) != "macos" else "PyPI")
    if comp_v is None:
        return Tailored(summary="%s is not installed in this environment; install %s, the release paired with "
                                "torch %s, from %s." % (kind, want, torch_v, where),
                        commands=[fix.replace(" --force-reinstall", ""), check], notes=notes)
    if ok is False:
        summary = ("%s %s was built for another torch; torch %s needs %s %s. Reinstall it from %s "
                   "(--no-deps keeps pip from replacing torch)." % (kind, comp_v, torch_v, kind, want, where))
        cmds = [fix, check]
        if kind == "torchvision":
            paired = compat.torch_for_torchvision(comp_v)
            if paired and paired[:1].isdigit() and _older(torch_v, paired):
                up = _torch_install(facts, compat.latest_patch(paired) or paired, tag)
                if up:
                    summary += " Or keep %s %s and move torch up to %s with its companions." % (kind, comp_v, paired)
                    cmds = [fix] + up + [check]
        return Tailored(summary=summary, commands=cmds, notes=notes)
    ctag = _tag(comp_v)
    variant_differs = (tag or "") != (ctag or "")
    if kind == "torchaudio" and not (compat.release(torch_v) or {}).get("torchaudio"):
        # torchaudio >= 2.11 only refuses a different CUDA *major* (pytorch/audio#4226)
        variant_differs = bool(tag and ctag and tag[:4] != ctag[:4] and tag.startswith("cu") and ctag.startswith("cu"))
    if variant_differs:
        return Tailored(
            summary="The versions pair up, but the builds differ: torch is %s and %s is %s. Reinstall %s %s "
                    "from %s so both use the same CUDA/CPU variant." % (
                        "+" + tag if tag else "the PyPI build", kind, "+" + ctag if ctag else "the PyPI build",
                        kind, want, where),
            commands=[fix, check], notes=notes)
    if ok is True:
        return Tailored(
            cause="In this interpreter torch %s and %s %s are a matching pair, so the process that failed "
                  "probably ran another environment (compare `which python` with %s), or imported a stale "
                  "%s build from the current directory." % (torch_v, kind, comp_v,
                                                            facts.value("python.executable", "this Python"), kind),
            commands=[check], notes=notes)
    return Tailored(summary="torch %s pairs with %s %s; %s %s is installed. Reinstall the paired release from %s."
                            % (torch_v, kind, want, kind, comp_v, where),
                    commands=[fix, check], notes=notes)


@hook("torchvision_mismatch")
def torchvision_mismatch(match, facts: Facts) -> Optional[Tailored]:
    return _companion("torchvision", match, facts)


@hook("torchaudio_mismatch")
def torchaudio_mismatch(match, facts: Facts) -> Optional[Tailored]:
    return _companion("torchaudio", match, facts)


@hook("torchvision_functional_tensor")
def torchvision_functional_tensor(match, facts: Facts) -> Optional[Tailored]:
    tv = F.package_version(facts, "torchvision")
    if not tv:
        return None
    notes = ["installed torchvision: %s" % tv]
    if _older(tv, "0.17"):
        return Tailored(cause="torchvision %s still ships torchvision.transforms.functional_tensor, so the import "
                              "ran in another environment or against another torchvision." % tv,
                        commands=['%s -c "import torchvision; print(torchvision.__file__, torchvision.__version__)"'
                                  % F.python_cmd(facts)], notes=notes)
    legacy_torch = "2.1.2"
    legacy = compat.install_command(legacy_torch, _release_variant(legacy_torch, _tag(_torch_meta_version(facts))),
                                    os=F.os_name(facts))
    cmds = ['%s -c "import basicsr, os; print(os.path.dirname(basicsr.__file__))"' % F.python_cmd(facts)]
    cmds += [_with_interpreter(c, facts) for c in legacy]
    return Tailored(
        summary="torchvision %s no longer has the module (removed in 0.17). Change the import in the package named "
                "in the traceback to `from torchvision.transforms.functional import rgb_to_grayscale` (for basicsr: "
                "basicsr/data/degradations.py); pinning the old module back means torch %s with torchvision 0.16.2."
                % (tv, legacy_torch),
        commands=cmds, notes=notes)


@hook("torchaudio_io_backend")
def torchaudio_io_backend(match, facts: Facts) -> Optional[Tailored]:
    ta = F.package_version(facts, "torchaudio")
    if not ta:
        return None
    osn = F.os_name(facts)
    notes = ["installed torchaudio: %s" % ta]
    have = {n: F.package_version(facts, n) for n in ("soundfile", "torchcodec")}
    notes += ["%s: %s" % (n, v or "not installed") for n, v in have.items()]
    ffmpeg = {"linux": "sudo apt-get install -y ffmpeg", "macos": "brew install ffmpeg",
              "windows": "conda install -c conda-forge ffmpeg"}.get(osn, "conda install -c conda-forge ffmpeg")
    if not _older(ta, "2.9") or _entry_id(match) == "torchaudio-torchcodec-required":
        # torchaudio 2.9+: load()/save() are aliases of load_with_torchcodec/save_with_torchcodec
        if have["torchcodec"]:
            return Tailored(summary="torchaudio %s decodes through TorchCodec (%s is installed), which needs the FFmpeg "
                                    "shared libraries: install FFmpeg, or read the file with soundfile instead."
                                    % (ta, have["torchcodec"]),
                            commands=[ffmpeg, _pip(facts, "install soundfile")], notes=notes)
        return Tailored(summary="torchaudio %s decodes and encodes through TorchCodec here, and TorchCodec is not "
                                "installed: install torchcodec (plus FFmpeg), or read audio with soundfile." % ta,
                        commands=[_pip(facts, "install torchcodec"), ffmpeg, _pip(facts, "install soundfile")],
                        notes=notes)
    if not have["soundfile"]:
        return Tailored(summary="torchaudio %s found no usable backend: soundfile is not installed and no FFmpeg/SoX "
                                "libraries were loadable. `pip install soundfile` is the quickest fix (WAV/FLAC/OGG); "
                                "install FFmpeg for MP3/MP4." % ta,
                        commands=[_pip(facts, "install soundfile"), ffmpeg], notes=notes)
    return Tailored(summary="soundfile %s is installed, so the file format is the problem (soundfile cannot read "
                            "MP3/MP4 with old libsndfile) or the process ran another environment; install FFmpeg for "
                            "compressed formats." % have["soundfile"],
                    commands=[ffmpeg, '%s -c "import torchaudio; print(torchaudio.list_audio_backends())"'
                              % F.python_cmd(facts)], notes=notes)


# -- NumPy -------------------------------------------------------------------------
def _numpy_upgrade_target(osn: str) -> str:
    return "2.4.1" if osn == "windows" else "2.3.1"


@hook("numpy_abi")
def numpy_abi(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    osn = F.os_name(facts)
    np_v = F.package_version(facts, "numpy")
    notes = installed_torch_note(facts) + ["installed numpy: %s" % (np_v or "not installed"), "OS: %s" % osn]
    sup = compat.numpy2_supported(torch_v, osn)
    if sup is not None:
        notes.append("torch %s built for NumPy 2 on %s: %s" % (torch_v, osn, "yes" if sup else "no"))
    eid = _entry_id(match)
    below2 = _pip(facts, 'install "numpy<2"')
    upgrade_np = _pip(facts, 'install --upgrade "numpy<2"' if sup is False else "install --upgrade numpy")
    where_np = '%s -c "import numpy; print(numpy.__version__, numpy.__file__)"' % F.python_cmd(facts)
    if np_v is None:
        return Tailored(summary="NumPy is not installed in this environment%s." % (
                            "; torch %s predates NumPy 2, so install a 1.x release" % torch_v if sup is False else ""),
                        commands=[below2 if sup is False else _pip(facts, "install numpy")], notes=notes)
    np_major = _v(np_v).release[0] if _v(np_v) else None
    if eid == "torch-numpy-missing":
        return Tailored(cause="NumPy %s is installed in this interpreter, so the process that warned ran another "
                              "environment." % np_v, commands=[where_np], notes=notes)
    if np_major is not None and np_major >= 2 and eid != "numpy-too-old-for-torch":
        if sup is False:
            first = "2.4.1" if osn == "windows" else "2.3"
            up = _torch_install(facts, _numpy_upgrade_target(osn), _tag(_torch_meta_version(facts)))
            return Tailored(
                summary="torch %s was built against NumPy 1.x and NumPy %s is installed. Either pin NumPy below 2 "
                        "(quickest), or upgrade torch to %s or newer (the first release built for NumPy 2 on %s) with "
                        "matching companions." % (torch_v, np_v, first, osn),
                commands=[below2] + up, notes=notes)
        if sup is True and eid in ("numpy-array-api-not-found", "numpy-not-available"):
            return Tailored(cause="torch %s is built for NumPy 2 on %s, yet its NumPy bridge failed: the torch that ran "
                                  "is another build (conda, a source build or another environment)." % (torch_v, osn),
                            commands=['%s -c "import torch, numpy; print(torch.__version__, torch.__file__, '
                                      'numpy.__version__)"' % F.python_cmd(facts)], notes=notes)
        if sup is True:
            return Tailored(summary="torch %s already supports NumPy 2, so the module built against NumPy 1.x is another "
                                    "one: the last package named in the traceback above the message (often "
                                    "opencv-python, pandas, scipy or an old compiled extension). Upgrade that package, "
                                    "or pin NumPy below 2." % torch_v,
                            commands=[_pip(facts, "install --upgrade <package-from-the-traceback>"), below2],
                            notes=notes)
        return None
    # NumPy 1.x is installed
    if eid in ("numpy2-module-compiled-with-numpy1", "numpy-array-api-not-found"):
        return Tailored(cause="NumPy %s is installed in this interpreter, not 2.x, so the failing process used another "
                              "environment (or NumPy was downgraded since)." % np_v, commands=[where_np], notes=notes)
    if eid == "numpy-multiarray-failed-import" and sup is False and "_core" in str(getattr(match, "text", "")):
        return Tailored(summary="A module built for NumPy 2 needs numpy>=2, but torch %s predates NumPy 2: upgrade torch "
                                "to a release built for NumPy 2, or use an older release of that module." % torch_v,
                        commands=_torch_install(facts, _numpy_upgrade_target(osn), _tag(_torch_meta_version(facts))),
                        notes=notes)
    return Tailored(summary="NumPy %s is older than the NumPy the failing module was built against; upgrade it%s." % (
                        np_v, " within 1.x (torch %s predates NumPy 2)" % torch_v if sup is False else ""),
                    commands=[upgrade_np], notes=notes)


# -- triton / torch.compile --------------------------------------------------------
def _marker_ok(marker: Optional[str], facts: Facts) -> Optional[bool]:
    if not marker:
        return None
    try:
        from packaging.markers import Marker
    except ImportError:  # pragma: no cover
        return None
    py = _python_minor(facts)
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
        return SpecifierSet(spec).contains(_v(version).public if _v(version) else version, prereleases=True)
    except Exception:  # noqa: BLE001
        return None


def _spec_series(spec: Optional[str]) -> Optional[Tuple[int, int]]:
    m = re.search(r"(\d+)\.(\d+)", spec or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


@hook("triton")
def triton(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    osn = F.os_name(facts)
    name, tv = _installed_triton(facts)
    notes = installed_torch_note(facts) + ["installed triton: %s" % ("%s %s" % (name, tv) if tv else "none"),
                                           "OS: %s" % osn]
    tag = _tag(_torch_meta_version(facts))
    rel = compat.release(torch_v) or {}
    # the pin of the CUDA build of this release (a +cpu build pins nothing)
    req = compat.triton_requirement(torch_v.split("+")[0] + ("+" + tag if tag and tag.startswith("cu") else ""))
    py = _python_minor(facts)
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
            cmds.append(_pip(facts, 'install -U "triton-windows>=%d.%d,<%d.%d"' % (series[0], series[1], series[0],
                                                                                  series[1] + 1)))
            notes.append("triton pinned by torch %s on Linux: %s" % (torch_v, req))
        else:
            cmds.append(_pip(facts, "install -U triton-windows"))
        if name == "triton" or name == "pytorch-triton":
            cmds.insert(0, _pip(facts, "uninstall -y %s" % name))
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
        cmds = _torch_install(facts, target, tag) if target else []
        return Tailored(summary="torch %s declares triton only for %s, so pip installed none for Python %s. Upgrade "
                                "torch%s, or use an older Python." % (
                                    torch_v, rel.get("triton_marker"), "%d.%d" % py if py else "?",
                                    " to %s or newer" % target if target else ""),
                        commands=cmds, notes=notes)
    spec = req if req[:1] in "=<>~!" else "==" + req
    fix = _pip(facts, 'install "triton%s"' % spec)
    if tv and name in ("triton",) and _spec_contains(spec, tv) is False:
        return Tailored(summary="triton %s is installed but torch %s needs triton%s; the mismatch breaks Inductor's "
                                "imports (triton.common, AttrsDescriptor, ...). Install the pinned triton." % (
                                    tv, torch_v, spec), commands=[fix], notes=notes)
    if not tv:
        return Tailored(summary="triton is not installed; torch %s pins triton%s." % (torch_v, spec),
                        commands=[fix], notes=notes)
    return Tailored(summary="triton %s matches torch %s here; reinstall it in case the install is broken, and check "
                            "that the failing process uses this interpreter." % (tv, torch_v),
                    commands=[_pip(facts, 'install --force-reinstall --no-deps "triton%s"' % spec),
                              '%s -c "import triton; print(triton.__version__, triton.__file__)"' % F.python_cmd(facts)],
                    notes=notes)


@hook("dynamo_python")
def dynamo_python(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    py = _python_minor(facts)
    groups = _groups(match)
    if py is None and groups.get("py"):
        py = (3, int(groups["py"]))
    if not torch_v or not py:
        return None
    notes = installed_torch_note(facts) + ["Python %d.%d" % py]
    need = compat.compile_min_torch_for_python("%d.%d" % py) if py else None
    if need is None:
        return None
    if not _older(torch_v, need):
        return Tailored(cause="torch %s already supports torch.compile on Python %d.%d, so the error came from another "
                              "interpreter or environment." % (torch_v, py[0], py[1]),
                        commands=['%s -c "import sys, torch; print(sys.version, torch.__version__)"' % F.python_cmd(facts)],
                        notes=notes)
    target = compat.latest_patch(need) or need
    cmds = _torch_install(facts, target, _tag(_torch_meta_version(facts)))
    return Tailored(summary="torch.compile accepts Python %d.%d from torch %s on; torch %s is installed. Upgrade torch "
                            "(with its companions) to %s or newer, or run on an older Python." % (
                                py[0], py[1], need, torch_v, target),
                    commands=cmds, notes=notes)


def _distro_family(facts: Facts) -> str:
    d = str(facts.value("os.distro") or "").lower()
    if any(k in d for k in ("fedora", "red hat", "rhel", "centos", "rocky", "alma", "amazon")):
        return "dnf"
    if any(k in d for k in ("arch", "manjaro")):
        return "pacman"
    return "apt"


@hook("cxx_compiler")
def cxx_compiler(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    torch_v = F.torch_version_str(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % osn]
    if osn == "windows":
        if torch_v and _older(torch_v, compat.windows_inductor_min()):
            return Tailored(summary="torch %s has no TorchInductor for Windows (it arrived in %s); upgrade torch, or use "
                                    "backend=\"aot_eager\"." % (torch_v, compat.windows_inductor_min()),
                            commands=_torch_install(facts, compat.latest_patch(compat.windows_inductor_min()) or compat.windows_inductor_min(),
                                                    _tag(_torch_meta_version(facts))), notes=notes)
        return Tailored(summary="TorchInductor on Windows compiles with MSVC's cl.exe, which must be on PATH: install "
                                "the Visual Studio Build Tools with \"Desktop development with C++\", then start Python "
                                "from a shell where vcvars64.bat has run (the \"x64 Native Tools Command Prompt\").",
                        commands=["winget install Microsoft.VisualStudio.2022.BuildTools --override "
                                  "\"--wait --passive --add Microsoft.VisualStudio.Workload.VCTools --includeRecommended\"",
                                  "\"C:\\Program Files (x86)\\Microsoft Visual Studio\\2022\\BuildTools\\VC\\Auxiliary"
                                  "\\Build\\vcvars64.bat\"",
                                  "where cl"], notes=notes)
    if osn == "macos":
        return Tailored(summary="Install Apple's command line tools, which provide clang++ for TorchInductor.",
                        commands=["xcode-select --install", "clang++ --version"], notes=notes)
    fam = _distro_family(facts)
    cmd = {"apt": "sudo apt-get install -y g++", "dnf": "sudo dnf install -y gcc-c++",
           "pacman": "sudo pacman -S --needed gcc"}[fam]
    if facts.value("python.conda") is True:
        return Tailored(summary="Install a C++ compiler into this conda environment (or the system's g++), then retry.",
                        commands=["conda install -c conda-forge gxx_linux-64", cmd, "g++ --version"], notes=notes)
    return Tailored(summary="Install g++ (TorchInductor's CPU backend compiles C++), or point CXX at a compiler.",
                    commands=[cmd, "g++ --version"], notes=notes + ["distro: %s" % (facts.value("os.distro") or "?")])


@hook("python_headers")
def python_headers(match, facts: Facts) -> Optional[Tailored]:
    py = _python_minor(facts)
    osn = F.os_name(facts)
    notes = ["Python %s (%s)" % ("%d.%d" % py if py else "?", facts.value("python.executable", "?")), "OS: %s" % osn]
    if osn == "windows":
        return Tailored(summary="triton-windows could not find Python.h/python3.lib: the embedded or Store Python "
                                "lacks them. Use a full python.org or conda Python, or copy its include/ and libs/ "
                                "folders next to the embedded python.exe.",
                        commands=[], notes=notes)
    if osn != "linux" or not py:
        return None
    fam = _distro_family(facts)
    if facts.value("python.conda") is True:
        return Tailored(summary="The conda Python ships Python.h; this build used another Python's headers. Activate the "
                                "environment that runs the code, or install its headers.",
                        commands=["conda install python=%d.%d" % py], notes=notes)
    cmd = {"apt": "sudo apt-get install -y python%d.%d-dev" % py,
           "dnf": "sudo dnf install -y python%d.%d-devel" % py if py >= (3, 11) else "sudo dnf install -y python3-devel",
           "pacman": "sudo pacman -S --needed python"}[fam]
    return Tailored(summary="triton compiles a small C helper against this Python's headers; install the Python %d.%d "
                            "development package." % py, commands=[cmd], notes=notes)


@hook("compile_windows")
def compile_windows(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    notes = installed_torch_note(facts) + ["OS: %s" % F.os_name(facts)]
    if not _older(torch_v, compat.windows_inductor_min()):
        return Tailored(cause="torch %s has TorchInductor for Windows, so this message came from an older torch in "
                              "another environment." % torch_v,
                        commands=['%s -c "import torch; print(torch.__version__, torch.__file__)"' % F.python_cmd(facts)],
                        notes=notes)
    target = compat.latest_patch(compat.windows_inductor_min()) or compat.windows_inductor_min()
    return Tailored(summary="torch %s refuses torch.compile's default backend on Windows; torch %s or newer compiles "
                            "for the CPU with MSVC (GPU kernels also need triton-windows). Upgrade, or pass "
                            "backend=\"aot_eager\", or skip compiling." % (torch_v, compat.windows_inductor_min()),
                    commands=_torch_install(facts, target, _tag(_torch_meta_version(facts))), notes=notes)


# -- MPS ---------------------------------------------------------------------------
@hook("mps_unavailable")
def mps_unavailable(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    torch_v = F.torch_version_str(facts)
    notes = installed_torch_note(facts) + ["OS: %s" % osn]
    if osn != "macos":
        return Tailored(summary="MPS exists only on macOS; this machine runs %s. Use device=\"cuda\" (NVIDIA) or "
                                "\"cpu\" instead of \"mps\"." % osn.capitalize(),
                        commands=['%s -c "import torch; print(torch.cuda.is_available())"' % F.python_cmd(facts)],
                        notes=notes)
    mac = _macos_version(facts)
    notes.append("macOS %s" % (mac or "?"))
    machine = facts.value("python.machine")
    if facts.value("os.rosetta") is True or machine == "x86_64":
        notes.append("Python architecture: %s" % (machine or "?"))
        return Tailored(summary="This Python is an x86_64 build (running under Rosetta on Apple silicon, or an Intel "
                                "Mac), which cannot use MPS. Install an arm64 Python (python.org universal2, Homebrew "
                                "or Miniforge arm64) and torch in it.",
                        commands=['%s -c "import platform; print(platform.machine())"' % F.python_cmd(facts)],
                        notes=notes)
    need = _groups(match).get("min")
    floor = "%d.%d" % compat.mps_min_macos(torch_v) if torch_v else None
    if need and floor and _older(need, floor):
        need = floor  # torch 2.5+ printed "12.3+" while requiring macOS 13 (pytorch/pytorch#139425)
    if mac and need and _older(mac, need):
        cmds = ["softwareupdate --list"]
        summary = "macOS %s is older than the %s this torch needs for MPS: update macOS" % (mac, need)
        try:
            last = compat.last_torch_for_macos(tuple(int(x) for x in mac.split(".")[:2]))
        except ValueError:
            last = None
        if last and not _older(mac, "%d.%d" % compat.mps_min_macos()):
            cmds += [_with_interpreter(c, facts) for c in compat.install_command(last, None, os="macos")]
            summary += ", or stay on macOS %s with torch %s, the last release that runs MPS there" % (mac, last)
        return Tailored(summary=summary + ".", commands=cmds, notes=notes)
    if mac and need:
        return Tailored(cause="macOS %s already meets the %s+ requirement, so the check failed for another reason: a "
                              "virtual machine without Metal GPU access, or the MPS detection bugs reported on macOS 26 "
                              "with torch 2.9/2.10 (pytorch/pytorch#167679, #177819)." % (mac, need),
                        commands=['%s -c "import torch; print(torch.backends.mps.is_built(), '
                                  'torch.backends.mps.is_available())"' % F.python_cmd(facts)], notes=notes)
    return None


@hook("mps_macos_feature")
def mps_macos_feature(match, facts: Facts) -> Optional[Tailored]:
    if F.os_name(facts) != "macos":
        return None
    mac = _macos_version(facts)
    need = _groups(match).get("min")
    notes = installed_torch_note(facts) + ["macOS %s" % (mac or "?")]
    if not mac:
        return None
    if need and _older(mac, need):
        return Tailored(summary="This MPS kernel needs macOS %s and this Mac runs %s: update macOS, cast the tensor to a "
                                "supported dtype, or run that op on the CPU (PYTORCH_ENABLE_MPS_FALLBACK=1 does not "
                                "cover it)." % (need, mac),
                        commands=["softwareupdate --list"], notes=notes)
    if need:
        return Tailored(cause="macOS %s already meets %s, so the process that failed ran elsewhere (another Mac, a VM)."
                              % (mac, need), notes=notes)
    return None


# -- DataLoader --------------------------------------------------------------------
BIG_SHM = 2 << 30  # 2 GiB: docker's default is 64 MB; a few GiB carry dozens of image batches


@hook("dataloader_shm")
def dataloader_shm(match, facts: Facts) -> Optional[Tailored]:
    if F.os_name(facts) != "linux":
        return None
    container = facts.value("os.container")
    notes = ["container: %s" % (container if isinstance(container, str) else "none detected")]
    shm = facts.value("memory.shm_bytes")
    if isinstance(shm, int) and not isinstance(shm, bool) and shm > 0:
        notes.append("/dev/shm here: %s" % F.gib(shm))
        if shm >= BIG_SHM:
            # The measured size, not a default: a large /dev/shm here means the run that failed
            # had less (another container or node), or the workers really filled all of it.
            return Tailored(summary="/dev/shm on this machine is %s, far above what DataLoader workers normally need, so "
                                    "either the failing run had a smaller one (another container, pod or node: check "
                                    "`df -h /dev/shm` there) or the workers filled it (many workers, large batches, "
                                    "tensors kept alive): watch it while the loader runs and lower num_workers or "
                                    "batch size." % F.gib(shm),
                            commands=["df -h /dev/shm"], notes=notes)
    if container in ("docker", "podman", "containerd"):
        tool = "podman" if container == "podman" else "docker"
        size = ("is %s" % F.gib(shm)) if isinstance(shm, int) and shm > 0 else "defaults to 64 MB"
        return Tailored(summary="This runs in a %s container, whose /dev/shm %s. Restart it with a "
                                "larger shared-memory size (or the host's IPC namespace); in docker compose set "
                                "shm_size. As a stopgap, lower num_workers." % (tool, size),
                        commands=["df -h /dev/shm", "%s run --shm-size=16g ... <image>" % tool,
                                  "%s run --ipc=host ... <image>" % tool], notes=notes)
    if container in ("kubepods", "kubernetes"):
        return Tailored(summary="This runs in a Kubernetes pod, whose /dev/shm is small by default: mount an emptyDir "
                                "with medium: Memory (and a sizeLimit) at /dev/shm in the pod spec.",
                        commands=["df -h /dev/shm"], notes=notes)
    return Tailored(summary="Check how full /dev/shm is while the loader runs; enlarge it (tmpfs remount, lasts until "
                            "reboot) or lower num_workers / batch size.",
                    commands=["df -h /dev/shm", "sudo mount -o remount,size=16G /dev/shm"], notes=notes)


@hook("dataloader_worker_exit")
def dataloader_worker_exit(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    py = _python_minor(facts)
    notes = ["OS: %s" % osn, "Python %s" % ("%d.%d" % py if py else "?")]
    if osn in ("windows", "macos"):
        return Tailored(summary="%s starts DataLoader workers with 'spawn': every worker re-imports the main script, so "
                                "the training code must sit under `if __name__ == \"__main__\":` and the dataset, its "
                                "transforms and collate_fn must be picklable (no lambdas or local functions). The "
                                "real error is printed above this line." % ("Windows" if osn == "windows" else "macOS"),
                        commands=[], notes=notes)
    shm = dataloader_shm(match, facts)
    if shm is not None:
        shm.summary = ("The worker's own error is printed above this line: 'Bus error' means shared memory, "
                       "'Killed' the out-of-memory killer. " + (shm.summary or ""))
    return shm


@hook("dataloader_spawn")
def dataloader_spawn(match, facts: Facts) -> Optional[Tailored]:
    osn = F.os_name(facts)
    py = _python_minor(facts)
    notes = ["OS: %s" % osn, "Python %s" % ("%d.%d" % py if py else "?")]
    if osn == "linux" and py and py >= (3, 14):
        return Tailored(cause="On Linux, Python 3.14 changed multiprocessing's default start method from 'fork' to "
                              "'forkserver', so code that worked on 3.13 now re-imports the main module in every "
                              "worker.", notes=notes)
    if osn == "linux":
        return Tailored(cause="Linux uses 'fork' by default on this Python, so the code or a library chose 'spawn' or "
                              "'forkserver' (multiprocessing.set_start_method or multiprocessing_context=).",
                        notes=notes)
    if osn in ("windows", "macos"):
        return Tailored(cause="%s always starts worker processes with 'spawn'." % (
            "Windows" if osn == "windows" else "macOS (Python 3.8+)"), notes=notes)
    return None
