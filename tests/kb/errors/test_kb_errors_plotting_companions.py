"""Plotting code of PyTorch projects against a newer matplotlib: `ax.lines = []` in the motion and
pose projects' animation helpers. The failure is run for real with the matplotlib pip installs here,
explain names the entry, and the entry's own rewrite, run as printed on the script, heals it."""

import shlex
import subprocess
import sys

import pytest

from hook_facts import top
from torchdoctor.match.matcher import HIGH
from wheelkit import pip_venv

ENTRY = "matplotlib-axes-lines-read-only"
PLOT = """import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

fig = plt.figure()
ax = fig.add_subplot(projection="3d")


def update(i):
    ax.lines = []
    ax.collections = []
    ax.plot([0, i], [0, i], [0, i])


update(1)
print("cleared", len(ax.lines))
"""


@pytest.fixture(scope="module")
def mpl_python(tmp_path_factory):
    py = pip_venv(tmp_path_factory.mktemp("mpl") / "venv")
    # this machine's pip configuration, as a user's would be
    done = subprocess.run([py, "-m", "pip", "install", "-q", "matplotlib"], capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        pytest.skip("pip could not install matplotlib here: " + done.stderr.strip()[-300:])
    return py


def test_ax_lines_assignment_is_healed_by_the_entrys_rewrite(mpl_python, tmp_path):
    script = tmp_path / "plot_script.py"
    script.write_text(PLOT)
    failed = subprocess.run([mpl_python, str(script)], capture_output=True, text=True, timeout=120)
    assert failed.returncode != 0
    m = top(failed.stderr)
    assert (m.id, m.confidence) == (ENTRY, HIGH), failed.stderr[-600:]
    rewrite = [c for c in m.entry.fix["commands"] if "re.sub" in c]
    assert len(rewrite) == 1
    argv = shlex.split(rewrite[0].replace("<the plotting script in the traceback>", shlex.quote(str(script))))
    subprocess.run([sys.executable] + argv[1:], check=True, timeout=60)
    healed = subprocess.run([mpl_python, str(script)], capture_output=True, text=True, timeout=120)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "cleared 1"
    assert "ax.lines = []" not in script.read_text()


def _rewrite(script):
    """The entry's rewrite, run as printed on `script`: (exit code, the file afterwards)."""
    cmd = [c for c in top("AttributeError: can't set attribute 'lines'").entry.fix["commands"] if "re.subn" in c][0]
    argv = shlex.split(cmd.replace("<the plotting script in the traceback>", shlex.quote(str(script))))
    done = subprocess.run([sys.executable] + argv[1:], capture_output=True, text=True, timeout=60)
    return done.returncode, script.read_bytes()


def test_the_rewrite_keeps_tabs_comments_and_crlf_line_ends(tmp_path):
    script = tmp_path / "plot.py"
    script.write_bytes(b"def update(i):\r\n\tax.lines=[]  # clear\r\n\tax.collections = []\r\n")
    rc, after = _rewrite(script)
    assert rc == 0
    assert after == (b"def update(i):\r\n\tfor _a in list(ax.lines): _a.remove()\r\n"
                     b"\tfor _a in list(ax.collections): _a.remove()\r\n")


@pytest.mark.parametrize("line", [
    "    ax.lines = []; ax.plot([i])\n",  # more on the line: rewriting would run the plot once per old line
    "    self.ax.lines = []\n",           # another name: the hand edit the summary asks for
])
def test_the_rewrite_leaves_what_it_does_not_understand_and_says_so(tmp_path, line):
    script = tmp_path / "plot.py"
    script.write_text("def update(i):\n" + line)
    before = script.read_bytes()
    rc, after = _rewrite(script)
    assert rc == 1 and after == before


@pytest.mark.parametrize("text", [
    # Python 3.9's wording beside the line, and as a mail-quoted traceback
    "    ax.lines = []\nAttributeError: can't set attribute",
    ">     ax.lines = []\n> AttributeError: can't set attribute",
    "AttributeError: can't set attribute 'lines'",
    # Python 3.11 under matplotlib 3.5-3.6, whose add_subplot returns an *Subplot class
    "AttributeError: property 'lines' of 'AxesSubplot' object has no setter",
    "AttributeError: property 'collections' of 'Axes3DSubplot' object has no setter",
])
def test_the_older_pythons_wordings(text):
    assert (top(text).id, top(text).confidence) == (ENTRY, HIGH)


@pytest.mark.parametrize("text", [
    "AttributeError: can't set attribute",  # any read-only property, with nothing of matplotlib's
    "    self.name = name\nAttributeError: can't set attribute",
    "parser.add_argument('lines')\n    model.device = 'cuda'\nAttributeError: can't set attribute",
    "KeyError: 'lines'\nAttributeError: can't set attribute",
    "ImportError: cannot import name 'Mapping' from 'collections'\nAttributeError: can't set attribute",
])
def test_a_bare_read_only_property_is_not_matplotlib(text):
    m = top(text)
    assert m is None or m.id != ENTRY
