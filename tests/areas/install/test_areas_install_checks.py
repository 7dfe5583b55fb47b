"""The install area: checks that fire only on probe outcomes, on small facts."""

from conftest import make_facts

from torchdoctor.areas.checks import run_checks


def test_probe_crashed_after_the_import_names_the_stage():
    f = make_facts(probe={"completed": False, "last_stage": "cuda", "signal": "SIGSEGV", "returncode": -11,
                          "stderr_tail": "Segmentation fault", "python": "/v/bin/python"},
                   torch_import={"ok": True}, python={"executable": "/v/bin/python"}, os={"system": "Linux"})
    (x,) = run_checks(f, only=["probe-crashed"])
    assert "SIGSEGV" in x.title and "initialising CUDA" in x.detail


def test_python_without_a_torch_release_is_unsupported():
    f = make_facts(python={"version": "3.16.0", "executable": "/v/bin/python"}, torch_import={"ok": False},
                   os={"system": "Linux"})
    (x,) = run_checks(f, only=["python-unsupported"])
    assert x.severity == "error" and "3.16" in x.title
