"""CMake 4 refusing a project that asks for a CMake older than 3.5: PyPI's CMake 4 configures such a
project for real, fails with the message this entry reads, and the printed environment variable, set
as printed, lets the same CMake configure it."""

import os
import shlex
import subprocess

import pytest

from hook_facts import venv_with
from torchdoctor.match.matcher import HIGH, match_text

ENTRY = "cmake-4-old-minimum-version"
OLD_PROJECT = "cmake_minimum_required(VERSION 3.1)\nproject(old NONE)\n"


@pytest.mark.slow
def test_an_old_project_under_cmake_4_is_configured_with_the_printed_variable(tmp_path):
    py, run, env = venv_with(tmp_path, "cmake>=4")
    cmake = os.path.join(os.path.dirname(py), "cmake")
    src = tmp_path / "src"
    src.mkdir()
    (src / "CMakeLists.txt").write_text(OLD_PROJECT)
    failed = run(cmake, "-S", str(src), "-B", str(tmp_path / "build1"))
    assert failed.returncode != 0
    found = match_text(failed.stdout + failed.stderr)
    assert found and found[0].id == ENTRY and found[0].confidence == HIGH, [(m.id, m.confidence) for m in found]
    exports = [c for c in found[0].entry.fix["commands"] if c.startswith("export ")]
    assert len(exports) == 1
    # the printed command, run as printed in the shell that then configures the same project
    healed = subprocess.run("%s && %s -S %s -B %s" % (exports[0], shlex.quote(cmake), shlex.quote(str(src)),
                                                     shlex.quote(str(tmp_path / "build2"))),
                            shell=True, capture_output=True, text=True, timeout=300, env=env)
    assert healed.returncode == 0, healed.stderr[-600:]


@pytest.mark.parametrize("text", [
    "CMake Error at CMakeLists.txt:15 (cmake_minimum_required):\n  Compatibility with CMake < 3.5 has been removed "
    "from CMake.",
    "  Or, add -DCMAKE_POLICY_VERSION_MINIMUM=3.5 to try configuring anyway.",
])
def test_either_line_of_the_message_is_this_entry(text):
    found = match_text(text)
    assert found and found[0].id == ENTRY


def test_cmake_3s_deprecation_warning_is_not_this_entry():
    text = ("CMake Deprecation Warning at CMakeLists.txt:1 (cmake_minimum_required):\n  Compatibility with CMake < 3.10 "
            "will be removed from a future version of CMake.")
    assert ENTRY not in [m.id for m in match_text(text)]


@pytest.mark.parametrize("line", [
    "./build_bundled.sh: line 15: cmake: command not found",  # bash
    "./build_bundled.sh: 21: cmake: not found",  # dash, Debian's /bin/sh
])
def test_sentencepieces_source_build_is_named_in_either_shells_words(line):
    from hook_facts import facts, tailored_as
    _, t = tailored_as("scientific-package-built-from-source", line, facts())
    assert "no wheel of sentencepiece" in t.summary, t.summary
