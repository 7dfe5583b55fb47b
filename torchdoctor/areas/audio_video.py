"""Audio and video decoding beside torch: TorchCodec (FFmpeg, the torch it was built for, its
CUDA build) and torchaudio 2.9's removal of the audio-backend API.

TorchCodec declares no torch requirement, so pip pairs it with any torch; the pairing comes
from its README's table (kb/data/compat.json, companions.torchcodec_torch).
"""

from typing import List, Optional

from ..advice.commands import index_args, on_interpreter, pip, program_install, system_install, torch_index_tag, which_import
from ..kb import compat
from ..model import derived as F
from ..model import versions as V
from ..model.facts import ABSENT, Facts
from .companions.common import python_minor
from .registry import Tailored, hook, match_groups

_FFMPEG = {
    "windows": ("Install FFmpeg's shared build (the one that ships DLLs, e.g. `winget install Gyan.FFmpeg.Shared`, "
                "or conda-forge's ffmpeg) and put its bin folder on PATH; a static or \"essentials\" build has no DLLs "
                "for torchcodec to load.", ["winget install Gyan.FFmpeg.Shared", "where ffmpeg"]),
    "macos": ("Install FFmpeg with its libraries (Homebrew or conda-forge).", ["brew install ffmpeg"]),
    "linux": ("Install FFmpeg's shared libraries (the distribution's ffmpeg/libav* packages or conda-forge's ffmpeg).",
              ["conda install -c conda-forge ffmpeg", "ldconfig -p | grep -e libavutil -e libavcodec"]),
}


def _versions(facts: Facts):
    return F.package_version(facts, "torchcodec"), F.torch_version_str(facts)


def pairing_remedy(facts: Facts) -> Optional[Tailored]:
    """torchcodec and torch that the README does not pair: the torchcodec to install instead."""
    tc, tv = _versions(facts)
    if not tc or not tv or compat.torchcodec_compatible(tv, tc) is not False:
        return None
    want = compat.torchcodec_for_torch(tv)
    notes = ["torchcodec %s and torch %s are installed; torchcodec's table does not pair them" % (tc, tv)]
    if not want:
        return Tailored(summary="torchcodec %s is not built for torch %s, and torchcodec's table names no release for "
                                "this torch: upgrade torch, or pick the torchcodec the table pairs with it." % (tc, tv),
                        notes=notes)
    spec = "torchcodec==%s.*" % want if not want.startswith("0.0") else "torchcodec==%s" % want
    return Tailored(summary="torchcodec %s is built for another torch than %s: install torchcodec %s, the release paired "
                            "with this torch, from torch's own index." % (tc, tv, want),
                    commands=[pip(facts, 'install "%s"%s' % (spec, index_args(torch_index_tag(facts))))],
                    notes=notes)


@hook("torchcodec-load")
def torchcodec_load(match, facts: Facts) -> Optional[Tailored]:
    paired = pairing_remedy(facts)
    if paired is not None:
        return paired
    os_ = F.os_of(facts)
    if os_ not in _FFMPEG:
        return None
    summary, commands = _FFMPEG[os_]
    tc, tv = _versions(facts)
    notes = ["%s; torchcodec %s with torch %s is a pair its table lists" % (os_, tc, tv)] if tc and tv else [os_]
    return Tailored(summary=summary, commands=commands + ['python -c "import torchcodec"'], notes=notes)


@hook("torchcodec-torch-mismatch")
def torchcodec_torch_mismatch(match, facts: Facts) -> Optional[Tailored]:
    return pairing_remedy(facts)


@hook("torchcodec-cuda-variant")
def torchcodec_cuda_variant(match, facts: Facts) -> Optional[Tailored]:
    major = match_groups(match).get("major")
    tag = torch_index_tag(facts)
    torch_cuda = F.torch_cuda(facts)
    if not major or not tag:
        return None
    notes = ["the missing library is a CUDA %s one; torch is %s" % (major, F.torch_version_str(facts))]
    if torch_cuda and V.parse(torch_cuda) and str(V.parse(torch_cuda).major) == major:
        return None  # torch itself uses that CUDA major: its own libraries are what is missing
    what = "a CPU build" if tag == "cpu" else "built for CUDA %s (%s)" % (torch_cuda or "?", tag)
    return Tailored(summary="This torchcodec is a CUDA %s build, but torch is %s: install torchcodec from torch's index "
                            "(%s) so both use the same CUDA." % (major, what, tag),
                    commands=[pip(facts, "install --force-reinstall --no-deps torchcodec%s" % index_args(tag))],
                    notes=notes)


