"""The compile preflight's checks on the facts its child writes (the shapes below are what
gather/compile_child.py wrote on this machine for each failure; tests/gather/
test_gather_compile_preflight_slow.py produces them for real)."""

import copy

from torchdoctor.areas.checks import run_checks
from torchdoctor.model.facts import Facts

IDS = ["compile-preflight", "compile-timings"]
GPP = {"name": "g++", "source": "default", "path": "/usr/bin/g++", "works": True, "returncode": 0,
       "version": "g++ (Debian 12.2.0-14) 12.2.0"}
FOLDER = {"path": "/tmp/torchinductor_me", "source": "default", "exists": True, "checked": "/tmp/torchinductor_me",
          "writable": True, "mode": "0o755", "free_bytes": 50 << 30,
          "mount": {"mount_point": "/", "fstype": "ext4", "network": False, "noexec": False, "read_only": False}}
HEALTHY = {
    "compilers": {"cxx_env": {"_absent": "CXX is not set"}, "path_entries": 6, "cxx": GPP,
                  "cxx_on_path": ["/usr/bin/g++"], "cxx_elsewhere": []},
    "headers": {"include_dir": "/usr/include/python3.11", "python_h": True, "pythonhome": {"_absent": "unset"},
                "executable": "/venv/bin/python", "version": "3.11", "installed_by": "distribution"},
    "caches": {"tmp": dict(FOLDER, path="/tmp", checked="/tmp"), "inductor": FOLDER,
               "triton": dict(FOLDER, path="/home/me/.triton/cache", exists=False, checked="/home/me")},
    "torch": {"import_s": 2.1, "version": "2.13.0+cpu", "dynamo_supported": True, "cuda_available": False,
              "mps_available": False, "triton": {"_absent": "not installed"}},
    "devices": {"cpu": {"device": "cpu", "cold_s": 31.2, "max_abs_diff": 3.8e-6, "matches_eager": True,
                        "call_s": 0.0007, "warm_s": 0.41, "ok": True}},
    "run": {"completed": True, "last_stage": "done"},
}


def _failed(message, type_="InductorError"):
    return {"device": "cpu", "ok": False, "step": "compile",
            "error": {"type": type_, "chain": [{"type": "torch._inductor.exc." + type_, "message": message}]}}


def _facts(compile_section, distro="Debian GNU/Linux 12"):
    return Facts.from_dict({"schema_version": 1, "os": {"system": "Linux", "distro": distro},
                            "python": {"executable": "/venv/bin/python", "version": "3.11.7"},
                            "compile": compile_section})


def _run(section, **kw):
    return [f for f in run_checks(_facts(section, **kw), only=IDS)]


def _errors(section, **kw):
    return [f for f in _run(section, **kw) if f.check == "compile-preflight"]


def test_a_healthy_preflight_reports_its_timings_and_nothing_else():
    out = _run(HEALTHY)
    assert [f.check for f in out] == ["compile-timings"]
    assert out[0].severity == "info"
    assert "first compile 31.2 s" in out[0].detail and "warm cache 0.4 s" in out[0].detail


def test_without_the_compile_section_both_checks_stay_quiet():
    assert run_checks(Facts.from_dict({"schema_version": 1}), only=IDS) == []


def test_cxx_naming_a_missing_file_is_named_and_unset_is_the_fix():
    c = copy.deepcopy(HEALTHY)
    c["compilers"]["cxx"] = {"name": "/nonexistent/g++", "source": "CXX", "exists": False,
                             "path": {"_absent": "not found"}}
    c["devices"]["cpu"] = _failed("InvalidCxxCompiler: No working C++ compiler found in "
                                  "torch._inductor.config.cpp.cxx: (None, '/nonexistent/g++')")
    [f] = _errors(c)
    assert f.severity == "error"
    assert "CXX=/nonexistent/g++ names a file that does not exist" in f.title
    assert f.fix.commands[:2] == ["unset CXX", "export CXX=/usr/bin/g++"]


def test_no_compiler_on_path_but_one_in_a_usual_folder_puts_that_folder_on_path():
    c = copy.deepcopy(HEALTHY)
    c["compilers"].update(cxx={"name": "g++", "source": "default", "path": {"_absent": "not found on PATH"}},
                          cxx_on_path=[], cxx_elsewhere=["/usr/bin/g++", "/usr/bin/c++"], path_entries=1)
    c["devices"]["cpu"] = _failed("InvalidCxxCompiler: No working C++ compiler found in "
                                  "torch._inductor.config.cpp.cxx: (None, 'g++')")
    [f] = _errors(c)
    assert "`g++` is not on PATH" in f.title
    assert f.fix.commands[0] == 'export PATH=/usr/bin:"$PATH"'


def test_no_compiler_anywhere_installs_the_distributions_package():
    c = copy.deepcopy(HEALTHY)
    c["compilers"].update(cxx={"name": "g++", "source": "default", "path": {"_absent": "not found on PATH"}},
                          cxx_on_path=[], cxx_elsewhere=[])
    c["devices"]["cpu"] = _failed("InvalidCxxCompiler: No working C++ compiler found")
    assert _errors(c)[0].fix.commands[0] == "sudo apt-get install -y g++"
    assert _errors(c, distro="Fedora Linux 40")[0].fix.commands[0] == "sudo dnf install -y gcc-c++"


