"""Tailoring for install, import and native-library errors (kb/errors/install.json,
kb/errors/native_libs.json).

Every hook reads only the facts it is given and returns None when they add nothing,
so the entry's generic fix stands. Commands always name the target interpreter
(F.pip_cmd / F.python_cmd), never a bare `pip`, because "installed into another
Python" is the most common cause in this area.
"""

import ntpath
import posixpath
import re
from typing import Dict, List, Optional, Tuple

from ...checks import _facts as F
from ...facts import Facts
from ...kb import compat
from ..tailor import Tailored, hook, installed_torch_note

VC_REDIST = "https://aka.ms/vs/17/release/vc_redist.x64.exe"
INDEX = "https://download.pytorch.org/whl/"


# --------------------------------------------------------------- helpers ----
def _os(facts: Facts) -> Optional[str]:
    """linux/windows/macos from the OS facts, else from sys.platform; None if unknown."""
    if facts.has("os.system"):
        return F.os_name(facts)
    plat = facts.value("python.platform")
    if isinstance(plat, str):
        if plat.startswith("win"):
            return "windows"
        if plat == "darwin":
            return "macos"
        if plat.startswith("linux"):
            return "linux"
    return None


def _py_minor(facts: Facts) -> Optional[str]:
    v = facts.value("python.version")
    if not isinstance(v, str):
        return None
    m = re.match(r"(\d+)\.(\d+)", v)
    return "%s.%s" % m.groups() if m else None


def _machine(facts: Facts) -> str:
    m = facts.value("python.machine") or facts.value("os.machine") or ""
    return str(m).lower()


def _python_note(facts: Facts) -> List[str]:
    exe = facts.value("python.executable")
    if not exe:
        return []
    parts = ["Python %s" % facts.value("python.version", "?")]
    if facts.value("python.bits"):
        parts.append("%s-bit" % facts.value("python.bits"))
    if _machine(facts):
        parts.append(_machine(facts))
    return ["%s at %s" % (", ".join(parts), exe)]


def _pip(cmd: str, facts: Facts) -> str:
    """`pip install ...` -> `/path/python -m pip install ...`."""
    return F.pip_cmd(facts) + cmd[3:] if cmd.startswith("pip ") else cmd


def _variant(facts: Facts) -> Optional[str]:
    """The installed wheel's variant ('cu121', 'cpu', 'rocm6.2'); None if unknown or plain."""
    return F.local_tag(facts)


def _torch_install(facts: Facts, version: Optional[str] = None, variant: Optional[str] = "keep",
                   reinstall: bool = False, companions: bool = False) -> List[str]:
    """Install command(s) for torch `version` (default: the installed one) in the installed
    variant ("keep"), for the target interpreter; [] when the KB cannot say."""
    version = version or F.torch_base_version(facts)
    if not version:
        return []
    if variant == "keep":
        variant = _variant(facts)
    os_ = _os(facts) or "linux"
    installer = "conda" if F.installed_with_conda(facts) else "pip"
    cmds = compat.install_command(version, variant, installer=installer, with_companions=companions, os=os_)
    if not cmds and installer == "conda":  # no conda package of that release: pip it is
        cmds = compat.install_command(version, variant, installer="pip", with_companions=companions, os=os_)
    out = []
    for c in cmds:
        if reinstall and c.startswith("pip install "):
            c = "pip install --force-reinstall --no-cache-dir " + c[len("pip install "):]
        out.append(_pip(c, facts))
    return out


def _advice(facts: Facts):
    from ...advice import install_advice
    return install_advice(facts)


def _installed(facts: Facts, name: str) -> Optional[str]:
    return F.package_version(facts, name)


def _cuda_major_of(variant: Optional[str]) -> Optional[str]:
    m = re.fullmatch(r"cu(\d{2})\d", variant or "")
    return m.group(1) if m else None


def _ver_tuple(v: str) -> Tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", v)[:3])


# ------------------------------------------------------- install / import ----
@hook("torch_not_installed")
def torch_not_installed(match, facts: Facts) -> Optional[Tailored]:
    exe = facts.value("python.executable")
    if not exe:
        return None
    notes = _python_note(facts)
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
    py = _py_minor(facts)
    notes.append("torch is not installed in %s" % exe)
    if py and compat.newest_torch_for_python(py) is None:
        latest = compat.latest_release()
        return Tailored(
            summary="No PyTorch release has wheels for Python %s, so pip cannot install torch here; create an "
                    "environment with a supported Python (%s for torch %s)."
                    % (py, ", ".join(compat.supported_pythons(latest) or []), latest),
            commands=_new_env_commands(facts, latest), notes=notes)
    adv = _advice(facts)
    if not adv.commands:
        return Tailored(summary=adv.why or None, notes=notes) if adv.why else None
    return Tailored(summary="Install torch %s into %s: %s" % (adv.torch_version, exe, adv.why),
                    commands=adv.commands, notes=notes)


