"""Which torch installs here: torch not installed, no wheel for this Python or platform,
pip's resolver errors, Windows long paths, macOS architectures.
"""

import re
from typing import List, Optional, Tuple

from ...advice import install_advice
from ...model.facts import Facts
from ...model import derived as F
from ...model import versions as V
from ...kb import compat
from ..registry import Remedy, ERROR, WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups, entry_commands
from ...advice import INSTALL_URL
from .common import advice_for, new_env_commands, python_note, ver_tuple
from ...advice.commands import on_interpreter, torch_command




def install_remedy(facts: Facts) -> Remedy:
    """Install torch into the target interpreter: the newest release with a wheel here, in the
    variant this machine runs; where no release has a wheel for this Python, a new
    environment with one that does."""
    exe = facts.value("python.executable", "this Python")
    py = F.python_minor(facts)
    if py and compat.newest_torch_for_python(py) is None:
        latest = compat.latest_release()
        return Remedy("No PyTorch release has wheels for Python %s, so pip cannot install torch here; create an "
                      "environment with a supported Python (%s for torch %s)."
                      % (py, ", ".join(compat.supported_pythons(latest) or []), latest), new_env_commands(facts, latest))
    adv = install_advice(facts)
    if not adv.commands:
        return Remedy("No torch build installs into this interpreter: %s" % adv.why.rstrip(".") + ".")
    return Remedy("Install torch %s into %s: %s" % (adv.torch_version, exe, adv.why), adv.commands)


@rule("check", "torch-not-installed", category="torch-not-installed", severity=ERROR, requires=('torch_import',),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
def torch_not_installed(facts):
    """torch is not importable from this interpreter."""
    imp = facts.section("torch_import")
    if imp.get("ok") is not False or imp.get("error_type") != "ModuleNotFoundError":
        return None
    if "'torch'" not in imp.get("error", "") and '"torch"' not in imp.get("error", ""):
        return None  # a missing *dependency* of torch: torch-import-failed covers it
    adv = install_advice(facts)
    py = facts.value("python.executable", "this Python")
    remedy = install_remedy(facts)
    return finding(
        "torch is not installed in %s" % py,
        detail="`import torch` raised %s. %s" % (imp.get("error"), adv.why[:1].upper() + adv.why[1:]),
        fix=remedy.summary, commands=remedy.commands, links=[INSTALL_URL])


@rule("check", "python-unsupported", category="python-unsupported", severity=WARNING)
def python_unsupported(facts):
    """This Python version has no official wheels for the installed torch."""
    py_minor = F.python_minor(facts)
    tv = F.torch_base_version(facts)
    if not py_minor:
        return None
    if tv:
        ok = compat.python_supported(tv, py_minor)
        if ok is False:
            return finding(
                "torch %s has no official wheels for Python %s" % (tv, py_minor),
                detail="torch %s supports Python %s. This install came from elsewhere (source build, "
                       "third-party wheel) or was forced; expect missing features or crashes."
                       % (tv, ", ".join(compat.supported_pythons(tv) or [])),
                fix="Use a supported Python, or a torch release that supports Python %s." % py_minor)
        return None
    if facts.value("torch_import.ok") is False and compat.newest_torch_for_python(py_minor) is None:
        return finding(
            "No PyTorch release supports Python %s yet" % py_minor, severity=ERROR,
            detail="pip cannot find a torch wheel for this Python, which is why torch is missing "
                   "(`No matching distribution found for torch`).",
            fix="Create an environment with a Python that PyTorch supports (%s)."
                % ", ".join(compat.supported_pythons(compat.latest_release()) or []))
    return None


@hook("torch-not-installed")
def tailor_torch_not_installed(match, facts: Facts) -> Optional[Tailored]:
    exe = facts.value("python.executable")
    if not exe:
        return None
    notes = python_note(facts)
    tv = F.torch_version_str(facts)
    if tv:
        notes += installed_torch_note(facts)
        return Tailored(
            cause="torch %s *is* installed for %s, so the program that failed ran another interpreter "
                  "(another env, the system Python, a Jupyter kernel or an IDE setting)." % (tv, exe),
            summary="Run the program with %s (or select it as the Jupyter kernel / IDE interpreter); to fix the "
                    "other interpreter instead, install torch with *its* `python -m pip`." % exe,
            commands=["%s -c \"import torch; print(torch.__version__)\"" % F.python_cmd(facts),
                      "python -c \"import sys; print(sys.executable)\""],
            notes=notes)
    notes.append("torch is not installed in %s" % exe)
    remedy = install_remedy(facts)
    return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes)


