"""NumPy beside torch: the 1.x/2.x ABI, NumPy missing, and what torch warns at import.
"""

from typing import Optional

from ...advice import installable
from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat
from ..registry import Remedy, ERROR, INFO, WARNING, Tailored, rule, finding, hook, installed_torch_note, known_error_finding, entry_id_of
from .common import torch_meta_version
from ...advice import install_advice
from ...advice.commands import release_variant, pip, torch_near_build, which_import
from ...model import versions as V





_NUMPY_MARKERS = ("_ARRAY_API not found", "compiled using NumPy 1.x")


def first_numpy2_torch(os_: str) -> Optional[str]:
    """The first torch patch whose wheels support NumPy 2 on this OS (from the KB)."""
    for minor in sorted(compat.known_releases(), key=lambda m: tuple(int(x) for x in m.split("."))):
        for patch in (compat.release(minor) or {}).get("patches", []):
            if compat.numpy2_supported(patch, os_) is True:
                return patch
    return None


def numpy1_remedy(facts: Facts) -> Remedy:
    """NumPy 2 beside a torch built for NumPy 1: pin NumPy below 2 (quickest), or move torch up
    to the first release built for NumPy 2 on this OS that installs here."""
    os_, tv = F.os_name(facts), F.torch_version_str(facts)
    first = first_numpy2_torch(os_)
    if first and not installable(facts, first):
        first = None  # e.g. an Intel Mac: no torch with NumPy 2 support has a wheel there
    below2 = pip(facts, 'install "numpy<2"')
    if not first:
        return Remedy('Install NumPy 1.x (`numpy<2`) into this environment.', [below2])
    newest = compat.latest_patch(first) or first
    up = install_advice(facts, version=newest, variant=release_variant(newest, V.local_tag(torch_meta_version(facts))))
    up = [c for c in up.commands if " uninstall " not in c]
    return Remedy("Install NumPy 1.x (`numpy<2`) into this environment (quickest), or upgrade torch %s to %s or newer, "
                  "the first release built for NumPy 2 on %s, with matching companions."
                  % (tv or "", first, {"linux": "Linux", "windows": "Windows", "macos": "macOS"}.get(os_, os_)),
                  [below2] + up)


@rule("check", "numpy-abi", category="numpy-abi", severity=ERROR,
       verify=('python -c "import torch; print(torch.zeros(1).numpy())"', '[0.]'))
def numpy_abi(facts):
    """NumPy 2 beside a torch built for NumPy 1: torch's NumPy bridge is broken."""
    np_v = F.package_version(facts, "numpy")
    tv = F.torch_version_str(facts)
    os_ = F.os_name(facts)
    texts = list(facts.value("torch_import.warnings") or [])
    texts.append(facts.value("probe.stderr_tail") or "")
    seen = next((t for t in texts if isinstance(t, str) and any(m in t for m in _NUMPY_MARKERS)), None)
    npv = F.parse_version(np_v)
    unsupported = bool(npv and npv.major >= 2 and tv and compat.numpy2_supported(tv, os_) is False)
    if not unsupported and not seen:
        return None
    first = first_numpy2_torch(os_)
    if first and not installable(facts, first):
        first = None  # e.g. an Intel Mac: no torch with NumPy 2 support has a wheel there
    said = "\n`import torch` printed: %s" % seen.strip()[:600] if seen else ""
    if unsupported:
        why = ("torch %s was compiled against NumPy 1.x; on %s NumPy 2 support starts with torch %s. "
               % (tv, {"linux": "Linux", "windows": "Windows", "macos": "macOS"}.get(os_, os_), first or "a later release"))
    else:
        why = "A torch module compiled against NumPy 1.x was loaded under NumPy %s. " % (np_v or "2.x")
    remedy = numpy1_remedy(facts)
    return finding(
        "NumPy %s is installed, but torch %s was built for NumPy 1.x" % (np_v or "2.x", tv or "?"),
        detail=why + "torch still imports, but `tensor.numpy()`, `torch.from_numpy()` and DataLoader collation of "
                     "NumPy arrays fail with `RuntimeError: Numpy is not available`." + said,
        fix=remedy.summary, commands=remedy.commands,
        links=["https://github.com/pytorch/pytorch/issues/107302"])


NUMPY_INIT_WARNING = "Failed to initialize NumPy"


NUMPY_BREAKS = ("`tensor.numpy()`, `torch.from_numpy()`, DataLoader collation of "
                "NumPy arrays, torchvision's PIL/NumPy transforms and `torch.distributed.all_gather_object` / "
                "`broadcast_object_list` fail with `RuntimeError: Numpy is not available`")


def _numpy_init_warning(facts) -> Optional[str]:
    return next((w for w in facts.value("torch_import.warnings") or []
                 if isinstance(w, str) and NUMPY_INIT_WARNING in w), None)


@rule("check", "numpy-unavailable", category="numpy-missing", severity=WARNING, requires=("packages.installed", "torch_import"),
       verify=('python -c "import torch; print(torch.zeros(1).numpy())"', '[0.]'))