def _new_env_commands(facts: Facts, torch_minor: str) -> List[str]:
    rel = compat.release(torch_minor) or {}
    stable = [p for p in rel.get("python", []) if p not in rel.get("python_experimental", [])]
    if not stable:
        return []
    target = max(stable, key=_ver_tuple)
    if _os(facts) == "windows":
        return ["py -%s -m venv .venv" % target, ".venv\\Scripts\\python -m pip install torch"]
    return ["python%s -m venv .venv" % target, ".venv/bin/python -m pip install torch"]


@hook("torch_shadowed")
def torch_shadowed(match, facts: Facts) -> Optional[Tailored]:
    groups = getattr(match, "groups", {}) or {}
    path = groups.get("path")
    kind = None
    if not path:
        site = [e for e in (facts.value("python.sys_path") or []) if isinstance(e, str)
                and ("site-packages" in e or "dist-packages" in e)]
        for c in facts.value("torch_location.candidates") or []:
            if not isinstance(c, dict) or not c.get("path"):
                continue
            if c.get("kind") == "package" and c.get("sys_path_entry") in site:
                continue  # the real, installed torch
            path, kind = c["path"], c.get("kind")
            break
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    if groups.get("attr") == "version" and not path and (F.torch_base_version(facts) or "").startswith("2.4."):
        return Tailored(cause="torch %s has a known circular import when the first import is `import torch.cuda` "
                              "(pytorch#134019)." % F.torch_version_str(facts),
                        summary="Put a plain `import torch` before `import torch.cuda`, or upgrade torch.",
                        notes=notes)
    if not path:
        return None
    windows = _os(facts) == "windows" or "\\" in path
    pm = ntpath if windows else posixpath
    base, parent = pm.basename(path.rstrip("\\/")), pm.dirname(path.rstrip("\\/"))
    notes.append("`import torch` resolves to %s" % path)
    if kind == "namespace-dir" and ("site-packages" in path or "dist-packages" in path):
        rm = 'rmdir /s /q "%s"' % path if windows else "rm -rf %s" % path
        return Tailored(cause="%s is an empty leftover torch folder (no __init__.py) from a broken install." % path,
                        summary="Delete the leftover folder and reinstall torch.",
                        commands=[rm, F.pip_cmd(facts) + " install --force-reinstall --no-cache-dir torch"],
                        notes=notes)
    new = pm.join(parent, "my_" + base) if parent else "my_" + base
    cache = pm.join(parent, "__pycache__") if parent else "__pycache__"
    if windows:
        cmds = ['ren "%s" "%s"' % (path, pm.basename(new)), 'rmdir /s /q "%s"' % cache]
    else:
        cmds = ["mv %s %s" % (path, new), "rm -rf %s" % cache]
    return Tailored(summary="Rename %s (your file, not PyTorch) and delete the __pycache__ next to it; update "
                            "imports that referred to it." % path,
                    commands=cmds, notes=notes)


@hook("reinstall_torch")
def reinstall_torch(match, facts: Facts) -> Optional[Tailored]:
    if not facts.value("python.executable"):
        return None
    notes = _python_note(facts) + installed_torch_note(facts)
    cmds = _torch_install(facts, reinstall=True)
    if cmds:
        return Tailored(summary="Reinstall torch %s (the %s build) with this interpreter's pip so its compiled "
                                "files match this Python." % (F.torch_version_str(facts),
                                                               _variant(facts) or "default"),
                        commands=cmds, notes=notes)
    adv = _advice(facts)
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


