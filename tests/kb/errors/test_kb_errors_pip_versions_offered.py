"""pip's '(from versions: ...)' without the release asked for, for a package other than torch: the
release exists for other Pythons or platforms only, or the index does not carry it. The real-pip
test serves releases from a local index, one excluded by Requires-Python and one built for another
Python, and runs the hook's command as printed: pip itself then names each reason."""

import functools
import os
import shlex
import subprocess
import sys

import pytest

from torchdoctor.match.matcher import match_text

from hook_facts import explain, facts, tailored_as
from wheelkit import build_wheel, environ, hermetic_env

ID = "pip-version-not-offered"
tailored = functools.partial(tailored_as, ID)


@pytest.mark.parametrize("text,pkg,spec,versions", [
    ("ERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: 1.3.0, 1.21.1, "
     "1.22.0)", "numpy", "==1.21.2", "1.3.0, 1.21.1, 1.22.0"),
    # pip names who asked, and a -r line, between the requirement and the list
    ("ERROR: Could not find a version that satisfies the requirement torchrl>=0.2.0 (from benchmarl) (from versions: "
     "0.0.5, 0.1.0, 0.1.1)", "torchrl", ">=0.2.0", "0.0.5, 0.1.0, 0.1.1"),
    ("ERROR: Could not find a version that satisfies the requirement numpy~=2.2.1 (from -r requirements.txt (line 1)) "
     "(from versions: 1.24.3, 1.24.4)", "numpy", "~=2.2.1", "1.24.3, 1.24.4"),
    # extras, and a marker after a semicolon
    ("ERROR: Could not find a version that satisfies the requirement ray[default]==2.5.1; extra == \"simulation\" "
     "(from flwr[simulation]) (from versions: 2.10.0, 2.11.0)", "ray", "==2.5.1", "2.10.0, 2.11.0"),
    ("      ERROR: Could not find a version that satisfies the requirement coqui-tts (from versions: none)",
     "coqui-tts", "", "none"),
])
def test_pips_list_without_the_release_names_package_spec_and_list(text, pkg, spec, versions):
    m, _ = tailored(text)
    assert (m.groups["pkg"], m.groups["spec"], m.groups["versions"]) == (pkg, spec, versions)
    assert m.confidence == "possible"  # what pip skipped it for, the line does not say


@pytest.mark.parametrize("text", [
    # torch's own wheels: another entry reads them with torch's releases and indexes
    "ERROR: Could not find a version that satisfies the requirement torch==2.5.1 (from versions: 2.2.0, 2.2.1)",
    "ERROR: Could not find a version that satisfies the requirement torchvision==0.15.2+cu118 (from versions: 0.17.0)",
    # other frameworks' packages: their error, not a PyTorch user's
    "ERROR: Could not find a version that satisfies the requirement tensorflow (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement tensorflow-gpu==2.5.1 (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement jaxlib==0.4.25+cuda12.cudnn89 (from versions: 0.4.26)",
    "ERROR: Could not find a version that satisfies the requirement paddlepaddle-gpu==2.4.2.post117 (from versions: 2.5.1)",
    # torch as the user typed it, and PyPI's placeholder named pytorch: torch's own entries
    "ERROR: Could not find a version that satisfies the requirement Torch (from versions: none)",
    "ERROR: Could not find a version that satisfies the requirement TorchVision==0.15.2 (from versions: 0.17.0)",
    "ERROR: Could not find a version that satisfies the requirement pytorch==1.7.1 (from versions: 0.1.2, 1.0.2)",
    # an underscored framework package, which the whitespace-free pass would otherwise read as another name
    "ERROR: Could not find a version that satisfies the requirement tensorflow_io_gcs_filesystem==0.31.0 "
    "(from versions: 0.32.0)",
])
def test_torch_and_other_frameworks_are_not_this_entrys(text):
    assert ID not in [m.id for m in match_text(text)]


def test_the_release_missing_inside_the_list_is_said_so():
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: "
                    "1.21.0, 1.21.1, 1.22.0, 1.24.2)", facts(py="3.11.7", exe="/env/bin/python"))
    assert "before and after the one asked for (numpy==1.21.2)" in t.cause
    assert t.commands == ['/env/bin/python -m pip download "numpy==1.21.2" --no-deps -d pip-why',
                          '/env/bin/python -m pip download "numpy==1.21.2" --no-deps -d pip-why -vv']
    assert t.notes == ["this Python is 3.11"]


@pytest.mark.parametrize("spec,listed", [
    (">=0.2.0", "0.0.1a0, 0.0.5, 0.1.0, 0.1.1"),
    ("~=2.2.1", "1.23.5, 1.24.0rc1, 1.24.4"),
    ("==3.0", "1.0, 2.0, 2.1"),
])
def test_a_list_that_stops_below_the_request_names_its_newest(spec, listed):
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement pkgx%s (from versions: %s)"
                    % (spec, listed))
    newest = listed.split(", ")[-1]
    assert "The newest pkgx pip may install here is %s; pkgx%s asks for a later release" % (newest, spec) in t.cause


def test_an_empty_list_says_every_release_or_the_name():
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement torchrl (from versions: none)")
    assert "found no release of torchrl" in t.cause and "spelling" in t.cause


