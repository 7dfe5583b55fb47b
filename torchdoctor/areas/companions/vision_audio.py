"""torchvision and torchaudio against the torch they sit beside: release, CPU/CUDA build,
whether they import, and their errors.
"""

import re
from typing import Any, Callable, Optional

from ...model.facts import Facts
from ...model import derived as F
from ...kb import compat
from ..registry import ERROR, Tailored, rule, finding, hook, installed_torch_note, known_error_finding, match_groups, entry_id_of
from ...advice.commands import WHL, build_kind, companion_command, companion_reinstall, index_args, index_tag_of, pip, plain_install, release_variant, torch_index_tag, torch_near_build
from .common import torch_meta_version
from ...model import versions as V




PREVIOUS_URL = "https://pytorch.org/get-started/previous-versions/"


TV_URL = "https://github.com/pytorch/vision#installation"


TA_URL = "https://docs.pytorch.org/audio/stable/installation.html"


_tag_kind = build_kind  # the one definition of a build's flavour lives with the fix builders


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


def companion_want(kind: str, torch_version: str) -> Optional[str]:
    """The release of torchvision/torchaudio that pairs with `torch_version`: for torchaudio
    of the stable-ABI era (2.11+, one series for every later torch) the series, since which
    patch each index carries is not recorded."""
    if kind == "torchvision":
        return compat.matching_torchvision(torch_version)
    want = compat.matching_torchaudio(torch_version)
    if want and not (compat.release(torch_version) or {}).get("torchaudio"):
        want = ".".join(want.split(".")[:2]) + ".*"
    return want


def _companion(facts, name: str, compatible: Callable, url: str):
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
    want = companion_want(name, tv)
    cmds = companion_reinstall(facts, name, want, torch_index_tag(facts)) if want else []
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
        commands=companion_reinstall(facts, name, companion_want(name, tv) or cv.split("+")[0], torch_index_tag(facts)),
        links=[url])


@rule("check", "torchvision-mismatch", category="torchvision-mismatch", severity=ERROR,
       verify=('python -c "import torch, torchvision; print(torch.__version__, torchvision.__version__)"', 'a matching pair, with no error'))
def torchvision_mismatch(facts):
    """torchvision is built for another torch release (or another CPU/CUDA variant)."""
    return _companion(facts, "torchvision", compat.torchvision_compatible, TV_URL)


@rule("check", "torchaudio-mismatch", category="torchaudio-mismatch", severity=ERROR,
       verify=('python -c "import torch, torchaudio; print(torch.__version__, torchaudio.__version__)"', 'a matching pair, with no error'))
def torchaudio_mismatch(facts):
    """torchaudio is built for another torch release (or another CPU/CUDA variant)."""
    return _companion(facts, "torchaudio", compat.torchaudio_compatible, TA_URL)