@hook("torch_pip_unavailable")
def torch_pip_unavailable(match, facts: Facts) -> Optional[Tailored]:
    py = _py_minor(facts)
    if not py:
        return None
    notes = _python_note(facts)
    os_ = _os(facts)
    machine = _machine(facts)
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
                            commands=[_pip("pip install torch==2.2.2", facts)], notes=notes)
        return Tailored(cause="Intel Macs get no torch wheels after 2.2.2, and 2.2.2 supports Python %s only."
                              % ", ".join(pys),
                        summary="Create an environment with Python %s and install torch 2.2.2 there."
                                % (max(pys, key=_ver_tuple) if pys else "3.11"),
                        notes=notes)
    spec = (getattr(match, "groups", {}) or {}).get("spec") or ""
    version, tag = _requested(spec)
    if version and compat.release(version):
        ok = compat.python_supported(version, py)
        if ok is False:
            newest = compat.newest_torch_for_python(py)
            pys = compat.supported_pythons(version) or []
            alt = (" or install torch %s, the newest release for Python %s" % (newest, py)) if newest else ""
            cmds = _torch_install(facts, version=newest, variant=tag) if newest else []
            return Tailored(cause="torch %s has wheels for Python %s only; this interpreter is Python %s."
                                  % (version, ", ".join(pys), py),
                            summary="Use Python %s for torch %s%s." % (max(pys, key=_ver_tuple) if pys else "?",
                                                                       version, alt),
                            commands=cmds or None, notes=notes)
        if tag and tag != "cpu" and os_ == "macos":
            return Tailored(cause="%s is a CUDA build; there are no CUDA builds of torch for macOS." % spec.lstrip("="),
                            summary="Install the plain macOS wheel (CPU + MPS) instead.",
                            commands=_torch_install(facts, version=version, variant=None) or None, notes=notes)
        if tag and ok:
            cmds = _torch_install(facts, version=version, variant=tag, companions=False)
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
            variants = compat.cuda_variants(version)
            return Tailored(cause="torch %s was never built as %s; its CUDA variants are %s."
                                  % (version, tag, ", ".join(variants) or "unknown"),
                            summary="Pick one of the published variants (one your driver supports).", notes=notes)
    if compat.newest_torch_for_python(py) is None:
        latest = compat.latest_release()
        return Tailored(cause="No torch release publishes wheels for Python %s (torch %s supports %s)."
                              % (py, latest, ", ".join(compat.supported_pythons(latest) or [])),
                        summary="Create an environment with a supported Python and install torch there.",
                        commands=_new_env_commands(facts, latest) or None, notes=notes)
    return None


@hook("torch_wheel_unsupported")
def torch_wheel_unsupported(match, facts: Facts) -> Optional[Tailored]:
    g = getattr(match, "groups", {}) or {}
    py = _py_minor(facts)
    if not py or not g.get("pytag"):
        return None
    want = "cp" + py.replace(".", "")
    problems = []
    if g["pytag"].startswith("cp") and g["pytag"] != want:
        have = g["pytag"][2:3] + "." + g["pytag"][3:]
        problems.append("the wheel is for Python %s but this interpreter is Python %s" % (have, py))
    plat = (g.get("plat") or "").lower()
    os_ = _os(facts)
    wheel_os = "windows" if plat.startswith("win") else "macos" if plat.startswith("macosx") else \
        "linux" if "linux" in plat else None
    if wheel_os and os_ and wheel_os != os_:
        problems.append("it is a %s wheel and this is %s" % (wheel_os, os_))
    machine = _machine(facts)
    arch = "arm64" if ("aarch64" in plat or "arm64" in plat) else "x86_64" if ("x86_64" in plat or "amd64" in plat) else None
    mine = "arm64" if machine in ("aarch64", "arm64") else "x86_64" if machine in ("x86_64", "amd64") else None
    if arch and mine and arch != mine:
        problems.append("it is built for %s and this machine is %s" % (arch, machine))
    if not problems:
        return None
    ver = (g.get("ver") or "").split("+")[0]
    tag = (g.get("ver") or "").partition("+")[2] or None
    cmds = _torch_install(facts, version=ver, variant=tag) if compat.release(ver) and \
        compat.python_supported(ver, py) else []
    return Tailored(cause="For %s: %s." % (g.get("wheel"), "; ".join(problems)),
                    summary="Let pip choose the file: install by version from the index instead of a wheel URL"
                            + ("" if cmds else " (this torch version may not exist for this Python; pick one "
                                               "that supports Python %s)" % py) + ".",
                    commands=cmds or [_pip("pip install torch", facts)],
                    notes=_python_note(facts))


@hook("windows_long_path")
def windows_long_path(match, facts: Facts) -> Optional[Tailored]:
    exe = facts.value("python.executable") or ""
    prefix = facts.value("python.prefix") or ""
    if "WindowsApps" in exe or "PythonSoftwareFoundation" in exe or "PythonSoftwareFoundation" in prefix:
        return Tailored(cause="%s is the Microsoft Store Python, whose packages live under a very long "
                              "AppData\\Local\\Packages\\...\\LocalCache path." % exe,
                        summary="Either enable long paths (admin, then reboot/new terminal) or install Python from "
                                "python.org into a short path and create the venv there (e.g. C:\\venvs\\t).",
                        notes=_python_note(facts))
    return None


