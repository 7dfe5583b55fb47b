"""Tests for torchdoctor.kb.compat and kb/data/compat.json.

Expected values are the facts of ../shared/reference (beside the checkout) (PyPI metadata, RELEASE.md,
NVIDIA driver tables, torch's own DEVICE_REQUIREMENT rules), written out literally so a
wrong edit of the JSON or the accessors makes a test fail.
"""

import json
import os
import re
import time

import pytest

from conftest import REFERENCE
from torchdoctor.model import versions as V
from torchdoctor.kb import compat as c
from torchdoctor.kb.compat import tables

DATA = tables.DATA_PATH
ODD = [None, "", "garbage", "x.y.z", "1.2.3.4.5-", True, [], {}, "  "]


@pytest.fixture(scope="module")
def raw():
    with open(DATA, encoding="utf-8") as f:
        return json.load(f)


# -- the data file itself ---------------------------------------------------------------------
def _keys(src):
    return src.split("+")


def test_json_is_valid_and_covers_1_8_to_2_15(raw):
    expected = ["1.8", "1.9", "1.10", "1.11", "1.12", "1.13"] + ["2.%d" % i for i in range(16)]
    assert sorted(raw["releases"], key=lambda m: tuple(map(int, m.split(".")))) == expected
    assert c.known_releases() == expected


def test_every_source_key_is_defined(raw):
    sources = raw["_meta"]["sources"]
    assert all(isinstance(v, str) and len(v) > 20 for v in sources.values())
    used = set()

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k == "source":
                    for s in (v.values() if isinstance(v, dict) else [v]):
                        used.update(_keys(s))
                else:
                    walk(v)
        elif isinstance(node, list):
            for x in node:
                walk(x)

    walk({k: v for k, v in raw.items() if k != "_meta"})
    walk({k: v for k, v in raw["_meta"].items() if k not in ("sources", "conventions")})
    assert used and used <= set(sources), used - set(sources)
    assert set(sources) <= used, "unused source keys: %s" % (set(sources) - used)


def test_every_release_has_sources_for_its_facts(raw):
    for minor, r in raw["releases"].items():
        src = r["source"]
        for field in ("python", "torchaudio", "cuda", "numpy2", "install"):
            assert src.get(field), (minor, field)
        if r["torchvision"]:
            assert src.get("torchvision"), minor
        if "default_cuda" not in r["unverified"]:
            assert src.get("default_cuda"), minor
        for field in ("cudnn", "triton", "nccl"):
            if r.get(field):
                assert src.get(field), (minor, field)
        assert set(r["cuda_experimental"]) <= set(r["cuda"]), minor
        assert r["patches"] and all(p.startswith(minor + ".") for p in r["patches"]), minor


def test_every_variant_toolkit_arch_family_and_backend_has_a_source(raw):
    for name, v in raw["variants"].items():
        assert v["source"] and c.source(v["source"]), name
        assert c.cuda_of_variant(name) == v["cuda"]
    for section in ("toolkits", "gpu_families", "backends"):
        for key, e in raw[section].items():
            assert e["source"] and c.source(e["source"]), (section, key)
    for minor, variants in raw["arch"].items():
        for variant, e in variants.items():
            assert isinstance(e["verified"], bool) and c.source(e["source"]), (minor, variant)
            assert all(re.fullmatch(r"(sm|compute)_\d+", a) for a in e["x86_64"])
    for mvc in raw["mvc"].values():
        assert c.source(mvc["source"])


def test_every_variant_offered_by_a_release_is_described(raw):
    offered = set()
    for r in raw["releases"].values():
        offered.update(r["cuda"])
        for vs in r.get("cuda_by_patch", {}).values():
            offered.update(vs)
    assert offered <= set(raw["variants"])


def test_no_unverified_text_in_plain_values(raw):
    # Unverified facts must be left out or flagged, never written into a plain value.
    for minor, r in raw["releases"].items():
        for field in ("python", "torchvision", "torchaudio", "cuda", "default_cuda", "cudnn", "rocm"):
            assert "unverified" not in json.dumps(r.get(field)), (minor, field)
    for path, e in raw["backends"].items():
        assert "unverified" not in json.dumps(e), path


def test_loading_is_fast():
    best = None
    for _ in range(5):
        tables.data.cache_clear()
        t0 = time.perf_counter()
        tables.data()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    assert best < 0.005


