"""The target interpreter and `import torch`: a probe that cannot run, an import that
raises, crashes or hangs, and the crash messages of the knowledge base.
"""

from typing import Optional

from ...advice import INSTALL_URL, install_advice
from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat
from ..registry import ERROR, Tailored, rule, finding, hook, installed_torch_note, known_error_finding
from .files import explained_by_damage, shadowing
from ..native_libs.foreign import explained_by_foreign_library
from .common import installed_version, python_note
from ...advice.commands import on_interpreter, torch_command





def _probe(facts):
    return facts.section("probe")


def _clean_env(facts):
    """Run without foreign native libraries: `env -u` where the loader reads those variables."""
    return "env -u LD_LIBRARY_PATH -u LD_PRELOAD " if F.os_name(facts) == "linux" else ""


@rule("check", "probe-failed", category="python-unsupported", severity=ERROR, requires=('probe',))
def probe_failed(facts):
    """The target interpreter could not run the probe at all."""
    p = _probe(facts)
    if p.get("start_error"):
        return finding(
            "Cannot run the Python interpreter %s" % p.get("python"),
            detail="Starting it failed: %s. Nothing about torch could be checked." % p["start_error"],
            fix="Point --python at a Python 3.8+ interpreter (for a venv: VENV/bin/python, on Windows VENV\\Scripts\\python.exe).",
            category="config")
    if p.get("python_too_old"):
        return finding(
            "%s is Python %s, too old for any supported PyTorch" % (p.get("python"), p["python_too_old"]),
            detail="The probe needs Python 3.8+, and current torch releases need %s+."
                   % (compat.supported_pythons(compat.latest_release()) or ["3.10"])[0],
            fix="Create a virtual environment with a newer Python and install torch there.",
            commands=["py -3 -m venv .venv", ".venv\\Scripts\\python -m pip install torch"]
            if F.os_name(facts) == "windows" else ["python3 -m venv .venv", ".venv/bin/python -m pip install torch"])
    if facts.has("python"):
        return None
    tail = p.get("stderr_tail") or p.get("stdout_tail") or "(nothing printed)"
    # Double quotes: cmd.exe passes 'print(1)' on as a string literal, which prints nothing.
    check_cmd = '%s -c "print(1)"' % F.python_cmd(facts)
    if p.get("timed_out"):
        return finding(
            "%s hung before running any code (killed after %.0f s)" % (p.get("python"), p.get("timeout_s", 0)),
            detail="The interpreter did not get as far as the probe's first step, so nothing about torch could be "
                   "checked. Last output:\n%s" % tail,
            fix="Check that the interpreter starts at all; a wrapper script, a sitecustomize.py or a .pth file "
                "that blocks is the usual cause.", commands=[check_cmd, "%s -X importtime -c pass" % F.python_cmd(facts)],
            category="torch-import-crash")
    if p.get("signal"):
        return finding(
            "%s died with %s before running any code" % (p.get("python"), p["signal"]),
            detail="The interpreter crashed before the probe's first step. Last output:\n%s" % tail,
            fix="Check that the interpreter starts at all; a broken sitecustomize.py, .pth file or LD_PRELOAD "
                "library is the usual cause.", commands=[check_cmd], category="torch-import-crash")
    printed = p.get("stderr_tail") or p.get("stdout_tail")
    return finding(
        "The probe could not start in %s" % p.get("python"),
        detail=p.get("error", "") + ("\nLast output:\n%s" % printed if printed else ""),
        fix="Check that this is a working CPython interpreter.", commands=[check_cmd],
        category="config")