@hook("illegal_instruction")
def illegal_instruction(match, facts: Facts) -> Optional[Tailored]:
    machine = _machine(facts)
    base = F.torch_base_version(facts)
    notes = installed_torch_note(facts) + _python_note(facts)
    if machine in ("aarch64", "arm64") and _os(facts) != "macos":
        if base == "2.4.0":
            return Tailored(cause="torch 2.4.0 aarch64 wheels use ARMv8.1 LSE atomics (in libarm_compute); ARMv8.0 "
                                  "cores such as the Raspberry Pi 4's Cortex-A72 lack them (fixed in 2.4.1).",
                            summary="Install torch 2.4.1 or later.",
                            commands=_torch_install(facts, version="2.4.1", reinstall=True) or
                            [_pip("pip install --force-reinstall torch==2.4.1", facts)], notes=notes)
        if base and base.startswith("2.10."):
            return Tailored(cause="torch 2.10 aarch64 wheels use LSE atomics in libc10.so, which ARMv8.0 cores "
                                  "(Cortex-A53/A72/A73) lack; fixed for 2.11.",
                            summary="Install torch 2.11 or later (or 2.9.x).",
                            commands=[_pip('pip install --force-reinstall "torch>=2.11"', facts)], notes=notes)
        if base == "2.0.0":
            return Tailored(cause="torch 2.0.0 aarch64 wheels crash with SIGILL on ARMv8.0 cores (Raspberry Pi 4, "
                                  "AWS a1); 1.13.1 works there.",
                            summary="Install another release than 2.0.0.",
                            commands=[_pip('pip install --force-reinstall "torch!=2.0.0"', facts)], notes=notes)
        return Tailored(cause="On ARM the usual culprit is an instruction newer than ARMv8.0 (LSE atomics); check "
                              "for 'atomics' in the CPU features.",
                        commands=["grep -m1 Features /proc/cpuinfo"], notes=notes) if notes else None
    flags = facts.value("cpu.flags")
    if isinstance(flags, list) and flags:
        missing = [f for f in ("avx", "avx2") if f not in flags]
        if missing:
            return Tailored(cause="This CPU (%s) reports no %s; torch's x86 builds have repeatedly executed AVX "
                                  "code at import on such CPUs." % (facts.value("cpu.model", "unknown model"),
                                                                    " / ".join(missing)),
                            summary="Run on a CPU (or VM CPU model) with AVX2, try another torch release, or build "
                                    "torch from source for this CPU.", notes=notes)
    return None


@hook("import_crash")
def import_crash(match, facts: Facts) -> Optional[Tailored]:
    if not facts.value("python.executable"):
        return None
    py = F.python_cmd(facts)
    notes = installed_torch_note(facts) + _python_note(facts)
    cmds = ['%s -X faulthandler -c "import torch"' % py]
    env_vars = [v for v in ("LD_LIBRARY_PATH", "LD_PRELOAD") if F.env(facts, v)]
    for v in env_vars:
        notes.append("%s=%s" % (v, F.env(facts, v)))
    if _os(facts) != "windows":
        cmds.append('env -u LD_LIBRARY_PATH -u LD_PRELOAD %s -c "import torch; print(torch.__version__)"' % py)
    cmds += _torch_install(facts, reinstall=True)
    cause = None
    if env_vars:
        cause = "%s is set, so libraries from there are loaded instead of the ones torch ships with." % \
                " and ".join(env_vars)
    return Tailored(cause=cause, commands=cmds, notes=notes)


@hook("macos_arch")
def macos_arch(match, facts: Facts) -> Optional[Tailored]:
    g = getattr(match, "groups", {}) or {}
    have, need = (g.get("have") or "").lower(), (g.get("need") or "").lower()
    if not have or not need:
        return None
    notes = _python_note(facts)
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
                            commands=[_pip("pip install --force-reinstall torch==2.2.2", facts)], notes=notes)
        return None
    if need.startswith("arm64") and have.startswith("x86_64"):
        return Tailored(summary="Reinstall torch with this (arm64) interpreter so pip fetches the arm64 wheel.",
                        commands=[_pip("pip install --force-reinstall --no-cache-dir torch", facts)], notes=notes)
    return None