# -- releases and Python ------------------------------------------------------------------------
def test_release_minor_and_latest():
    assert V.minor("2.13.0+cpu") == "2.13"
    assert V.minor("1.13.1+cu117") == "1.13"
    assert V.minor("2.5.0a0+git1234") == "2.5"
    assert c.release("2.14.1")["default_cuda"] == "cu130"
    assert c.release("2.4.1+cu121")["patches"] == ["2.4.0", "2.4.1"]
    assert c.release("3.0.0") is None
    assert c.latest_release() == "2.15"


def test_release_returns_a_copy():
    c.release("2.14")["python"].append("9.9")
    assert "9.9" not in c.supported_pythons("2.14")


def test_supported_pythons():
    assert c.supported_pythons("2.15.0") == ["3.11", "3.12", "3.13", "3.14", "3.15"]
    assert c.supported_pythons("2.14.1") == ["3.10", "3.11", "3.12", "3.13", "3.14"]  # no cp315
    assert c.supported_pythons("2.5.1") == ["3.9", "3.10", "3.11", "3.12", "3.13"]  # no cp38
    assert c.supported_pythons("1.13.1")[-1] == "3.11"  # cp311 wheels on PyPI
    assert "3.12" not in c.supported_pythons("2.1.2")


def test_python_supported():
    assert c.python_supported("2.15.0", "3.10") is False
    assert c.python_supported("2.14.1", "3.10.12") is True
    assert c.python_supported("2.13.0", "3.15") is False
    assert c.python_supported("2.6.0", "3.13t") is True
    assert c.python_supported("2.4.1", "3.13") is False
    assert c.python_supported("9.9", "3.10") is None
    assert c.python_supported("2.4.1", "three") is None


def test_newest_torch_for_python():
    assert c.newest_torch_for_python("3.10") == "2.14"
    assert c.newest_torch_for_python("3.15") == "2.15"
    assert c.newest_torch_for_python("3.8.10") == "2.4"
    assert c.newest_torch_for_python("3.6") == "1.10"
    assert c.newest_torch_for_python("2.7") is None


# -- torchvision / torchaudio ------------------------------------------------------------------
def test_matching_torchvision():
    assert c.matching_torchvision("2.14.1") == "0.29.1"
    assert c.matching_torchvision("2.14.0+cu126") == "0.29.0"
    assert c.matching_torchvision("2.13.0") == "0.28.0"
    assert c.matching_torchvision("2.0.0") == "0.15.1"  # pip; conda used 0.15.0
    assert c.matching_torchvision("2.13") == "0.28"  # only the minor given: the series
    assert c.matching_torchvision("1.10.2") == "0.11"  # 0.11.3 pairing unverified
    assert c.matching_torchvision("2.1.0") == "0.16"  # 2.1.0/2.1.1 pairing unverified
    assert c.matching_torchvision("2.15.0") is None  # no torchvision 0.30 yet


def test_matching_torchaudio():
    assert c.matching_torchaudio("2.10.0") == "2.10.0"
    assert c.matching_torchaudio("2.0.0") == "2.0.1"
    assert c.matching_torchaudio("1.8.1") == "0.8.1"
    assert c.matching_torchaudio("2.11.0") == "2.11.0"
    # no torchaudio 2.12+: the stable-ABI 2.11 line is what installs
    assert c.matching_torchaudio("2.12.1") == "2.11.1"
    assert c.matching_torchaudio("2.14.1+cu130") == "2.11.1"
    assert c.matching_torchaudio("2.15.0") == "2.11.1"


def test_torchvision_compatible():
    assert c.torchvision_compatible("2.14.1", "0.29.1") is True
    assert c.torchvision_compatible("2.14.0", "0.29.1") is True  # 0.29.1 declares torch>=2.14.0
    assert c.torchvision_compatible("2.14.1", "0.29.0") is False  # 0.29.0 pins torch==2.14.0
    assert c.torchvision_compatible("2.13.0", "0.29.2") is False
    assert c.torchvision_compatible("2.15.0", "0.29.2") is True  # declared range
    assert c.torchvision_compatible("2.4.1+cu121", "0.19.1+cu121") is True
    assert c.torchvision_compatible("2.4.1", "0.20.1") is False
    assert c.torchvision_compatible("2.4.0", "0.19.1") is False
    assert c.torchvision_compatible("2.0.0", "0.15.0") is True  # conda pair
    assert c.torchvision_compatible("2.4.1", "0.18.7") is False  # unknown, but wrong series
    assert c.torchvision_compatible("1.10.2", "0.11.3") is None  # unverified pairing
    assert c.torchvision_compatible("2.14.1", "0.30.0") is None  # future stable-ABI release
    assert c.torchvision_compatible("garbage", "0.29.1") is None
    assert c.torchvision_compatible("2.14.1", "garbage") is None


