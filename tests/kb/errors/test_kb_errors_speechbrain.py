"""pyannote.audio's "'speechbrain' must be installed" and speechbrain's moved modules: the installed
pyannote.audio and speechbrain (boundaries read in their wheels: pyannote.audio 3.3.1 imports
speechbrain.inference, speechbrain 1.0.1 redirects speechbrain.pretrained) decide which side moves."""

import pytest

from torchdoctor.match.matcher import HIGH

from hook_facts import facts, tailored_as, top

ENTRY = "pyannote-speechbrain-import-failed"
MUST = ("ImportError: 'speechbrain' must be installed to use 'speechbrain/spkrec-ecapa-voxceleb' embeddings. Visit "
        "https://speechbrain.github.io for installation instructions.")


def pair(pa=None, sb=None):
    packages = {}
    if pa:
        packages["pyannote-audio"] = {"version": pa}
    if sb:
        packages["speechbrain"] = {"version": sb}
    return facts(torch="2.2.1", packages=packages)


def test_an_old_pyannote_beside_speechbrain_1_0_0_upgrades_speechbrain_past_the_redirect():
    m, t = tailored_as(ENTRY, MUST, pair("3.1.1", "1.0.0"))
    assert m.confidence == HIGH
    assert t.summary.startswith("pyannote.audio 3.1.1 imports speechbrain.pretrained, which speechbrain 1.0.0")
    assert t.commands[0].endswith('install "speechbrain>=1.0.1,<1.1"')
    assert 'pyannote.audio>=3.3.1,<4' in t.commands[1]


def test_a_new_pyannote_beside_an_old_pinned_speechbrain_upgrades_speechbrain():
    _, t = tailored_as(ENTRY, MUST, pair("3.3.2", "0.5.16"))
    assert "speechbrain 0.5.16 predates" in t.summary and t.commands[0].endswith('"speechbrain>=1.0,<1.1"')


@pytest.mark.parametrize("pa, sb, where", [("3.1.1", "1.0.3", "pretrained"), ("3.3.2", "1.0.3", "inference"),
                                           ("3.1.1", "0.5.16", "pretrained"), ("2.1.1", "0.5.16", "pretrained")])
def test_a_fitting_pair_shows_the_hidden_import_error(pa, sb, where):
    _, t = tailored_as(ENTRY, MUST, pair(pa, sb))
    assert t.summary.startswith("These releases fit each other")
    assert t.commands == ['/home/u/venv/bin/python -c "from speechbrain.%s import EncoderClassifier"' % where]


@pytest.mark.parametrize("pa, says, spec", [
    ("3.1.1", "pyannote.audio 3.1.1 requires it", '"speechbrain>=1.0.1,<1.1"'),
    ("2.1.1", "pyannote.audio 2.1.1 requires it", '"speechbrain>=0.5.12,<0.6"'),
    # pyannote.audio 4 no longer depends on it, but still loads speechbrain/ embeddings with it
    ("4.0.1", "pyannote.audio 4.0.1 no longer installs it", '"speechbrain>=1.0.2,<1.1"'),
])
def test_speechbrain_absent_is_installed_in_the_range_the_pyannote_here_takes(pa, says, spec):
    _, t = tailored_as(ENTRY, MUST, pair(pa))
    assert says in t.summary and t.commands[0].endswith("install %s" % spec)
    assert "<4" not in " ".join(t.commands)  # never a downgrade of pyannote.audio 4


def test_pyannote_4_0_4_passes_a_token_no_speechbrain_takes():
    _, t = tailored_as(ENTRY, MUST, pair("4.0.7"))
    assert "passes token=" in t.summary and "WeSpeaker" in t.summary


def test_pyannote_2_beside_speechbrain_1_is_pinned_back_first():
    _, t = tailored_as(ENTRY, MUST, pair("2.1.1", "1.0.0"))
    assert t.summary.startswith("pyannote.audio 2.1.1 requires speechbrain below 0.6")


def test_speechbrain_1_1_refuses_what_pyannote_3_passes():
    _, t = tailored_as(ENTRY, MUST, pair("3.3.2", "1.1.2"))
    assert "refuses the use_auth_token=" in t.summary and t.commands[0].endswith('"speechbrain>=1.0.1,<1.1"')


@pytest.mark.parametrize("text, sb, says", [
    ("ModuleNotFoundError: No module named 'speechbrain.pretrained'", "1.0.0", "the only release without"),
    ("ModuleNotFoundError: No module named 'speechbrain.pretrained'", "1.0.3", "imported another speechbrain"),
    ("ModuleNotFoundError: No module named 'speechbrain.pretrained.fetching'", "1.0.3", "speechbrain.utils.fetching"),
    # the redirect forwards the package's path: interfaces imports on 1.0.1 and later
    ("ModuleNotFoundError: No module named 'speechbrain.pretrained.interfaces'", "1.0.3", "imported another speechbrain"),
    ("ModuleNotFoundError: No module named 'speechbrain.pretrained.interfaces'", "1.0.0", "the only release without"),
    ("ModuleNotFoundError: No module named 'speechbrain.inference'", "0.5.16", "written for SpeechBrain 1.x"),
])
def test_a_moved_module_is_read_against_the_installed_speechbrain(text, sb, says):
    m, t = tailored_as(ENTRY, text, pair(sb=sb))
    assert m.confidence == HIGH and says in t.summary


@pytest.mark.parametrize("text", [
    "ModuleNotFoundError: No module named 'speechbrain.pretrained'; 'speechbrain' is not a package",  # a local file
    "ImportError: 'onnxruntime' must be installed to use 'hbredin/wespeaker-voxceleb-resnet34-LM' embeddings.",
    "ModuleNotFoundError: No module named 'speechbrain'",
    "ModuleNotFoundError: No module named 'speechbrain.lobes.models.huggingface_wav2vec'",
])
def test_near_misses_are_not_claimed(text):
    m = top(text)
    assert m is None or m.id != ENTRY


def test_a_moved_submodule_beside_pyannote_3_3_1_is_not_pinned_below_speechbrain_1():
    _, t = tailored_as(ENTRY, "ModuleNotFoundError: No module named 'speechbrain.pretrained.fetching'",
                       pair("3.3.2", "1.0.3"))
    assert "speechbrain.utils.fetching" in t.summary and t.commands == []