# ---------------------------------------------------------------- Windows ----
@hook("windows_dll")
def windows_dll(match, facts: Facts) -> Optional[Tailored]:
    os_ = _os(facts)
    if os_ is not None and os_ != "windows":
        return None
    if not facts.value("python.executable") and not F.torch_version_str(facts):
        return None
    notes = installed_torch_note(facts) + _python_note(facts)
    entry_id = match.entry.id
    base = F.torch_base_version(facts)
    if facts.value("python.bits") == 32:
        return Tailored(cause="This Python is 32-bit; torch's DLLs are 64-bit only.",
                        summary="Install a 64-bit Python and reinstall torch with it.", notes=notes)
    if entry_id == "windows-fbgemm-dll-missing-libomp" and base == "2.4.0":
        cmds = _torch_install(facts, version="2.4.1", companions=bool(_installed(facts, "torchvision")))
        return Tailored(cause="The installed torch is 2.4.0, the release whose fbgemm.dll needs the unshipped "
                              "libomp140.x86_64.dll.",
                        summary="Upgrade to torch 2.4.1 (same variant%s)."
                                % (", with the matching torchvision" if _installed(facts, "torchvision") else ""),
                        commands=cmds or [_pip('pip install --upgrade "torch>=2.4.1"', facts)], notes=notes)
    reinstall = _torch_install(facts, reinstall=True)
    if entry_id == "windows-dll-init-failed-1114" and base and _ver_tuple(base) >= (2, 9):
        return Tailored(cause="torch %s is built with MSVC 14.42 and needs msvcp140.dll 14.40 or newer." % base,
                        summary="Install the latest Visual C++ Redistributable (x64) and reboot; if another package "
                                "imported before torch brings an older msvcp140.dll, import torch first.",
                        commands=[VC_REDIST,
                                  "(Get-Item C:\\Windows\\System32\\msvcp140.dll).VersionInfo.FileVersion"],
                        notes=notes)
    if entry_id in ("windows-vc-redist-not-installed",):
        return Tailored(commands=[VC_REDIST], notes=notes) if notes else None
    if not reinstall:
        return None
    return Tailored(commands=[VC_REDIST] + reinstall, notes=notes)


# ------------------------------------------------------ Linux native libs ----
def _nvidia_packages(facts: Facts) -> Dict[str, str]:
    inst = facts.value("packages.installed")
    if not isinstance(inst, dict):
        return {}
    return {k: v.get("version") for k, v in inst.items()
            if (k.startswith("nvidia-") or k.startswith("cuda-")) and isinstance(v, dict) and v.get("version")}


@hook("cuda_libs_missing")
def cuda_libs_missing(match, facts: Facts) -> Optional[Tailored]:
    tv = F.torch_version_str(facts)
    if not tv:
        return None
    notes = installed_torch_note(facts)
    nv = _nvidia_packages(facts)
    notes.append("%d nvidia-*/cuda-* pip packages installed" % len(nv) if nv else
                 "no nvidia-* / cuda-* pip packages installed")
    lib = (getattr(match, "groups", {}) or {}).get("lib", "the CUDA library")
    tag = _variant(facts)
    if tag == "cpu":
        return Tailored(cause="The installed torch is a CPU build, so %s is needed by another package (onnxruntime, "
                              "TensorRT, a CUDA extension) that expects a system CUDA/cuDNN." % lib,
                        summary="Install the CUDA/cuDNN that package documents, or its CPU variant.",
                        commands=[], notes=notes)
    if facts.state("driver.present") != "unknown" and not F.has_nvidia_driver(facts):
        notes.append("no NVIDIA driver found")
        cmds = _torch_install(facts, variant="cpu", reinstall=True)
        return Tailored(summary="There is no NVIDIA driver here, so the CUDA build cannot be used anyway: install the "
                                "CPU build of torch %s." % F.torch_base_version(facts),
                        commands=cmds or None, notes=notes)
    cmds = _torch_install(facts, reinstall=True)
    if not cmds:
        return None
    return Tailored(summary="Reinstall torch %s with its CUDA dependencies (no --no-deps), then check them with "
                            "`pip check`." % tv,
                    commands=cmds + [F.pip_cmd(facts) + " check"], notes=notes)


