"""spconv 2.0 moved 1.x's top-level API to spconv.pytorch and dropped its voxel generator: 1.x
code on a spconv-cuXXX wheel fails. The hook reads which spconv wheels are installed."""

import subprocess

import pytest

from hook_facts import facts, failing_in_venv, tailored_as, top
from torchdoctor.match.matcher import HIGH

SPCONV = "spconv2-moved-v1-api"
V1_ATTR = "AttributeError: module 'spconv' has no attribute 'SparseConv3d'"
V1_UTILS = ("ImportError: cannot import name 'VoxelGeneratorV2' from 'spconv.utils' "
            "(/home/u/venv/lib/python3.8/site-packages/spconv/utils/__init__.py)")
V2_ON_V1 = "ModuleNotFoundError: No module named 'spconv.pytorch'"
# 1.x code in miniature (OpenPCDet's backbones): the module classes at spconv's top level
V1_CODE = ("import spconv\nimport torch\nconv = spconv.SubMConv3d(4, 8, 3, indice_key='s')\n"
           "x = spconv.SparseConvTensor(torch.ones(2, 4), torch.tensor([[0, 0, 0, 0], [0, 1, 1, 1]], "
           "dtype=torch.int32), [4, 4, 4], 1)\nprint(type(conv).__name__, tuple(x.dense().shape))")


@pytest.mark.parametrize("text", [V1_ATTR, V1_UTILS,
                                  "AttributeError: module 'spconv' has no attribute 'SparseModule'",
                                  "ImportError: cannot import name 'VoxelGenerator' from 'spconv.utils'"])
def test_spconv_1_code_on_spconv_2_is_ported_or_pinned(text):
    m, t = tailored_as(SPCONV, text, facts(packages={"spconv-cu113": {"version": "2.1.21"}}))
    assert m.confidence == HIGH
    assert "`import spconv.pytorch as spconv`" in t.summary and "1.2.1" in t.summary
    assert t.notes == ["installed: spconv-cu113 2.1.21"]


def test_with_spconv_1_installed_another_spconv_was_imported():
    _, t = tailored_as(SPCONV, V1_ATTR, facts(packages={"spconv": {"version": "1.2.1"}}))
    assert "shadows" in t.summary and "import spconv as m" in t.commands[0]


def test_two_spconv_wheels_are_both_removed_first():
    _, t = tailored_as(SPCONV, V1_ATTR, facts(packages={"spconv": {"version": "2.3.6"},
                                                        "spconv-cu118": {"version": "2.3.6"}}))
    assert t.commands == ["/home/u/venv/bin/python -m pip uninstall -y spconv spconv-cu118"]


@pytest.mark.parametrize("installed,says", [({"spconv": {"version": "1.2.1"}}, "install the spconv-cuXXX wheel"),
                                            ({"spconv-cu120": {"version": "2.3.6"}}, "shadows")])
def test_spconv_2_code_on_spconv_1(installed, says):
    m, t = tailored_as(SPCONV, V2_ON_V1, facts(packages=installed))
    assert m.confidence == HIGH and says in t.summary


@pytest.mark.parametrize("text", [
    "AttributeError: module 'spconv' has no attribute '__version__'",  # spconv and cumm out of step
    "AttributeError: module 'spconv.pytorch' has no attribute 'SparseModule'",
    "AttributeError: partially initialized module 'spconv' has no attribute 'SparseConv3d' (most likely due to a "
    "circular import)",
])
def test_other_spconv_errors_are_not_the_v2_move(text):
    m = top(text)
    assert m is None or m.id != SPCONV


@pytest.mark.slow
def test_spconv_1_code_fails_on_a_real_spconv_2_and_the_printed_import_heals_it(tmp_path):
    py, t = failing_in_venv(tmp_path, ["torch==2.13.0", "spconv==2.3.6"], V1_CODE, SPCONV)
    assert "change `import spconv` to `import spconv.pytorch as spconv`" in t.summary
    healed = subprocess.run([py, "-c", V1_CODE.replace("import spconv\n", "import spconv.pytorch as spconv\n")],
                            capture_output=True, text=True, timeout=300)
    assert healed.returncode == 0, healed.stderr[-600:]
    assert healed.stdout.strip() == "SubMConv3d (1, 4, 4, 4, 4)"


@pytest.mark.parametrize("text", [
    "ImportError: cannot import name 'SparseConv3d' from 'spconv' (/home/u/venv/lib/python3.8/site-packages/spconv/"
    "__init__.py)",
    "ModuleNotFoundError: No module named 'spconv.conv'",
])
def test_more_spconv_1_paths_on_spconv_2(text):
    m, t = tailored_as(SPCONV, text, facts(packages={"spconv-cu118": {"version": "2.3.6"}}))
    assert "`import spconv.pytorch as spconv`" in t.summary