def test_torchaudio_compatible():
    assert c.torchaudio_compatible("2.14.1", "2.11.1") is True
    assert c.torchaudio_compatible("2.11.0", "2.11.0") is True
    assert c.torchaudio_compatible("2.12.0", "2.11.0") is True
    assert c.torchaudio_compatible("2.10.0", "2.11.1") is False
    assert c.torchaudio_compatible("2.13.0", "2.10.0") is False
    assert c.torchaudio_compatible("2.0.0", "2.0.1") is True
    assert c.torchaudio_compatible("2.0.1", "2.0.1") is False
    assert c.torchaudio_compatible("2.9.1", "2.9.0") is False


def test_torch_for_torchvision():
    assert c.torch_for_torchvision("0.28.0") == "2.13.0"
    assert c.torch_for_torchvision("0.29.1") == "2.14.1"
    assert c.torch_for_torchvision("0.19.1+cu121") == "2.4.1"
    assert c.torch_for_torchvision("0.15.0") == "2.0.0"
    assert c.torch_for_torchvision("0.29.2") == ">=2.14.0"
    assert c.torch_for_torchvision("0.28") == "2.13"
    assert c.torch_for_torchvision("0.99.0") is None


# -- CUDA variants and drivers -----------------------------------------------------------------
def test_cuda_variants_and_default():
    assert c.cuda_variants("2.14.1") == ["cu126", "cu130", "cu132"]
    assert c.cuda_variants("2.4.1") == ["cu118", "cu121", "cu124"]
    assert c.cuda_variants("1.8.1") == ["cu101", "cu102", "cu111"]
    assert c.cuda_variants("1.8.0") == ["cu102", "cu111"]
    assert c.cuda_variants("2.15.0") == ["cu132"]  # others unverified
    assert c.default_cuda("2.14.1") == "cu130"
    assert c.default_cuda("2.15.0") == "cu132"
    assert c.default_cuda("2.7.1") == "cu126"
    assert c.default_cuda("1.13.1") == "cu117"
    assert c.default_cuda("1.11.0") == "cu102"
    assert c.default_cuda("1.9.0") is None  # assumed cu102, not confirmed


def test_variant_names():
    assert c.variant_for_cuda("13.0") == "cu130"
    assert c.variant_for_cuda("12.1") == "cu121"
    assert c.variant_for_cuda("11.8") == "cu118"
    assert c.variant_for_cuda("12.4.1") == "cu124"
    assert c.cuda_of_variant("cu130") == "13.0"
    assert c.cuda_of_variant("cu118") == "11.8"
    assert c.cuda_of_variant("cpu") is None


def test_variant_info():
    info = c.variant_info("cu130")
    assert info["toolkit"] == "13.0.0"
    assert info["linux"] == {"full": "580.65.06", "mvc": "580.65.06"}
    assert info["windows"]["full"] is None  # NVIDIA lists no Windows minimum for 13.x
    assert info["experimental_in"] == ["2.9", "2.10"]
    assert info["releases"] == ["2.9", "2.10", "2.11", "2.12", "2.13", "2.14"]
    cu128 = c.variant_info("cu128")
    assert cu128["linux"]["full"] == "570.124.06" and cu128["windows"]["full"] == "572.61"
    assert cu128["linux"]["mvc"] == "525.60.13"
    assert c.variant_info("cu132")["linux"]["full"] is None  # R595, exact value unknown
    assert c.variant_info("cu132")["experimental_in"] == ["2.12", "2.13"]
    assert c.variant_info("cu102")["linux"]["mvc"] == "440.33"  # no MVC before CUDA 11
    assert "1.8" in c.variant_info("cu101")["releases"]
    assert c.source(info["source"])


def test_min_driver():
    assert c.min_driver("13.0")["full"] == "580.65.06"
    assert c.min_driver("13.0")["mvc"] == "580.65.06"
    assert c.min_driver("12.1")["mvc"] == "525.60.13"
    assert c.min_driver("12.2")["full"] == "535.54.03"
    assert c.min_driver("12.2.2")["full"] == "535.104.05"
    assert c.min_driver("12.4.131")["full"] == "550.54.14"  # cudart build number -> GA
    assert c.min_driver("11.8", "windows") == {
        "cuda": "11.8", "toolkit": "11.8.0", "full": "520.06", "mvc": "452.39",
        "source": "NV_RN_13_1+NV_RN_13_4U1+NV_MVC_PAGE"}
    win12 = c.min_driver("12.6", "windows")
    assert win12["mvc"] == "527.41" and win12["mvc_verified"] is False and win12["mvc_alt"] == "528.33"
    assert c.min_driver("13.2")["full"] is None and c.min_driver("13.2")["full_branch"] == "R595"
    assert c.min_driver("10.2")["full"] == c.min_driver("10.2")["mvc"] == "440.33"
    assert c.min_driver("13.0", "windows") is None  # not published
    assert c.min_driver("13.0", "macos") is None
    assert c.min_driver("8.0") is None
    assert "NV_RN_13_1" in c.min_driver("12.2")["source"]