@hook("nvidia_lib_shadowed")
def nvidia_lib_shadowed(match, facts: Facts) -> Optional[Tailored]:
    ld = F.env(facts, "LD_LIBRARY_PATH")
    nvjit = match.entry.id == "nvjitlink-undefined-symbol"
    variant = _variant(facts)
    major = _cuda_major_of(variant) or "12"
    pkg = ("nvidia-nvjitlink-cu%s" if nvjit else "nvidia-cublas-cu%s") % major
    if major == "13":
        pkg = "nvidia-nvjitlink" if nvjit else "nvidia-cublas"
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    pver = _installed(facts, pkg)
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
            cmds.append("export LD_LIBRARY_PATH=%s/nvidia/%s/lib:$LD_LIBRARY_PATH" % (loc, sub))
    need = (getattr(match, "groups", {}) or {}).get("ver")
    if nvjit and need and pver:
        want = need.replace("_", ".")
        if _ver_tuple(pver)[:2] < _ver_tuple(want)[:2]:
            cause = (cause + " " if cause else "") + "%s %s is older than the CUDA %s nvJitLink that cusparse needs." \
                % (pkg, pver, want)
            cmds.append('%s install "%s>=%s"' % (F.pip_cmd(facts), pkg, want))
    if not cmds:
        return None
    return Tailored(cause=cause, commands=cmds, notes=notes)


@hook("nccl_mismatch")
def nccl_mismatch(match, facts: Facts) -> Optional[Tailored]:
    base = F.torch_base_version(facts)
    if not base:
        return None
    variant = _variant(facts) or compat.default_cuda(base)
    pins = (compat.release(base) or {}).get("nccl") or {}
    pin = pins.get(variant) if isinstance(pins, dict) else None
    major = _cuda_major_of(variant)
    notes = installed_torch_note(facts)
    ld = F.env(facts, "LD_LIBRARY_PATH")
    if ld:
        notes.append("LD_LIBRARY_PATH=%s" % ld)
    if not pin or not major:
        return None
    pkg = "nvidia-nccl-cu%s" % major
    have = _installed(facts, pkg)
    notes.append("%s %s (torch %s pins %s)" % (pkg, have or "not installed", base, pin))
    if have == pin and not ld:
        return None
    return Tailored(summary="Install the NCCL torch %s (%s) was built with: %s==%s%s."
                            % (base, variant, pkg, pin, "" if not ld else ", and keep other NCCL copies off "
                                                                           "LD_LIBRARY_PATH"),
                    commands=["%s install --force-reinstall %s==%s" % (F.pip_cmd(facts), pkg, pin)],
                    notes=notes)


@hook("mkl_ijit")
def mkl_ijit(match, facts: Facts) -> Optional[Tailored]:
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    mkl = facts.value("packages.installed.conda:mkl.version") or _installed(facts, "mkl")
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
    need = (getattr(match, "groups", {}) or {}).get("ver")
    if not need or not facts.value("python.executable"):
        return None
    prefix = facts.value("python.prefix")
    if facts.value("python.conda") is True and prefix:
        return Tailored(summary="Update libstdc++ in this conda env so it provides GLIBCXX_%s, then import torch "
                                "first." % need,
                        commands=['strings "%s/lib/libstdc++.so.6" | grep -x GLIBCXX_%s' % (prefix, need),
                                  'conda install -y -p "%s" -c conda-forge libstdcxx-ng' % prefix],
                        notes=_python_note(facts))
    return Tailored(summary="The system libstdc++ lacks GLIBCXX_%s: upgrade the distribution's libstdc++ (or use a "
                            "newer OS/container), or run from a conda env with a newer libstdcxx-ng." % need,
                    commands=["strings /usr/lib/x86_64-linux-gnu/libstdc++.so.6 | grep -x GLIBCXX_%s" % need],
                    notes=_python_note(facts))


@hook("glibc_too_old")
def glibc_too_old(match, facts: Facts) -> Optional[Tailored]:
    need = (getattr(match, "groups", {}) or {}).get("ver")
    libc = facts.value("os.libc")
    if not need or not isinstance(libc, str) or "glibc" not in libc:
        return None
    have = libc.split()[-1]
    notes = ["system C library: %s" % libc] + (installed_torch_note(facts) if F.torch_version_str(facts) else [])
    if facts.value("os.distro"):
        notes.append("OS: %s" % facts.value("os.distro"))
    if _ver_tuple(have) >= _ver_tuple(need):
        return Tailored(cause="This machine's glibc %s is new enough, so the failing program ran elsewhere (a "
                              "container or another host) with an older glibc." % have, notes=notes)
    return Tailored(cause="This system has glibc %s; the torch binary needs %s." % (have, need),
                    summary="Install torch through pip from the official index (pip only picks wheels this glibc can "
                            "run), or move to a distribution/container with glibc >= %s." % need,
                    commands=[_pip("pip install --force-reinstall torch", facts)], notes=notes)


