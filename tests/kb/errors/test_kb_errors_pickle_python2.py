"""A Python 2 pickle read by Python 3: the failure runs for real (a protocol-2 pickle holding a Python 2
`str` with a byte above 0x7F, as SMPL's and MANO's model files do), explain reads it, and the entry's own
command, run as printed on that file, loads it."""

import shlex
import subprocess
import sys

from hook_facts import top
from torchdoctor.match.matcher import HIGH

ENTRY = "pickle-from-python2"
# PROTO 2, SHORT_BINSTRING of three bytes (a Python 2 str: 0xe9 then "ab"), STOP
PY2_PICKLE = b"\x80\x02U\x03\xe9ab."


def test_a_python_2_pickle_fails_for_real_and_the_printed_load_reads_it(tmp_path):
    model = tmp_path / "MANO_RIGHT.pkl"
    model.write_bytes(PY2_PICKLE)
    loader = tmp_path / "load_model.py"
    loader.write_text("import pickle, sys\nwith open(sys.argv[1], 'rb') as f:\n    d = pickle.load(f)\n")
    failed = subprocess.run([sys.executable, str(loader), str(model)], capture_output=True, text=True, timeout=60)
    assert failed.returncode != 0 and "'ascii' codec can't decode byte 0xe9" in failed.stderr
    m = top(failed.stderr)
    assert m is not None and m.id == ENTRY and m.confidence == HIGH, failed.stderr
    command = m.entry.fix["commands"][0].replace("MODEL.pkl", shlex.quote(str(model)))
    argv = shlex.split(command)
    assert argv[0] == "python"
    loaded = subprocess.run([sys.executable] + argv[1:], capture_output=True, text=True, timeout=60)
    assert loaded.returncode == 0, loaded.stderr
    assert loaded.stdout.strip() == "<class 'str'>"


def test_the_same_file_opened_as_text_is_read_as_the_text_mode_mistake(tmp_path):
    model = tmp_path / "model.pkl"
    model.write_bytes(b"\x80\x02}q\x00.")  # any protocol-2 pickle starts with 0x80
    loader = tmp_path / "load_text.py"
    loader.write_text("import pickle, sys\nd = pickle.load(open(sys.argv[1], encoding='utf-8'))\n")
    failed = subprocess.run([sys.executable, str(loader), str(model)], capture_output=True, text=True, timeout=60)
    assert "'utf-8' codec can't decode byte 0x80 in position 0" in failed.stderr
    m = top(failed.stderr)
    assert m is not None and m.id == ENTRY, failed.stderr