def test_a_list_that_holds_a_fitting_release_says_the_list_is_not_what_failed():
    # pip had a release the spec admits: a conflict or a hash failed, not the list
    e = explain("ERROR: Could not find a version that satisfies the requirement scipy>=1.10 "
                "(from versions: 1.9.3, 1.10.1, 1.11.0)", ID, facts())
    assert "so the list is not what failed" in e.cause and "before and after" not in e.cause


@pytest.mark.parametrize("spec,listed,says", [
    # no lower bound: neither "before and after" nor "newest"
    ("<2", "2.0, 3.1", "None of the releases pip lists for pkgx is one that pkgx<2 admits"),
    ("!=2.0", "2.0", "None of the releases pip lists for pkgx is one that pkgx!=2.0 admits"),
    # a strict bound at the list's top: the list stops below what is asked
    (">1.0", "0.9, 1.0", "The newest pkgx pip may install here is 1.0"),
    # a newer pre-release listed: releases after the request exist in the list
    ("==2.0", "1.0, 3.0.dev1", "before and after the one asked for (pkgx==2.0)"),
])
def test_where_the_request_sits_in_the_list(spec, listed, says):
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement pkgx%s (from versions: %s)"
                    % (spec, listed))
    assert says in t.cause


def test_an_exact_pin_is_not_said_to_be_yanked():
    # pip installs a yanked release that is pinned with ==, so a missing == pin was not yanked
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement numpy==1.21.2 (from versions: "
                    "1.21.0, 1.22.0)")
    assert "yanked" not in t.cause
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement numpy>=1.21.2,<1.22 "
                    "(from versions: 1.21.0, 1.22.0)")
    assert "yanked" in t.cause


def test_an_empty_list_names_an_unreachable_index_too():
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement einops (from versions: none)")
    assert "could not reach the index" in t.cause


def _simple_index(root, name, links):
    """A PEP 503 index under ROOT/simple with NAME's files: (wheel path, Requires-Python or None)."""
    page = root / "simple" / name
    page.mkdir(parents=True)
    anchors = []
    for path, requires in links:
        attr = ' data-requires-python="%s"' % requires.replace(">", "&gt;").replace("<", "&lt;") if requires else ""
        anchors.append('<a href="%s"%s>%s</a>' % ("file://" + path, attr, os.path.basename(path)))
    (page / "index.html").write_text("<html><body>%s</body></html>\n" % "\n".join(anchors))
    return "file://%s" % (root / "simple")


def test_pips_own_download_names_why_each_release_was_skipped(tmp_path):
    # tdoffered 1.0 and 3.0 install anywhere; 2.0 says Requires-Python >=3.99; 2.1 has a wheel for
    # CPython 2.7 only. Asked for 2.0 or 2.1, real pip lists 1.0 and 3.0; a paste cut to its last
    # lines names this entry, and the hook's command, run as printed, prints pip's reason.
    files = tmp_path / "files"
    wheel = lambda v, tag="py3-none-any": build_wheel(files, "tdoffered", v, {"tdoffered/__init__.py": ""}, tag=tag)
    index = _simple_index(tmp_path, "tdoffered", [(wheel("1.0"), None), (wheel("2.0"), ">=3.99"),
                                                   (wheel("2.1", "cp27-cp27m-manylinux1_x86_64"), None),
                                                   (wheel("3.0"), None)])
    (tmp_path / "nolinks").mkdir()
    env = environ(hermetic_env(tmp_path / "nolinks", index_url=index))

    def pip(*args):
        return subprocess.run([sys.executable, "-m", "pip"] + list(args), capture_output=True, text=True,
                              timeout=300, env=env, cwd=str(tmp_path))

    failed = pip("install", "--no-deps", "--target", str(tmp_path / "site"), "tdoffered==2.0")
    assert failed.returncode != 0
    last = [ln for ln in failed.stderr.splitlines() if "satisfies the requirement" in ln]
    assert last and "(from versions: 1.0, 3.0)" in last[0], failed.stderr[-1500:]
    _, t = tailored(last[0], facts(exe=sys.executable))
    assert "before and after the one asked for (tdoffered==2.0)" in t.cause
    why = pip(*shlex.split(t.commands[0])[3:])
    assert "2.0 Requires-Python >=3.99" in why.stderr, why.stderr[-1500:]
    _, t = tailored(last[0].replace("tdoffered==2.0", "tdoffered==2.1"), facts(exe=sys.executable))
    why = pip(*shlex.split(t.commands[1])[3:])
    skipped = [ln for ln in why.stdout.splitlines() if "tdoffered-2.1-" in ln and "Skipping link" in ln]
    assert skipped and "cp27-cp27m-manylinux1_x86_64" in skipped[0], why.stdout[-1500:]
    # a release with files for this Python, as the summary says, installs
    assert pip("install", "--no-deps", "--target", str(tmp_path / "site"), "tdoffered==3.0").returncode == 0


def test_a_request_older_than_the_whole_list_says_newer_only():
    _, t = tailored("ERROR: Could not find a version that satisfies the requirement intel-extension-for-pytorch==2.5.* "
                    "(from versions: 2.6.0, 2.7.0, 2.8.0)")
    assert "releases of intel-extension-for-pytorch newer than the one asked for" in t.cause
