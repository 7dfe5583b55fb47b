"""`file too short`: the loader's real message for an empty library, and commands that look at
the very file it named (run by a real shell), not at a placeholder path."""

import ctypes
import subprocess
import sys

import pytest

from hook_facts import explain, facts

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the ELF loader's wording")


def _loader_message(path):
    try:
        ctypes.CDLL(str(path))
    except OSError as exc:
        return "OSError: %s" % exc
    raise AssertionError("an empty file loaded")


def test_the_commands_look_at_the_empty_library_the_loader_named(tmp_path):
    lib = tmp_path / "dir with space" / "libempty.so.1"
    lib.parent.mkdir()
    lib.write_bytes(b"")
    text = _loader_message(lib)
    assert "file too short" in text
    e = explain(text, "shared-library-file-too-short", facts(torch="2.13.0+cpu"))
    assert all(str(lib) in c for c in e.fix.commands), e.fix.commands
    out = subprocess.run(e.fix.commands[0], shell=True, capture_output=True, text=True)
    assert out.returncode == 0 and " 0 " in out.stdout, out.stdout + out.stderr  # ls -lL shows its size, 0
    out = subprocess.run(e.fix.commands[1], shell=True, capture_output=True, text=True)
    if out.returncode == 127:
        pytest.skip("no file(1) on this machine")
    assert "empty" in out.stdout, out.stdout


def test_a_bare_library_name_is_looked_up_in_the_loaders_cache():
    e = explain("ImportError: libcudnn.so.8: file too short", "shared-library-file-too-short",
                facts(torch="2.13.0+cpu"))
    assert e.fix.commands == ["ldconfig -p | grep -F libcudnn.so.8"]