@hook("reinstall-torch")
def reinstall_torch(match, facts: Facts) -> Optional[Tailored]:
    if not facts.value("python.executable"):
        return None
    notes = python_note(facts) + installed_torch_note(facts)
    cmds = torch_command(facts, reinstall=True)
    if cmds:
        return Tailored(summary="Reinstall torch %s (the %s build) with this interpreter's pip so its compiled "
                                "files match this Python." % (F.torch_version_str(facts),
                                                               F.local_tag(facts) or "default"),
                        commands=cmds, notes=notes)
    adv = advice_for(facts)
    if adv.commands:
        return Tailored(summary="Install torch %s for this interpreter: %s" % (adv.torch_version, adv.why),
                        commands=adv.commands, notes=notes)
    return None


def _requested(spec: str) -> Tuple[Optional[str], Optional[str]]:
    """'==1.12.1+cu113' -> ('1.12.1', 'cu113'); '>=1.3' -> (None, None)."""
    m = re.match(r"\s*={2,3}\s*([\d.]+)(?:\+([\w.]+))?", spec or "")
    if not m:
        return None, None
    return m.group(1).rstrip("."), m.group(2)


@hook("torch-pip-unavailable")
def torch_pip_unavailable(match, facts: Facts) -> Optional[Tailored]:
    if "wasm" in match_groups(match):
        # Pyodide's micropip: this machine's Python is not the one that failed
        return Tailored(summary="torch has no build for Pyodide or JupyterLite (Python compiled to WebAssembly): run the "
                                "notebook on a regular Python kernel (a local Jupyter, Colab), or export the model to "
                                "ONNX to run it in the browser.", commands=[])
    py = F.python_minor(facts)
    if not py:
        return None
    notes = python_note(facts)
    os_ = F.os_of(facts)
    machine = F.machine(facts)
    if facts.value("python.bits") == 32:
        return Tailored(cause="This interpreter (%s) is a 32-bit Python; PyTorch has never published 32-bit wheels."
                              % facts.value("python.executable"),
                        summary="Install a 64-bit CPython (x86-64 installer from python.org), create a new "
                                "environment with it and install torch there.",
                        commands=["py -0p"] if os_ == "windows" else [], notes=notes)
    if os_ == "macos" and machine in ("x86_64", "amd64"):
        if facts.value("os.rosetta") is True or facts.value("os.apple_silicon") is True:
            return Tailored(cause="This Python runs as x86_64 under Rosetta on Apple silicon; torch publishes no "
                                  "macOS x86_64 wheels after 2.2.2.",
                            summary="Use a native arm64 Python (python.org universal2 installer, Homebrew in "
                                    "/opt/homebrew or Miniforge arm64) and install torch with it.",
                            commands=["/opt/homebrew/bin/python3 -m venv .venv", ".venv/bin/python -m pip install torch"],
                            notes=notes)
        pys = compat.supported_pythons("2.2") or []
        if compat.python_supported("2.2", py):
            return Tailored(cause="Intel Macs get no torch wheels after 2.2.2 (macOS x86_64 builds were deprecated).",
                            summary="Install torch 2.2.2, the last release with macOS x86_64 wheels.",
                            commands=[on_interpreter("pip install torch==2.2.2", facts)], notes=notes)
        return Tailored(cause="Intel Macs get no torch wheels after 2.2.2, and 2.2.2 supports Python %s only."
                              % ", ".join(pys),
                        summary="Create an environment with Python %s and install torch 2.2.2 there."
                                % (max(pys, key=ver_tuple) if pys else "3.11"),
                        notes=notes)
    groups = match_groups(match)
    # A torchvision/torchaudio pin: its version is not a torch version.
    spec = groups.get("spec") or "" if groups.get("pkg", "torch") == "torch" else ""
    version, tag = _requested(spec)
    if getattr(match, "id", None) == "pip-torch-variant-never-built":
        # The pattern already established that this release was never built for the variant.
        base, variant = (groups.get("base") or "").rstrip("."), groups.get("variant") or "that CUDA variant"
        if not compat.release(base):
            return None
        if variant.startswith("rocm"):
            return _rocm_index_lacks(facts, base, variant, groups.get("versions") or "", notes)
        return _never_built(facts, base, variant, notes)
    if version and compat.release(version):
        ok = compat.python_supported(version, py)
        if ok is False:
            newest = compat.newest_torch_for_python(py)
            pys = compat.supported_pythons(version) or []
            alt = (" or install torch %s, the newest release for Python %s" % (newest, py)) if newest else ""
            cmds = torch_command(facts, version=newest, variant=tag) if newest else []
            return Tailored(cause="torch %s has wheels for Python %s only; this interpreter is Python %s."
                                  % (version, ", ".join(pys), py),
                            summary="Use Python %s for torch %s%s." % (max(pys, key=ver_tuple) if pys else "?",
                                                                       version, alt),
                            commands=cmds or None, notes=notes)
        if tag and tag != "cpu" and os_ == "macos":
            return Tailored(cause="%s is a CUDA build; there are no CUDA builds of torch for macOS." % spec.lstrip("="),
                            summary="Install the plain macOS wheel (CPU + MPS) instead.",
                            commands=torch_command(facts, version=version, variant=None) or None, notes=notes)
        if tag and ok:
            cmds = torch_command(facts, version=version, variant=tag, companions=False)
            if cmds and "download.pytorch.org" in cmds[0]:
                return Tailored(cause="Builds with a local tag like +%s are not on PyPI: they live on the PyTorch "
                                      "index, which the command must name." % tag,
                                summary="Install it from the PyTorch index for %s." % tag,
                                commands=cmds, notes=notes)
            if cmds:
                return Tailored(cause="Versions with a local tag like +%s are not on PyPI; on this platform the PyPI "
                                      "wheel of torch %s already is the %s build." % (tag, version, tag),
                                summary="Ask for torch==%s without the +%s tag." % (version, tag),
                                commands=cmds, notes=notes)
            return _never_built(facts, version, tag, notes)
    if compat.newest_torch_for_python(py) is None:
        latest = compat.latest_release()
        return Tailored(cause="No torch release publishes wheels for Python %s (torch %s supports %s)."
                              % (py, latest, ", ".join(compat.supported_pythons(latest) or [])),
                        summary="Create an environment with a supported Python and install torch there.",
                        commands=new_env_commands(facts, latest) or None, notes=notes)
    return None


