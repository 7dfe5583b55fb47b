"""Is torch there, does it import, and is it the torch we think it is?"""

import os
import re
import shlex

from ..advice import install_advice, reinstall_same_build
from ..kb import compat
from . import ERROR, WARNING, check, finding, known_error_finding
from . import _facts as F

INSTALL_URL = "https://pytorch.org/get-started/locally/"


def _probe(facts):
    return facts.section("probe")


def _clean_env(facts):
    """Run without foreign native libraries: `env -u` where the loader reads those variables."""
    return "env -u LD_LIBRARY_PATH -u LD_PRELOAD " if F.os_name(facts) == "linux" else ""


@check("probe-failed", category="python-unsupported", severity=ERROR, requires=('probe',))
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
    return finding(
        "The probe could not start in %s" % p.get("python"),
        detail="%s\n%s" % (p.get("error", ""), tail),
        fix="Check that this is a working CPython interpreter.", commands=[check_cmd],
        category="config")


@check("torch-not-installed", category="torch-not-installed", severity=ERROR, requires=('torch_import',))
def torch_not_installed(facts):
    """torch is not importable from this interpreter."""
    imp = facts.section("torch_import")
    if imp.get("ok") is not False or imp.get("error_type") != "ModuleNotFoundError":
        return None
    if "'torch'" not in imp.get("error", "") and '"torch"' not in imp.get("error", ""):
        return None  # a missing *dependency* of torch: torch-import-failed covers it
    adv = install_advice(facts)
    py = facts.value("python.executable", "this Python")
    return finding(
        "torch is not installed in %s" % py,
        detail="`import torch` raised %s. %s" % (imp.get("error"), adv.why[:1].upper() + adv.why[1:]),
        fix=("Install torch %s into this interpreter." % adv.torch_version) if adv.commands else
            "No torch build installs into this interpreter: %s" % adv.why.rstrip(".") + ".",
        commands=adv.commands, links=[INSTALL_URL])


def damaged_files(facts):
    """(missing, changed) paths of torch's own files by its wheel's RECORD; ([], []) when intact
    or not verifiable (no RECORD: conda, a source build)."""
    tf = facts.section("torch_files")
    missing = [p for p in tf.get("missing") or [] if isinstance(p, str)]
    changed = [d["path"] for d in tf.get("size_changed") or [] if isinstance(d, dict) and "path" in d]
    changed += [p for p in tf.get("hash_changed") or [] if isinstance(p, str)]
    return missing, changed


def _counted(names, total):
    shown = ", ".join(names[:8])
    return shown + (" and %d more" % (total - min(total, 8)) if total > 8 else "")


@check("torch-install-damaged", category="torch-install-damaged", severity=ERROR, requires=("torch_files",))
def torch_install_damaged(facts):
    """Files of the installed torch are missing or differ from its wheel's RECORD."""
    missing, changed = damaged_files(facts)
    if not missing and not changed:
        return None
    tf = facts.section("torch_files")
    libs = [p for p in missing + changed if target_shared_lib(p)]
    import_failed = facts.value("torch_import.ok") is False
    parts = []
    if missing:
        parts.append("%d file(s) missing: %s" % (tf.get("missing_count", len(missing)),
                                                  _counted(missing, tf.get("missing_count", len(missing)))))
    if changed:
        n = tf.get("size_changed_count", 0) + tf.get("hash_changed_count", 0)
        parts.append("%d file(s) changed (size%s differ from the wheel): %s"
                     % (n or len(changed), " or sha256" if tf.get("hashed") else "", _counted(changed, n or len(changed))))
    adv = reinstall_same_build(facts)
    said = ""
    if import_failed:
        said = "\n`import torch` raised %s: %s" % (facts.value("torch_import.error_type"),
                                                    str(facts.value("torch_import.error", ""))[:600])
    return finding(
        "The torch %s install is incomplete or corrupted" % (F.torch_version_str(facts) or ""),
        severity=ERROR if (import_failed or libs) else WARNING,
        detail="Checked %d files of torch against %s: %s. An interrupted download or upgrade, a disk that filled "
               "up, a cleanup tool or a manual edit leaves an install like this; torch's own libraries cannot "
               "load, so errors name torch's files (not an extension's).%s"
               % (tf.get("checked", 0), tf.get("record", "its RECORD"), "; ".join(parts), said),
        fix=("Reinstall the same build over it: torch %s (%s)." % (adv.torch_version, adv.variant or "as installed"))
        if adv.commands else "Reinstall torch %s." % (F.torch_version_str(facts) or ""),
        commands=adv.commands, links=[INSTALL_URL])


