"""Every release in kb/data/compat.json has a complete row, so adding a release is one data
change the suite checks: companions per patch, Python range, CUDA variants, the PyPI default
CUDA, a driver floor for every variant (the same numbers as the toolkit table) and an arch
list per variant. A piece may be unknown only with an explicit reason in the data.

Each rule is shown to fire on a deliberately broken copy of the data and to stay quiet on the
explicit "unknown, because ..." markers the file uses.
"""

import copy
import json
import os
import re

import pytest

from conftest import REFERENCE
from torchdoctor.kb import compat as c
from torchdoctor.kb import compat_rows


@pytest.fixture(scope="module")
def data():
    return compat_rows.load()


def _problems(data, edit):
    broken = copy.deepcopy(data)
    edit(broken)
    return compat_rows.problems(broken)


def test_every_release_row_is_complete(data):
    assert compat_rows.problems(data) == []


def test_a_new_release_is_one_data_change(data):
    """A 2.16 row copied from 2.15 (with its arch lists) passes; leave a piece out and it does not."""
    def add(d, with_arch=True):
        row = copy.deepcopy(d["releases"]["2.15"])
        row["patches"] = ["2.16.0"]
        row["triton"] = {}
        d["releases"]["2.16"] = row
        if with_arch:
            d["arch"]["2.16"] = copy.deepcopy(d["arch"]["2.15"])
    assert _problems(data, add) == []
    assert _problems(data, lambda d: add(d, with_arch=False)) == [
        "2.16: no arch list for cu132 (an entry, verified or 'verified': false with a note)"]


