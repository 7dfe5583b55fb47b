"""torchdoctor.model.versions: the one version parser."""

import pytest

from torchdoctor.model import versions as V

ODD = [None, "", "garbage", "x.y.z", True, [], {}, "  "]


@pytest.mark.parametrize("odd", ODD)
def test_odd_input_never_raises(odd):
    assert V.parse(odd) is None and V.release(odd) == () and V.minor(odd) is None
    assert V.patch(odd) is None and V.base(odd) is None and V.at_least(odd, "1.0") is None


def test_parts():
    assert V.release("2.13.0+cpu") == (2, 13, 0)
    assert V.minor("2.13.0+cpu") == "2.13" and V.minor_tuple("12.4") == (12, 4)
    assert V.patch("2.13.0+cpu") == "2.13.0" and V.patch("2.13") is None
    assert V.base("2.3.0a0+git1234") == "2.3.0" and V.local_tag("2.3.0a0+git1234") == "git1234"
    assert V.local_tag("2.14.1+cu130") == "cu130" and V.local_tag("2.14.1") is None
    assert V.parse(12.4).release == (12, 4)


def test_comparisons_ignore_local_tags_and_pad():
    assert V.at_least("2.3.0a0", "2.3") is True
    assert V.at_least("550.54.15", "525.60.13") is True
    assert V.at_least("12.4", "12.4.1") is False
    assert V.older("2.1.2+cu121", "2.2") is True and V.older("2.2", "2.2.0") is False


@pytest.mark.parametrize("spec,low", [
    (">=0.2.0", ("0.2.0", True)), ("~=2.2.1", ("2.2.1", True)), ("==2.5.*", ("2.5", True)),
    ("<3,>=2.1", ("2.1", True)), (">1.0,>=1.5", ("1.5", True)), (">1.0", ("1.0", False)),
    (">=1.0,>1.0", ("1.0", False)), ("<3", None), ("!=2.0", None), ("garbage", None), ("", None),
])
def test_lower_bound_is_the_largest_and_says_whether_it_is_admitted(spec, low):
    got = V.lower_bound(spec)
    assert ((str(got[0]), got[1]) if got is not None else None) == low
