"""Packages that must match torch: torchvision, torchaudio, NumPy, triton, and torch itself installed twice."""

import re
from typing import Callable, List, Optional

from ..advice import install_advice, installable
from ..kb import compat
from . import ERROR, INFO, WARNING, check, finding, known_error_finding
from . import _facts as F

INSTALL_URL = "https://pytorch.org/get-started/locally/"
PREVIOUS_URL = "https://pytorch.org/get-started/previous-versions/"
TV_URL = "https://github.com/pytorch/vision#installation"
TA_URL = "https://docs.pytorch.org/audio/stable/installation.html"

_COMPANIONS = ("torchvision", "torchaudio")


def _variant(facts) -> Optional[str]:
    """The index the installed torch came from, by its local tag; None = plain PyPI."""
    tag = F.local_tag(facts)
    if tag and (tag == "cpu" or tag.startswith(("cu", "rocm", "xpu"))):
        return tag
    return None


def _quote(token: str) -> str:
    return '"%s"' % token if any(c in token for c in "*<>|") else token


def companion_command(facts, names, installer: Optional[str] = None) -> List[str]:
    """`pip install torch==X <names pinned to X's pairs> --index-url <torch's index>` for this
    interpreter. torch stays pinned to its installed version so pip cannot swap it."""
    base = F.torch_base_version(facts)
    if not base:
        return []
    variant, os_ = _variant(facts), F.os_name(facts)
    wanted = list(names) or False
    cmds: List[str] = []
    if installer is None and F.installed_with_conda(facts):
        # conda's pytorch has no +tag: its build string says CPU or which CUDA. Without it the
        # command would pin the channel's default CUDA and swap a CPU (or cu118) pytorch.
        conda_variant = F.conda_torch_variant(facts)
        if conda_variant:
            cmds = compat.install_command(base, conda_variant, installer="conda", with_companions=wanted, os=os_)
    if not cmds:
        cmds = compat.install_command(base, variant, installer="pip", with_companions=wanted, os=os_,
                                      machine=F.python_machine(facts))
    out = []
    for cmd in cmds:
        line = " ".join(_quote(tok) for tok in cmd.split())
        out.append(F.pip_cmd(facts) + line[3:] if line.startswith("pip ") else line)
    return out


def _tag_kind(tag: Optional[str]) -> Optional[str]:
    """'cpu', 'cuda12', 'rocm6.2', ... (what must agree between torch and its companions)."""
    if not tag:
        return None
    if tag in ("cpu", "xpu"):
        return tag
    cuda = compat.cuda_of_variant(tag)
    if cuda:
        return "cuda" + cuda.split(".")[0]
    m = re.match(r"^(rocm\d+(?:\.\d+)?)", tag)
    return m.group(1) if m else None


def _torch_kind(facts) -> Optional[str]:
    """The flavour of the installed torch, from what it says about itself when it imported
    (an untagged Windows or macOS wheel from PyPI is a CPU build), else from its +tag."""
    tag_kind = _tag_kind(F.local_tag(facts))
    cuda = F.torch_cuda(facts)
    if cuda:
        return "cuda" + cuda.split(".")[0]
    if F.is_rocm_build(facts):
        hip = facts.value("torch.hip")
        m = re.match(r"^(\d+\.\d+)", hip) if isinstance(hip, str) else None
        return tag_kind if (tag_kind or "").startswith("rocm") else ("rocm" + m.group(1) if m else None)
    if isinstance(facts.value("torch.xpu"), str):
        return "xpu"
    if facts.state("torch.cuda") == "absent" or (facts.has("torch.cuda") and facts.value("torch.cuda") is None):
        return "cpu"  # torch.version.cuda is None
    return tag_kind


def _build_version(facts, name: str) -> Optional[str]:
    """The version the companion says it is built as (its version.py: '0.28.0+cu130'), which
    carries the CPU/CUDA tag that the dist-info name of a PyPI wheel leaves out."""
    cv = F.package_version(facts, name)
    built = facts.value("packages.installed.%s.build_version" % name)
    if cv and "+" not in cv and isinstance(built, str) and "+" in built and built.split("+", 1)[0] == cv:
        return built
    return cv


