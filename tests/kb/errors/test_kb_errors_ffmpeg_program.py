"""The ffmpeg program missing from PATH: whisper, transformers, pydub and imageio run it by name.
The failure is the interpreter's own (a subprocess of `ffmpeg` on a PATH without it), the hook
reads which PATH finds it, and its no-root fix (imageio-ffmpeg's binary linked into the venv,
installed with this machine's pip configuration) is run as printed and heals the script."""

import os
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.gather.light import light_facts
from torchdoctor.gather.system import program_facts
from torchdoctor.match.matcher import HIGH
from wheelkit import pip_venv

ENTRY = "ffmpeg-program-not-found"
# what whisper's load_audio does: run ffmpeg by name
SCRIPT = "import subprocess\nout = subprocess.run(['ffmpeg', '-version'], capture_output=True, check=True).stdout\n" \
         "print(out.decode().split()[0])\n"


def _only(path_dirs):
    return {**os.environ, "PATH": os.pathsep.join(str(d) for d in path_dirs)}


@pytest.mark.slow
def test_a_venv_without_ffmpeg_is_healed_by_the_printed_commands(tmp_path, monkeypatch):
    py = pip_venv(tmp_path / "venv")
    bin_dir = os.path.dirname(py)
    script = tmp_path / "transcribe.py"
    script.write_text(SCRIPT)
    env = _only([bin_dir])  # the active venv and nothing else: no system ffmpeg can answer
    failed = subprocess.run([py, str(script)], capture_output=True, text=True, timeout=60, env=env)
    assert failed.returncode != 0
    m = top(failed.stderr)
    assert (m.id, m.confidence) == (ENTRY, HIGH), failed.stderr[-600:]
    monkeypatch.setenv("PATH", env["PATH"])
    f = light_facts(py)  # the venv's own facts, read by its interpreter; PATH as the failing process had it
    _, t = tailored_as(ENTRY, failed.stderr, f)
    assert "No ffmpeg on this PATH" in t.summary
    fix = [c for c in t.commands if "imageio" in c]
    assert len(fix) == 2 and t.commands[0].startswith("sudo ")
    for cmd in fix:  # this machine's pip configuration, as a user's would be
        done = subprocess.run(cmd, shell=True, capture_output=True, text=True, timeout=600, env=env)
        if "pip install" in cmd and done.returncode != 0:
            pytest.skip("pip could not install imageio-ffmpeg here: " + done.stderr.strip()[-300:])
        assert done.returncode == 0, (cmd, done.stderr[-600:])
    healed = subprocess.run([py, str(script)], capture_output=True, text=True, timeout=60, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "ffmpeg"
    assert program_facts(env)["ffmpeg"] == os.path.join(bin_dir, "ffmpeg")


def test_an_ffmpeg_this_shell_finds_means_the_failing_process_had_another_path(tmp_path, monkeypatch):
    tools = tmp_path / "tools"
    tools.mkdir()
    exe = tools / "ffmpeg"
    exe.write_text("#!/bin/sh\necho ffmpeg version 7.1\n")
    exe.chmod(0o755)
    found = program_facts(_only([tools]))
    assert found["ffmpeg"] == str(exe) and not isinstance(found["ffprobe"], str)
    _, t = tailored_as(ENTRY, "FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'",
                       facts(programs=found))
    assert "another PATH" in t.summary and t.commands == ["%s -version" % exe]
    _, t = tailored_as(ENTRY, "RuntimeError: Cannot load audio from file: `ffprobe` not found. Please install `ffmpeg` "
                              "in your system to use non-WAV audio file formats", facts(programs=found))
    assert "No ffprobe on this PATH" in t.summary and not any("imageio" in c for c in t.commands)


@pytest.mark.parametrize("where, want", [
    ({"system": "Windows"}, "winget install -e --id Gyan.FFmpeg"),
    ({"system": "Darwin"}, "brew install ffmpeg"),
    ({"python": {"conda": True}}, "conda install -y -c conda-forge ffmpeg"),
    ({"os": {"system": "Linux", "distro": "Fedora Linux 40"}}, "sudo dnf install -y ffmpeg"),
])
def test_the_install_follows_the_machine(where, want):
    f = facts(programs={"ffmpeg": None}, **where)
    _, t = tailored_as(ENTRY, "ValueError: ffmpeg was not found but is required to load audio files from filename", f)
    assert t.commands[0] == want


@pytest.mark.parametrize("text", [
    "ffmpeg : The term 'ffmpeg' is not recognized as the name of a cmdlet, function, script file, or operable program.",
    "zsh: command not found: ffmpeg",
    "/bin/sh: 1: ffmpeg: not found",
])
def test_the_shells_own_words_are_read(text):
    m = top(text)
    assert m is not None and m.id == ENTRY


def test_facts_that_never_looked_at_path_claim_nothing_about_it():
    # a report's facts (triage of a pasted collect_env) have no programs section
    _, t = tailored_as(ENTRY, "FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg'", facts())
    assert "on this PATH" not in t.summary and not t.notes


def test_a_found_path_with_spaces_is_quoted_for_windows():
    f = facts(system="Windows", programs={"ffmpeg": "C:\\Program Files\\ffmpeg\\bin\\ffmpeg.exe"})
    _, t = tailored_as(ENTRY, "FileNotFoundError: [WinError 2] ... No such file or directory: 'ffmpeg'", f)
    assert t.commands == ['"C:\\Program Files\\ffmpeg\\bin\\ffmpeg.exe" -version']


@pytest.mark.parametrize("text", [
    # a whole command line passed as one program name (no shell=True): the project's call, not a missing ffmpeg
    "FileNotFoundError: [Errno 2] No such file or directory: 'ffmpeg -y -i /tmp/a.wav -i result.avi out.mp4'",
    # a bundled binary's own path
    "FileNotFoundError: [Errno 2] No such file or directory: '/usr/lib/python3/imageio_ffmpeg/binaries/ffmpeg-linux64-v4.2.2'",
    "ModuleNotFoundError: No module named 'ffmpeg'",
    "ImportError: FFmpeg libraries are not found. Please install FFmpeg.",
    "No such file or directory: 'ffmpeg_output.mp4'",
])
def test_other_ffmpeg_failures_are_not_the_program_missing(text):
    m = top(text)
    assert m is None or m.id != ENTRY
