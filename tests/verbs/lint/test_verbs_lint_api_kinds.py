"""What kind of value a torch API is (verbs/lint/api_kinds.py, data/api_kinds.json): the data
is what tools/lint_api_kinds.py asks of the installed torch, the hand-listed context-manager
classes really change nothing until entered, and the checks read it right."""

import sys
import warnings

import pytest

from conftest import load_tool
from torchdoctor.verbs.lint import api_kinds as K
from torchdoctor.verbs.lint import backends_names as B

torch = pytest.importorskip("torch")


def _tool():
    return load_tool("lint_api_kinds")


def test_the_committed_data_is_what_the_installed_torch_says():
    if torch.__version__ != K._data()["_meta"]["torch"]:
        pytest.skip("the data was asked of torch %s" % K._data()["_meta"]["torch"])
    assert _tool().main(["--check"]) == 0, "run: .venv/bin/python tools/lint_api_kinds.py"


def test_every_setting_with_a_type_is_a_setting_of_the_scan():
    paths = list(K._data()["settings"])
    assert len(paths) > 15
    for path in paths:
        parent = path.rpartition(".")[0]
        assert B.kind(path) == "setting" or (B.kind(parent) == "setting" and path.endswith(".fp32_precision")), path


def _state():
    return (torch.is_grad_enabled(), torch.is_inference_mode_enabled(), torch.is_autocast_enabled("cpu"),
            torch.is_anomaly_enabled())


# what each call needs on a machine without a GPU
_ARGS = {"torch.autocast": ("cpu",), "torch.amp.autocast": ("cpu",), "torch.cuda.device": (0,), "torch.cuda.stream": (None,)}


@pytest.mark.parametrize("path", sorted(p for p, k in K._data()["context_managers"].items() if k == "object"))
def test_a_listed_call_changes_nothing_until_entered(path):
    mod, _, name = path.rpartition(".")
    cls = getattr(sys.modules[mod] if mod in sys.modules else __import__(mod, fromlist=[name]), name)
    before = _state()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch.cuda.amp.autocast warns that it is deprecated
        obj = cls(*_ARGS.get(path, ()))
    assert _state() == before, path
    assert hasattr(obj, "__enter__")


@pytest.mark.parametrize("path", sorted(p for p, k in K._data()["context_managers"].items() if k == "generator"))
def test_a_listed_function_is_a_generator_context_manager(path):
    obj, attr = _tool()._resolve(path)
    assert _tool()._is_generator_cm(getattr(obj, attr)), path


def test_wrong_values():
    assert "bool" in K.wrong_value("torch.backends.cudnn.benchmark", "yes")
    assert "bool" in K.wrong_value("torch.backends.cudnn.benchmark", 1)
    assert "None" in K.wrong_value("torch.backends.cudnn.enabled", None)
    assert K.wrong_value("torch.backends.cudnn.benchmark", False) is None
    assert K.wrong_value("torch.backends.cudnn.benchmark", ...) is None
    assert "string" in K.wrong_value("torch.backends.cuda.matmul.fp32_precision", True)
    assert "'high'" in K.wrong_value("torch.backends.cuda.matmul.fp32_precision", "high")
    assert K.wrong_value("torch.backends.cuda.matmul.fp32_precision", "bf16") is not None   # cuda refuses it
    assert K.wrong_value("torch.backends.mkldnn.fp32_precision", "bf16") is None
    assert K.wrong_value("torch.backends.cuda.matmul.fp32_precision", "bfx9") is None   # 2.15 accepts it
    assert K.wrong_value("torch.cuda.whatever", "x") is None


def test_a_refused_value_really_raises_in_the_installed_torch():
    """What TD107 reports is what torch does: each kind of wrong value raises, nothing is set."""
    before = torch.backends.cudnn.benchmark
    for value in ("yes", 1, None):
        with pytest.raises((RuntimeError, TypeError)):
            torch.backends.cudnn.benchmark = value
    assert torch.backends.cudnn.benchmark == before
    for value in (True, "high", "bf16"):
        with pytest.raises((RuntimeError, TypeError)):
            torch.backends.cuda.matmul.fp32_precision = value


def test_default_changes():
    assert K.default_changes("torch.backends.cuda.matmul.allow_tf32") == [("1.7", True), ("1.12", False)]
    assert K.default_changes("torch.backends.cudnn.benchmark") == []


def test_aliases_are_one_object_in_the_installed_torch():
    assert K.aliases("torch.amp.autocast") == ["torch.autocast"]
    assert torch.amp.autocast is torch.autocast
    assert K.aliases("torch.backends.cudnn.benchmark") == []
