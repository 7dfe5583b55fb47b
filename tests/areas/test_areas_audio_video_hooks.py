"""TorchCodec's load failures, read by the line that failed, then answered from this machine:
the torchcodec its table pairs with the installed torch, FFmpeg for this OS, the index of
torch's CUDA variant; and torchaudio 2.9's removed backend API by the torchaudio installed."""

import pytest

from torchdoctor.kb import compat
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain

HEAD = ("RuntimeError: Could not load libtorchcodec. Likely causes:\n"
        "          1. FFmpeg is not properly installed in your environment.\n"
        "[start of libtorchcodec loading traceback]\n")
NOFFMPEG = HEAD + "OSError: libavutil.so.59: cannot open shared object file: No such file or directory\n"
SYMBOL = HEAD + ("OSError: /x/site-packages/torchcodec/libtorchcodec_core7.so: undefined symbol: "
                 "_ZN3c1013MessageLoggerC1EPKciib\n")
NVRTC = HEAD + ("OSError: libnvrtc.so.13: cannot open shared object file: No such file or directory\n"
                "OSError: Could not load this library: /x/site-packages/torchcodec/libtorchcodec_core8.so\n")


def facts(system="Linux", **pkgs):
    return Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": system},
                  "packages": {"installed": {n: {"version": v} for n, v in pkgs.items()}}})


def test_the_failing_line_decides_which_cause():
    ids = [m.id for m in match_text(NOFFMPEG)]
    assert ids[0] == "torchcodec-ffmpeg-not-found" and "torchcodec-load-failed" not in ids
    assert match_text(NOFFMPEG)[0].confidence == "high"
    ids = [m.id for m in match_text(SYMBOL)]
    assert ids[0] == "torchcodec-built-for-other-torch"
    assert "torchcodec-ffmpeg-not-found" not in ids and "extension-undefined-torch-symbol" not in ids
    ids = [m.id for m in match_text(NVRTC)]
    assert ids[0] == "torchcodec-cuda-libs-missing" and "torchcodec-ffmpeg-not-found" not in ids


def test_libav_without_torchcodec_is_not_claimed():
    assert [m.id for m in match_text("OSError: libavutil.so.58: cannot open shared object file")] == []


def test_the_readme_table():
    assert compat.torchcodec_compatible("2.9.1+cu130", "0.9.1") is True
    assert compat.torchcodec_compatible("2.9.0", "0.7.0") is False
    assert compat.torchcodec_compatible("2.14.0", "0.12.0") is True
    assert compat.torchcodec_compatible("2.14.0", "0.30.0") is None  # a release the table does not list
    assert compat.torchcodec_for_torch("2.10.0") == "0.10"


def test_an_unpaired_torchcodec_gets_the_paired_release_from_torchs_index():
    e = explain(SYMBOL, "torchcodec-built-for-other-torch", facts(torch="2.8.0+cu128", torchcodec="0.10.0"))
    assert e.tailored and "install torchcodec 0.7" in e.fix.summary
    assert e.fix.commands == ['/opt/env/bin/python -m pip install "torchcodec==0.7.*" '
                              '--index-url https://download.pytorch.org/whl/cu128']


def test_no_ffmpeg_with_a_paired_torchcodec_gets_ffmpeg_for_this_os():
    e = explain(NOFFMPEG, "torchcodec-ffmpeg-not-found", facts("Windows", torch="2.9.1", torchcodec="0.9.1"))
    assert "Gyan.FFmpeg.Shared" in e.fix.summary and "winget install Gyan.FFmpeg.Shared" in e.fix.commands
    e = explain(NOFFMPEG, "torchcodec-ffmpeg-not-found", facts("Linux", torch="2.9.1", torchcodec="0.9.1"))
    assert "shared libraries" in e.fix.summary


def test_the_header_alone_is_only_possible_and_the_pairing_decides():
    # the three causes torchcodec lists are told apart by the lines below its header
    assert match_text(HEAD)[0].confidence == "possible"
    e = explain(HEAD, "torchcodec-load-failed", facts(torch="2.9.0", torchcodec="0.12.0"))
    assert "built for another torch" in e.fix.summary


def test_a_cuda13_torchcodec_beside_a_cu128_torch():
    e = explain(NVRTC, "torchcodec-cuda-libs-missing", facts(torch="2.10.0+cu128", torchcodec="0.10.0"))
    assert "CUDA 13 build" in e.fix.summary and "cu128" in e.fix.summary
    assert e.fix.commands[0].endswith("torchcodec --index-url https://download.pytorch.org/whl/cu128")


def test_a_cuda13_torch_missing_its_own_nvrtc_is_left_generic():
    e = explain(NVRTC, "torchcodec-cuda-libs-missing", facts(torch="2.10.0+cu130", torchcodec="0.10.0"))
    assert not e.tailored


@pytest.mark.parametrize("attr", ["list_audio_backends", "set_audio_backend", "get_audio_backend"])
def test_torchaudio_29_removed_the_backend_api(attr):
    text = "AttributeError: module 'torchaudio' has no attribute '%s'" % attr
    e = explain(text, "torchaudio-backend-api-removed", facts(torchaudio="2.9.0", torch="2.9.0"))
    assert "removed the audio-backend API" in e.fix.summary
    e = explain(text, "torchaudio-backend-api-removed", facts(torchaudio="2.8.0", torch="2.8.0"))
    assert "another torchaudio" in e.fix.summary


@pytest.mark.parametrize("text", ["torchaudio.set_audio_backend deprecated\ntorchaudio.info removed",
                                  "torchaudio.info() was removed in torchaudio 2.9"])
def test_a_reporters_list_of_torchaudios_removed_calls(text):
    m = match_text(text)[0]
    assert m.id == "torchaudio-backend-api-removed"


def test_other_torchaudio_words_are_not_the_removal():
    found = match_text("torchaudio.load is slow, the info removed from the output")
    assert not found or found[0].id != "torchaudio-backend-api-removed"