def test_driver_supports_cuda():
    assert c.driver_supports_cuda("535.104.05", "12.2") is True
    assert c.driver_supports_cuda("535.104.05", "13.0") is False
    assert c.driver_supports_cuda("535.104.05", "12.8") is True  # minor-version compatibility
    assert c.driver_supports_cuda("525.60.13", "12.9") is True
    assert c.driver_supports_cuda("520.61.05", "12.1") is False
    assert c.driver_supports_cuda("470.57.02", "11.8") is True  # 11.x MVC floor 450.80.02
    assert c.driver_supports_cuda("440.33", "11.0") is False
    assert c.driver_supports_cuda("580.65.06", "13.2") is True  # 13.x MVC
    assert c.driver_supports_cuda("418.39", "10.2") is False  # no MVC before 11
    assert c.driver_supports_cuda("551.78", "12.4", "windows") is True
    assert c.driver_supports_cuda("528.0", "12.4", "windows") is None  # 527.41 vs 528.33
    assert c.driver_supports_cuda("529.0", "12.4", "windows") is True
    assert c.driver_supports_cuda("500.0", "12.4", "windows") is False
    assert c.driver_supports_cuda("581.0", "13.0", "windows") is None


def test_max_cuda_for_driver():
    assert c.max_cuda_for_driver("535.104.05") == "12.2"
    assert c.max_cuda_for_driver("535.54.03") == "12.2"
    assert c.max_cuda_for_driver("535.54.02") == "12.1"
    assert c.max_cuda_for_driver("580.65.06") == "13.0"
    assert c.max_cuda_for_driver("590.44.01") == "13.1"
    assert c.max_cuda_for_driver("600.10") == "13.2"  # past R595, before R610
    assert c.max_cuda_for_driver("595.20") is None  # inside R595: exact minimum unknown
    assert c.max_cuda_for_driver("572.61", "windows") == "12.8"
    assert c.max_cuda_for_driver("590.0", "windows") is None  # 13.x Windows minimum unknown
    assert c.max_cuda_for_driver("300.0") is None


def test_newest_variant_for_driver():
    # cu124 wants 550.54.15 for full features, but its 12.x MVC floor (525.60.13) is met
    assert c.newest_variant_for_driver("2.4.1", "535.104.05") == "cu124"
    assert c.newest_variant_for_driver("2.14.1", "535.104.05") == "cu126"
    assert c.newest_variant_for_driver("2.14.1", "580.65.06") == "cu132"
    assert c.newest_variant_for_driver("2.4.1", "520.61.05") == "cu118"
    assert c.newest_variant_for_driver("2.4.1", "460.0") == "cu118"
    assert c.newest_variant_for_driver("2.4.1", "440.0") is None
    assert c.newest_variant_for_driver("2.14.1", "600.0", "windows") == "cu126"  # 13.x skipped
    assert c.newest_variant_for_driver("1.8.0", "441.22", "windows") == "cu102"


# -- GPU architectures -------------------------------------------------------------------------
def test_arch_list():
    assert c.arch_list("2.14.1", "cu130") == ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert c.arch_list("2.14", "cu126") == ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
    assert c.arch_list("2.9.1", "cu130")[-1] == "compute_120"
    assert c.arch_list("2.8.0", "cu128") == ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    assert c.arch_list("2.5.1", "cu124")[-1] == "compute_90"
    assert c.arch_list("2.13.0", "cpu") == []
    assert c.arch_list("2.1.2", "cu121") is None  # inferred mapping: unverified
    assert c.arch_list("2.15.0", "cu132") is None
    assert c.arch_info("2.1.2", "cu121")["verified"] is False
    assert c.arch_info("2.14", "cu130")["ptx_unverified"] == ["compute_120"]
    assert "sm_110" in c.arch_info("2.14", "cu130")["aarch64"]