def _newest_for_variant(variant: str, py: Optional[str] = None) -> Optional[str]:
    """The newest patch of the newest release built for that CUDA variant with wheels for Python
    `py` (any Python when None); None when none is known."""
    for minor in reversed(compat.known_releases()):
        if variant in compat.cuda_variants(minor) and (py is None or compat.python_supported(minor, py) is not False):
            return compat.latest_patch(minor) or minor
    return None


def _never_built(facts: Facts, base: str, variant: str, notes) -> Tailored:
    """torch `base` asked as `variant`, a pair never made: keep the release (its own variants) or keep
    the variant (the newest release built for it, with its command); a patch that was never released
    at all (1.11.1) is said first, since no variant brings it."""
    row = compat.release(base) or {}
    patches = row.get("patches") or []
    variants = compat.cuda_variants(base)
    missing_patch = base.count(".") == 2 and patches and base not in patches
    keep = V.minor(base) or base
    py = F.python_minor(facts)
    if missing_patch and variant in variants:
        # the release has that variant: only the patch is wrong
        last = patches[-1]
        return Tailored(cause="torch %s was never released (%s's releases: %s); %s was built for %s."
                              % (base, keep, ", ".join(patches), last, variant),
                        summary="Ask for torch %s, the last patch of %s." % (last, keep),
                        commands=torch_command(facts, version=last, variant=variant, companions=False) or None,
                        notes=notes)
    cause = ("torch %s was never released (%s's releases: %s), and no variant brings it. " % (
        base, keep, ", ".join(patches)) if missing_patch else "") + \
        "torch %s was never built for %s; its CUDA variants are %s." % (keep if missing_patch else base, variant,
                                                                       ", ".join(variants) or "unknown")
    newest = _newest_for_variant(variant, py)
    cmds = torch_command(facts, version=newest, variant=variant, companions=False) if newest else []
    release = patches[-1] if missing_patch else base
    summary = "Install torch %s as one of its variants (one your driver supports)" % release
    if py and compat.python_supported(release, py) is False:
        summary = "torch %s has no wheel for Python %s either (it has %s): use one of those Pythons with one of its " \
                  "variants" % (release, py, ", ".join(compat.supported_pythons(release) or []))
    if newest:
        summary += ", or keep %s with torch %s, the newest release built for it%s" % (
            variant, newest, " with wheels for Python %s" % py if py else "")
    elif py and _newest_for_variant(variant):
        summary += "; no release built for %s has wheels for Python %s" % (variant, py)
    return Tailored(cause=cause, summary=summary + ".", commands=cmds or None, notes=notes)


