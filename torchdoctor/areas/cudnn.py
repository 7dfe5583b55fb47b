"""cuDNN: is it there, is it the one the torch wheel ships, can it run on these GPUs, and
what its runtime errors mean here.
"""

import re
from typing import List, Optional, Tuple

from ..advice import INSTALL_URL, install_advice
from ..model.facts import FAILED, Facts
from ..model import derived as F
from ..kb import compat
from .registry import ERROR, WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups
from .cuda.arch import tailor_arch_unsupported
from .cuda.common import install_commands




MATRIX_URL = "https://github.com/pytorch/pytorch/blob/main/RELEASE.md#release-compatibility-matrix"


# torch/backends/cudnn/__init__.py: the texts version() raises (see _init()).
_INCOMPAT_RE = re.compile(r"cuDNN version incompatibility: PyTorch was compiled\s+against\s+(\S.*?)\s+"
                          r"but found runtime version\s+(\S.*?)\.\s")


_SM_FLOOR_TEXT = "is not compatible with devices with SM <"


def _applies(facts) -> bool:
    """A CUDA (not ROCm/MIOpen) build of torch that imported."""
    return F.is_cuda_build(facts) is True and not F.is_rocm_build(facts) and F.torch_imported(facts)


def _version_error(facts) -> Optional[str]:
    """The error torch.backends.cudnn.version() (or importing the module) raised."""
    if facts.state("backends.cudnn") == FAILED:
        return facts.reason("backends.cudnn")
    if F.backend_state(facts, "cudnn", "version") == FAILED:
        return F.backend_reason(facts, "cudnn", "version")
    return None


def _runtime_int(facts) -> Optional[int]:
    v = F.backend_value(facts, "cudnn", "version")
    return v if isinstance(v, int) and not isinstance(v, bool) and v > 0 else None


def _variant(facts) -> Optional[str]:
    """The CUDA variant the installed wheel is (its +cuXXX tag); None = the PyPI default."""
    tag = F.local_tag(facts)
    return tag if tag and tag.startswith("cu") else None


def _official_wheel(facts) -> bool:
    """A release wheel from PyPI or download.pytorch.org (2.4.1, 2.4.1+cu124), whose cuDNN
    pin the KB knows. NVIDIA's NGC/Jetson builds (2.5.0a0+e000cf0ad9.nv24.10), source
    builds and nightlies ship or link their own cuDNN, and conda packages take conda's."""
    v = F.torch_version(facts)
    if v is None or v.is_prerelease or v.is_devrelease or F.installed_with_conda(facts):
        return False
    return not v.local or v.local.startswith("cu")


def _cudnn_wheel(facts) -> Tuple[Optional[str], Optional[str]]:
    """(name, version) of the nvidia-cudnn-cuNN wheel for torch's CUDA major, if installed.
    The name is None where torch does not use such a wheel: Windows wheels bundle cuDNN in
    torch/lib, and builds other than official Linux wheels bring their own."""
    cuda = F.torch_cuda(facts) or compat.cuda_of_variant(_variant(facts) or "") or ""
    names = []
    if cuda:
        names.append("nvidia-cudnn-cu%s" % cuda.split(".")[0])
    names += [k for k in F.installed_starting(facts, "nvidia-cudnn-cu") if k not in names]
    for name in names:
        v = F.package_version(facts, name)
        if v:
            return name, v
    if F.os_name(facts) != "linux" or not _official_wheel(facts):
        return None, None
    return (names[0] if names else None), None


def _three(version: Optional[str]) -> Optional[str]:
    """'9.10.2.21' -> '9.10.2' (what torch.backends.cudnn.version() can tell apart)."""
    if not version:
        return None
    parts = version.split("+")[0].split(".")
    return ".".join(parts[:3]) if len(parts) >= 3 and all(p.isdigit() for p in parts[:3]) else None


def _ld_note(facts) -> str:
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if not ld:
        return ""
    hint = " It mentions cuda/cudnn directories, the usual culprit." if re.search(r"cuda|cudnn", ld, re.I) else ""
    return " LD_LIBRARY_PATH is set (%s): libraries found there are loaded before the ones bundled with torch.%s" % (
        ld[:300], hint)


