"""The names under torch.backends that lint checks attribute names, calls and truth tests
against: the shared reference's scan, and every public name of the installed torch."""

import importlib
import json
import os
import sys
import types

import pytest

from conftest import REFERENCE
from torchdoctor.verbs.lint import backends_names as B


def _names():
    return B._data()["names"]


@pytest.mark.skipif(not os.path.isdir(REFERENCE), reason="../shared/reference is not beside this checkout")
def test_every_scanned_name_is_listed_with_its_first_release():
    with open(os.path.join(REFERENCE, "backends_api.json"), encoding="utf-8") as f:
        scanned = json.load(f)["all_scanned"]
    listed = 0
    for path, e in scanned.items():
        if not path.startswith("torch.backends") or "<_FP32Precision>" in path:
            continue
        path = path.replace("torch.backends.cuda.<cuBLASModule>.", "torch.backends.cuda.matmul.")
        assert _names()[path][1] == e["first_seen"], path
        listed += 1
    assert listed > 130


def _public(obj):
    """The public names of a torch.backends module object, its class's too (a module that
    replaces itself with a PropModule instance keeps its flags there)."""
    names = {n for n in dir(obj) if not n.startswith("_")}
    for cls in type(obj).__mro__:
        if cls.__module__.startswith("torch.backends"):
            names |= {n for n in vars(cls) if not n.startswith("_")}
    return names


def test_no_public_name_of_the_installed_torch_is_unknown():
    """What the torch in this venv really has must never be reported as a typo (TD104)."""
    import torch  # noqa: F401 (the package whose backends are read)
    typing_names = {"Any", "Optional", "TYPE_CHECKING", "contextmanager", "deprecated", "m"}
    checked = 0
    for path, (kind, _, gone) in _names().items():
        if kind != "module" or gone or path in B._data()["unchecked"]:
            continue
        try:
            importlib.import_module(path)
        except ImportError:
            continue
        obj = sys.modules.get(path) or eval(path, {"torch": sys.modules["torch"]})
        for name in _public(obj) - typing_names:
            value = getattr(obj, name, None)
            if isinstance(value, types.ModuleType) and not value.__name__.startswith("torch.backends"):
                continue  # a module the file imported for itself (sys, torch)
            home = getattr(value, "__module__", None)
            if isinstance(value, (type, types.FunctionType)) and home and home != path and \
                    not home.startswith("torch._C") and home.startswith("torch.backends") and path != "torch.backends":
                continue  # a helper imported from torch.backends itself (nnpack's ContextProp): not its API
            assert B.unknown("%s.%s" % (path, name)) is None, "%s.%s" % (path, name)
            checked += 1
    assert checked > 100


def test_unknown_names_and_suggestions():
    assert B.unknown("torch.backends.cudnn.ver") == ("torch.backends.cudnn.ver", ["version"])
    assert B.spelled("torch.backends.cudnn", "version") == "version()"
    assert B.unknown("torch.backends.cuda.matmul.allow_fp32")[0] == "torch.backends.cuda.matmul.allow_fp32"
    assert B.unknown("torch.backends.cudnn.version") is None
    assert B.unknown("torch.backends.cuda.SDPBackend.FLASH_ATTENTION") is None   # below a class: not listed
    assert B.unknown("torch.backends.cudnn._internal") is None
    assert B.unknown("torch.backends.xeon.run_cpu.anything") is None
    assert B.unknown("torch.cuda.whatever") is None
