"""Facts are read-only: a gatherer builds the tree and constructs the Facts once, and what
adds to facts afterwards (report extras, a running program's live settings, a surface's own
section) gets a new Facts while the one it was given stays as it was."""

import copy
import json

from torchdoctor.model.facts import Facts, absent, failed


def _tree():
    return {"torch": {"version": "2.13.0+cpu", "cuda": absent("not built with it")},
            "driver": failed("nvidia-smi timed out"), "env": {"A": "1"}}


def test_with_values_leaves_the_original_as_it_was():
    f = Facts(_tree())
    before = copy.deepcopy(f.to_dict())
    g = f.with_values({"torch.runtime": {"threads": 4}, "env.B": "2", "new": [1]})
    assert f.to_dict() == before
    assert g.value("torch.runtime.threads") == 4 and g.value("torch.version") == "2.13.0+cpu"
    assert g.value("env") == {"A": "1", "B": "2"} and g.value("new") == [1]
    assert f.state("torch.runtime") == "unknown" and f.state("new") == "unknown"


def test_a_path_through_an_absent_failed_or_missing_node_gets_a_section():
    g = Facts(_tree()).with_values({"driver.gpus": [], "torch.cuda.version": "12.4", "x.y.z": 1})
    assert g.value("driver") == {"gpus": []}
    assert g.value("torch.cuda") == {"version": "12.4"}
    assert g.value("x") == {"y": {"z": 1}}


def test_key_order_is_kept_so_json_output_does_not_change():
    f = Facts({"a": 1, "torch": {"version": "2.13.0", "cuda": "12.4"}, "z": 2})
    g = f.with_values({"torch.version": "2.14.0", "a": 3, "b": 4})
    assert json.dumps(g.to_dict()) == json.dumps({"a": 3, "torch": {"version": "2.14.0", "cuda": "12.4"},
                                                  "z": 2, "schema_version": 1, "b": 4})


def test_sections_not_loaded_yet_keep_their_loaders_and_load_once_each():
    calls = []

    def driver():
        calls.append("driver")
        return {"present": True}

    f = Facts({}, loaders={"driver": driver, "env": lambda: {"PATH": "/bin"}})
    g = f.with_values({"env": {"PATH": "/usr/bin"}})
    assert g.value("driver.present") is True and calls == ["driver"]
    assert g.value("env.PATH") == "/usr/bin"  # set, not loaded over
    assert f.value("env.PATH") == "/bin"


def test_facts_offer_no_way_to_change_them_in_place():
    public = {n for n in dir(Facts) if not n.startswith("_")}
    assert not public & {"set", "update", "put", "add", "setdefault", "pop"}, public


def test_report_extras_leave_the_probed_facts_as_they_were():
    from torchdoctor.gather.extras import with_extras
    f = Facts({"cpu": {"model": "x"}, "python": {"version": "3.11"}})
    before = copy.deepcopy(f.to_dict())
    g = with_extras(f)
    assert f.to_dict() == before
    assert set(g.to_dict()) >= {"build_tools", "system_libs"} and "lscpu" in g.value("cpu")


def test_the_live_overlay_leaves_the_probed_facts_as_they_were():
    import torch  # noqa: F401 - overlay reads this process's torch only once it is imported
    from torchdoctor.gather.live import LIVE, overlay
    f = Facts({"torch_import": {"ok": True}, "torch": {"version": "2.13.0"}, "backends": {"x": 1},
               "env": {"A": "1"}})
    before = copy.deepcopy(f.to_dict())
    g = overlay(f)
    assert f.to_dict() == before
    assert g.value(LIVE) and g.value("backends") != {"x": 1} and g.value("torch.version") == "2.13.0"