def test_a_compiler_that_does_not_run_is_named_with_what_it_said():
    c = copy.deepcopy(HEALTHY)
    c["compilers"]["cxx"] = dict(GPP, works=False, returncode=1, version="g++: fatal error: no input files?")
    c["devices"]["cpu"] = _failed("InvalidCxxCompiler: No working C++ compiler found")
    [f] = _errors(c)
    assert "`/usr/bin/g++ --version` fails" in f.title


def test_missing_python_h_under_pythonhome_unsets_it_first():
    c = copy.deepcopy(HEALTHY)
    c["headers"].update(include_dir="/srv/pyhome/include/python3.11", python_h=False, pythonhome="/srv/pyhome",
                        build_include_dir="/usr/include/python3.11", build_python_h=True)
    c["devices"]["cpu"] = _failed("CppCompileError: C++ compile error\n/tmp/x.cpp:1:10: fatal error: Python.h: "
                                  "No such file or directory\ncompilation terminated.")
    [f] = _errors(c)
    assert "Python.h is missing (/srv/pyhome/include/python3.11)" in f.title
    assert f.fix.commands == ["unset PYTHONHOME", "sudo apt-get install -y python3.11-dev"]


def test_missing_python_h_without_a_failure_is_a_warning_with_the_dev_package():
    c = copy.deepcopy(HEALTHY)
    c["headers"].update(python_h=False)
    out = _run(c)
    [f] = [f for f in out if f.check == "compile-preflight"]
    assert f.severity == "warning" and f.fix.commands == ["sudo apt-get install -y python3.11-dev"]
    assert [f.check for f in out if f.check == "compile-timings"]  # the compile itself worked


def test_a_cache_folder_that_cannot_be_created_names_the_file_in_the_way():
    c = copy.deepcopy(HEALTHY)
    c["caches"]["inductor"] = dict(FOLDER, path="/home/me/notes.txt/cache", source="TORCHINDUCTOR_CACHE_DIR",
                                   exists=False, blocked_by="/home/me/notes.txt", checked="/home/me")
    [f] = _errors(c)
    assert "cannot be created: /home/me/notes.txt is a file" in f.title
    assert f.fix.commands == ['mkdir -p "$HOME/.cache/torchinductor"',
                              'export TORCHINDUCTOR_CACHE_DIR="$HOME/.cache/torchinductor"']


def test_unwritable_noexec_and_full_cache_folders():
    for change, words, severity in ((dict(writable=False, mode="0o555"), "is not writable by this user", "error"),
                                    (dict(mount=dict(FOLDER["mount"], noexec=True, mount_point="/tmp")),
                                     "noexec mount (/tmp)", "error"),
                                    (dict(free_bytes=100 << 20), "is nearly full", "warning")):
        c = copy.deepcopy(HEALTHY)
        c["caches"]["inductor"] = dict(FOLDER, **change)
        [f] = _errors(c)
        assert words in f.title and f.severity == severity


def test_triton_cache_counts_only_where_triton_compiles():
    c = copy.deepcopy(HEALTHY)
    c["caches"]["triton"] = dict(FOLDER, writable=False)
    assert _errors(c) == []
    c["torch"]["cuda_available"] = True
    assert "not writable" in _errors(c)[0].title


def test_a_known_error_comes_from_the_knowledge_base():
    c = copy.deepcopy(HEALTHY)
    c["devices"]["cuda"] = dict(_failed("RuntimeError: Cannot find a working triton installation. Either the "
                                        "package is not installed or it is too old."), device="cuda")
    [f] = _errors(c)
    assert f.category.startswith("triton") and f.title.startswith("torch.compile failed on cuda at compile")


def test_an_unknown_failure_keeps_the_last_lines_of_the_compilers_output():
    c = copy.deepcopy(HEALTHY)
    lines = ["line %d of the compiler" % i for i in range(40)]
    c["devices"]["cpu"] = _failed("CppCompileError: C++ compile error\n" + "\n".join(lines), "CppCompileError")
    [f] = _errors(c)
    assert "line 39 of the compiler" in f.detail and "line 28 of the compiler" in f.detail
    assert "line 27 of the compiler" not in f.detail


def test_a_wrong_result_is_its_own_finding():
    c = copy.deepcopy(HEALTHY)
    c["devices"]["cpu"] = dict(HEALTHY["devices"]["cpu"], ok=False, matches_eager=False, max_abs_diff=0.5,
                               step=None)
    [f] = _errors(c)
    assert "different result from eager" in f.title


def test_dynamo_refusing_this_python():
    c = copy.deepcopy(HEALTHY)
    c["torch"]["dynamo_supported"] = False
    del c["devices"]
    [f] = _errors(c)
    assert "not supported by torch 2.13.0+cpu on Python 3.11" in f.title


def test_the_cpu_compilers_python_h_error_is_known_and_tailored_to_this_python():
    from torchdoctor.diagnose import explain
    text = ("torch._inductor.exc.InductorError: CppCompileError: C++ compile error\n\nOutput:\n"
            "/tmp/torchinductor_me/ab/cab.main.cpp:55:10: fatal error: Python.h: No such file or directory\n"
            "compilation terminated.")
    exps, _ = explain(text, facts=_facts(HEALTHY))
    assert exps[0].id == "inductor-python-headers-missing"
    assert "sudo apt-get install -y python3.11-dev" in exps[0].finding.fix.commands
