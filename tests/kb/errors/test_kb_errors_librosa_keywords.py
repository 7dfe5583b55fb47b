"""librosa 0.10's keyword-only arguments against code written for 0.8 (Wav2Lip's audio.py calls
`librosa.filters.mel(sr, n_fft, ...)`). The failure runs for real with the librosa pip installs
here, and the hook's pin, run as printed with this machine's pip configuration, heals it."""

import shlex
import subprocess
import sys

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.gather.light import light_facts
from torchdoctor.match.matcher import HIGH
from wheelkit import pip_venv

ENTRY = "librosa-keyword-only-arguments"
CALL = "import librosa\nprint(librosa.filters.mel(22050, 2048).shape)"


@pytest.mark.slow
@pytest.mark.skipif(sys.version_info >= (3, 12), reason="librosa 0.9.2 needs numpy<1.24, which has no wheels past 3.11")
def test_positional_mel_under_librosa_0_10_is_healed_by_the_printed_pin(tmp_path):
    py = pip_venv(tmp_path / "venv")
    done = subprocess.run([py, "-m", "pip", "install", "-q", "librosa>=0.10"], capture_output=True, text=True,
                          timeout=900)
    if done.returncode != 0:
        pytest.skip("pip could not install librosa here: " + done.stderr.strip()[-300:])
    failed = subprocess.run([py, "-c", CALL], capture_output=True, text=True, timeout=300)
    assert failed.returncode != 0
    m = top(failed.stderr)
    assert (m.id, m.confidence) == (ENTRY, HIGH), failed.stderr[-600:]
    _, t = tailored_as(ENTRY, failed.stderr, light_facts(py))  # the venv's own facts: its librosa and Python
    assert t.summary.startswith("librosa 0.1") and "mel()" in t.summary
    assert len(t.commands) == 1 and "librosa==0.9.2" in t.commands[0]
    subprocess.run(shlex.split(t.commands[0]), check=True, capture_output=True, timeout=900)
    healed = subprocess.run([py, "-c", CALL], capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "(128, 1025)"


@pytest.mark.parametrize("version, py, want", [
    ("0.10.2.post1", "3.12.4", "no wheels for Python 3.12"),
    ("0.9.0", "3.10.12", "pin librosa 0.9.2"),
    ("0.9.2", "3.10.12", "imported another librosa"),
    ("0.8.1", "3.9.18", "imported another librosa"),
    ("dev", "3.10.12", "pin librosa 0.9.2"),  # a version that does not parse: no crash, the strict reading
])
def test_the_answer_follows_the_installed_librosa_and_python(version, py, want):
    _, t = tailored_as(ENTRY, "TypeError: resample() takes 1 positional argument but 3 were given",
                       facts(py=py, packages={"librosa": {"version": version}}))
    assert want in t.summary


@pytest.mark.parametrize("text", [
    "TypeError: mfcc() takes 0 positional arguments but 1 was given",
    "TypeError: get_duration() takes 0 positional arguments but 2 were given",
    "TypeError: zero_crossing_rate() takes 1 positional argument but 2 were given",
    "TypeError: mel() takes 0 positional arguments but 2 positional arguments (an",  # a paste cut off
])
def test_librosa_0_10s_real_wordings_are_read(text):
    m = top(text)
    assert m is not None and m.id == ENTRY


@pytest.mark.parametrize("text", [
    # librosa.load's words are json.load's too: not claimed
    "TypeError: load() takes 1 positional argument but 2 were given",
    # methods of the same name (Python 3.10+ prints the class) and the user's own functions
    "TypeError: Clip.get_duration() takes 1 positional argument but 2 were given",
    "TypeError: AudioProcessor.stft() takes 1 positional argument but 2 were given",
    "TypeError: my_resample() takes 1 positional argument but 3 were given",
    "TypeError: forward() takes 2 positional arguments but 3 were given",
    "TypeError: mel() takes 2 positional arguments but 3 were given",
    "TypeError: resample() takes 2 positional arguments but 3 were given",
])
def test_other_positional_argument_errors_are_not_librosas(text):
    m = top(text)
    assert m is None or m.id != ENTRY