def _rocm_index_lacks(facts: Facts, base: str, variant: str, versions: str, notes) -> Tailored:
    """torch `base` asked of a ROCm index whose builds pip listed. pip lists only the builds this
    interpreter may install, so the list is the index's range for this Python; the KB's ROCm per
    release is the release notes' stable one only (other ROCm builds exist)."""
    listed = sorted({v.split("+")[0].strip() for v in versions.split(",") if v.strip()}, key=ver_tuple)
    rocm = (compat.release(base) or {}).get("rocm") or []
    index = "https://download.pytorch.org/whl/%s" % variant
    look = on_interpreter("pip index versions torch --index-url %s" % index, facts)
    py = F.python_minor(facts)
    no_wheel_for_py = py is not None and compat.python_supported(base, py) is False
    filtered = (listed and ver_tuple(listed[0]) <= ver_tuple(base) <= ver_tuple(listed[-1])) \
        or ("rocm" + rocm[-1] == variant if rocm else False) or no_wheel_for_py
    if filtered:
        # the index carries the release (or its range does): pip left it out for this interpreter
        why = ("torch %s has no wheel for Python %s" % (base, py)) if no_wheel_for_py \
            else "pip left it out for this interpreter (its Python version or platform)"
        return Tailored(cause="The %s index is not what lacks torch %s: %s. pip lists only the builds this "
                              "interpreter may install." % (variant, base, why),
                        summary="Use a Python that torch %s supports (%s), or a torch release built for this one."
                                % (base, ", ".join(compat.supported_pythons(base) or []) or "see its release notes"),
                        commands=[look], notes=notes)
    newer = bool(listed) and ver_tuple(base) > ver_tuple(listed[-1])
    cause = ("The %s index carries torch %s to %s only (for this Python): torch %s was %s." % (
        variant, listed[0], listed[-1], base,
        "released after that ROCm's last build" if newer else "built for other ROCm versions only")) if listed else \
        "The %s index carries no torch %s." % (variant, base)
    if rocm:
        cause += " torch %s's release notes name ROCm %s." % (V.minor(base) or base, rocm[-1])
    linux = F.os_of(facts) == "linux"
    cmds = torch_command(facts, version=base, variant="rocm" + rocm[-1]) if rocm and linux else []
    alt = "torch %s from the %s index" % (listed[-1] if newer else listed[0], variant) if listed else \
        "another release from the %s index" % variant
    if not linux:
        notes = list(notes or []) + ["download.pytorch.org's ROCm wheels are for Linux only"]
    return Tailored(cause=cause,
                    summary=("Install torch %s from the ROCm %s index, or %s (one your ROCm and GPU support)."
                             % (base, rocm[-1], alt)) if rocm else "Install %s, or find torch %s's ROCm index "
                             "on pytorch.org/get-started/previous-versions." % (alt, base),
                    commands=cmds + [look], notes=notes)


