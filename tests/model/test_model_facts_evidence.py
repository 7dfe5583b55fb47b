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