def import_failure(facts, name: str) -> Optional[str]:
    """'RuntimeError: operator torchvision::nms does not exist' when the probe's import of
    the companion (beside this torch) failed, else None."""
    imp = facts.value("companion_imports.%s" % name)
    if isinstance(imp, dict) and imp.get("ok") is False:
        return ("%s: %s" % (imp.get("error_type") or "Error", imp.get("error") or "")).strip()
    if facts.state("companion_imports.%s" % name) == "failed":
        return facts.reason("companion_imports.%s" % name)
    return None


def _companion(facts, name: str, compatible: Callable, matching: Callable, url: str):
    cv = _build_version(facts, name)
    tv = F.torch_version_str(facts)
    if not cv or not tv:
        return None
    ok = compatible(tv, cv)
    t_kind = _torch_kind(facts)
    c_kind = _tag_kind(cv.split("+", 1)[1] if "+" in cv else None)
    variant_clash = t_kind and c_kind and t_kind != c_kind
    broken = import_failure(facts, name)
    if ok is not False and not variant_clash:
        return _import_fails(facts, name, cv, tv, broken, url) if broken else None
    want = matching(tv)
    cmds = companion_command(facts, (name,))
    if ok is not False and cmds:
        # same version, other build: `name==X` is already satisfied by X+other (PEP 440
        # ignores local tags), so pip would keep the wrong build unless it is removed first.
        cmds = ["%s uninstall -y %s" % (F.pip_cmd(facts), name)] + cmds
    where = facts.value("packages.installed.%s.location" % name)
    symptoms = ("`RuntimeError: operator torchvision::nms does not exist`, an undefined symbol or "
                "`Could not run 'torchvision::...' with arguments from the 'CUDA' backend`" if name == "torchvision" else
                "an undefined symbol or `OSError` loading libtorchaudio, or a CUDA-version RuntimeError at import")
    if ok is False:
        title = "%s %s does not match torch %s" % (name, cv, tv)
        made_for = compat.torch_for_torchvision(cv) if name == "torchvision" else None
        detail = ("%s %s%s is not built for torch %s%s; torch %s pairs with %s %s. %s ships compiled operators "
                  "linked against one torch release, so a mismatch shows up as %s."
                  % (name, cv, " (at %s)" % where if where else "", F.torch_base_version(facts),
                     " (it was released for torch %s)" % made_for if made_for else "",
                     F.torch_base_version(facts), name, want or "(unknown)", name, symptoms))
    else:
        title = "%s %s and torch %s are built for different platforms (%s vs %s)" % (name, cv, tv, c_kind, t_kind)
        detail = ("torch is the %s build and %s the %s build; %s's compiled operators need the same CPU/CUDA flavour "
                  "(and CUDA major) as torch, otherwise you get %s."
                  % (F.local_tag(facts) or "%s (untagged) " % t_kind, name, cv.split("+", 1)[1], name, symptoms))
    if broken:
        detail += "\n`import %s` beside this torch raised %s" % (name, broken)
    if want:
        fix = "Install %s %s from the same index as torch %s." % (name, want, tv)
    else:
        fix = "Install the %s release that matches torch %s, from the same index as torch." % (name, tv)
    return finding(title, detail=detail, fix=fix, commands=cmds, links=[url, PREVIOUS_URL])


def _import_fails(facts, name: str, cv: str, tv: str, error: str, url: str):
    """Versions and variants agree, yet the companion does not import: what the error says."""
    imp = facts.value("companion_imports.%s" % name)
    text = (imp.get("traceback") or "") if isinstance(imp, dict) else ""
    detail = "%s %s and torch %s are a matching pair, but `import %s` beside this torch raised %s" % (
        name, cv, tv, name, error)
    return known_error_finding(text + "\n" + error, "`import %s` fails" % name, detail) or finding(
        "`import %s` fails beside torch %s" % (name, tv), detail=detail,
        fix="Reinstall %s from the same index as torch." % name,
        commands=["%s uninstall -y %s" % (F.pip_cmd(facts), name)] + companion_command(facts, (name,)),
        links=[url])


@check("torchvision-mismatch", category="torchvision-mismatch", severity=ERROR)
def torchvision_mismatch(facts):
    """torchvision is built for another torch release (or another CPU/CUDA variant)."""
    return _companion(facts, "torchvision", compat.torchvision_compatible, compat.matching_torchvision, TV_URL)