@hook("torchaudio-backend-api")
def torchaudio_backend_api(match, facts: Facts) -> Optional[Tailored]:
    ta = F.package_version(facts, "torchaudio")
    if not ta:
        return None
    notes: List[str] = ["torchaudio %s is installed" % ta]
    if V.older(ta, "2.9"):
        if "deprecated" in getattr(match, "text", ""):
            return Tailored(summary="torchaudio %s still has these functions but warns: they are gone in 2.9. Update "
                                    "the calling code (or its package) before upgrading torchaudio." % ta, notes=notes)
        return Tailored(summary="torchaudio %s still has these functions, so the failing code ran with another "
                                "torchaudio (another interpreter or a partial install)." % ta,
                        commands=['python -c "import sys, torchaudio; print(sys.executable, torchaudio.__file__)"'],
                        notes=notes)
    tv = F.torch_base_version(facts)
    pin = compat.matching_torchaudio("2.8.0")
    return Tailored(summary="torchaudio %s removed the audio-backend API. Upgrade the package that calls it, or go back "
                            "to torchaudio %s with torch 2.8.0 (torch %s is installed)." % (ta, pin or "2.8.0", tv or "?"),
                    notes=notes)


# phonemizer (the text front end of many TTS models) loads eSpeak NG's shared library itself:
# the path PHONEMIZER_ESPEAK_LIBRARY names first (a wrong path fails the same way), then the
# system's (its install docs). The variable is read when phonemizer loads: set it before starting
# the program, in a new terminal (setx changes only later ones), or in os.environ before the import.
_ESPEAK = {
    "windows": ("Install eSpeak NG (its .msi from the espeak-ng releases), point phonemizer at its DLL, and start the "
                "program from a new terminal (setx does not change the one it runs in; in a notebook, set "
                "os.environ[\"PHONEMIZER_ESPEAK_LIBRARY\"] before importing phonemizer).",
                ['setx PHONEMIZER_ESPEAK_LIBRARY "C:\\Program Files\\eSpeak NG\\libespeak-ng.dll"']),
    "macos": ("Install eSpeak NG with Homebrew; if phonemizer still does not find it, point it at Homebrew's library "
              "(under /opt/homebrew on Apple silicon, /usr/local on Intel Macs).",
              ["brew install espeak-ng", 'export PHONEMIZER_ESPEAK_LIBRARY="$(brew --prefix)/lib/libespeak-ng.dylib"']),
    "linux": ("Install the distribution's eSpeak NG package; a build from source in /usr/local needs "
              "PHONEMIZER_ESPEAK_LIBRARY pointing at its libespeak-ng.so.", []),
}


@hook("phonemizer-espeak")
def tailor_phonemizer_espeak(match, facts: Facts) -> Optional[Tailored]:
    os_ = F.os_of(facts)
    if os_ not in _ESPEAK:
        return None
    summary, commands = _ESPEAK[os_]
    if os_ == "linux":
        commands = [system_install(facts, "espeak-ng"), "ldconfig -p | grep libespeak"]
    set_to = F.env(facts, "PHONEMIZER_ESPEAK_LIBRARY")
    notes = ["PHONEMIZER_ESPEAK_LIBRARY is set to %s: phonemizer tries that file first and fails the same way "
             "when it does not exist" % set_to] if set_to else []
    return Tailored(summary=summary, commands=commands, notes=notes)


# FFmpeg is a program found on PATH, not a Python package: pip's `ffmpeg`/`ffmpeg-python` only
# wrap it. Where this shell finds it, the failing process looked on another PATH. imageio-ffmpeg's
# wheel carries an ffmpeg binary (no ffprobe): linked into a venv's or conda env's bin folder,
# it is on PATH whenever that environment is active, without root.

