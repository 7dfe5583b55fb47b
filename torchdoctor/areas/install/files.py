"""Is the torch that imports the one installed, and is it whole: shadowing files, two
installs, files missing or changed against the wheel's RECORD.
"""

import re
from typing import Any, Dict, Optional

from ...advice import INSTALL_URL, install_advice, reinstall_same_build
from ...model.facts import Facts
from ...model import derived as F
from ..registry import Remedy, ERROR, WARNING, Tailored, rule, finding, hook, installed_torch_note, match_groups
import ntpath
import posixpath
import shlex
from ...advice.commands import companion_command
from .origins import entry_origin, origin_words



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


@rule("check", "torch-install-damaged", category="torch-install-damaged", severity=ERROR, requires=("torch_files",),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
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


def explained_by_damage(facts, text):
    """The import error is the damaged install's doing: a shared library of torch's is missing
    or changed, or the error names one of the missing files."""
    missing, changed = damaged_files(facts)
    if any(target_shared_lib(p) for p in missing + changed):
        return True
    return any(re.split(r"[\\/]", p)[-1] in text for p in missing)


def _site_dirs(facts):
    entries = facts.value("python.sys_path") or []
    return [e for e in entries if isinstance(e, str) and in_site_packages(e)]


def in_site_packages(path: str) -> bool:
    """An installed package's path (pip's site-packages, Debian's dist-packages)."""
    return "site-packages" in path or "dist-packages" in path


def shadowing(facts, failing: bool = False) -> Optional[Dict[str, Any]]:
    """The candidate `import torch` would load when it is not the installed torch: a torch.py
    or torch/ folder earlier on sys.path, or a leftover torch/ folder without __init__.py in
    site-packages (a broken install). None when the installed torch comes first.

    failing: an error already shows that torch is not what it should be (`No module named
    'torch._C'`): then a source checkout that is the only torch counts too, since running
    from the root of a pytorch clone is the classic cause."""
    cands = [c for c in facts.value("torch_location.candidates") or [] if isinstance(c, dict)]
    if not cands:
        return None
    first = cands[0]
    entry = first.get("sys_path_entry")
    installed = facts.value("packages.installed.torch.location")
    if first.get("kind") == "namespace-dir" and in_site_packages(first.get("path") or ""):
        return first  # an empty leftover folder where the real torch should be
    if entry in _site_dirs(facts) or (installed and entry == installed):
        return None
    if first.get("kind") == "package" and not installed and len(cands) == 1 and not failing:
        return None  # a source checkout / develop install is the only torch: not shadowing
    return first


def shadow_remedy(facts, path: str, kind: Optional[str] = None) -> Remedy:
    """Rename the file or folder that shadows torch (and its __pycache__), or delete a leftover
    folder of a broken install and put torch back; commands quoted for this OS's shell."""
    windows = F.os_of(facts) == "windows" or "\\" in path
    pm = ntpath if windows else posixpath
    stripped = path.rstrip("\\/")
    base, parent = pm.basename(stripped), pm.dirname(stripped)
    if kind == "namespace-dir" and in_site_packages(path):
        rm = 'rmdir /s /q "%s"' % stripped if windows else "rm -rf %s" % shlex.quote(stripped)
        reinstall = reinstall_same_build(facts).commands or [F.pip_cmd(facts) + " install --force-reinstall --no-cache-dir torch"]
        return Remedy("Delete the leftover folder %s (no __init__.py: what a broken install leaves) and reinstall "
                      "torch." % stripped, [rm] + reinstall)
    origin, var_entry = entry_origin(facts, parent)
    if origin == "PYTHONPATH":
        return Remedy("Take %s out of PYTHONPATH (the stray %s in it hides the installed torch) in the shell that runs "
                      "Python, and wherever it is set; nothing needs reinstalling, and %s stays as it is."
                      % (var_entry, base, stripped), [F.path_var_without(facts, "PYTHONPATH", [var_entry])])
    new = pm.join(parent, "my_" + base) if parent else "my_" + base
    cache = pm.join(parent, "__pycache__") if parent else "__pycache__"
    if windows:
        cmds = ['ren "%s" "%s"' % (stripped, pm.basename(new)), 'rmdir /s /q "%s"' % cache]
    else:
        cmds = ["mv %s %s" % (shlex.quote(stripped), shlex.quote(new)), "rm -rf %s" % shlex.quote(cache)]
    return Remedy("Rename or remove %s (%s: your file, not PyTorch) and delete the __pycache__ next to it, or run "
                  "from another directory; update imports that referred to it." % (base, stripped), cmds)


@rule("check", "torch-shadowed", category="torch-shadowed", severity=ERROR, requires=('torch_location',),
       verify=('python -c "import torch; print(torch.__version__, torch.__file__)"', 'the installed version, loaded from site-packages, and no error'))
def torch_shadowed(facts):
    """A local torch.py or torch/ folder hides the installed torch."""
    first = shadowing(facts)
    if first is None:
        return None
    cands = facts.value("torch_location.candidates") or []
    path = first.get("path")
    where = first.get("sys_path_entry") or "the current directory"
    said = origin_words(*entry_origin(facts, first.get("sys_path_entry")))
    where += ", which %s" % said if said else ""
    real = next((c.get("path") for c in cands[1:] if isinstance(c, dict)), None)
    remedy = shadow_remedy(facts, path, first.get("kind")) if path else Remedy("")
    return finding(
        "`import torch` picks up %s instead of the installed torch" % path,
        detail="The %s %s comes first on sys.path (from %s)%s. Python imports it instead of PyTorch, which "
               "shows up as `module 'torch' has no attribute ...` or `No module named 'torch._C'`."
               % ({"module": "file", "package": "package", "namespace-dir": "folder"}.get(first.get("kind"), "entry"),
                  path, where or "''",
                  "; the real torch is at %s" % real if real else ""),
        fix=remedy.summary, commands=remedy.commands)


@rule("check", "torch-duplicate-install", category="torch-shadowed", severity=WARNING, requires=('packages.installed',),
       verify=('python -m pip list', 'torch listed once'))
def torch_duplicate_install(facts):
    """torch is installed more than once in this interpreter's path."""
    dups = facts.value("packages.duplicates.torch")
    dups = [d for d in dups if isinstance(d, dict)] if isinstance(dups, list) else []
    first_v = F.package_version(facts, "torch")
    first_loc = facts.value("packages.installed.torch.location")
    loaded = facts.value("torch.file")
    pip = F.pip_cmd(facts)
    reinstall = companion_command(facts, (), installer="pip") or install_advice(facts).commands
    if dups:
        copies = ["%s at %s" % (first_v, first_loc)] + ["%s at %s" % (d.get("version"), d.get("location")) for d in dups]
        others = sorted(k for k, v in (facts.value("packages.duplicates") or {}).items()
                        if k != "torch" and isinstance(v, list))
        return finding(
            "torch is installed %d times in this interpreter's search path" % len(copies),
            detail="Copies on sys.path: %s. The first one wins at import%s; pip upgrades and uninstalls act on one "
                   "copy at a time, so the torch you import and the one pip reports can differ, and leftovers mix "
                   "files of two versions.%s"
                   % ("; ".join(copies), " (`import torch` loads %s)" % loaded if loaded else "",
                      " Also installed more than once: %s." % ", ".join(others) if others else ""),
            fix="Uninstall torch until pip finds none (each run removes the first copy), then install it once.",
            commands=["%s uninstall -y torch" % pip] * len(copies) + reinstall, links=[INSTALL_URL])
    conda_v = F.package_version(facts, "conda:pytorch")
    if conda_v and facts.value("packages.installed.torch.installer") == "pip":
        return finding(
            "torch was installed with pip over conda's pytorch %s" % conda_v,
            detail="conda lists pytorch %s, but the torch files in %s (torch %s) were written by pip. conda and pip now "
                   "disagree about what is installed: `conda update` or installing a package that depends on pytorch "
                   "can overwrite pip's files and leave a mix of two builds." % (conda_v, first_loc, first_v),
            fix="Keep one installer: remove conda's pytorch package, then reinstall torch with pip.",
            # conda deletes the files it owns, which are pip's files too, but leaves pip's
            # dist-info: without `pip uninstall` pip would call the broken torch "already satisfied".
            commands=["conda remove --force pytorch"]
            + [c for c in ["%s uninstall -y torch" % pip] if c not in reinstall] + reinstall,
            links=[INSTALL_URL])
    return None


@hook("torch-shadowed")
def tailor_torch_shadowed(match, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    path, kind = groups.get("path"), None
    if not path:
        first = shadowing(facts, failing=True)
        if first and first.get("path"):
            path, kind = first["path"], first.get("kind")
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else []
    if groups.get("attr") == "version" and not path and (F.torch_base_version(facts) or "").startswith("2.4."):
        return Tailored(cause="torch %s has a known circular import when the first import is `import torch.cuda` "
                              "(pytorch#134019)." % F.torch_version_str(facts),
                        summary="Put a plain `import torch` before `import torch.cuda`, or upgrade torch.",
                        notes=notes)
    if not path:
        return None
    notes.append("`import torch` resolves to %s" % path)
    remedy = shadow_remedy(facts, path, kind)
    cause = ("%s is an empty leftover torch folder (no __init__.py) from a broken install." % path
             if kind == "namespace-dir" and in_site_packages(path) else None)
    return Tailored(summary=remedy.summary, commands=remedy.commands, cause=cause, notes=notes)


@hook("torch-install-damaged")
def torch_lib_missing(match, facts: Facts) -> Optional[Tailored]:
    """torch's own library cannot be opened: reinstall the same build, naming the files the
    RECORD check found missing or changed where the facts have it."""
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
