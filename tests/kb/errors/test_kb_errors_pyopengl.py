"""PyOpenGL without its platform's library (headless rendering with pyrender, dm_control, MuJoCo):
the message, the platform the environment names and the machine's GPU decide which library and
which PYOPENGL_PLATFORM to print."""

import subprocess

import pytest

from hook_facts import facts, tailored_as
from torchdoctor.match.matcher import HIGH

GL = "pyopengl-gl-library-not-loadable"
NONE_GL = "AttributeError: 'NoneType' object has no attribute 'glGetError'"
NO_OSMESA = ("ImportError: ('Unable to load OpenGL library', 'OSMesa: cannot open shared object file: No such file or "
             "directory', 'OSMesa', None)")


def test_the_environment_names_the_platform():
    m, t = tailored_as(GL, NONE_GL, facts(env={"PYOPENGL_PLATFORM": "osmesa"}))
    assert m.confidence == HIGH and "OSMesa" in t.summary and "the environment sets PYOPENGL_PLATFORM=osmesa" in t.summary
    assert t.commands == ["sudo apt-get install -y libosmesa6", "export PYOPENGL_PLATFORM=osmesa MUJOCO_GL=osmesa"]
    _, t = tailored_as(GL, NONE_GL, facts(env={"MUJOCO_GL": "egl"}))
    assert t.commands[0] == "sudo apt-get install -y libegl1 libgl1"


def test_without_a_platform_named_the_gpu_decides():
    _, t = tailored_as(GL, NONE_GL, facts())
    assert "OSMesa" in t.summary and "no GPU here" in t.summary
    _, t = tailored_as(GL, NONE_GL, facts(driver={"present": True, "gpus": [{"name": "NVIDIA A100-SXM4-80GB"}]}))
    assert "EGL" in t.summary and "NVIDIA GPU" in t.summary and "libegl1" in t.commands[0]


def test_where_the_choice_came_from_is_said_and_arch_gets_its_own_packages():
    _, t = tailored_as(GL, NONE_GL, facts(env={"MUJOCO_GL": "egl"}))
    assert "the environment sets MUJOCO_GL=egl" in t.summary
    _, t = tailored_as(GL, NONE_GL, facts(env={"PYOPENGL_PLATFORM": "osmesa"}, os={"system": "Linux",
                                                                                    "distro": "Arch Linux"}))
    assert t.commands[0] == "sudo pacman -S --needed mesa"


def test_glx_without_libgl_keeps_glx():
    _, t = tailored_as(GL, "ImportError: ('Unable to load OpenGL library', 'GL: cannot open shared object file: No "
                       "such file or directory', 'GL', None)", facts())
    assert "GLX" in t.summary and t.commands == ["sudo apt-get install -y libgl1"]
    m, _ = tailored_as(GL, "ImportError: Unable to load OpenGL or GL library", facts())
    assert m.confidence == HIGH


def test_the_message_names_osmesa_and_conda_gets_mesalib():
    _, t = tailored_as(GL, NO_OSMESA, facts(python={"conda": True}))
    assert "the message names OSMesa" in t.summary and t.commands[0] == "conda install -y -c conda-forge mesalib"


def test_egl_loaded_first_is_told_to_name_osmesa_earlier():
    _, t = tailored_as(GL, "AttributeError: 'EGLPlatform' object has no attribute 'OSMesa'", facts())
    assert "before anything imports OpenGL" in t.summary and t.commands[0].startswith("export PYOPENGL_PLATFORM=osmesa")


@pytest.mark.slow
def test_a_real_pyopengl_without_osmesa_prints_the_message_read_here(tmp_path):
    from wheelkit import pip_venv

    py = pip_venv(tmp_path / "venv")
    if subprocess.run([py, "-m", "pip", "install", "-q", "PyOpenGL"], capture_output=True, timeout=600).returncode:
        pytest.skip("pip could not install PyOpenGL here")
    probe = subprocess.run([py, "-c", "import ctypes.util; print(ctypes.util.find_library('OSMesa'))"],
                           capture_output=True, text=True, timeout=120)
    if probe.stdout.strip() != "None":
        pytest.skip("this machine has OSMesa")
    failed = subprocess.run([py, "-c", "import OpenGL.GL"], capture_output=True, text=True, timeout=120,
                            env={"PYOPENGL_PLATFORM": "osmesa", "PATH": "/usr/bin:/bin"})
    assert failed.returncode != 0
    m, t = tailored_as(GL, failed.stderr, facts(env={"PYOPENGL_PLATFORM": "osmesa"}))
    assert m.confidence == HIGH and "libosmesa6" in t.commands[0]