@hook("ffmpeg-program")
def tailor_ffmpeg_program(match, facts: Facts) -> Optional[Tailored]:
    prog = match_groups(match).get("prog") or "ffmpeg"
    here = facts.value("programs.%s" % prog)
    os_ = F.os_of(facts)
    if isinstance(here, str):
        return Tailored(summary="%s is installed (this shell finds %s), so the failing process ran with another PATH: a "
                                "notebook kernel, IDE or terminal started before it was installed or from elsewhere, an "
                                "environment that was not activated, or a service. Start it again from this shell, or "
                                "give the library the full path (IMAGEIO_FFMPEG_EXE, pydub's AudioSegment.converter)."
                                % (prog, here),
                        commands=["%s -version" % F.shell_path(facts, here)],
                        notes=["%s on this PATH: %s" % (prog, here)])
    # absent: this shell's PATH was searched (gather/system.program_facts); otherwise (a report's
    # facts, no section) nothing was looked at and nothing is claimed about it
    searched = facts.state("programs.%s" % prog) == ABSENT
    notes = ["no %s on this PATH" % prog] if searched else []
    lead = "No %s on this PATH." % prog if searched else "The failing process found no %s." % prog
    install = program_install(facts, "ffmpeg", windows="winget install -e --id Gyan.FFmpeg")
    if facts.value("python.conda") is True:
        return Tailored(summary="%s This is a conda environment: conda-forge's ffmpeg puts ffmpeg and ffprobe in its "
                                "bin folder, found whenever it is activated." % lead,
                        commands=[install], notes=notes)
    if os_ == "windows":
        return Tailored(summary="%s Install FFmpeg (winget's Gyan.FFmpeg adds its bin folder to PATH), then start the "
                                "program from a new terminal: running ones keep their old PATH." % lead,
                        commands=[install], notes=notes)
    commands = [install]
    summary = "%s Install FFmpeg, the program (pip's `ffmpeg` and `ffmpeg-python` only call it)." % lead
    if prog == "ffmpeg" and facts.value("python.virtualenv") is True:
        py = F.python_cmd(facts)
        summary += (" Without root, imageio-ffmpeg's own ffmpeg linked into this venv's bin folder is found whenever "
                    "the venv is active.")
        commands += ["%s -m pip install imageio-ffmpeg" % py,
                     "%s -c \"import imageio_ffmpeg, os, sys; os.symlink(imageio_ffmpeg.get_ffmpeg_exe(), "
                     "os.path.join(os.path.dirname(sys.executable), 'ffmpeg'))\"" % py]
    return Tailored(summary=summary, commands=commands, notes=notes)


# librosa 0.9.0 made most arguments keyword-only, 0.9.1/0.9.2 only warn, 0.10 raises again. 0.9.2
# still uses np.float (gone in numpy 1.24), and numpy<1.24 has no wheels past Python 3.11, so the
# pin is an option only up to 3.11; keywords work on every librosa since 0.8.
_LIBROSA_PIN = "pip install \"librosa==0.9.2\" \"numpy<1.24\""


@hook("librosa-keyword-only")
def tailor_librosa_keyword_only(match, facts: Facts) -> Optional[Tailored]:
    fn = match_groups(match).get("fn") or "the function"
    lv = F.package_release(facts, "librosa")
    notes = ["librosa %s installed" % lv] if lv else []
    if lv is None and not F.package_installed(facts, "librosa"):
        return Tailored(summary="No librosa is installed in %s: the failing process ran another environment, whose "
                                "librosa (0.10 or newer, or 0.9.0) requires keyword arguments."
                                % facts.value("python.executable", "this Python"))
    t = V.minor_tuple(lv)
    strict = t is None or not (t < (0, 9) or lv.startswith(("0.9.1", "0.9.2")))
    if not strict:
        return Tailored(summary="librosa %s here still takes positional arguments (0.9.1 and 0.9.2 only warn): the "
                                "failing process imported another librosa." % lv,
                        commands=[which_import(facts, "librosa")],
                        notes=notes)
    py = python_minor(facts)
    summary = "librosa %s takes %s()'s arguments by name only: pass them as keywords where the traceback calls it" % (
        lv or "here", fn)
    if py and py > (3, 11):
        return Tailored(summary=summary + " (pinning librosa 0.9.2 needs numpy<1.24, which has no wheels for Python "
                                          "%d.%d)." % py, notes=notes)
    return Tailored(summary=summary + ", or pin librosa 0.9.2 with the NumPy it needs.",
                    commands=[on_interpreter(_LIBROSA_PIN, facts)], notes=notes)
