"""Where `import torch` spent its time: -X importtime lines parsed into a tree and split by who
spent it, then for real: a planted slow package that torch imports (torch imports opt_einsum
whenever it is installed) is named with its share of the import."""

import sys
import textwrap

from torchdoctor.areas.checks import run_checks
from torchdoctor.gather.import_time import attribute, parse

LINES = textwrap.dedent("""\
    import time: self [us] | cumulative | imported package
    import time:       100 |        100 |   _io
    import time:       200 |        300 | io
    import time:      1000 |       1000 |       torch._C
    import time:      3000 |       3000 |         sympy.core
    import time:       500 |       3500 |       sympy
    import time:      2000 |       2000 |       opt_einsum
    import time:        50 |         50 |       tqdm
    import time:       400 |       6950 |     torch.backends
    import time:      1000 |       7950 |   torch
    """).splitlines()


def test_the_tree_has_children_under_their_parents():
    roots = parse(LINES)
    assert [r.name for r in roots] == ["io", "torch"]
    torch = roots[1]
    assert [c.name for c in torch.children] == ["torch.backends"]
    assert [c.name for c in torch.children[0].children] == ["torch._C", "sympy", "opt_einsum", "tqdm"]
    assert torch.children[0].children[1].children[0].name == "sympy.core"


def test_the_time_is_split_into_torch_its_dependencies_and_optional_packages(tmp_path):
    info = tmp_path / "torch-2.13.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Name: torch\nRequires-Dist: sympy>=1.13.3\n"
                                   "Requires-Dist: opt-einsum>=3.3; extra == \"opt-einsum\"\n\nREADME\n")
    packages = {"installed": {"torch": {"location": str(tmp_path)}}}
    imp = {"duration_s": 0.008, "loaded": {"sympy": "site", "opt_einsum": "site", "torch": "site"}}
    a = attribute(LINES, imp, packages)
    parts = {p["name"]: p for p in a["parts"]}
    assert abs(parts["torch"]["s"] - 0.0024) < 1e-3 and parts["torch"]["c_extension_s"] == 0.001
    assert parts["sympy"]["kind"] == "dependency" and parts["sympy"]["wanted_by"] == "torch"
    assert parts["opt_einsum"]["kind"] == "optional"  # an extra: imported only because it is there
    assert parts["tqdm"]["kind"] == "not-found"  # looked for and not there
    assert a["attributed_share"] >= 0.9


def test_a_planted_slow_package_is_named_with_its_share(tmp_path, monkeypatch):
    from torchdoctor.areas import import_time as check_module
    from torchdoctor.verbs.check import check
    planted = tmp_path / "planted" / "opt_einsum"
    planted.mkdir(parents=True)
    (planted / "__init__.py").write_text("import time\ntime.sleep(2.0)\n__version__ = '3.4.0'\n")
    monkeypatch.setenv("PYTHONPATH", str(planted.parent))
    # A real slow import takes 5 s or more; the planted package adds 2 s to a warm one.
    monkeypatch.setattr(check_module, "SLOW_S", 1.0)
    report = check(sys.executable, 120.0, only=["slow-torch-import"])
    a = report.facts.value("torch_import.attribution")
    [f] = [f for f in report.findings if f.check == "slow-torch-import"]
    parts = {p["name"]: p for p in a["parts"]}
    assert parts["opt_einsum"]["kind"] == "optional"
    assert 2.0 <= parts["opt_einsum"]["s"] < 3.0
    share = parts["opt_einsum"]["s"] / a["wall_s"]
    line = next(ln for ln in f.detail.splitlines() if ln.startswith("opt_einsum:"))
    assert "(%.0f%%), optional, imported because it is installed" % (100 * share) in line
    assert a["attributed_share"] >= 0.9, a
    assert any(c.endswith("-m pip uninstall opt_einsum") for c in f.fix.commands)


def test_a_fast_import_says_nothing():
    from torchdoctor.model.facts import Facts
    facts = Facts.from_dict({"schema_version": 1, "torch_import": {"attribution": {
        "wall_s": 2.0, "attributed_share": 0.98, "parts": [{"name": "torch", "kind": "own", "s": 1.9}]}},
        "cuda": {"first_call_s": 0.01}})
    assert run_checks(facts, only=["slow-torch-import"]) == []


def test_a_slow_first_cuda_call_suggests_persistence_mode():
    from torchdoctor.model.facts import Facts
    facts = Facts.from_dict({"schema_version": 1, "cuda": {"first_call_s": 9.5}})
    [f] = run_checks(facts, only=["slow-torch-import"])
    assert "9.5 s" in f.title and "sudo nvidia-smi -pm 1" in f.fix.commands