def _pip_pin_cmd(facts, name: Optional[str], version: Optional[str]) -> List[str]:
    if not name or not version or F.installed_with_conda(facts):
        return []
    return ['%s install "%s==%s"' % (F.pip_cmd(facts), name, version)]


def _verify_cmd(facts) -> str:
    prefix = "env -u LD_LIBRARY_PATH " if F.env(facts, "LD_LIBRARY_PATH") and F.os_name(facts) == "linux" else ""
    return "%s%s -c \"import torch; print(torch.backends.cudnn.version())\"" % (prefix, F.python_cmd(facts))


@rule("check", "cudnn-unavailable", category="cudnn-lib-load", severity=ERROR, requires=('backends.cudnn.is_available',),
       verify=('python -c "import torch; print(torch.backends.cudnn.version())"', 'a cuDNN version number'))
def cudnn_unavailable(facts):
    """A CUDA build of torch whose cuDNN is missing or cannot be loaded."""
    if not _applies(facts):
        return None
    err = _version_error(facts)
    if err and (_INCOMPAT_RE.search(err) or _SM_FLOOR_TEXT in err):
        return None  # cudnn-version-mismatch / cudnn-old-gpu explain these
    available = F.backend_value(facts, "cudnn", "is_available")
    version = F.torch_version_str(facts)
    no_gpu = not F.visible_gpus(facts)
    sev = WARNING if no_gpu else None
    gpu_note = " No GPU is visible right now, so this only matters once one is." if no_gpu else ""
    if available is False:
        use = facts.value("torch.config.build_settings.USE_CUDNN")
        adv = install_advice(facts)
        return finding(
            "torch %s is a CUDA build without cuDNN" % version, severity=sev,
            detail="torch.backends.cudnn.is_available() is False%s: this torch was compiled without cuDNN (typical of a "
                   "source build that did not find cuDNN, or a third-party build), so GPU convolutions, RNNs and cuDNN "
                   "attention fall back to much slower native kernels.%s"
                   % (" (build setting USE_CUDNN=%s)" % use if isinstance(use, str) else "", gpu_note),
            fix="Install an official torch wheel, which bundles cuDNN%s." % (
                " (%s)" % adv.variant if adv.variant else ""),
            commands=adv.commands, links=[INSTALL_URL])
    if not err:
        return None
    name, wheel_v = _cudnn_wheel(facts)
    expected = compat.expected_cudnn(F.torch_version_str(facts), _variant(facts)) if _official_wheel(facts) else None
    if wheel_v:
        have = "The %s %s wheel is installed, so the library exists but could not be loaded." % (name, wheel_v)
    elif name and not F.installed_with_conda(facts):
        have = "No %s wheel is installed in this environment, which pip wheels of torch depend on." % name
    else:
        have = ""
    cmds = _pip_pin_cmd(facts, name, expected) + [_verify_cmd(facts)]
    return finding(
        "cuDNN cannot be loaded by torch %s" % version, severity=sev,
        detail="torch.backends.cudnn.version() failed: %s\n%s%s%s" % (err[:1500], have, _ld_note(facts), gpu_note),
        fix=("Reinstall the cuDNN wheel torch %s pins (%s %s) and make sure no other libcudnn is found first."
             % (version, name, expected)) if name and expected and not F.installed_with_conda(facts) else
            "Reinstall torch so that its cuDNN is complete, and make sure no other libcudnn is found first.",
        commands=cmds, links=[INSTALL_URL])


@rule("check", "cudnn-version-mismatch", category="cudnn-version-mismatch", severity=ERROR, requires=('backends.cudnn.version',),
       verify=('python -c "import torch; print(torch.backends.cudnn.version())"', 'the cuDNN version torch was built with'))