def test_cc_supported_by():
    cu130 = c.arch_list("2.14.1", "cu130")
    cu126 = c.arch_list("2.14.1", "cu126")
    assert c.cc_supported_by(cu130, (6, 1)) is False  # Pascal: not in CUDA 13 builds
    assert c.cc_supported_by(cu126, (6, 1)) is True  # sm_60 cubin runs on 6.1
    assert c.cc_supported_by(cu126, (6, 2)) is False  # Jetson TX2 exception
    assert c.cc_supported_by(["sm_86"], (8, 9)) is True  # SASS forward within a major
    assert c.cc_supported_by(["sm_86"], (8, 0)) is False
    assert c.cc_supported_by(["sm_80", "sm_86"], (8, 7)) is False  # Orin needs sm_87
    assert c.cc_supported_by(["sm_87"], (8, 9)) is False  # Jetson code runs only on Jetson
    assert c.cc_supported_by(["sm_72"], (7, 5)) is False
    assert c.cc_supported_by(["sm_90"], (10, 0)) is False  # no cross-major SASS
    assert c.cc_supported_by(["sm_90", "compute_90"], (10, 0)) is True  # PTX JIT
    assert c.cc_supported_by(["compute_120"], (12, 1)) is True
    assert c.cc_supported_by(cu130, (12, 1)) is True  # GB10 runs sm_120
    assert c.cc_supported_by(cu130, (13, 0)) is False
    assert c.cc_supported_by(c.arch_list("2.9", "cu130"), (13, 0)) is True  # compute_120
    assert c.cc_supported_by(["sm_100"], (10, 3)) is True
    assert c.cc_supported_by(["sm_100"], (10, 1)) is False
    assert c.cc_supported_by(["sm_110"], (10, 1)) is True  # 10.1 was renamed 11.0
    assert c.cc_supported_by(["sm_90a"], (9, 0)) is True
    assert c.cc_supported_by("sm_75 sm_80", "8.6") is True
    assert c.cc_supported_by(None, (8, 0)) is False
    assert c.cc_supported_by(["sm_80"], "garbage") is False


def test_variants_and_newest_release_supporting_cc():
    assert c.variants_supporting_cc("2.14.1", (6, 1)) == ["cu126"]
    assert c.variants_supporting_cc("2.14.1", (12, 0)) == ["cu130", "cu132"]
    assert c.variants_supporting_cc("2.8.0", (7, 0)) == ["cu126", "cu128", "cu129"]
    assert c.variants_supporting_cc("2.11.0", (7, 0)) == ["cu126"]
    assert c.variants_supporting_cc("2.14", (3, 7)) == []
    # DEVICE_REQUIREMENT drops the 8.7 exception for CUDA >= 13.2 (Jetson/SBSA unification)
    assert c.variants_supporting_cc("2.14", (8, 7)) == ["cu132"]
    assert c.newest_release_supporting_cc((6, 1)) == ("2.14", "cu126")
    assert c.newest_release_supporting_cc((9, 0)) == ("2.14", "cu132")
    assert c.newest_release_supporting_cc((3, 7)) == ("2.5", "cu118")
    assert c.newest_release_supporting_cc((13, 0)) == ("2.10", "cu130")  # last verified PTX
    assert c.newest_release_supporting_cc((2, 0)) is None


def test_gpu_family():
    assert c.gpu_family((9, 0)) == "Hopper (H100/H200)"
    assert c.gpu_family((8, 9)).startswith("Ada Lovelace")
    assert c.gpu_family("6.1").startswith("Pascal")
    assert c.gpu_family([12, 0]).startswith("Blackwell")
    assert c.gpu_family((8, 7)) == "Jetson Orin"
    assert c.gpu_family((4, 2)) is None


# -- other pins ----------------------------------------------------------------------------------
def test_numpy2_supported():
    assert c.numpy2_supported("2.2.2") is False
    assert c.numpy2_supported("2.3.0") is True
    assert c.numpy2_supported("2.3.1", "windows") is False
    assert c.numpy2_supported("2.4.0", "windows") is False
    assert c.numpy2_supported("2.4.1", "win32") is True
    assert c.numpy2_supported("2.4", "windows") is None  # depends on the patch
    assert c.numpy2_supported("2.3.0", "darwin") is True
    assert c.numpy2_supported("1.13.1", "linux") is False
    assert c.numpy2_supported("2.5.0", "plan9") is None


def test_triton_requirement():
    assert c.triton_requirement("2.12.1") == "==3.7.1"
    assert c.triton_requirement("2.13.0") == "==3.7.1"
    assert c.triton_requirement("2.14.1+cu130") == "~=3.8.0"
    assert c.triton_requirement("2.15.0") == "~=3.9.0"
    assert c.triton_requirement("2.0.1") == "==2.0.0"
    assert c.triton_requirement("2.13.0+cpu") is None  # CPU wheels do not depend on triton
    assert c.triton_requirement("2.9.0") is None  # only 2.9.1 metadata was read
    assert c.triton_requirement("1.13.1") is None


