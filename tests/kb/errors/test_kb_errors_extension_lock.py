"""A JIT extension build that waits forever on a lock a killed build left. The hang is made for
real with this machine's torch (a lock file where load_inline builds), interrupted, read from the
real traceback, and the printed commands run as printed let the build go through."""

import os
import signal
import subprocess
import time

import pytest

from conftest import TORCH_PYTHON, needs_torch
from hook_facts import facts, tailored_as

ENTRY = "cpp-extension-stale-lock"
BUILD = ("from torch.utils.cpp_extension import load_inline\n"
         "m = load_inline(name='td_lock_probe', cpp_sources='int twice(int x) { return 2 * x; }', "
         "functions=['twice'])\n"
         "print(m.twice(21))\n")


def test_the_lock_the_message_names_is_removed():
    _, t = tailored_as(ENTRY, "Lock file exists in build directory: '/home/u/.cache/torch_extensions/py38_cu118/"
                              "nvdiffrast_plugin/lock'", facts())
    assert t.commands == ["rm -f /home/u/.cache/torch_extensions/py38_cu118/nvdiffrast_plugin/lock"]


def test_a_windows_lock_is_deleted_with_del():
    _, t = tailored_as(ENTRY, "Warning: Lock file exists in build directory: 'C:\\Users\\u\\AppData\\Local\\"
                              "torch_extensions\\torch_extensions\\Cache\\py39_cu113\\renderutils_plugin\\lock'", facts())
    assert t.commands == ['del "C:\\Users\\u\\AppData\\Local\\torch_extensions\\torch_extensions\\Cache\\py39_cu113\\'
                          'renderutils_plugin\\lock"']


def test_without_a_path_the_root_torch_builds_in_is_searched():
    text = "wait (torch/utils/file_baton.py:42)\n_jit_compile (torch/utils/cpp_extension.py:1522)"
    _, t = tailored_as(ENTRY, text, facts(env={"TORCH_EXTENSIONS_DIR": "/scratch/ext"}))
    # bounded: <root>/<py_cu>/<name>/lock or <root>/<name>/lock, files only
    assert t.commands == ["find /scratch/ext -mindepth 2 -maxdepth 3 -type f -name lock -print",
                          "find /scratch/ext -mindepth 2 -maxdepth 3 -type f -name lock -delete"]
    _, t = tailored_as(ENTRY, text, facts(env={}))
    assert t.commands[0] == ('find "${XDG_CACHE_HOME:-$HOME/.cache}/torch_extensions" -mindepth 2 -maxdepth 3 -type f '
                             '-name lock -print')


@pytest.mark.slow
@needs_torch
def test_a_real_hang_on_a_leftover_lock_is_healed_by_the_printed_commands(tmp_path, monkeypatch):
    from torchdoctor.gather.light import light_facts

    root = tmp_path / "ext"
    (root / "td_lock_probe").mkdir(parents=True)
    (root / "td_lock_probe" / "lock").write_text("")
    env = dict(os.environ, TORCH_EXTENSIONS_DIR=str(root))
    hung = subprocess.Popen([TORCH_PYTHON, "-c", BUILD], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    time.sleep(15)
    assert hung.poll() is None, hung.communicate()  # still waiting on the lock
    hung.send_signal(signal.SIGINT)
    _, err = hung.communicate(timeout=60)
    monkeypatch.setenv("TORCH_EXTENSIONS_DIR", str(root))
    _, t = tailored_as(ENTRY, err, light_facts())
    assert t.commands == ["find %s -mindepth 2 -maxdepth 3 -type f -name lock -print" % root,
                          "find %s -mindepth 2 -maxdepth 3 -type f -name lock -delete" % root], t.commands
    for cmd in t.commands:
        subprocess.run(["bash", "-c", cmd], check=True, timeout=60)
    healed = subprocess.run([TORCH_PYTHON, "-c", BUILD], env=env, capture_output=True, text=True, timeout=900)
    assert healed.returncode == 0 and healed.stdout.strip().endswith("42"), healed.stderr[-800:]


@pytest.mark.parametrize("text", [
    "Lock file exists: /var/lib/dpkg/lock-frontend",  # apt's lock: no build directory
    "wait (threading.py:320)",
    "Waited on lock file for 5 seconds",
])
def test_other_locks_and_waits_are_not_this_entry(text):
    from hook_facts import top
    m = top(text)
    assert m is None or m.id != ENTRY