@rule("check", "torch-import-failed", category="torch-import-crash", severity=ERROR, requires=('torch_import',),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
def torch_import_failed(facts):
    """`import torch` raised an exception."""
    imp = facts.section("torch_import")
    if imp.get("ok") is not False:
        return None
    err = imp.get("error", "")
    if imp.get("error_type") == "ModuleNotFoundError" and ("'torch'" in err or '"torch"' in err):
        return None
    if explained_by_damage(facts, err + (imp.get("traceback") or "")):
        return None  # torch-install-damaged names the files and the reinstall
    if shadowing(facts, failing=True):
        return None  # torch-shadowed names the folder and where it came from
    if explained_by_foreign_library(facts):
        return None  # foreign-library names the variable and the library; a reinstall would not help
    text = (imp.get("traceback") or "") + "\n%s: %s" % (imp.get("error_type"), err)
    detail = "`import torch` raised %s: %s" % (imp.get("error_type"), err[:1500])
    return known_error_finding(text, "`import torch` fails", detail) or finding(
        "`import torch` fails", detail=detail, fix="Reinstall torch in a clean virtual environment.",
        commands=install_advice(facts).commands, links=[INSTALL_URL])


@rule("check", "torch-import-crash", category="torch-import-crash", severity=ERROR, requires=('probe',),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
def torch_import_crash(facts):
    """The interpreter died or hung while importing torch."""
    p = _probe(facts)
    if p.get("completed") or p.get("last_stage") not in ("import_torch",):
        return None
    tail = p.get("stderr_tail") or p.get("stdout_tail") or "(nothing printed)"
    if p.get("timed_out"):
        return finding(
            "`import torch` hung for more than %.0f s" % p.get("timeout_s", 0),
            detail="The probe was killed after %.0f s, still inside `import torch`. Last output:\n%s"
                   % (p.get("timeout_s", 0), tail),
            fix="A hang at import is usually a network filesystem, a stuck driver or a lock held by another process; retry with a longer --timeout, then check `py-spy dump` on a hung `python -c 'import torch'`.",
            commands=[('%s -X importtime -c "import torch" 2> importtime.txt' if F.os_name(facts) == "windows" else
                       '%s -X importtime -c "import torch" 2>&1 | tail -n 20') % F.python_cmd(facts)])
    sig = p.get("signal")
    if sig == "SIGILL":
        flags = facts.value("cpu.flags") or []
        return finding(
            "`import torch` crashed with an illegal instruction (SIGILL)",
            detail="The CPU (%s; flags: %s) lacks an instruction this torch binary uses. Last output:\n%s"
                   % (facts.value("cpu.model", "unknown"), ", ".join(flags) or "unknown", tail),
            fix="Use a torch build for this CPU: official x86_64 wheels need AVX2-era CPUs for some kernels; on old CPUs or emulators build from source or use an older release.",
            category="illegal-instruction", links=[INSTALL_URL])
    how = "was killed by %s" % sig if sig else "exited with status %s" % p.get("returncode")
    known = known_error_finding(tail, "`import torch` crashed (%s)" % (sig or p.get("returncode")),
                                "The interpreter %s inside `import torch`. Last output:\n%s" % (how, tail))
    if known:
        return known
    return finding(
        "`import torch` crashed: the interpreter %s" % how,
        detail="The probe died inside `import torch`. Last output:\n%s" % tail,
        fix="A crash at import usually means mismatched native libraries (LD_LIBRARY_PATH or LD_PRELOAD pulling in another CUDA/cuDNN/OpenMP) or a corrupt install. Retry with a clean environment, then reinstall torch.",
        commands=['%s%s -c "import torch"' % (_clean_env(facts), F.python_cmd(facts))]
        + install_advice(facts).commands,
        links=[INSTALL_URL])


STAGE_WORDS = {"torch": "reading torch's build information (torch.__config__, torch.version)",
               "backends": "querying the torch.backends submodules",
               "accelerators": "querying torch.xpu / torch.mps",
               "cuda": "initialising CUDA (torch.cuda.is_available() and device queries)"}


@rule("check", "probe-crashed", category="torch-import-crash", severity=ERROR, requires=("probe",),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
def probe_crashed(facts):
    """`import torch` worked, then the interpreter died (or hung) while torch was being queried."""
    p = _probe(facts)
    stage = p.get("last_stage")
    if p.get("completed") or stage not in STAGE_WORDS:
        return None
    if p.get("timed_out"):
        if stage == "cuda":
            return None  # cuda-init-hang says it
        how = "hung for more than %.0f s" % p.get("timeout_s", 0)
    elif p.get("signal"):
        how = "was killed by %s" % p["signal"]
    elif p.get("returncode") not in (0, None):
        how = "exited with status %s" % p["returncode"]
    else:
        return None
    tail = p.get("stderr_tail") or p.get("stdout_tail") or "(nothing printed)"
    detail = ("`import torch` succeeded, but the interpreter %s while %s; the facts after that point are missing "
              "from this report. Last output:\n%s" % (how, STAGE_WORDS[stage], tail))
    known = known_error_finding(tail, "torch crashed while %s" % STAGE_WORDS[stage].split(" (")[0], detail)
    if known:
        return known
    return finding(
        "The interpreter %s while %s" % (how, STAGE_WORDS[stage].split(" (")[0]), detail=detail,
        fix="A crash here usually comes from a native library loaded on first use (cuDNN, MKL, oneDNN, a CUDA "
            "driver library); retry without LD_LIBRARY_PATH/LD_PRELOAD to rule out a foreign copy.",
        commands=["%s%s -c \"import torch, torch.backends.cudnn; "
                  "print(torch.cuda.is_available())\"" % (_clean_env(facts), F.python_cmd(facts))])


@hook("illegal-instruction")
def illegal_instruction(match, facts: Facts) -> Optional[Tailored]:
    machine = F.machine(facts)
    base = F.torch_base_version(facts)
    notes = installed_torch_note(facts) + python_note(facts)
    if machine in ("aarch64", "arm64") and F.os_of(facts) != "macos":
        if base == "2.4.0":
            return Tailored(cause="torch 2.4.0 aarch64 wheels use ARMv8.1 LSE atomics (in libarm_compute); ARMv8.0 "
                                  "cores such as the Raspberry Pi 4's Cortex-A72 lack them (fixed in 2.4.1).",
                            summary="Install torch 2.4.1 or later.",
                            commands=torch_command(facts, version="2.4.1", reinstall=True) or
                            [on_interpreter("pip install --force-reinstall torch==2.4.1", facts)], notes=notes)
        if base and base.startswith("2.10."):
            return Tailored(cause="torch 2.10 aarch64 wheels use LSE atomics in libc10.so, which ARMv8.0 cores "
                                  "(Cortex-A53/A72/A73) lack; fixed for 2.11.",
                            summary="Install torch 2.11 or later (or 2.9.x).",
                            commands=[on_interpreter('pip install --force-reinstall "torch>=2.11"', facts)], notes=notes)
        if base == "2.0.0":
            return Tailored(cause="torch 2.0.0 aarch64 wheels crash with SIGILL on ARMv8.0 cores (Raspberry Pi 4, "
                                  "AWS a1); 1.13.1 works there.",
                            summary="Install another release than 2.0.0.",
                            commands=[on_interpreter('pip install --force-reinstall "torch!=2.0.0"', facts)], notes=notes)
        numpy = installed_version(facts, "numpy")
        if numpy == "1.19.5":
            # After the torch releases known to trap there: the wheel's OpenBLAS 0.3.13 probes the
            # core type with an instruction some Jetson cores trap on; naming the type skips the probe.
            notes.append("numpy %s%s" % (numpy, ", on an NVIDIA Jetson" if F.is_jetson(facts) else ""))
            return Tailored(cause="numpy 1.19.5's aarch64 wheel dies in its bundled OpenBLAS's CPU detection at import "
                                  "(on Jetson boards), and `import torch` imports numpy.",
                            summary="Tell OpenBLAS the core type (export OPENBLAS_CORETYPE=ARMV8, in the shell profile or "
                                    "the service's environment), or install numpy 1.19.4.",
                            commands=["export OPENBLAS_CORETYPE=ARMV8",
                                      on_interpreter("pip install numpy==1.19.4", facts)], notes=notes)
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


@hook("import-crash")
def import_crash(match, facts: Facts) -> Optional[Tailored]:
    if not facts.value("python.executable"):
        return None
    py = F.python_cmd(facts)
    notes = installed_torch_note(facts) + python_note(facts)
    cmds = ['%s -X faulthandler -c "import torch"' % py]
    env_vars = [v for v in ("LD_LIBRARY_PATH", "LD_PRELOAD") if F.env(facts, v)]
    for v in env_vars:
        notes.append("%s=%s" % (v, F.env(facts, v)))
    if F.os_of(facts) != "windows":
        cmds.append('env -u LD_LIBRARY_PATH -u LD_PRELOAD %s -c "import torch; print(torch.__version__)"' % py)
    cmds += torch_command(facts, reinstall=True)
    cause = None
    if env_vars:
        cause = "%s is set, so libraries from there are loaded instead of the ones torch ships with." % \
                " and ".join(env_vars)
    return Tailored(cause=cause, commands=cmds, notes=notes)