def cudnn_version_mismatch(facts):
    """The cuDNN loaded at run time is not the one this torch wheel ships."""
    if not _applies(facts):
        return None
    version = F.torch_version_str(facts)
    name, wheel_v = _cudnn_wheel(facts)
    conda = F.installed_with_conda(facts)
    expected = compat.expected_cudnn(version, _variant(facts)) if _official_wheel(facts) else None
    skip_env = F.env(facts, "PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK")
    skip_note = (" PYTORCH_SKIP_CUDNN_COMPATIBILITY_CHECK=%s is set, which silences torch's own check of this."
                 % skip_env) if skip_env else ""
    fix_cmds = _pip_pin_cmd(facts, name, expected or wheel_v)
    if F.env(facts, "LD_LIBRARY_PATH"):
        fix_cmds = [F.unset_env_cmd(facts, "LD_LIBRARY_PATH") + "   # or remove the cuDNN directory from it"] + fix_cmds
    fix_cmds.append(_verify_cmd(facts))
    if F.env(facts, "LD_LIBRARY_PATH"):
        cause = "The usual cause is a system or toolkit cuDNN on LD_LIBRARY_PATH shadowing the one bundled with torch."
    else:
        cause = ("LD_LIBRARY_PATH is not set, so the other cuDNN comes from the loader's default paths (ld.so.conf, "
                 "a conda env's lib/, LD_PRELOAD) or another package's nvidia-cudnn wheel.")

    err = _version_error(facts)
    m = _INCOMPAT_RE.search(err or "")
    if m:
        return finding(
            "torch %s refuses the cuDNN it found: compiled against %s, found %s" % (version, m.group(1), m.group(2)),
            detail="torch.backends.cudnn.version() raised: %s\nEvery cuDNN-backed op (convolutions, RNNs) fails the "
                   "same way. %s%s%s" % (err[:1500], cause, _ld_note(facts), skip_note),
            fix="Make torch load its own cuDNN%s." % (" (%s %s)" % (name, expected) if name and expected else ""),
            commands=fix_cmds, links=[MATRIX_URL])

    runtime = _runtime_int(facts)
    rt = compat.cudnn_int_to_version(runtime) if runtime else None
    if not rt:
        return None
    if conda:
        conda_v = F.package_version(facts, "conda:cudnn")
        if conda_v and _three(conda_v) and _three(conda_v) != rt:
            return finding(
                "torch loads cuDNN %s, but the conda environment's cudnn package is %s" % (rt, conda_v),
                severity=WARNING,
                detail="torch.backends.cudnn.version() is %d (cuDNN %s); conda installed cudnn %s. Another libcudnn is "
                       "found first. %s%s%s" % (runtime, rt, conda_v, cause, _ld_note(facts), skip_note),
                fix="Make the environment's cuDNN the one that loads (unset LD_LIBRARY_PATH or remove the other cuDNN).",
                commands=([F.unset_env_cmd(facts, "LD_LIBRARY_PATH")] if F.env(facts, "LD_LIBRARY_PATH") else [])
                + [_verify_cmd(facts)])
        return None
    if wheel_v and _three(wheel_v) and _three(wheel_v) != rt:
        if F.env(facts, "LD_LIBRARY_PATH"):
            shadow_cmds = [F.unset_env_cmd(facts, "LD_LIBRARY_PATH") + "   # or remove the cuDNN directory from it"]
        elif F.os_name(facts) == "linux":
            shadow_cmds = ["ldconfig -p | grep libcudnn", "echo $LD_PRELOAD"]
        else:
            shadow_cmds = []
        return finding(
            "torch loads cuDNN %s, not the %s %s wheel installed beside it" % (rt, name, wheel_v),
            severity=WARNING,
            detail="torch.backends.cudnn.version() is %d (cuDNN %s), but this environment's %s wheel is %s, so another "
                   "libcudnn is loaded first. torch accepted it (same major, minor not older than the one it was "
                   "compiled with), but it is an untested pairing: expect CUDNN_STATUS_NOT_INITIALIZED / "
                   "EXECUTION_FAILED errors or slow paths. %s%s%s"
                   % (runtime, rt, name, wheel_v, cause, _ld_note(facts), skip_note),
            fix="Make torch load the cuDNN of its own environment: find the other libcudnn and take it off the "
                "loader's path.",
            commands=shadow_cmds + [_verify_cmd(facts)], links=[MATRIX_URL])
    expected_int = compat.expected_cudnn_int(version, _variant(facts)) if expected else None
    if expected_int and expected_int != runtime:
        if wheel_v and _three(wheel_v) == rt:
            why = ("The %s wheel itself was changed to %s (typically by installing another package that pins cuDNN, "
                   "such as tensorflow, jax or onnxruntime-gpu)." % (name, wheel_v))
        else:
            why = cause + _ld_note(facts)
        return finding(
            "cuDNN %s is loaded, but torch %s ships cuDNN %s" % (rt, version, expected),
            severity=WARNING,
            detail="torch.backends.cudnn.version() is %d (cuDNN %s); the %s wheel of torch %s pins cuDNN %s. "
                   "torch accepted it, but this pairing is not the tested one. %s%s"
                   % (runtime, rt, _variant(facts) or "PyPI", F.torch_base_version(facts), expected, why, skip_note),
            fix="Reinstall the cuDNN torch pins%s." % (" (%s==%s)" % (name, expected) if name else ""),
            commands=fix_cmds, links=[MATRIX_URL])
    return None