BROKEN = {
    "a torchvision pair left out": (
        lambda d: d["releases"]["2.14"]["torchvision"].pop("2.14.1"),
        "2.14: no torchvision for 2.14.1 (a pair, a torchvision_unverified entry, or torchvision_from_ranges)"),
    "a torchaudio pair left out": (
        lambda d: d["releases"]["2.10"]["torchaudio"].pop("2.10.0"),
        "2.10: no torchaudio for 2.10.0 (a pair, a torchaudio_unverified entry, or torchaudio_from_ranges)"),
    "range-era torchaudio without its marker": (
        lambda d: d["releases"]["2.13"].pop("torchaudio_from_ranges"),
        "2.13: no torchaudio for 2.13.0 (a pair, a torchaudio_unverified entry, or torchaudio_from_ranges)"),
    "the marker without a range that admits the patch": (
        lambda d: d["companions"]["torchaudio_ranges"].clear(),
        "2.13: torchaudio_from_ranges, but no range in companions.torchaudio_ranges admits 2.13.0"),
    "a pair for a patch the release does not have": (
        lambda d: d["releases"]["2.13"]["torchvision"].update({"2.13.7": "0.28.7"}),
        "2.13: torchvision pair for 2.13.7, which is not a patch of this release"),
    "an unverified marker without a reason": (
        lambda d: d["releases"]["2.15"]["unverified"].update(torchvision=""),
        "2.15: no torchvision for 2.15.0 (a pair, a torchvision_unverified entry, or torchvision_from_ranges)"),
    "no Python range": (
        lambda d: d["releases"]["2.14"].update(python=[]),
        "2.14: no Python range (python: [])"),
    "no PyPI default CUDA": (
        lambda d: d["releases"]["2.14"].pop("default_cuda"),
        "2.14: no 'default_cuda'"),
    "a default CUDA the release does not ship": (
        lambda d: d["releases"]["2.14"].update(default_cuda="cu128"),
        "2.14: default_cuda cu128 is not among the variants of 2.14.0"),
    "no CUDA variants": (
        lambda d: d["releases"]["2.14"].update(cuda=[], cuda_experimental=[]),
        "2.14: no CUDA variants"),
    "a variant nobody describes": (
        lambda d: d["releases"]["2.14"]["cuda"].append("cu999"),
        "2.14: variant cu999 is not described under 'variants'"),
    "no arch list for a variant": (
        lambda d: d["arch"]["2.14"].pop("cu126"),
        "2.14: no arch list for cu126 (an entry, verified or 'verified': false with a note)"),
    "an unverified arch list that says not why": (
        lambda d: d["arch"]["2.15"]["cu132"].pop("note"),
        "2.15: arch list for cu132 is not verified and says not why (no note)"),
    "a null driver without a reason": (
        lambda d: d["variants"]["cu130"]["windows"].pop("unknown"),
        "variant cu130: windows full-support driver is null without an 'unknown' reason"),
    "a driver floor the toolkit table does not give": (
        lambda d: d["variants"]["cu128"]["linux"].update(full="570.26"),
        "variant cu128: linux full driver 570.26, but the toolkit table says 570.124.06 for 12.8.1"),
    "an MVC floor the MVC table does not give": (
        lambda d: d["variants"]["cu126"]["linux"].update(mvc="525.85.12"),
        "variant cu126: linux MVC driver 525.85.12, but the table says 525.60.13"),
    "a driver branch the toolkit table does not give": (
        lambda d: d["variants"]["cu132"]["linux"].update(full_branch="R610"),
        "variant cu132: linux driver branch R610, but the toolkit table says R595"),
    "a toolkit the variant names but the table lacks": (
        lambda d: d["toolkits"].pop("12.9"),
        "variant cu129: toolkit '12.9' is not a CUDA 12.9 release of the toolkit table"),
    "a toolkit driver null without a reason": (
        lambda d: d["toolkits"]["13.5"].pop("windows_unknown"),
        "toolkit 13.5: windows driver is null without a windows_unknown reason"),
    "a key the accessors read": (
        lambda d: d["releases"]["2.14"].pop("numpy2"),
        "2.14: no 'numpy2'"),
    "a dropped variant still offered": (
        lambda d: d["releases"]["2.15"]["cuda"].append("cu126"),
        "2.15: cu126 is listed as dropped and as a variant"),
    "a per-patch override for a patch the release does not have": (
        lambda d: d["releases"]["2.12"]["python_experimental_by_patch"].update({"2.12.5": []}),
        "2.12: python_experimental_by_patch for 2.12.5, which is not a patch of this release"),
    "a fact without its source": (
        lambda d: d["releases"]["2.14"]["source"].pop("cuda"),
        "2.14: no source for 'cuda'"),
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_broken_copy_is_caught(data, name):
    edit, expected = BROKEN[name]
    assert expected in _problems(data, edit)


QUIET = {
    # the explicit "unknown, because ..." forms the file uses: accepted while there, missed when dropped
    "an unverified pair (torchvision_unverified and unverified['torchvision[1.10.2]'])":
        lambda d: (d["releases"]["1.10"].pop("torchvision_unverified"), d["releases"]["1.10"]["unverified"].clear()),
    "a release-wide unverified companion": lambda d: d["releases"]["2.15"]["unverified"].pop("torchvision"),
    "an unverified patch list ('torchvision[2.1.0,2.1.1]', and torchvision_unverified)":
        lambda d: (d["releases"]["2.1"]["unverified"].pop("torchvision[2.1.0,2.1.1]"),
                   d["releases"]["2.1"].pop("torchvision_unverified")),
    "an unverified default CUDA": lambda d: (d["releases"]["1.9"]["unverified"].pop("default_cuda"),
                                            d["releases"]["1.9"].pop("default_cuda")),
    "an unknown Windows driver": lambda d: d["variants"]["cu132"]["windows"].pop("unknown"),
    "an unknown toolkit driver with a known branch": lambda d: d["toolkits"]["13.5"].pop("linux_branch"),
    "an unverified arch list with a note": lambda d: d["arch"]["1.8"]["cu101"].pop("note"),
    "range-era torchaudio": lambda d: d["releases"]["2.15"].pop("torchaudio_from_ranges"),
}


@pytest.mark.parametrize("name", sorted(QUIET))
def test_explicit_unknowns_are_accepted(data, name):
    assert compat_rows.problems(data) == []  # the marker is there: the row counts as complete
    assert _problems(data, QUIET[name])  # without it, the same row is incomplete


def test_either_unverified_form_suffices_alone(data):
    def keep_only_map(d):
        d["releases"]["2.1"]["unverified"].pop("torchvision[2.1.0,2.1.1]")
    def keep_only_key(d):
        d["releases"]["2.1"].pop("torchvision_unverified")
    assert _problems(data, keep_only_map) == [] and _problems(data, keep_only_key) == []


def test_odd_data_never_raises():
    assert compat_rows.problems({}) == ["no releases"]
    assert compat_rows.problems({"releases": {"2.99": None}}) == ["2.99: the release row is not an object"]
    assert compat_rows.problems({"releases": {"2.99": {}}})  # every missing piece listed, no traceback


# -- the facts added 2026-12-01 (tools/check_releases.py, the 2.15.0 wheels, NVIDIA) -------------------
def test_free_threaded_wheels_from_pypi():
    assert c.python_supported("2.9.1", "3.13t") is True
    assert c.python_supported("2.12.0", "3.13t") is True
    assert c.python_supported("2.12.1", "3.13t") is False  # 2.12.1 has no cp313t wheel
    assert c.python_supported("2.12.1", "3.14t") is True
    assert c.python_supported("2.13.0", "3.14t") is True
    assert c.python_supported("2.13.0", "3.13t") is False
    assert c.python_supported("2.15.0", "3.15t") is True
    assert c.python_supported("2.8.0", "3.14t") is False


def test_companion_release_pinned_to_a_patch_besides_the_official_pair():
    assert c.torchvision_compatible("1.10.0", "0.11.1") is True  # 0.11.1 pins torch==1.10.0
    assert c.torchvision_compatible("1.10.1", "0.11.1") is False
    assert c.torch_for_torchvision("0.11.1") == "1.10.0"
    assert c.matching_torchvision("1.10.0") == "0.11.0"  # the official pair is unchanged


def test_triton_pins_of_more_patches():
    assert c.triton_requirement("2.12.0") == "==3.7.0"
    assert c.triton_requirement("2.7.0") == "==3.3.0"
    assert c.triton_requirement("2.1.0") == c.triton_requirement("2.1.1") == "==2.1.0"
    assert c.triton_requirement("2.0.0") == "==2.0.0"


def test_cuda_13_5_driver_branch():
    floors = c.min_driver("13.5")
    assert floors["full"] is None and floors["full_branch"] == "R620" and floors["mvc"] == "580.65.06"
    assert c.max_cuda_for_driver("625.10") == "13.5"
    assert c.max_cuda_for_driver("616.92") == "13.4"
    assert c.max_cuda_for_driver("620.70.06") is None  # inside R620: exact 13.5 minimum unknown
    assert c.driver_supports_cuda("580.95.05", "13.5") is True  # minor-version compatibility
    assert c.min_driver("13.5", "windows") is None


def test_2_15_facts():
    r = c.release("2.15.0")
    assert r["cuda_dropped"] == ["cu126"] and "cu126" not in c.cuda_variants("2.15.0")
    assert "cu126" in c.source(r["source"]["cuda_dropped"]) or "12.6" in c.source(r["source"]["cuda_dropped"])
    # the PyPI wheels were read, but the download.pytorch.org builds were not: still no plain answer
    seen = c.arch_info("2.15.0", "cu132")
    assert seen["verified"] is False and "arch_pypi_observed" in seen["note"]
    raw = compat_rows.load()
    assert raw["arch_pypi_observed"]["2.15.0+cu132"]["x86_64"] == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert raw["arch_pypi_observed"]["2.15.0+cu132"]["aarch64"] == ["sm_80", "sm_90", "sm_100", "sm_110", "sm_120"]


@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout (every clone in this workplace has it; elsewhere the cross-check cannot run)")
def test_new_facts_do_not_contradict_the_reference():
    with open(os.path.join(REFERENCE, "torch_matrix.json"), encoding="utf-8") as f:
        ref = json.load(f)["releases"]
    with open(os.path.join(REFERENCE, "cuda_driver.json"), encoding="utf-8") as f:
        drivers = json.load(f)
    data = compat_rows.load()
    for minor, r in ref.items():
        # the reference's (stable) Python lists are all still in the tables
        assert set(r["python"]) <= set(data["releases"][minor]["python"]), minor
        # and what the reference calls the PyPI default is what the tables say
        assert data["releases"][minor]["default_cuda"] == r["default_cuda"], minor
    # each variant's driver floors are among the values the reference gives for that wheel variant,
    # or the reference itself calls them unknown
    for name, ref_e in drivers["torch_wheel_variants"].items():
        ours = data["variants"][name]
        for osn, full_key, mvc_key in (("linux", "linux_min_driver", "mvc_min_linux"),
                                       ("windows", "windows_min_driver", "mvc_min_windows")):
            for value, text in ((ours[osn]["full"], ref_e[full_key]), (ours[osn]["mvc"], ref_e.get(mvc_key, ref_e[full_key]))):
                given = re.findall(r">=\s*([\d.]+)", text)
                if value is None:
                    assert not given or "N/A" in text or "unverified" in text or "R5" in text, (name, osn, text)
                else:
                    assert value in given or any(value.startswith(g + ".") for g in given), (name, osn, value, text)
    for minor, e in drivers["cuda_13_driver_branches"].items():
        tk = data["toolkits"][minor]
        assert (tk.get("linux_branch") or "R" + tk["linux"].split(".")[0]) == e["driver_branch"], minor
