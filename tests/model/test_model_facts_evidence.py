"""A check's evidence: the short facts it read, as 'path: value' lines."""

from conftest import make_facts


def test_evidence_lists_what_was_read_and_leaves_out_empty_texts():
    facts = make_facts(torch={"version": "2.13.0+cpu"}, probe={"stderr_tail": ""}, os={"system": "Linux"})
    facts.start_recording()
    facts.value("torch.version")
    facts.value("probe.stderr_tail")  # an empty text shows nothing: no "probe.stderr_tail: " line
    facts.value("os.system")
    facts.value("torch.version")  # once
    assert facts.stop_recording() == ["torch.version: 2.13.0+cpu", "os.system: Linux"]


def test_an_unreadable_package_version_is_installed_but_has_no_release():
    # the probe writes "unknown" for metadata without a Version field; a hook must neither pin nor
    # compare that (package_release), yet the package is there and says so (package_version)
    from torchdoctor.model import derived as F
    facts = make_facts(packages={"installed": {"a": {"version": "unknown"}, "b": {"version": "1.2"}}})
    assert [F.package_installed(facts, n) for n in "abc"] == [True, True, False]
    assert [F.package_version(facts, n) for n in "abc"] == ["unknown", "1.2", None]
    assert [F.package_release(facts, n) for n in "abc"] == [None, "1.2", None]