def _variants_below(base: str, floor: int, caps: List[Tuple[int, int]]) -> List[str]:
    """Variants of a release whose cuDNN is below the floor and whose arch list runs on every GPU."""
    out = []
    for v in compat.cuda_variants(base):
        n = compat.expected_cudnn_int(base, v)
        if n is None or n >= floor:
            continue
        if all(v in compat.variants_supporting_cc(base, cap) for cap in caps):
            out.append(v)
    return out


@rule("check", "cudnn-old-gpu", category="cudnn-version-mismatch", severity=ERROR)
def cudnn_old_gpu(facts):
    """cuDNN too new for a GPU below SM 7.5: torch >= 2.10 refuses to use cuDNN there."""
    if not _applies(facts):
        return None
    floor = compat.cudnn_sm_floor()
    tv = F.torch_version(facts)
    if not floor or tv is None or F.parse_version(floor["torch_min"]) is None:
        return None
    if tv.release[:2] < F.parse_version(floor["torch_min"]).release[:2]:
        return None
    sm = floor["sm"]
    old = [g for g in F.visible_gpus(facts) if F.capability(g) and F.capability(g) < sm]
    err = _version_error(facts)
    runtime = _runtime_int(facts)
    raised = bool(err and _SM_FLOOR_TEXT in err)
    if not raised and not (runtime and runtime >= floor["cudnn_int_min"] and old):
        return None
    floor_v = compat.cudnn_int_to_version(floor["cudnn_int_min"])
    names = ", ".join("%s (sm_%d%d)" % ((g.get("name", "GPU"),) + F.capability(g)) for g in old) or "a GPU below SM %d.%d" % sm
    loaded = ("cuDNN %s" % compat.cudnn_int_to_version(runtime)) if runtime else "its cuDNN"
    base = F.torch_base_version(facts)
    caps = sorted({F.capability(g) for g in old})
    picks = _variants_below(base, floor["cudnn_int_min"], caps) if base and caps else []
    cmds: List[str] = []
    if picks:
        pick = picks[-1]
        cmds = install_advice(facts, variant=pick).commands
        fix = ("Install the %s build of torch %s, which ships cuDNN %s (below %s) and still has kernels for %s."
               % (pick, base, compat.expected_cudnn(base, pick), floor_v, names))
    else:
        fix = ("No variant of torch %s pairs a cuDNN below %s with kernels for %s; use a release whose wheels do "
               "(see the compatibility matrix), or run without cuDNN." % (base, floor_v, names))
    fix += " Stopgap: torch.backends.cudnn.enabled = False (slower convolutions)."
    return finding(
        "torch %s with %s cannot use cuDNN on %s" % (F.torch_version_str(facts), loaded, names),
        detail="cuDNN %s and newer do not support GPUs below SM %d.%d, and torch %s+ raises at cuDNN initialisation "
               "when such a GPU is visible (source: %s).%s"
               % (floor_v, sm[0], sm[1], floor["torch_min"], floor["source"] or "torch/backends/cudnn/__init__.py",
                  ("\ntorch.backends.cudnn.version() raised: " + err[:800]) if raised else
                  "\ntorch.backends.cudnn.version() is %d." % runtime),
        fix=fix, commands=cmds, links=[MATRIX_URL])


