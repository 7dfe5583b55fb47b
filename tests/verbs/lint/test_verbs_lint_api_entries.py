"""Every deprecated or removed API of data/api_history.json, linted as written code: it fires on
the target releases where the API is deprecated (TD201) or gone (TD102), and is quiet on a
release where it is fine. The cases come from the data, so a new entry cannot skip them; the
installed torch (a real wheel) is checked against what the data says of its own release."""

import ast
import subprocess
import sys
import textwrap

import pytest

from torchdoctor.kb import compat
from torchdoctor.verbs.lint import history as H
from torchdoctor.verbs.lint import pyscan
from torchdoctor.verbs.lint.target import from_option

RELEASES = [H.mt(v) for v in compat.known_releases()]


def _lint(src, torch):
    t = from_option(torch)
    return [(f.code, f.line, f.message) for f in pyscan.analyze(ast.parse(src), src.encode(), t.versions, t.cuda)]


def _entries():
    return sorted((p, e) for p, e in H.data()["apis"].items() if e.get("deprecated") or e.get("removed"))


def _code(path):
    """A from-import of the API and a call of it: lint must see both spellings. The results are
    kept (a context manager called as a bare statement is another rule's finding)."""
    parent, leaf = path.rsplit(".", 1)
    return "from %s import %s\na = %s(1)\nimport %s\nb = %s(2)\n" % (parent, leaf, leaf, parent.split(".")[0], path)


def _before(version):
    earlier = [r for r in RELEASES if r < version]
    return earlier[-1] if earlier else None


@pytest.mark.parametrize("path,e", _entries(), ids=[p for p, _ in _entries()])
def test_each_entry_fires_where_its_api_is_deprecated_or_gone_and_not_before(path, e):
    src = _code(path)
    dep, rem, added = H.mt(e.get("deprecated")), H.mt(e.get("removed")), H.mt(e.get("added"))
    reported = 0
    if dep and (rem is None or dep < rem) and dep >= RELEASES[0]:
        found = [f for f in _lint(src, H.fmt(dep)) if path in f[2]]
        assert {f[0] for f in found} == {"TD201"}, (path, found)
        assert {f[1] for f in found} >= {1, 2, 4}, "import, call of the imported name, dotted call: %s" % found
        reported += 1
    if rem and rem >= RELEASES[0]:
        found = [f for f in _lint(src, H.fmt(rem)) if path in f[2]]
        assert found and {f[0] for f in found} == {"TD102"}, (path, found)
        reported += 1
    first = dep or rem
    quiet = _before(first) if first else None
    if quiet and not e.get("deprecated_or_earlier") and (added is None or quiet >= added):
        assert [f for f in _lint(src, H.fmt(quiet)) if path in f[2]] == [], (path, H.fmt(quiet))
    if first and first < RELEASES[0]:
        return  # gone before the oldest release the tables know: every target is past it
    assert reported, "%s: no release of the tables shows its deprecation or removal" % path


def test_or_earlier_says_so_and_fires_on_the_oldest_release():
    found = _lint("import torch\nx = torch.range(0, 3)\n", H.fmt(RELEASES[0]))
    assert [f[0] for f in found] == ["TD201"]
    assert "since torch 1.8 or earlier" in found[0][2] and "torch.arange" in found[0][2]


def test_replacement_advice_names_the_releases_that_lack_the_replacement():
    src = "from functorch import vmap\nvmap(f)(x)\nimport torch\ntorch.lu(A)\n"
    whole = dict(((c, line), m) for c, line, m in _lint(src, ">=1.11"))
    assert "its replacement torch.func.vmap exists only from torch 2.0, not in 1.11 ... 1.13 of the target: " \
        "keep functorch.vmap there" in whole[("TD201", 2)]
    assert "of the target" not in whole[("TD201", 4)]        # lu_factor is in 1.11 already
    assert "of the target" not in _lint(src, ">=2.0")[0][2]
    scaler = _lint("import torch\ns = torch.cuda.amp.GradScaler()\n", ">=1.11")[0][2]
    assert 'its replacement torch.amp.GradScaler("cuda", ...) exists only from torch 2.3, not in 1.11 ... 2.2 ' \
        'of the target: keep torch.cuda.amp.GradScaler there' in scaler, scaler   # not torch.amp's 1.12
    lu = [m for c, line, m in _lint(src, ">=1.10,<1.14") if line == 4]
    assert lu and "exists only from torch 1.11, not in 1.10 of the target: keep torch.lu there" in lu[0], lu
    assert [m for c, line, m in _lint(src, ">=1.10,<1.13") if line == 4] == []   # no warning before 1.13