def test_cudnn():
    assert c.expected_cudnn("2.8.0", "cu128") == "9.10.2.21"
    assert c.expected_cudnn_int("2.8.0", "cu128") == 91002
    assert c.expected_cudnn_int("2.14.1", "cu130") == 92400
    assert c.expected_cudnn_int("2.14.1", "cu126") == 91002  # stays < 9.11 for SM < 7.5
    assert c.expected_cudnn_int("2.1.2", "cu121") == 8902
    assert c.expected_cudnn_int("2.4.1", "cu124") == 90100
    assert c.expected_cudnn("2.4.1+cu118") == "9.1.0.70"  # variant from the local tag
    assert c.expected_cudnn("2.15.0") == "9.26.0.51"  # PyPI default cu132
    assert c.expected_cudnn("2.11.0", "cu130") is None  # RELEASE.md and PyPI disagree
    assert c.expected_cudnn("1.12.1", "cu102") is None
    assert c.cudnn_int_to_version(91002) == "9.10.2"
    assert c.cudnn_int_to_version(8902) == "8.9.2"
    assert c.cudnn_int_to_version(90100) == "9.1.0"
    assert c.cudnn_int_to_version(7605) == "7.6.5"
    assert c.cudnn_int_to_version("92400") == "9.24.0"
    for bad in (None, "", "garbage", -1, 0, True, 9.1):
        assert c.cudnn_int_to_version(bad) is None


def test_backend_api():
    sdp = c.backend_api("torch.backends.cuda.sdp_kernel")
    assert (sdp["added"], sdp["deprecated"], sdp["removed"]) == ("1.13", "2.3", None)
    assert sdp["replacement"] == "torch.nn.attention.sdpa_kernel"
    tf32 = c.backend_api("torch.backends.cuda.matmul.allow_tf32")
    assert tf32["deprecated"] == "2.9" and tf32["deprecation"] == "soft"
    assert tf32["replacement"] == "torch.backends.cuda.matmul.fp32_precision"
    assert tf32["added"] == "1.11" and tf32["added_or_earlier"] is True
    assert c.backend_api("torch.backends.fp32_precision")["added"] == "2.9"
    assert c.backend_api("torch.backends.mps")["added"] == "1.12"
    assert c.backend_api("torch.backends.set_flags")["added"] == "2.9"  # split "a / b" keys
    assert c.backend_api("torch.backends.flags_frozen")["added"] == "1.11"
    assert c.backend_api("torch.backends.cuda.cublas_workspace_size")["added"] == "2.13"
    assert set(sdp) >= {"added", "deprecated", "removed", "replacement", "note", "source"}
    assert c.backend_api("torch.backends.nope") is None


def test_source():
    assert "#138506" in c.source("CONDA_EOL")
    assert "580" in c.source("NV_MVC_PAGE") or "minor-version" in c.source("NV_MVC_PAGE").lower()
    assert c.source("PYPI+NUMPY").count("; ") >= 1
    assert c.source("NOPE") is None and c.source("PYPI+NOPE") is None


# -- install commands ---------------------------------------------------------------------------
WHL = "https://download.pytorch.org/whl"


def test_install_command_pip():
    assert c.install_command("2.14.1") == ["pip install torch==2.14.1 torchvision==0.29.1 torchaudio==2.11.*"]
    assert c.install_command("2.14.1", "cu130") == c.install_command("2.14.1")  # PyPI default
    assert c.install_command("2.14.1", "cu126") == [
        "pip install torch==2.14.1 torchvision==0.29.1 torchaudio==2.11.* --index-url %s/cu126" % WHL]
    assert c.install_command("2.4.1", "cu118") == [
        "pip install torch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1 --index-url %s/cu118" % WHL]
    assert c.install_command("2.4.1", "cu121", with_companions=False) == ["pip install torch==2.4.1"]
    assert c.install_command("2.13.0", "cpu", with_companions=False) == [
        "pip install torch==2.13.0 --index-url %s/cpu" % WHL]
    assert c.install_command("2.14") == c.install_command("2.14.1")  # latest patch
    assert c.install_command("2.15.0") == ["pip install torch==2.15.0 torchvision torchaudio==2.11.*"]