def _cudnn_pkg(facts: Facts) -> Tuple[Optional[str], Optional[str]]:
    for name in ("nvidia-cudnn-cu13", "nvidia-cudnn-cu12", "nvidia-cudnn-cu11"):
        v = F.package_version(facts, name)
        if v:
            return name, v
    return None, None


def _tuple_version(text: Optional[str]) -> Optional[str]:
    """"(8, 9, 2)" -> "8.9.2"; "7401" -> "7.4.1"; "91002" -> "9.10.2"."""
    if not text:
        return None
    nums = re.findall(r"\d+", text)
    if len(nums) >= 3:
        return ".".join(nums[:3])
    if len(nums) == 1:
        return compat.cudnn_int_to_version(nums[0])
    return None


@hook("cudnn-version-mismatch")
def tailor_cudnn_version_mismatch(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    compiled, runtime = _tuple_version(groups.get("compiled")), _tuple_version(groups.get("runtime"))
    version = F.torch_version_str(facts)
    expected = compat.expected_cudnn(version) if version else None
    pkg, pkg_v = _cudnn_wheel(facts)
    ld = F.env(facts, "LD_LIBRARY_PATH")
    notes = installed_torch_note(facts)
    if compiled or runtime:
        notes.append("torch expects cuDNN %s, the process loaded %s" % (compiled or "?", runtime or "?"))
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    if pkg_v:
        notes.append("installed %s %s" % (pkg, pkg_v))
    if ld:
        notes.append("LD_LIBRARY_PATH=%s" % ld)
    if not (expected or pkg_v or ld):
        return None
    # the same commands as the cudnn-version-mismatch check: pin the wheel torch was built
    # with, then see which cuDNN loads (without LD_LIBRARY_PATH where it is set)
    summary = []
    if F.os_name(facts) == "linux":
        summary.append("Make the process load the cuDNN that torch ships: remove system CUDA/cuDNN directories from "
                       "LD_LIBRARY_PATH%s." % (" (now %s)" % ld if ld else ""))
    pin = []
    if pkg_v and expected and pkg_v.split(".")[:3] != expected.split(".")[:3]:
        summary.append("The installed %s %s is not the %s torch %s was built with: reinstall it." % (pkg, pkg_v, expected, version))
        pin = _pip_pin_cmd(facts, pkg, expected)
    if not summary:
        return Tailored(notes=notes, cause="The runtime cuDNN must match the one torch was built with (same major, "
                                           "not older minor); a copy earlier on the library path wins.")
    return Tailored(summary=" ".join(summary), commands=pin + [_verify_cmd(facts)], notes=notes)


@hook("cudnn-runtime")
def cudnn_runtime(match, facts: Facts) -> Optional[Tailored]:
    """CUDNN_STATUS_* failures: check the SM 7.5 floor of new cuDNN, the arch list and the cuDNN wheel."""
    version = F.torch_version_str(facts)
    base = F.torch_base_version(facts)
    expected = compat.expected_cudnn(version) if version else None
    exp_int = compat.expected_cudnn_int(version) if version else None
    notes = installed_torch_note(facts)
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    old = [g for g in F.all_gpus(facts) if F.capability(g) and F.capability(g) < (7, 5)]
    if old and exp_int and exp_int >= 91100 and base:
        cap = F.capability(old[0])
        variants = [v for v in compat.variants_supporting_cc(base, cap)
                    if (compat.expected_cudnn_int(base, v) or 0) < 91100]
        notes.append("GPU: %s" % F.gpu_desc(old[0]))
        return Tailored(
            summary="cuDNN %s does not support GPUs below compute capability 7.5 such as %s (cuDNN 9.11 dropped them). %s"
                    % (expected, F.gpu_desc(old[0]),
                       "Install the %s build of torch %s, which keeps an older cuDNN." % (variants[-1], base) if variants
                       else "Use a torch build with cuDNN <= 9.10, or disable cuDNN (torch.backends.cudnn.enabled = False)."),
            commands=install_commands(facts, base, variants[-1]) if variants else [], notes=notes)
    t = tailor_arch_unsupported(match, facts) if F.all_gpus(facts) else None
    if t is not None and t.summary and "false alarm" not in t.summary:
        t.cause = "cuDNN/cuBLAS kernels fail like this when the torch build has no kernels for the GPU."
        return t
    pkg, pkg_v = _cudnn_pkg(facts)
    if pkg and expected and pkg_v and pkg_v.split(".")[:2] != expected.split(".")[:2]:
        notes.append("installed %s %s" % (pkg, pkg_v))
        return Tailored(summary="The cuDNN wheel (%s %s) is not the %s torch %s was built with; reinstall it."
                                % (pkg, pkg_v, expected, version),
                        commands=["%s install --force-reinstall %s==%s" % (F.pip_cmd(facts), pkg, expected)], notes=notes)
    if base == "1.8.0" and F.torch_cuda(facts) == "10.2":
        return Tailored(summary="torch 1.8.0+cu102 wheels had a cuDNN packaging bug fixed in 1.8.1: upgrade.",
                        commands=["%s install torch==1.8.1" % F.pip_cmd(facts)], notes=notes)
    return None


@hook("cudnn-plan-warning")
def cudnn_plan_warning(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    notes = installed_torch_note(facts)
    if base == "2.3.0":
        return Tailored(summary="torch 2.3.0 prints this warning spuriously; it is fixed in 2.3.1. Training is not affected; "
                                "upgrade to silence it.",
                        commands=["%s install torch==2.3.1" % F.pip_cmd(facts)], notes=notes)
    return Tailored(summary="Harmless: cuDNN rejected one candidate plan and torch used another. Only if the run fails or is "
                            "slow, update torch (installed %s)." % base, notes=notes)


@hook("cudnn-lib-load")
def cudnn_lib_load(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    missing = groups.get("missing") or ""
    notes = installed_torch_note(facts)
    pkg, pkg_v = _cudnn_pkg(facts)
    if pkg:
        notes.append("installed %s %s" % (pkg, pkg_v))
    version = F.torch_version_str(facts)
    expected = compat.expected_cudnn(version) if version else None
    if expected:
        notes.append("torch %s ships with cuDNN %s" % (version, expected))
    if facts.value("os.wsl") is True and missing.startswith("libcuda"):
        return Tailored(summary="This is WSL: the driver's libcuda lives in /usr/lib/wsl/lib, which the loader does not search. "
                                "Add it to the library path (and refresh the linker cache).",
                        commands=[F.prepend_path_cmd("LD_LIBRARY_PATH", "/usr/lib/wsl/lib"), "sudo ldconfig",
                                  "ls -l /usr/lib/wsl/lib/libcuda*"], notes=notes + ["running under WSL"])
    want = groups.get("major")
    if want and pkg and pkg_v and not pkg_v.startswith(want + "."):
        return Tailored(summary="The program needs cuDNN %s, but this environment has %s %s (torch's). Install a version of "
                                "the program built for cuDNN %s, or add a cuDNN %s to its library path."
                                % (want, pkg, pkg_v, pkg_v.split(".")[0], want), commands=[], notes=notes)
    if pkg and F.os_name(facts) == "linux":
        return Tailored(summary="The %s wheel (cuDNN %s) is installed but not on the library path of the program that loads it: "
                                "add its lib directory." % (pkg, pkg_v),
                        commands=[F.prepend_path_cmd("LD_LIBRARY_PATH", "$(%s -c \"import os, nvidia.cudnn; print(os.path.join("
                                                                        "nvidia.cudnn.__path__[0], 'lib'))\")" % F.python_cmd(facts))],
                        notes=notes)
    return None
