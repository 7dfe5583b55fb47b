"""CUPTI failing to start: a CUPTI directory on LD_LIBRARY_PATH and a container decide the advice."""

from torchdoctor.model.facts import Facts

from hook_facts import explain as explain_as

TEXT = ("WARNING:2024-02-02 09:53:39 166:166 init.cpp:156] CUPTI initialization failed - CUDA profiler activities "
        "will be missing")


def explain(env, container=None):
    os_ = {"system": "Linux"}
    if container:
        os_["container"] = container
    f = Facts({"python": {"version": "3.11.7", "executable": "/opt/env/bin/python"}, "os": os_,
               "packages": {"installed": {"torch": {"version": "2.5.1+cu124"}}}, "env": env})
    return explain_as(TEXT, "cupti-init-failed", f)


def test_a_cupti_directory_on_the_library_path_is_dropped():
    e = explain({"LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64"})
    assert "names a CUPTI directory" in e.fix.summary
    assert e.fix.commands[0].startswith("env -u LD_LIBRARY_PATH")


def test_a_container_needs_sys_admin_too():
    e = explain({}, container="docker")
    assert "--cap-add SYS_ADMIN" in e.fix.summary


def test_nothing_known_keeps_the_generic_fix():
    e = explain({})
    assert "NVreg_RestrictProfilingToAdminUsers=0" in e.fix.summary