def numpy_unavailable(facts):
    """NumPy is missing (or torch could not initialise it): torch's NumPy bridge is off."""
    if facts.value("torch_import.ok") is not True or numpy_abi(facts) is not None:
        return None  # no torch to warn, or the NumPy 1.x/2.x ABI check says it better
    seen = _numpy_init_warning(facts)
    np_v = F.package_version(facts, "numpy")
    if np_v and not seen:
        return None
    tv = F.torch_version_str(facts)
    first = first_numpy2_torch(F.os_name(facts))
    old = bool(tv and first and F.parse_version(tv) and F.parse_version(tv) < F.parse_version(first))
    spec = '"numpy<2"' if old else "numpy"
    said = "\n`import torch` warned: %s" % seen.strip().splitlines()[0][:400] if seen else ""
    title = ("NumPy is not installed: torch %s runs without its NumPy bridge" % tv) if not np_v else \
        ("torch %s could not initialise NumPy %s" % (tv, np_v))
    return finding(
        title,
        detail="torch itself imports, but %s.%s" % (NUMPY_BREAKS, said),
        fix="Install NumPy%s into this environment." % (" 1.x (torch %s predates NumPy 2 support)" % tv if old else ""),
        commands=["%s install %s%s" % (F.pip_cmd(facts), "--force-reinstall " if np_v else "", spec)],
        links=["https://github.com/pytorch/pytorch/issues/107302"] if old else [])


@rule("check", "torch-import-warning", category="config", severity=INFO, requires=("torch_import",))
def torch_import_warning(facts):
    """torch printed a warning while it was imported (a known one gets the known fix)."""
    out = []
    for w in facts.value("torch_import.warnings") or []:
        if not isinstance(w, str) or not w.strip() or NUMPY_INIT_WARNING in w \
                or any(m in w for m in _NUMPY_MARKERS):
            continue  # numpy-unavailable / numpy-abi say those
        first = w.strip().splitlines()[0][:300]
        known = known_error_finding(w, "`import torch` warned", "`import torch` printed: %s" % first)
        if known:
            known.severity = known.severity or WARNING
            out.append(known)
        else:
            out.append(finding("`import torch` printed a warning", detail=first,
                               fix="Read the warning: it is torch telling you something about this environment."))
    return out


# -- NumPy -------------------------------------------------------------------------
def _numpy_upgrade_target(osn: str) -> str:
    return "2.4.1" if osn == "windows" else "2.3.1"


@hook("numpy-abi")
def tailor_numpy_abi(match, facts: Facts) -> Optional[Tailored]:
    torch_v = F.torch_version_str(facts)
    if not torch_v:
        return None
    osn = F.os_name(facts)
    np_v = F.package_version(facts, "numpy")
    notes = installed_torch_note(facts) + ["installed numpy: %s" % (np_v or "not installed"), "OS: %s" % osn]
    sup = compat.numpy2_supported(torch_v, osn)
    if sup is not None:
        notes.append("torch %s built for NumPy 2 on %s: %s" % (torch_v, osn, "yes" if sup else "no"))
    eid = entry_id_of(match)
    below2 = pip(facts, 'install "numpy<2"')
    upgrade_np = pip(facts, 'install --upgrade "numpy<2"' if sup is False else "install --upgrade numpy")
    where_np = which_import(facts, "numpy")
    if np_v is None:
        return Tailored(summary="NumPy is not installed in this environment%s." % (
                            "; torch %s predates NumPy 2, so install a 1.x release" % torch_v if sup is False else ""),
                        commands=[below2 if sup is False else pip(facts, "install numpy")], notes=notes)
    np_major = F.parse_version(np_v).release[0] if F.parse_version(np_v) else None
    if eid == "torch-numpy-missing":
        return Tailored(cause="NumPy %s is installed in this interpreter, so the process that warned ran another "
                              "environment." % np_v, commands=[where_np], notes=notes)
    if np_major is not None and np_major >= 2 and eid != "numpy-too-old-for-torch":
        if sup is False:
            remedy = numpy1_remedy(facts)
            return Tailored(summary=remedy.summary, commands=remedy.commands, notes=notes,
                            cause="torch %s was built against NumPy 1.x and NumPy %s is installed." % (torch_v, np_v))
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
                            commands=[pip(facts, "install --upgrade <package-from-the-traceback>"), below2],
                            notes=notes)
        return None
    # NumPy 1.x is installed
    if eid in ("numpy2-module-compiled-with-numpy1", "numpy-array-api-not-found"):
        return Tailored(cause="NumPy %s is installed in this interpreter, not 2.x, so the failing process used another "
                              "environment (or NumPy was downgraded since)." % np_v, commands=[where_np], notes=notes)
    if eid == "numpy-multiarray-failed-import" and sup is False and "_core" in str(getattr(match, "text", "")):
        return Tailored(summary="A module built for NumPy 2 needs numpy>=2, but torch %s predates NumPy 2: upgrade torch "
                                "to a release built for NumPy 2, or use an older release of that module." % torch_v,
                        commands=torch_near_build(facts, _numpy_upgrade_target(osn), V.local_tag(torch_meta_version(facts))),
                        notes=notes)
    return Tailored(summary="NumPy %s is older than the NumPy the failing module was built against; upgrade it%s." % (
                        np_v, " within 1.x (torch %s predates NumPy 2)" % torch_v if sup is False else ""),
                    commands=[upgrade_np], notes=notes)
