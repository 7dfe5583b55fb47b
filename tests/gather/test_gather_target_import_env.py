"""What the probe records of where imports and libraries can come from besides the environment
itself: PYTHONPATH, .pth files, LD_LIBRARY_PATH / LD_PRELOAD; and how a sys.path entry is said
to have got there. A real venv (no torch in it) and the real probe.
"""

import os
import subprocess
import sys

from torchdoctor.areas.install.origins import entry_origin
from torchdoctor.gather.probe import gather


def test_pth_entries_and_path_variables_are_recorded_and_the_origin_of_an_entry_told(tmp_path, monkeypatch):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    py = str(venv / "bin" / "python")
    site = subprocess.run([py, "-c", "import site; print(site.getsitepackages()[0])"], capture_output=True,
                          text=True, check=True).stdout.strip()
    extra = tmp_path / "extra"
    (extra / "torch").mkdir(parents=True)
    (extra / "torch" / "__init__.py").write_text("")
    pth = os.path.join(site, "zz_extra.pth")
    with open(pth, "w") as fh:
        fh.write("%s\nimport os\n" % extra)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    monkeypatch.setenv("LD_LIBRARY_PATH", "/opt/a:/opt/b")
    monkeypatch.setenv("LD_PRELOAD", "libjemalloc.so.2")
    facts = gather(python=py, timeout=60)
    env = facts.section("import_env")
    assert {"file": pth, "adds": [str(extra)], "runs_code": True} in env["pth"]
    assert env["LD_LIBRARY_PATH"] == ["/opt/a", "/opt/b"] and env["LD_PRELOAD"] == ["libjemalloc.so.2"]
    assert facts.state("import_env.PYTHONPATH") == "absent"
    assert entry_origin(facts, str(extra)) == (".pth", pth)
    assert entry_origin(facts, site) == ("", "")  # the environment's own
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "pp"))
    facts = gather(python=py, timeout=60)
    assert entry_origin(facts, str(tmp_path / "pp")) == ("PYTHONPATH", str(tmp_path / "pp"))