def target_shared_lib(path):
    return bool(re.search(r"\.(?:so(?:\.[0-9.]+)?|dylib|dll|pyd)$", path))


def _explained_by_damage(facts, text):
    """The import error is the damaged install's doing: a shared library of torch's is missing
    or changed, or the error names one of the missing files."""
    missing, changed = damaged_files(facts)
    if any(target_shared_lib(p) for p in missing + changed):
        return True
    return any(re.split(r"[\\/]", p)[-1] in text for p in missing)


@check("torch-import-failed", category="torch-import-crash", severity=ERROR, requires=('torch_import',))
def torch_import_failed(facts):
    """`import torch` raised an exception."""
    imp = facts.section("torch_import")
    if imp.get("ok") is not False:
        return None
    err = imp.get("error", "")
    if imp.get("error_type") == "ModuleNotFoundError" and ("'torch'" in err or '"torch"' in err):
        return None
    if _explained_by_damage(facts, err + (imp.get("traceback") or "")):
        return None  # torch-install-damaged names the files and the reinstall
    text = (imp.get("traceback") or "") + "\n%s: %s" % (imp.get("error_type"), err)
    detail = "`import torch` raised %s: %s" % (imp.get("error_type"), err[:1500])
    return known_error_finding(text, "`import torch` fails", detail) or finding(
        "`import torch` fails", detail=detail, fix="Reinstall torch in a clean virtual environment.",
        commands=install_advice(facts).commands, links=[INSTALL_URL])


@check("torch-import-crash", category="torch-import-crash", severity=ERROR, requires=('probe',))
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


@check("probe-crashed", category="torch-import-crash", severity=ERROR, requires=("probe",))
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


def _site_dirs(facts):
    entries = facts.value("python.sys_path") or []
    return [e for e in entries if isinstance(e, str) and ("site-packages" in e or "dist-packages" in e)]


@check("torch-shadowed", category="torch-shadowed", severity=ERROR, requires=('torch_location',))
def torch_shadowed(facts):
    """A local torch.py or torch/ folder hides the installed torch."""
    cands = facts.value("torch_location.candidates") or []
    if not cands:
        return None
    first = cands[0]
    site = _site_dirs(facts)
    if any(first.get("sys_path_entry") == s for s in site):
        return None
    installed = facts.value("packages.installed.torch.location")
    if installed and first.get("sys_path_entry") == installed:
        return None
    if first.get("kind") == "package" and not installed and len(cands) == 1:
        return None  # a source checkout / develop install is the only torch: not shadowing
    path = first.get("path")
    where = first.get("sys_path_entry") or "the current directory"
    real = next((c.get("path") for c in cands[1:]), None)
    return finding(
        "`import torch` picks up %s instead of the installed torch" % path,
        detail="The %s %s comes first on sys.path (from %s)%s. Python imports it instead of PyTorch, which "
               "shows up as `module 'torch' has no attribute ...` or `No module named 'torch._C'`."
               % ({"module": "file", "package": "package", "namespace-dir": "folder"}.get(first.get("kind"), "entry"),
                  path, where or "''",
                  "; the real torch is at %s" % real if real else ""),
        fix="Rename or remove %s (and any __pycache__ next to it), or run from another directory." % _basename(path or "torch"),
        commands=[_rename_cmd(facts, path)] if path else [])


def _basename(path):
    return re.split(r"[\\/]", path.rstrip("\\/"))[-1]


def _rename_cmd(facts, path):
    """`mv` (POSIX) or `ren` (Windows) of a shadowing torch.py / torch folder to my_torch...,
    quoted for its shell (a path with spaces would otherwise be two arguments)."""
    base = _basename(path)
    if F.os_name(facts) == "windows":
        return 'ren "%s" "my_%s"' % (path.rstrip("\\/"), base)
    stripped = path.rstrip("/")
    return "mv %s %s" % (shlex.quote(stripped), shlex.quote(os.path.join(os.path.dirname(stripped), "my_" + base)))


@check("python-unsupported", category="python-unsupported", severity=WARNING)
def python_unsupported(facts):
    """This Python version has no official wheels for the installed torch."""
    py = facts.value("python.version")
    tv = F.torch_base_version(facts)
    if not isinstance(py, str):
        return None
    py_minor = ".".join(py.split(".")[:2])
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
