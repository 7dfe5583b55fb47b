"""torchdoctor.model.records against dataclasses: the same classes declared both ways behave alike
(construction, defaults, fresh default factories, repr, eq, hash, fields, replace, asdict)."""

import dataclasses
import subprocess
import sys
from typing import ClassVar, Dict, List, Optional

import pytest
from hypothesis import given, strategies as st

from torchdoctor.model import records


def both(body):
    """The class `body` declares, once as a dataclass and once as a record."""
    out = []
    for deco, fld in ((dataclasses.dataclass, dataclasses.field), (records.record, records.field)):
        ns = {"field": fld, "List": List, "Dict": Dict, "Optional": Optional, "ClassVar": ClassVar}
        exec("class Thing:\n" + body, ns)  # noqa: S102 - test code
        out.append(deco(ns["Thing"]))
    return out


BODY = ("    '''doc'''\n    a: str\n    b: int = 3\n    c: List[str] = field(default_factory=list)\n"
        "    d: Dict[str, str] = field(default_factory=dict)\n    e: Optional[str] = None\n"
        "    raw: Dict[str, int] = field(default_factory=dict, repr=False)\n    kind: ClassVar[str] = 'x'\n")
values = st.one_of(st.none(), st.integers(), st.text(max_size=5), st.lists(st.integers(), max_size=3))


@given(a=values, b=values, c=st.lists(st.text(max_size=3), max_size=3), e=values)
def test_a_record_behaves_as_the_dataclass(a, b, c, e):
    DC, R = both(BODY)
    x, y = DC(a, b, c=c, e=e), R(a, b, c=c, e=e)
    assert repr(x).replace("DC", "") == repr(y)
    assert [f.name for f in dataclasses.fields(x)] == [f.name for f in records.fields(y)] == \
        ["a", "b", "c", "d", "e", "raw"]
    assert dataclasses.asdict(x) == records.asdict(y)
    assert (R(a, b, c=c, e=e) == y) is (DC(a, b, c=c, e=e) == x) is True
    assert (R("other") == y) is (DC("other") == x)
    assert records.replace(y, b=7).b == dataclasses.replace(x, b=7).b == 7
    assert records.replace(y, b=7).c == c and records.replace(y, b=7) is not y


def test_defaults_factories_hash_and_class_attributes():
    DC, R = both(BODY)
    for C in (DC, R):
        one, two = C("x"), C("x")
        assert one.c is not two.c and one.d is not two.d  # a fresh factory value each time
        assert one.b == 3 and one.e is None and C.b == 3 and C.kind == "x"
        assert C.__hash__ is None
        with pytest.raises(TypeError):
            C()
        assert C.__match_args__ == ("a", "b", "c", "d", "e", "raw")
    assert "raw" not in repr(R("x")) and "raw" not in repr(DC("x"))
    with pytest.raises(TypeError):
        records.replace(R("x"), nosuch=1)
    assert records.is_record(R("x")) and records.is_record(R) and not records.is_record(DC("x"))


def test_eq_false_keeps_identity_and_the_declaration_errors_are_the_dataclass_ones():
    DC, R = both("    a: int = 0\n")
    assert R(1) == R(1) and DC(1) == DC(1)
    (R2,) = [records.record(eq=False)(type("T", (), {"__annotations__": {"a": int}}))]
    assert R2(1) != R2(1) and hash(R2(1)) is not None
    with pytest.raises(ValueError):
        records.record(type("M", (), {"__annotations__": {"a": list}, "a": []}))
    with pytest.raises(TypeError):
        records.record(type("O", (), {"__annotations__": {"a": int, "b": int}, "a": 1}))


def test_nested_records_convert_like_nested_dataclasses():
    DI, RI = both("    n: int = 1\n")
    DO, RO = both("    inner: object = None\n    items: list = field(default_factory=list)\n")
    d = DO(DI(2), [DI(3), {"k": DI(4)}, (DI(5),)])
    r = RO(RI(2), [RI(3), {"k": RI(4)}, (RI(5),)])
    assert dataclasses.asdict(d) == records.asdict(r) == {"inner": {"n": 2},
                                                         "items": [{"n": 3}, {"k": {"n": 4}}, ({"n": 5},)]}


def test_the_package_no_longer_imports_dataclasses_or_inspect_for_explain():
    code = ("import sys\nfrom torchdoctor.cli import explain_fast\n"
            "import torchdoctor.diagnose, torchdoctor.gather.light, torchdoctor.areas.registry, "
            "torchdoctor.render.text, torchdoctor.gather.interpreter, torchdoctor.gather.system\n"
            "print(sorted(m for m in ('dataclasses', 'inspect', 'click') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stderr