def test_install_command_old_eras_follow_previous_versions_page():
    assert c.install_command("1.12.1", "cu116") == [
        "pip install torch==1.12.1+cu116 torchvision==0.13.1+cu116 torchaudio==0.12.1 "
        "--extra-index-url %s/cu116" % WHL]
    assert c.install_command("1.10.1", "cu111") == [
        "pip install torch==1.10.1+cu111 torchvision==0.11.2+cu111 torchaudio==0.10.1 "
        "-f %s/torch_stable.html" % WHL]
    assert c.install_command("1.8.2", "cu111") == [
        "pip install torch==1.8.2 torchvision==0.9.2 torchaudio==0.8.2 --extra-index-url %s/lts/1.8/cu111" % WHL]
    assert c.install_command("1.8.2", with_companions=False) == [
        "pip install torch==1.8.2 --extra-index-url %s/lts/1.8/cu102" % WHL]  # LTS was not on PyPI
    assert c.install_command("1.8.2", os="macos") == []
    assert c.install_command("1.8.0") == ["pip install torch==1.8.0 torchvision==0.9.0 torchaudio==0.8.0"]
    assert c.install_command("2.0.1", "rocm5.4.2", with_companions=False) == [
        "pip install torch==2.0.1 --index-url %s/rocm5.4.2" % WHL]


def test_install_command_os():
    assert c.install_command("2.14.1", os="macos") == [
        "pip install torch==2.14.1 torchvision==0.29.1 torchaudio==2.11.*"]
    assert c.install_command("2.14.1", "cu130", os="darwin") == []  # no CUDA on macOS
    assert c.install_command("2.14.1", "cu130", os="windows", with_companions=False) == [
        "pip install torch==2.14.1 --index-url %s/cu130" % WHL]  # Windows PyPI wheel is CPU-only
    assert c.install_command("2.0.1", "rocm5.4.2", os="windows") == []
    assert c.install_command("1.9.0", "rocm4.2") == []  # irregular ROCm commands of that era


def test_install_command_conda():
    assert c.install_command("2.4.1", "cu121", installer="conda") == [
        "conda install pytorch==2.4.1 torchvision==0.19.1 torchaudio==2.4.1 pytorch-cuda=12.1 -c pytorch -c nvidia"]
    assert c.install_command("2.0.0", "cu118", installer="conda") == [
        "conda install pytorch==2.0.0 torchvision==0.15.0 torchaudio==2.0.0 pytorch-cuda=11.8 -c pytorch -c nvidia"]
    assert c.install_command("1.12.1", "cu116", installer="conda") == [
        "conda install pytorch==1.12.1 torchvision==0.13.1 torchaudio==0.12.1 cudatoolkit=11.6 -c pytorch -c conda-forge"]
    assert c.install_command("2.5.1", "cpu", installer="conda", with_companions=False) == [
        "conda install pytorch==2.5.1 cpuonly -c pytorch"]
    assert c.install_command("2.3.1", installer="conda", os="macos", with_companions=False) == [
        "conda install pytorch==2.3.1 -c pytorch"]
    assert c.install_command("2.6.0", "cu126", installer="conda") == []  # after 2.5: no conda
    assert c.install_command("1.8.2", "cu111", installer="conda") == []  # LTS channel


def test_install_command_unknown():
    assert c.install_command("2.14.1", "cu999") == []
    assert c.install_command("2.14.9") == []
    assert c.install_command("2.4.1", "cu126") == []
    assert c.install_command("2.4.1", installer="uv") == []
    assert c.install_command("2.4.1", os="beos") == []


# -- odd input never raises -------------------------------------------------------------------
@pytest.mark.parametrize("bad", ODD, ids=repr)
def test_odd_input_returns_none(bad):
    assert V.minor(bad) is None
    for fn in (c.release, c.supported_pythons, c.matching_torchvision, c.matching_torchaudio,
               c.default_cuda, c.triton_requirement, c.expected_cudnn, c.expected_cudnn_int,
               c.numpy2_supported, c.newest_torch_for_python, c.cuda_of_variant, c.variant_info,
               c.min_driver, c.max_cuda_for_driver, c.torch_for_torchvision, c.backend_api,
               c.gpu_family, c.source, c.newest_release_supporting_cc, c.cudnn_int_to_version):
        assert fn(bad) is None, fn.__name__
    assert c.cuda_variants(bad) == []
    assert c.install_command(bad) == []
    assert c.variants_supporting_cc(bad, (8, 0)) == []
    assert c.cc_supported_by(bad, (8, 0)) is False
    assert c.python_supported(bad, "3.11") is None
    assert c.torchvision_compatible(bad, "0.29.1") is None
    assert c.torchaudio_compatible("2.14.1", bad) is None
    assert c.driver_supports_cuda(bad, "12.1") is None
    assert c.driver_supports_cuda("535.104.05", bad) is None
    assert c.newest_variant_for_driver("2.4.1", bad) is None
    assert c.arch_list(bad, "cu126") is None
    if bad is not None:  # None means "the default variant"
        assert c.expected_cudnn("2.4.1", bad) is None
    assert c.min_driver("12.1", bad) is None


