"""Building C++/CUDA extensions: setuptools against the torch that imports pkg_resources, the
host compiler for this OS, ninja installed but not on PATH."""

from torchdoctor.match.matcher import match_text
from torchdoctor.model.facts import Facts

from hook_facts import explain

PKG = ("  File \"/x/site-packages/torch/utils/cpp_extension.py\", line 28, in <module>\n"
       "    from pkg_resources import packaging  # type: ignore[attr-defined]\n"
       "ImportError: cannot import name 'packaging' from 'pkg_resources'")
CL = ("C:\\env\\lib\\site-packages\\torch\\utils\\cpp_extension.py:346: UserWarning: Error checking compiler version "
      "for cl: [WinError 2] 系统找不到指定的文件。")
NINJA = "RuntimeError: Ninja is required to load C++ extensions"


def facts(system="Linux", **pkgs):
    return Facts({"python": {"version": "3.10.12", "executable": "/opt/env/bin/python"}, "os": {"system": system},
                  "packages": {"installed": {n: {"version": v} for n, v in pkgs.items()}}})


def test_old_torch_with_new_setuptools_pins_setuptools():
    e = explain(PKG, "cpp-extension-setuptools-pkg-resources", facts(torch="2.1.2", setuptools="70.0.0"))
    assert e.fix.commands == ['/opt/env/bin/python -m pip install "setuptools<70"']


def test_a_torch_that_no_longer_imports_pkg_resources_points_elsewhere():
    e = explain(PKG, "cpp-extension-setuptools-pkg-resources", facts(torch="2.5.1", setuptools="75.1.0"))
    assert "another, older torch" in e.fix.summary


def test_pkg_resources_errors_of_other_programs_are_not_claimed():
    assert match_text("ImportError: cannot import name 'packaging' from 'pkg_resources'") == []


def test_a_localised_winerror_2_for_cl_is_the_msvc_toolchain():
    e = explain(CL, "cpp-extension-compiler-not-found", facts("Windows"))
    assert "x64 Native Tools" in e.fix.summary and e.fix.commands == ["where cl"]


def test_a_missing_gcc_of_another_build_is_not_claimed():
    text = "error: command 'gcc' failed: No such file or directory"
    assert "cpp-extension-compiler-not-found" not in [m.id for m in match_text(text)]


def test_ninja_installed_but_not_on_path():
    e = explain(NINJA, "cpp-extension-ninja-missing", facts(ninja="1.11.1.1"))
    assert "not on the PATH" in e.fix.summary
    e = explain(NINJA, "cpp-extension-ninja-missing", facts())
    assert e.fix.commands[0] == "/opt/env/bin/python -m pip install ninja"


def test_nvdiffrasts_msvc_search_is_windows_advice_wherever_it_is_read():
    # nvdiffrast raises this only on Windows: a report read on a Linux machine still gets MSVC's fix,
    # and the dynamic loader's "Could not locate <dll>" reading does not claim it.
    text = "RuntimeError: Could not locate a supported Microsoft Visual C++ installation"
    e = explain(text, "cpp-extension-compiler-not-found", facts("Linux"))
    assert "x64 Native Tools" in e.fix.summary and "build-essential" not in " ".join(e.fix.commands)
    top = match_text(text)[0]
    assert top.id == "cpp-extension-compiler-not-found" and top.confidence == "high"
