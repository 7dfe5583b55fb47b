"""Environment variables: the value this machine has for the variable a message names decides
whether to unset it here or look where the failing process was started."""

from torchdoctor.diagnose import explain_match
from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts


def facts(env, cores=None):
    data = {"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": {"system": "Linux"},
            "packages": {"installed": {}}, "env": env}
    if cores:
        data["cpu"] = {"logical_cores": cores}
    return Facts(data)


def explain(text, f):
    m = match_text(text)[0]
    e = explain_match(m, f)
    assert e.hook_error is None, e.hook_error
    return m.id, e


def test_an_invalid_openmp_value_set_here_is_unset_here():
    mid, e = explain("libgomp: Invalid value for environment variable OMP_NUM_THREADS", facts({"OMP_NUM_THREADS": "0"}))
    assert mid == "env-var-misconfigured"
    assert "OMP_NUM_THREADS is set to '0'" in e.fix.summary and e.fix.commands == ["unset OMP_NUM_THREADS"]


def test_a_variable_not_set_here_was_set_where_the_process_started():
    _, e = explain("RuntimeError: The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or DETAIL.", facts({}))
    assert "not set in this environment" in e.fix.summary


def test_torchruns_thread_notice_is_sized_to_this_machine():
    text = "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded"
    mid, e = explain(text, facts({}, cores=32))
    assert mid == "torchrun-omp-num-threads-default" and "32 usable CPU cores" in e.fix.summary