def test_bare_major_is_not_a_release():
    assert V.minor("2") is None and c.release("2") is None
    assert c.install_command("2") == [] and c.cudnn_int_to_version("2") is None


def test_variant_for_cuda_odd():
    assert c.variant_for_cuda("garbage") is None
    assert c.variant_for_cuda("") is None
    assert c.variant_for_cuda(None) is None
    assert c.variant_for_cuda("12") is None


# -- consistency with the reference it was distilled from -------------------------------------
@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout (every clone in this workplace has it; elsewhere the cross-checks cannot run)")
def test_agrees_with_reference_matrix():
    with open(os.path.join(REFERENCE, "torch_matrix.json"), encoding="utf-8") as f:
        ref = json.load(f)["releases"]
    for minor, r in ref.items():
        assert set(r["python"]) <= set(c.supported_pythons(minor)), minor
        if c.default_cuda(minor):
            assert c.default_cuda(minor) == r["default_cuda"], minor
        for variant, value in (r.get("cudnn") or {}).items():
            if re.fullmatch(r"[\d.]+", str(value)) and variant.startswith("cu") and " " not in variant:
                assert c.expected_cudnn(minor, variant) == value, (minor, variant)
        for variant, value in (r.get("cudnn_version_int") or {}).items():
            if isinstance(value, int) and " " not in variant:
                assert c.expected_cudnn_int(minor, variant) == value, (minor, variant)
        for patch, tv in r["torchvision"].items():
            unconfirmed = c.release(minor).get("torchvision_unverified", {})
            if re.fullmatch(r"[\d.]+", tv) and patch in c.release(minor)["patches"] and patch not in unconfirmed:
                assert c.matching_torchvision(patch) == tv, patch


@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout (every clone in this workplace has it; elsewhere the cross-checks cannot run)")
def test_agrees_with_reference_driver_table():
    with open(os.path.join(REFERENCE, "cuda_driver.json"), encoding="utf-8") as f:
        ref = json.load(f)["toolkit_releases"]
    for ver, e in ref.items():
        full = ver if ver.count(".") == 2 else ver + ".0"
        for osn, key in (("linux", "linux_min_driver"), ("windows", "windows_min_driver")):
            m = re.fullmatch(r">=([\d.]+)", e[key])
            got = c.min_driver(full, osn)
            assert (got and got["full"]) == (m.group(1) if m else None) or (got is None and not m), (ver, osn)


@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout (every clone in this workplace has it; elsewhere the cross-checks cannot run)")
def test_agrees_with_reference_cuda_lists_and_pypi_pins():
    with open(os.path.join(REFERENCE, "torch_matrix.json"), encoding="utf-8") as f:
        ref = json.load(f)["releases"]
    for minor, r in ref.items():
        if isinstance(r["cuda"], list):
            assert c.cuda_variants(minor) == [v.split(" ")[0] for v in r["cuda"]], minor
        for patch, ta in r["torchaudio"].items():
            if re.fullmatch(r"[\d.]+", ta) and patch not in c.release(minor).get("torchaudio_unverified", {}):
                assert c.matching_torchaudio(patch) == ta, patch
    meta_dir = os.path.join(REFERENCE, "raw", "pypi_torch_metadata")
    for name in sorted(os.listdir(meta_dir)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(meta_dir, name), encoding="utf-8") as f:
            meta = json.load(f)
        pins = [re.match(r"triton\s*\(?([=~<>!][^;)]*)", d) for d in meta["requires_dist"]]
        pins = [m.group(1).replace(" ", "") for m in pins if m]
        assert c.triton_requirement(meta["version"]) == (pins[0] if pins else None), meta["version"]


def test_runtime_rules():
    from torchdoctor.kb import compat
    floor = compat.cudnn_sm_floor()
    assert floor["cudnn_int_min"] == 91100 and floor["sm"] == (7, 5) and floor["torch_min"] == "2.10"
    assert compat.cublas_env_required("2.9.1") is True
    assert compat.cublas_env_required("2.10.0+cu128") is False
    assert compat.cublas_env_required("garbage") is None
    assert compat.cublas_deterministic_values() == (":4096:8", ":16:8")
    assert compat.mps_min_macos() == (12, 3)
    assert "expandable_segments" in compat.alloc_conf_keys()