@hook("omp_duplicate")
def omp_duplicate(match, facts: Facts) -> Optional[Tailored]:
    os_ = _os(facts)
    conda = facts.value("python.conda") is True
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    extra = [n for n in ("mkl", "intel-openmp") if _installed(facts, n)]
    for n in extra:
        notes.append("pip package %s %s installed" % (n, _installed(facts, n)))
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


@hook("mkl_fatal")
def mkl_fatal(match, facts: Facts) -> Optional[Tailored]:
    if facts.value("python.conda") is not True:
        return None
    prefix = facts.value("python.prefix")
    env = facts.value("python.conda_env")
    activate = "conda activate %s" % (env or prefix or "<env>")
    notes = _python_note(facts)
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
    if _ver_tuple(base) >= (2, 3):
        return Tailored(summary="Harmless. To silence it, disable NNPACK once at start-up, before any convolution: "
                                "torch.backends.nnpack.set_flags(False).",
                        commands=['%s -c "import torch; torch.backends.nnpack.set_flags(False); '
                                  'print(torch.backends.nnpack.is_available())"' % F.python_cmd(facts)],
                        notes=notes)
    return Tailored(summary="Harmless. torch %s has no torch.backends.nnpack switch (added in 2.3); ignore the "
                            "warning or upgrade torch." % base, commands=[], notes=notes)


@hook("libuv")
def libuv(match, facts: Facts) -> Optional[Tailored]:
    os_ = _os(facts)
    if os_ is None:
        return None
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    if os_ == "windows":
        return Tailored(summary="Set USE_LIBUV=0 before starting torchrun/the script (Windows builds have no libuv); "
                                "multi-GPU training works best on Linux or WSL2.",
                        commands=["set USE_LIBUV=0", '$env:USE_LIBUV = "0"'], notes=notes)
    return Tailored(summary="This torch build has no libuv: set USE_LIBUV=0 for the process.",
                    commands=["export USE_LIBUV=0"], notes=notes)


# -------------------------------------------------------------- extensions ----
_EXT_PACKAGES = (
    ("flash_attn", "flash-attn"), ("xformers", "xformers"), ("mmcv", "mmcv"), ("detectron2", "detectron2"),
    ("pytorch3d", "pytorch3d"), ("torch_scatter", "torch-scatter"), ("torch_sparse", "torch-sparse"),
    ("torch_cluster", "torch-cluster"), ("amp_C", "apex"), ("fused_layer_norm", "apex"), ("apex", "apex"),
    ("deepspeed", "deepspeed"), ("bitsandbytes", "bitsandbytes"), ("torchaudio", "torchaudio"),
    ("vllm", "vllm"), ("exllamav2", "exllamav2"), ("causal_conv1d", "causal-conv1d"),
    ("selective_scan", "mamba-ssm"), ("mamba", "mamba-ssm"),
)


def _ext_package(so: str) -> Optional[str]:
    name = so.split(".")[0].lower()
    for prefix, pkg in _EXT_PACKAGES:
        if name.startswith(prefix.lower()):
            return pkg
    return None


@hook("extension_rebuild")
def extension_rebuild(match, facts: Facts) -> Optional[Tailored]:
    g = getattr(match, "groups", {}) or {}
    tv = F.torch_version_str(facts)
    pkg = _ext_package(g.get("so") or "")
    if not tv and not pkg:
        return None
    notes = installed_torch_note(facts) if tv else []
    pver = _installed(facts, pkg) if pkg else None
    if pkg:
        notes.append("%s %s" % (pkg, pver or "(version unknown)"))
    target = pkg or "<extension-package>"
    cmds = ['%s -c "import torch; print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)"'
            % F.python_cmd(facts),
            "%s install --no-build-isolation --no-cache-dir --force-reinstall %s" % (F.pip_cmd(facts), target)]
    cause = None
    if "__cxx11" in (g.get("sym") or ""):
        cause = ("The missing symbol uses the cxx11 std::string ABI: the extension was built with a different "
                 "_GLIBCXX_USE_CXX11_ABI setting than this torch (for prebuilt wheels pick the cxx11abiTRUE/FALSE "
                 "file that matches torch._C._GLIBCXX_USE_CXX11_ABI).")
    summary = "Rebuild/reinstall %s against the installed torch%s." % (target, " %s" % tv if tv else "")
    return Tailored(cause=cause, summary=summary, commands=cmds, notes=notes)