def test_functorch_is_followed_only_through_its_own_names():
    assert _lint("import functorch\nfunctorch.vmap(f)\n", "1.13") == []     # no warning before 2.0
    assert [f[:2] for f in _lint("import functorch as ft\nft.grad(f)\n", "2.4")] == [("TD201", 2)]
    assert _lint("import functorchx\nfunctorchx.vmap(f)\nimport myfunctorch\n", "2.4") == []


def test_removed_in_2_14_and_only_deprecated_before():
    src = "import torch\nq, r = torch.qr(a)\nL = torch.cholesky(a)\n"
    assert {f[0] for f in _lint(src, "2.13")} == {"TD201"}
    assert [(f[0], f[1]) for f in _lint(src, "2.14")] == [("TD102", 2), ("TD102", 3)]


# The installed torch is a real release: what the data says of it must hold there.
CALLS = {
    "torch.range": "torch.range(0, 3)",
    "torch.triangular_solve": "torch.triangular_solve(torch.eye(2), torch.eye(2))",
    "torch.lu": "torch.lu(torch.eye(2))",
    "torch.qr": "torch.qr(torch.eye(2))",
    "torch.cholesky": "torch.cholesky(torch.eye(2))",
    "torch.chain_matmul": "torch.chain_matmul(torch.eye(2), torch.eye(2))",
    "torch.nn.functional.upsample": "torch.nn.functional.upsample(torch.ones(1, 1, 2), scale_factor=2)",
    "torch.nn.functional.upsample_nearest": "torch.nn.functional.upsample_nearest(torch.ones(1, 1, 2), scale_factor=2)",
    "torch.nn.functional.upsample_bilinear": "torch.nn.functional.upsample_bilinear(torch.ones(1, 1, 2, 2), scale_factor=2)",
    "torch.nn.utils.stateless.functional_call": "torch.nn.utils.stateless.functional_call(torch.nn.Linear(1, 1), {}, (torch.ones(1),))",
    "functorch.vmap": "functorch.vmap(torch.sin)(torch.ones(2))",
    "functorch.grad": "functorch.grad(lambda x: x.sum())(torch.ones(2))",
}

_PROBE = textwrap.dedent("""
    import importlib, json, sys, warnings
    import torch, torch.nn.utils.stateless, functorch
    out = {}
    for path, call in json.loads(sys.argv[1]).items():
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                eval(call)
                out[path] = "ok" if not w else "warns"
            except Exception as e:
                out[path] = "raises " + type(e).__name__
    print(json.dumps({"version": torch.__version__, "calls": out}))
""")


def test_the_installed_torch_behaves_as_the_data_says():
    pytest.importorskip("torch")
    import json
    out = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(CALLS)], capture_output=True, text=True, check=True)
    got = json.loads(out.stdout)
    here = H.mt(got["version"])
    assert here in RELEASES
    for path, result in got["calls"].items():
        e = H.history(path)
        gone = H.missing_in(path, [here])
        if gone and gone["kind"] == "removed":
            assert result.startswith("raises"), (path, result)
        elif H.deprecated_in(path, [here]):
            assert result == "warns", (path, result)
        else:
            assert result == "ok", (path, result, e)


def test_a_missing_api_is_named_by_its_youngest_part():
    found = _lint("import torch\ns = torch.amp.GradScaler('cuda')\n", ">=1.11")
    assert [(c, line) for c, line, m in found] == [("TD101", 2)]
    assert found[0][2] == "torch.amp.GradScaler does not exist in torch 1.11 ... 2.2 of the target (first in 2.3)"
    assert _lint("import torch\nwith torch.amp.autocast('cuda'):\n    pass\n", ">=1.11")[0][2] == \
        "torch.amp does not exist in torch 1.11 of the target (first in 1.12)"   # a tie: the module names it