@hook("torch-wheel-unsupported")
def torch_wheel_unsupported(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    py = F.python_minor(facts)
    if not py or not g.get("pytag"):
        return None
    want = "cp" + py.replace(".", "")
    problems = []
    if g["pytag"].startswith("cp") and g["pytag"] != want:
        have = g["pytag"][2:3] + "." + g["pytag"][3:]
        if g.get("abi") != "abi3":
            problems.append("the wheel is for Python %s but this interpreter is Python %s" % (have, py))
        elif ver_tuple(py) < ver_tuple(have):
            # An abi3 wheel runs on its Python and every later one.
            problems.append("the wheel is for Python %s or later but this interpreter is Python %s" % (have, py))
    plat = (g.get("plat") or "").lower()
    os_ = F.os_of(facts)
    wheel_os = "windows" if plat.startswith("win") else "macos" if plat.startswith("macosx") else \
        "linux" if "linux" in plat else None
    if wheel_os and os_ and wheel_os != os_:
        problems.append("it is a %s wheel and this is %s" % (wheel_os, os_))
    machine = F.machine(facts)
    arch = "arm64" if ("aarch64" in plat or "arm64" in plat) else "x86_64" if ("x86_64" in plat or "amd64" in plat) else None
    mine = "arm64" if machine in ("aarch64", "arm64") else "x86_64" if machine in ("x86_64", "amd64") else None
    if arch and mine and arch != mine:
        problems.append("it is built for %s and this machine is %s" % (arch, machine))
    if not problems:
        return None
    if (g.get("name") or "torch").lower() != "torch":
        # Another package's wheel (a prebuilt kernel library): torch's commands would not get it.
        return Tailored(cause="For %s: %s." % (g.get("wheel"), "; ".join(problems)),
                        summary="Get the %s wheel built for this interpreter and platform (its %s tag), or "
                                "run it with the Python the wheel was built for." % (g.get("name"), want),
                        commands=[on_interpreter("pip debug --verbose", facts)], notes=python_note(facts))
    ver = (g.get("ver") or "").split("+")[0]
    tag = (g.get("ver") or "").partition("+")[2] or None
    cmds = torch_command(facts, version=ver, variant=tag) if compat.release(ver) and \
        compat.python_supported(ver, py) else []
    return Tailored(cause="For %s: %s." % (g.get("wheel"), "; ".join(problems)),
                    summary="Let pip choose the file: install by version from the index instead of a wheel URL"
                            + ("" if cmds else " (this torch version may not exist for this Python; pick one "
                                               "that supports Python %s)" % py) + ".",
                    commands=cmds or [on_interpreter("pip install torch", facts)],
                    notes=python_note(facts))


@hook("windows-long-path")
def windows_long_path(match, facts: Facts) -> Optional[Tailored]:
    exe = facts.value("python.executable") or ""
    prefix = facts.value("python.prefix") or ""
    if "WindowsApps" in exe or "PythonSoftwareFoundation" in exe or "PythonSoftwareFoundation" in prefix:
        return Tailored(cause="%s is the Microsoft Store Python, whose packages live under a very long "
                              "AppData\\Local\\Packages\\...\\LocalCache path." % exe,
                        summary="Either enable long paths (admin, then reboot/new terminal) or install Python from "
                                "python.org into a short path and create the venv there (e.g. C:\\venvs\\t).",
                        notes=python_note(facts))
    # Reinstall the build pip was writing (its dist-info names it: +cu130 is no PyPI wheel on
    # Windows), not whatever `pip install torch` picks.
    ver = match_groups(match).get("ver") or ""
    base, _, tag = ver.partition("+")
    cmds = torch_command(facts, version=base, variant=tag or None, reinstall=True) if base else []
    if not cmds:
        return None
    return Tailored(commands=entry_commands(match)[:1] + cmds, notes=python_note(facts))


@hook("macos-arch")
def macos_arch(match, facts: Facts) -> Optional[Tailored]:
    g = match_groups(match)
    have, need = (g.get("have") or "").lower(), (g.get("need") or "").lower()
    if not have or not need:
        return None
    notes = python_note(facts)
    apple_silicon = facts.value("os.apple_silicon")
    if need.startswith("x86_64"):
        if apple_silicon is True or facts.value("os.rosetta") is True:
            return Tailored(cause="Python runs as x86_64 (Rosetta) on Apple silicon while torch's libraries are %s."
                                  % have,
                            summary="Use a native arm64 Python (python.org universal2, Homebrew in /opt/homebrew, "
                                    "Miniforge arm64), recreate the environment and reinstall torch.",
                            commands=["/opt/homebrew/bin/python3 -m venv .venv",
                                      ".venv/bin/python -m pip install torch"], notes=notes)
        if apple_silicon is False:
            return Tailored(cause="This is an Intel Mac; the installed torch is an %s build." % have,
                            summary="Install torch 2.2.2, the last release with macOS x86_64 wheels.",
                            commands=[on_interpreter("pip install --force-reinstall torch==2.2.2", facts)], notes=notes)
        return None
    if need.startswith("arm64") and have.startswith("x86_64"):
        return Tailored(summary="Reinstall torch with this (arm64) interpreter so pip fetches the arm64 wheel.",
                        commands=[on_interpreter("pip install --force-reinstall --no-cache-dir torch", facts)], notes=notes)
    return None


# NVIDIA's CUDA libraries as wheels: which platforms they exist for decides the remedy. The filters
# keep NVIDIA's other packages (nvidia-ml-py, DALI); off Linux they also drop what a Linux freeze
# holds that has no file there: triton and +cuXXX torch pins.
_CUDA_LIBS = ("cu", "nccl", "nvjitlink", "nvtx", "nvshmem")  # nvidia-cu* covers cuda-*, cudnn, cublas, cufft...
_OUT = " requirements.txt > requirements-no-nvidia.txt"
_LINUX_FILTER = "grep -viE '^[[:space:]]*nvidia-(%s)'%s" % ("|".join(_CUDA_LIBS), _OUT)
_MAC_FILTER = ("grep -viE '^[[:space:]]*(nvidia-(%s)|triton([=<>~! ]|$)|torch(vision|audio)?==[^[:space:]]*[+]cu)'%s"
               % ("|".join(_CUDA_LIBS), _OUT))
_WINDOWS_FILTER = "findstr /V /I /R %s /C:\"^triton\"%s" % (" ".join('/C:"^nvidia-%s"' % lib for lib in _CUDA_LIBS), _OUT)
# torch 1.13.0's own pins, which it declared without a platform marker (1.13.1 added one)
_TORCH_1130_PINS = {"nvidia-cuda-runtime-cu11": "11.7.99", "nvidia-cudnn-cu11": "8.5.0.96",
                    "nvidia-cublas-cu11": "11.10.3.66", "nvidia-cuda-nvrtc-cu11": "11.7.99"}


@hook("nvidia-wheel-platform")
def nvidia_wheel_platform(match, facts: Facts) -> Optional[Tailored]:
    """Say why this platform may have no file of the nvidia-* package, and drop such pins rather
    than chase them: torch's own wheel for this platform brings what it needs."""
    g = match_groups(match)
    pkg, ver = g.get("pkg") or "the nvidia-* package", g.get("ver")
    wanted = "%s %s" % (pkg, ver) if ver else pkg
    os_, machine = F.os_of(facts), F.machine(facts)
    notes = python_note(facts)
    if g.get("stub"):
        return _stub_remedy(pkg, wanted, os_, facts, notes)
    if g.get("poetry"):
        # the lock names the pin; torch 1.13.0's four are the unmarked ones
        if _TORCH_1130_PINS.get(pkg) == ver:
            notes = notes + ["%s is one of torch 1.13.0's unmarked dependencies" % wanted]
            commands = ['poetry add "torch>=2.1"' if os_ == "linux" and machine in ("aarch64", "arm64")
                        else 'poetry add "torch>=1.13.1"', "poetry install"]
            return Tailored(cause="Poetry locked torch 1.13.0, whose wheels declared %s without a platform marker, so "
                                  "the lock asks for it where no file exists; torch 1.13.1 limits it to Linux, 2.1 to "
                                  "Linux x86_64." % wanted,
                            summary="Lock a torch release whose NVIDIA dependencies carry platform markers.",
                            commands=commands, notes=notes)
        return Tailored(summary="Remove %s from the project's dependencies (torch's wheel for each platform brings "
                                "the CUDA libraries it needs), then lock again." % pkg,
                        commands=["poetry remove %s" % pkg, "poetry lock", "poetry install"], notes=notes)
    install = on_interpreter("pip install -r requirements-no-nvidia.txt", facts)
    if os_ == "macos":
        return Tailored(cause="This is macOS, for which NVIDIA publishes no CUDA library wheel: %s cannot install here, "
                              "and a Mac runs torch on the CPU or MPS." % wanted,
                        summary="Drop the NVIDIA CUDA, triton and +cuXXX torch requirements and install torch's macOS "
                                "wheel, which needs none of them.",
                        commands=[_MAC_FILTER, install, on_interpreter("pip install torch", facts)], notes=notes)
    if os_ == "windows":
        return Tailored(cause="This is Windows: NVIDIA's Windows files carry other build numbers than the Linux ones a "
                              "frozen file pins (no cuDNN before 8.9.4, no NCCL at all), so %s may have none; torch's "
                              "Windows CUDA wheels carry their CUDA libraries inside." % wanted,
                        summary="Drop the NVIDIA CUDA and triton requirements; keep the torch that is installed, or "
                                "install torch from the PyTorch index of its CUDA variant.",
                        commands=[_WINDOWS_FILTER, install], notes=notes)
    if os_ == "linux" and machine in ("aarch64", "arm64"):
        return Tailored(cause="This is Linux on aarch64, for which only some releases of NVIDIA's CUDA wheels exist "
                              "(no cuDNN or NCCL for CUDA 11): %s may have no aarch64 file." % wanted,
                        summary="Drop the NVIDIA CUDA pins and let torch's aarch64 wheel bring the releases it was "
                                "built with.", commands=[_LINUX_FILTER, install], notes=notes)
    if os_ == "linux" and machine in ("x86_64", "amd64"):
        libc = facts.value("os.libc")
        spec = "%s==%s" % (pkg, ver) if ver else pkg
        return Tailored(cause="This is Linux x86_64, for which most releases of NVIDIA's CUDA wheels exist on PyPI: "
                              "%s may be one published for Windows or aarch64 only, the index pip read (a mirror, or "
                              "--index-url without PyPI) may not carry it, or this system's C library may be older than "
                              "the file's manylinux tag%s." % (wanted, " (this one: %s)" % libc if libc else ""),
                        summary="See which indexes pip reads and why it skipped each file (pip's -vv lists them).",
                        commands=[on_interpreter("pip config list", facts),
                                  on_interpreter("pip download -vv --no-deps -d nvidia-check %s" % spec, facts)],
                        notes=notes)
    return None


def _stub_remedy(pkg: str, wanted: str, os_: Optional[str], facts: Facts, notes: List[str]) -> Tailored:
    """NVIDIA's placeholder packages on PyPI (nvidia-stub) fetch the real wheel from
    pypi.nvidia.com at install time; none there for this platform and Python, or no way there,
    ends so. pip's nvidia-stub lines list the wheels it tested."""
    cause = ("%s on PyPI is NVIDIA's placeholder, which downloads the real wheel from pypi.nvidia.com while pip "
             "prepares it: none of the wheels there fits this platform and Python (pip's `INFO:nvidia-stub:Testing "
             "wheel` lines list the ones it tried), or that index could not be reached." % wanted)
    if os_ == "macos":
        return Tailored(cause=cause,
                        summary="NVIDIA builds its GPU packages for Linux (some for Windows), none for macOS: drop %s "
                                "from what this Mac installs (a requirement marker `; sys_platform == \"linux\"`), or "
                                "run the project on a Linux machine." % pkg, commands=[], notes=notes)
    if os_ == "windows":
        return Tailored(cause=cause,
                        summary="Where %s is Linux only (DALI, cuCIM and the RAPIDS libraries are), drop it from what "
                                "Windows installs or run under WSL; where NVIDIA builds it for Windows (Isaac Sim), use "
                                "the Python version its wheels are tagged for (pip's lines name it: cp310, cp311)."
                                % pkg, commands=[], notes=notes)
    return Tailored(cause=cause,
                    summary="Compare this Python and system with the tags of the wheels pip tested (a cp310 wheel needs "
                            "Python 3.10, manylinux_2_34 a glibc of 2.34 or newer); if pypi.nvidia.com was unreachable "
                            "(a proxy, an offline mirror), install from it directly.",
                    commands=[on_interpreter("pip install --extra-index-url https://pypi.nvidia.com %s" % pkg, facts)],
                    notes=notes)