@hook("xformers_mismatch")
def xformers_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = getattr(match, "groups", {}) or {}
    tv = F.torch_version_str(facts) or g.get("have")
    if not tv:
        return None
    tag = tv.partition("+")[2] or None
    base = tv.split("+")[0]
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else ["torch %s (from the message)" % tv]
    xv = _installed(facts, "xformers")
    if xv:
        notes.append("xformers %s" % xv)
    if g.get("built"):
        notes.append("xformers was built for torch %s" % g["built"])
    if tag == "cpu":
        adv = _advice(facts)
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


@hook("cuda_toolkit_mismatch")
def cuda_toolkit_mismatch(match, facts: Facts) -> Optional[Tailored]:
    g = getattr(match, "groups", {}) or {}
    nvcc = g.get("nvcc") or F.nvcc_version(facts)
    tcuda = g.get("torch_cuda") or F.torch_cuda(facts) or compat.cuda_of_variant(_variant(facts))
    if not nvcc or not tcuda:
        return None
    nvcc_mm = ".".join(str(nvcc).split(".")[:2])
    notes = ["CUDA toolkit (nvcc) %s" % nvcc, "torch built with CUDA %s" % tcuda]
    if F.torch_version_str(facts):
        notes = installed_torch_note(facts) + notes
    cmds = []
    base = F.torch_base_version(facts)
    variant = compat.variant_for_cuda(nvcc_mm)
    if base and variant and variant in compat.cuda_variants(base):
        cmds = _torch_install(facts, variant=variant, reinstall=True)
    if _os(facts) != "windows":
        cmds.append("export CUDA_HOME=/usr/local/cuda-%s  # if that toolkit is installed" % tcuda)
    summary = ("Build with a CUDA %s toolkit (set CUDA_HOME to it)%s." %
               (tcuda, ", or switch torch to its %s build so it matches nvcc %s" % (variant, nvcc_mm)
                if cmds and variant and base else ""))
    return Tailored(summary=summary, commands=cmds or None, notes=notes)


@hook("extension_libtorch")
def extension_libtorch(match, facts: Facts) -> Optional[Tailored]:
    lib = (getattr(match, "groups", {}) or {}).get("lib") or ""
    tv = F.torch_version_str(facts)
    if not tv:
        if not facts.value("python.executable"):
            return None
        adv = _advice(facts)
        return Tailored(cause="torch is not installed in %s, so nothing provides %s." %
                              (facts.value("python.executable"), lib or "torch's libraries"),
                        summary="Install torch first: %s" % adv.why, commands=adv.commands or None,
                        notes=_python_note(facts))
    notes = installed_torch_note(facts)
    if "cuda" in lib and F.is_cuda_build(facts) is False:
        adv = _advice(facts)
        return Tailored(cause="The extension is a CUDA build but the installed torch %s is CPU-only, so %s does not "
                              "exist here." % (tv, lib),
                        summary="Install the CPU build of the extension, or a CUDA build of torch: %s" % adv.why,
                        commands=adv.commands or None, notes=notes)
    return None


@hook("torch_lib_missing")
def torch_lib_missing(match, facts: Facts) -> Optional[Tailored]:
    """torch's own library cannot be opened: reinstall the same build, naming the files the
    RECORD check found missing or changed where the facts have it."""
    from ...advice import reinstall_same_build
    v = F.torch_version_str(facts)
    if not v:
        return None
    notes = installed_torch_note(facts)
    tf = facts.section("torch_files")
    missing = [p for p in tf.get("missing") or [] if isinstance(p, str)]
    cause = None
    if missing:
        notes.append("missing per torch's RECORD: %s" % ", ".join(missing[:6]))
        cause = "torch's RECORD confirms it: %d of its files are missing here (%s)." % (
            tf.get("missing_count", len(missing)), ", ".join(missing[:6]))
    adv = reinstall_same_build(facts)
    if not adv.commands:
        return Tailored(notes=notes, cause=cause) if cause else None
    return Tailored(summary="Reinstall torch %s (%s) over the damaged install, without touching other packages."
                            % (adv.torch_version, adv.variant or "as installed"),
                    commands=adv.commands + ['python -c "import torch; print(torch.__version__, torch.__file__)"'],
                    cause=cause, notes=notes)
