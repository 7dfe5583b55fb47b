"""An OpenGL extension (nvdiffrast's GL rasterizer) built without the system's EGL/GL development
files: the package that holds the header or library, read from Debian 12's file lists."""

import shutil
import subprocess

import pytest

from hook_facts import facts, tailored_as, top
from torchdoctor.match.matcher import HIGH

GL = "extension-gl-dev-files-missing"
NVDIFFRAST = ("/home/u/venv/lib/python3.10/site-packages/nvdiffrast/common/glutil.h:36:10: fatal error: %s: No such "
              "file or directory\n   36 | #include <%s>\n      |          ^~~~~~~~~~~\ncompilation terminated.")


@pytest.mark.parametrize("missing,package,command", [
    ("EGL/egl.h", "libegl-dev", "libegl1-mesa-dev"),
    ("GL/gl.h", "libgl-dev", "libgl1-mesa-dev"),
    ("GLES2/gl2.h", "libgles-dev", "libgles2-mesa-dev"),
    ("KHR/khrplatform.h", "libgl-dev", "libgl1-mesa-dev"),
    ("X11/Xlib.h", "libx11-dev", "libx11-dev"),
])
def test_each_header_names_its_package(missing, package, command):
    m, t = tailored_as(GL, NVDIFFRAST % (missing, missing))
    assert m.confidence == HIGH
    assert t.summary.startswith("%s is in Debian's and Ubuntu's %s package" % (missing, package))
    assert t.commands == ["sudo apt-get install -y %s" % command]


@pytest.mark.parametrize("lib,command", [("EGL", "libegl1-mesa-dev"), ("GL", "libgl1-mesa-dev"),
                                         ("GLESv2", "libgles2-mesa-dev"), ("X11", "libx11-dev")])
def test_the_link_library_names_its_package(lib, command):
    _, t = tailored_as(GL, "/usr/bin/ld: cannot find -l%s\ncollect2: error: ld returned 1 exit status" % lib)
    assert t.commands == ["sudo apt-get install -y %s" % command]


def test_off_linux_the_cuda_path_is_the_way():
    _, t = tailored_as(GL, NVDIFFRAST % ("EGL/egl.h", "EGL/egl.h"), facts(system="Windows"))
    assert t.commands == [] and "RasterizeCudaContext" in t.summary


@pytest.mark.parametrize("text", [
    "fatal error: EGL/egl_custom.h: No such file or directory",
    "/usr/bin/ld: cannot find -lGLEW",
    "/usr/bin/ld: cannot find -lGLU",
    "fatal error: cuda_runtime.h: No such file or directory",
])
def test_other_missing_files_are_not_the_gl_development_files(text):
    m = top(text)
    assert m is None or m.id != GL


@pytest.mark.skipif(shutil.which("gcc") is None, reason="no gcc here")
def test_gccs_own_wording_is_read(tmp_path):
    # -nostdinc hides /usr/include (one empty include folder left to search), so this machine's gcc prints what a
    # machine without the files does
    src = tmp_path / "glutil.cpp"
    src.write_text("#include <EGL/egl.h>\nint main() { return 0; }\n")
    (tmp_path / "include").mkdir()
    done = subprocess.run(["gcc", "-nostdinc", "-I", str(tmp_path / "include"), "-c", str(src), "-o",
                           str(tmp_path / "glutil.o")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode != 0
    _, t = tailored_as(GL, done.stderr)
    assert t.commands == ["sudo apt-get install -y libegl1-mesa-dev"]


def test_fedora_gets_its_own_package_name():
    _, t = tailored_as(GL, "/usr/bin/ld: cannot find -lGL", facts(os={"system": "Linux", "machine": "x86_64",
                                                                      "distro": "Rocky Linux 8.9"}))
    assert "mesa-libGL-devel" in t.commands[0] and t.commands[0].startswith("sudo dnf install")


def test_a_neighbouring_library_is_not_the_x11_one():
    m = top("/usr/bin/ld: cannot find -lX11-xcb")
    assert m is None or m.id != GL
