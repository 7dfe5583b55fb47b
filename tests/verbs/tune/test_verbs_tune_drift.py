"""The drift metric: how far a setting's outputs (or gradients) are from the strict baseline.

A model with BatchNorm has gradients that are mathematically zero (the bias of a conv before a
BatchNorm: the normalisation removes any constant it adds) and come out of the arithmetic as
rounding noise, 1e-6 here and 1e-6 there; a relative error per tensor divides that noise by
itself. The metric is the normwise relative error over the whole set of tensors,
||got - want|| / ||want||, which numerical analysts use for exactly this (Higham, Accuracy and
Stability of Numerical Algorithms, 1.2): a tiny or zero tensor adds its absolute difference to
a set whose scale is the scale of the whole. Unit cases on the worker's function (the test
process imports torch), and a real CPU tune run of such a model.
"""

import json
import math
import textwrap

import pytest

from conftest import needs_torch
from tune_run import Run

pytestmark = needs_torch

BN_MODEL = '''
import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1, bias=True)    # bias before BatchNorm: gradient 0
        self.bn = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 8, 3, padding=1, bias=True)
        self.bn2 = nn.BatchNorm2d(8)
        self.head = nn.Linear(8, 4)
        self.unused = nn.Parameter(torch.ones(4))              # times zero: gradient exactly 0
        self.tiny = nn.Parameter(torch.ones(4))                # times 1e-7: a tiny gradient

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        y = torch.relu(self.bn2(self.conv2(y)))
        return self.head(y.mean((2, 3))) + 0.0 * self.unused + 1e-7 * self.tiny

def make():
    return Net()

def inputs():
    return torch.randn(4, 3, 16, 16, generator=torch.Generator().manual_seed(1))
'''


@pytest.fixture(scope="module")
def torch():
    import torch as t
    return t


def drift(torch, got, want):
    from torchdoctor.verbs.tune.worker.compare import drift as d
    return d(torch, got, want)


def test_a_zero_gradient_with_rounding_noise_is_not_a_large_drift(torch):
    g = torch.Generator().manual_seed(0)
    big = torch.randn(8, 3, 3, 3, generator=g)
    want = [big, torch.full((8,), 1.5e-6)]            # the conv bias: zero, up to rounding
    got = [big * (1 + 1e-7), torch.full((8,), 2.7e-6)]
    d = drift(torch, got, want)
    assert d["rel"] < 1e-5, d                         # per tensor it was 1.2e-6 / 1.5e-6 = 0.8
    assert d["max_abs"] == pytest.approx(1.2e-6, rel=1e-3)


def test_the_metric_is_normwise_over_the_whole_set(torch):
    want = [torch.tensor([3.0, 0.0]), torch.tensor([4.0])]
    got = [torch.tensor([3.0, 0.5]), torch.tensor([4.0])]
    assert drift(torch, got, want)["rel"] == pytest.approx(0.5 / 5.0)
    # scale-free: the same relative change of a tiny set is the same drift
    tiny = [t * 1e-9 for t in want]
    assert drift(torch, [t * 1e-9 for t in got], tiny)["rel"] == pytest.approx(0.1)


def test_zeros_nans_and_shapes(torch):
    z = [torch.zeros(3), torch.zeros(2)]
    assert drift(torch, z, z)["rel"] == 0.0
    assert math.isinf(drift(torch, [torch.zeros(3), torch.tensor([0.0, 1e-30])], z)["rel"])  # from nothing
    nan = torch.tensor([1.0, float("nan"), 2.0])
    assert drift(torch, [nan.clone()], [nan])["rel"] == 0.0        # NaN where the baseline has NaN: equal
    assert math.isinf(drift(torch, [torch.tensor([1.0, 5.0, 2.0])], [nan])["rel"])
    assert math.isinf(drift(torch, [torch.tensor([1.0, float("inf")])], [torch.tensor([1.0, 2.0])])["rel"])
    assert drift(torch, [torch.zeros(2)], [torch.zeros(3)]) is None
    assert drift(torch, [torch.tensor([1, 2])], [torch.tensor([1, 3])])["rel"] == pytest.approx(1 / 10 ** 0.5)
    h = torch.tensor([1.0, 2.0], dtype=torch.float16)
    assert drift(torch, [h], [h.float()])["rel"] == 0.0


@pytest.fixture(scope="module")
def bn_run(tmp_path_factory):
    d = tmp_path_factory.mktemp("bn")
    (d / "bnmodels.py").write_text(textwrap.dedent(BN_MODEL))
    p = Run(["--model", "bnmodels:make", "--inputs", "bnmodels:inputs", "--budget", "25", "--json"], d).wait()
    assert p.returncode in (0, 1), p.stderr
    return json.loads(p.stdout)


def test_a_batchnorm_model_drifts_by_rounding_only(bn_run):
    w = bn_run["workloads"][0]
    checked = [s for s in w["settings"] if s.get("drift")]
    # oneDNN off and channels_last run other convolution kernels; threads change the reduction order
    assert {s["id"] for s in checked} >= {"default", "mkldnn.enabled=False", "channels_last"}, \
        [(s["id"], s["status"]) for s in w["settings"]]
    for s in checked:
        d = s["drift"]
        assert isinstance(d["rel"], float) and d["rel"] < 1e-4, (s["id"], d)
        assert d["within_tolerance"] is True, (s["id"], d)
    assert not [f for f in bn_run["findings"] if f["id"] == "tune-default-drift"]
    rec = w["recommendations"]
    texts = " ".join(rec["speed_notes"] + [i["text"] for i in rec["reproducibility"]])
    assert "more than the tolerance" not in texts
    assert "e+00" not in texts and "e-01" not in texts, texts