@check("torchaudio-mismatch", category="torchaudio-mismatch", severity=ERROR)
def torchaudio_mismatch(facts):
    """torchaudio is built for another torch release (or another CPU/CUDA variant)."""
    return _companion(facts, "torchaudio", compat.torchaudio_compatible, compat.matching_torchaudio, TA_URL)


_NUMPY_MARKERS = ("_ARRAY_API not found", "compiled using NumPy 1.x")


def _first_numpy2_torch(os_: str) -> Optional[str]:
    """The first torch patch whose wheels support NumPy 2 on this OS (from the KB)."""
    for minor in sorted(compat.known_releases(), key=lambda m: tuple(int(x) for x in m.split("."))):
        for patch in (compat.release(minor) or {}).get("patches", []):
            if compat.numpy2_supported(patch, os_) is True:
                return patch
    return None


@check("numpy-abi", category="numpy-abi", severity=ERROR)
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
    first = _first_numpy2_torch(os_)
    if first and not installable(facts, first):
        first = None  # e.g. an Intel Mac: no torch with NumPy 2 support has a wheel there
    said = "\n`import torch` printed: %s" % seen.strip()[:600] if seen else ""
    if unsupported:
        why = ("torch %s was compiled against NumPy 1.x; on %s NumPy 2 support starts with torch %s. "
               % (tv, {"linux": "Linux", "windows": "Windows", "macos": "macOS"}.get(os_, os_), first or "a later release"))
    else:
        why = "A torch module compiled against NumPy 1.x was loaded under NumPy %s. " % (np_v or "2.x")
    return finding(
        "NumPy %s is installed, but torch %s was built for NumPy 1.x" % (np_v or "2.x", tv or "?"),
        detail=why + "torch still imports, but `tensor.numpy()`, `torch.from_numpy()` and DataLoader collation of "
                     "NumPy arrays fail with `RuntimeError: Numpy is not available`." + said,
        fix=('Install NumPy 1.x (`numpy<2`) into this environment, or upgrade torch to %s or newer.' % first) if first
        else 'Install NumPy 1.x (`numpy<2`) into this environment.',
        commands=['%s install "numpy<2"' % F.pip_cmd(facts)],
        links=["https://github.com/pytorch/pytorch/issues/107302"])


NUMPY_INIT_WARNING = "Failed to initialize NumPy"
NUMPY_BREAKS = ("`tensor.numpy()`, `torch.from_numpy()`, DataLoader collation of "
                "NumPy arrays, torchvision's PIL/NumPy transforms and `torch.distributed.all_gather_object` / "
                "`broadcast_object_list` fail with `RuntimeError: Numpy is not available`")


def _numpy_init_warning(facts) -> Optional[str]:
    return next((w for w in facts.value("torch_import.warnings") or []
                 if isinstance(w, str) and NUMPY_INIT_WARNING in w), None)


@check("numpy-unavailable", category="numpy-missing", severity=WARNING, requires=("packages.installed", "torch_import"))
def numpy_unavailable(facts):
    """NumPy is missing (or torch could not initialise it): torch's NumPy bridge is off."""
    if facts.value("torch_import.ok") is not True or numpy_abi(facts) is not None:
        return None  # no torch to warn, or the NumPy 1.x/2.x ABI check says it better
    seen = _numpy_init_warning(facts)
    np_v = F.package_version(facts, "numpy")
    if np_v and not seen:
        return None
    tv = F.torch_version_str(facts)
    first = _first_numpy2_torch(F.os_name(facts))
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


@check("torch-import-warning", category="config", severity=INFO, requires=("torch_import",))
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


def _marker_ok(facts, marker: Optional[str]) -> bool:
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


@check("triton-missing", category="triton-missing", severity=WARNING, requires=('packages.installed',))
def triton_missing(facts):
    """triton is missing or not the version torch pins: torch.compile cannot build GPU kernels."""
    if F.os_name(facts) != "linux" or F.is_cuda_build(facts) is not True or F.is_rocm_build(facts):
        return None
    tv = F.torch_version_str(facts)
    req = compat.triton_requirement(tv)
    if not req or not _marker_ok(facts, (compat.release(tv) or {}).get("triton_marker")):
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


@check("torch-duplicate-install", category="torch-shadowed", severity=WARNING, requires=('packages.installed',))
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