# -- torchvision / torchaudio ------------------------------------------------------
def _tailor_companion(kind: str, match: Any, facts: Facts) -> Optional[Tailored]:
    groups = match_groups(match)
    torch_v = torch_meta_version(facts) or groups.get("have")
    comp_v = F.package_version(facts, kind) or groups.get("comp")
    if not torch_v:
        return None
    notes = installed_torch_note(facts) if F.torch_version_str(facts) else ["torch %s (from the error text)" % torch_v]
    notes.append("installed %s: %s" % (kind, comp_v or "not installed"))
    want = companion_want(kind, torch_v)
    if kind == "torchvision":
        ok = compat.torchvision_compatible(torch_v, comp_v) if comp_v else None
    else:
        ok = compat.torchaudio_compatible(torch_v, comp_v) if comp_v else None
    check = '%s -c "import torch, %s; print(torch.__version__, %s.__version__)"' % (
        F.python_cmd(facts), kind, kind)
    tag = V.local_tag(torch_v)
    itag = index_tag_of(tag)
    special = _special_build(facts, torch_v, kind, want, notes)  # conda's other channels, nightlies, vendors
    if special is not None:
        return special
    if not want:
        return Tailored(
            summary="No %s release is recorded as the match for torch %s yet; install the newest %s "
                    "that declares support for it, from the same index as torch, or move torch to a "
                    "release with a known pairing." % (kind, torch_v, kind),
            commands=[pip(facts, "install --no-deps --upgrade %s%s" % (kind, index_args(itag))), check],
            notes=notes)
    fix = companion_reinstall(facts, kind, want, itag)[0]
    where = ("the %s index (%s/%s)" % (itag, WHL, itag)) if itag else (
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
            if paired and paired[:1].isdigit() and V.older(torch_v, paired):
                up = torch_near_build(facts, compat.latest_patch(paired) or paired, tag)
                if up:
                    summary += " Or keep %s %s and move torch up to %s with its companions." % (kind, comp_v, paired)
                    cmds = [fix] + up + [check]
        return Tailored(summary=summary, commands=cmds, notes=notes)
    ctag = V.local_tag(comp_v)
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


def _special_build(facts: Facts, torch_v: str, kind: str, want: Optional[str], notes) -> Optional[Tailored]:
    """A torch for which no pip command of a released companion fits: conda's pytorch from another
    channel than pytorch's, a nightly, a vendor's or a source build. None for the others."""
    if F.installed_with_conda(facts):
        build = facts.value("packages.installed.conda:pytorch.build")
        if isinstance(build, str) and not build.startswith("py"):
            # not the pytorch channel's build (py3.11_cuda12.4_...): conda-forge's (cuda126_mkl_...) or
            # Anaconda's defaults (cpu_py310h...); the channel decides which companion fits
            pinned = "pytorch==%s" % (F.torch_base_version(facts) or torch_v)
            return Tailored(summary="This pytorch came from conda but not from the pytorch channel: install %s from the "
                                    "channel `conda list` names for pytorch (`conda install -c <that channel> %s %s`, "
                                    "pytorch pinned so that the solver keeps it)." % (kind, kind, pinned),
                            commands=["conda list ^pytorch$"], notes=notes)
    tag = V.local_tag(torch_v)
    itag = index_tag_of(tag)
    parsed = F.parse_version(torch_v)
    if parsed is not None and parsed.is_devrelease and (itag or not tag):
        # a nightly's companion comes from the same nightly index; macOS and aarch64 nightlies carry no tag
        return Tailored(summary="torch %s is a nightly: a %s built for it comes from the same nightly index (`pip install "
                                "--pre %s --index-url https://download.pytorch.org/whl/nightly/%s`), installed the same "
                                "day as torch; a release from pip is built against another torch." % (
                                    torch_v, kind, kind, itag or "cpu"), commands=[], notes=notes)
    if (tag and not itag) or (parsed is not None and parsed.is_prerelease):
        return _vendor_build(torch_v, kind, want, notes)
    return None


def _vendor_build(torch_v: str, kind: str, want: Optional[str], notes) -> Tailored:
    """NVIDIA's Jetson and container builds, AMD's own ROCm wheels, source builds: no index carries
    a companion built for this torch, and `torch==X` from pip would swap it for PyPI's."""
    return Tailored(summary="torch %s is not a release build from PyTorch's indexes (a vendor's build, such as NVIDIA's "
                            "Jetson and container wheels or AMD's ROCm wheels, or a source build): a %s wheel from pip "
                            "is built against another torch and would replace this one or fail to load. Build %s%s "
                            "from source against this torch (`pip install --no-build-isolation` of its repository at "
                            "that tag), or install the build its vendor publishes beside this torch."
                            % (torch_v, kind, kind, " " + want if want else ""), commands=[], notes=notes)


@hook("torch-companion-not-installed")
def tailor_companion_not_installed(match, facts: Facts) -> Optional[Tailored]:
    kind = match_groups(match).get("pkg") or ""
    installed = F.torch_version_str(facts)
    if kind not in ("torchvision", "torchaudio") or not installed:
        return None  # no torch read here: which release pairs is unknown
    if F.package_version(facts, kind) is not None:
        return _tailor_companion(kind, match, facts)  # installed here: another interpreter failed, or a mismatch
    torch_v = torch_meta_version(facts)
    want = companion_want(kind, torch_v) if torch_v else None
    notes = installed_torch_note(facts) + ["installed %s: not installed" % kind]
    index_tag = torch_index_tag(facts)
    special = _special_build(facts, installed, kind, want, notes)
    if special is not None:
        return special
    cmds = companion_command(facts, (kind,)) if want else []
    if not cmds:
        return _tailor_companion(kind, match, facts)
    pinned = ""
    if index_tag and not want.endswith("*") and any("--index-url" in c for c in cmds):
        # `==0.28.0` is met by any build of it: an extra index in the user's pip configuration can
        # serve PyPI's CUDA build beside a +cpu torch, which installs and then fails to load its ops
        cmds = [re.sub(r"(?<![\w.-])%s==%s(?![\w.+*])" % (re.escape(kind), re.escape(want)),
                       "%s==%s+%s" % (kind, want, index_tag), c) for c in cmds]
        pinned = " (the +%s pin refuses another build an extra index in pip's configuration offers)" % index_tag
    # not a reinstall: its own requirements (pillow, numpy) come too, torch pinned so that pip keeps it
    tool = "conda" if any(c.startswith("conda ") for c in cmds) else "pip"
    return Tailored(summary="%s is not installed in %s: install %s, the release paired with torch %s, with torch pinned "
                            "to it so that %s keeps this build%s." % (
                                kind, facts.value("python.executable") or "this environment", want, torch_v, tool,
                                pinned),
                    commands=cmds, notes=notes)


@hook("torchvision-mismatch")
def tailor_torchvision_mismatch(match, facts: Facts) -> Optional[Tailored]:
    return _tailor_companion("torchvision", match, facts)


@hook("torchaudio-mismatch")
def tailor_torchaudio_mismatch(match, facts: Facts) -> Optional[Tailored]:
    return _tailor_companion("torchaudio", match, facts)


@hook("torchvision-functional-tensor")
def torchvision_functional_tensor(match, facts: Facts) -> Optional[Tailored]:
    tv = F.package_version(facts, "torchvision")
    if not tv:
        return None
    notes = ["installed torchvision: %s" % tv]
    if V.older(tv, "0.17"):
        return Tailored(cause="torchvision %s still ships torchvision.transforms.functional_tensor, so the import "
                              "ran in another environment or against another torchvision." % tv,
                        commands=['%s -c "import torchvision; print(torchvision.__file__, torchvision.__version__)"'
                                  % F.python_cmd(facts)], notes=notes)
    legacy_torch = "2.1.2"
    legacy = plain_install(facts, legacy_torch, release_variant(legacy_torch, V.local_tag(torch_meta_version(facts))))
    cmds = ['%s -c "import basicsr, os; print(os.path.dirname(basicsr.__file__))"' % F.python_cmd(facts)]
    cmds += legacy
    return Tailored(
        summary="torchvision %s no longer has the module (removed in 0.17). Change the import in the package named "
                "in the traceback to `from torchvision.transforms.functional import rgb_to_grayscale` (for basicsr: "
                "basicsr/data/degradations.py); pinning the old module back means torch %s with torchvision 0.16.2."
                % (tv, legacy_torch),
        commands=cmds, notes=notes)


@hook("torchaudio-io-backend")
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
    if not V.older(ta, "2.9") or entry_id_of(match) == "torchaudio-torchcodec-required":
        # torchaudio 2.9+: load()/save() are aliases of load_with_torchcodec/save_with_torchcodec
        if have["torchcodec"]:
            return Tailored(summary="torchaudio %s decodes through TorchCodec (%s is installed), which needs the FFmpeg "
                                    "shared libraries: install FFmpeg, or read the file with soundfile instead."
                                    % (ta, have["torchcodec"]),
                            commands=[ffmpeg, pip(facts, "install soundfile")], notes=notes)
        return Tailored(summary="torchaudio %s decodes and encodes through TorchCodec here, and TorchCodec is not "
                                "installed: install torchcodec (plus FFmpeg), or read audio with soundfile." % ta,
                        commands=[pip(facts, "install torchcodec"), ffmpeg, pip(facts, "install soundfile")],
                        notes=notes)
    if not have["soundfile"]:
        return Tailored(summary="torchaudio %s found no usable backend: soundfile is not installed and no FFmpeg/SoX "
                                "libraries were loadable. `pip install soundfile` is the quickest fix (WAV/FLAC/OGG); "
                                "install FFmpeg for MP3/MP4." % ta,
                        commands=[pip(facts, "install soundfile"), ffmpeg], notes=notes)
    return Tailored(summary="soundfile %s is installed, so the file format is the problem (soundfile cannot read "
                            "MP3/MP4 with old libsndfile) or the process ran another environment; install FFmpeg for "
                            "compressed formats." % have["soundfile"],
                    commands=[ffmpeg, '%s -c "import torchaudio; print(torchaudio.list_audio_backends())"'
                              % F.python_cmd(facts)], notes=notes)
