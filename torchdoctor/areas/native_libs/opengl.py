"""PyOpenGL's platform libraries (pyrender, dm_control, MuJoCo rendering without a display): which
platform the message shows, which one the environment asks for, and the package that holds its
library on this distribution."""

from typing import Optional, Tuple

from ...advice.commands import system_install
from ...model import derived as F
from ...model.facts import Facts
from ..registry import Tailored, hook, match_groups

# platform -> (its name, what to export, the packages that hold its library: apt, dnf, pacman)
_PLATFORMS = {
    "osmesa": ("OSMesa", "PYOPENGL_PLATFORM=osmesa MUJOCO_GL=osmesa", "libosmesa6", "mesa-libOSMesa", "mesa"),
    "egl": ("EGL", "PYOPENGL_PLATFORM=egl MUJOCO_GL=egl", "libegl1 libgl1", "mesa-libEGL mesa-libGL",
            "libglvnd mesa"),
    "glx": ("GLX", "", "libgl1", "mesa-libGL", "libglvnd mesa"),
}


def _asked(text: str, lib: str, facts: Facts) -> Tuple[Optional[str], str]:
    """(the platform the message or the environment names, or None; where that came from)."""
    if "'EGLPlatform' object" in text or "EGL library" in text:
        return "egl", "the message"
    if lib == "OSMesa" or "OSMesa" in text:
        return "osmesa", "the message"
    if lib in ("GL", "OpenGL"):
        return "glx", "the message"  # only the GLX platform raises it for libGL itself
    for var in ("PYOPENGL_PLATFORM", "MUJOCO_GL"):
        v = (F.env(facts, var) or "").strip().lower()
        if v in ("osmesa", "egl"):
            return v, "%s=%s" % (var, v)
    return None, ""


def _install(facts: Facts, platform: str) -> str:
    _, _, apt, dnf, pacman = _PLATFORMS[platform]
    if facts.value("python.conda") is True and platform == "osmesa":
        return "conda install -y -c conda-forge mesalib"
    return system_install(facts, apt, dnf=dnf, pacman=pacman)


@hook("pyopengl-platform")
def pyopengl_platform(match, facts: Facts) -> Optional[Tailored]:
    text = getattr(match, "text", "") or ""
    if F.os_of(facts) not in (None, "linux"):
        return None  # the entry's own fix: Linux's libraries and variables
    notes = ["%s=%s" % (v, F.env(facts, v)) for v in ("PYOPENGL_PLATFORM", "MUJOCO_GL") if F.env(facts, v)]
    if "'EGLPlatform' object has no attribute 'OSMesa'" in text:
        return Tailored(summary="Something imported OpenGL under EGL before OSMesa was asked for, and a process keeps "
                                "the first platform: set PYOPENGL_PLATFORM=osmesa before anything imports OpenGL "
                                "(in the shell, or where the project sets it to egl).",
                        commands=["export %s" % _PLATFORMS["osmesa"][1], _install(facts, "osmesa")], notes=notes)
    asked, source = _asked(text, match_groups(match).get("lib") or "", facts)
    if asked == "glx":
        return Tailored(summary="PyOpenGL chose GLX (a display session) and found no libGL: install it; rendering "
                                "without a display takes PYOPENGL_PLATFORM=egl or osmesa instead.",
                        commands=[_install(facts, "glx")], notes=notes)
    gpu = bool(F.all_gpus(facts))
    platform = asked or ("egl" if gpu else "osmesa")
    name, export = _PLATFORMS[platform][:2]
    why = (("the message names %s" % name) if source == "the message" else "the environment sets %s" % source) \
        if asked else \
        ("this machine has an NVIDIA GPU: EGL renders on it" if gpu else "no GPU here: OSMesa renders on the CPU")
    return Tailored(summary="Install %s's library and name that platform before anything imports OpenGL (%s)."
                            % (name, why),
                    commands=[_install(facts, platform), "export %s" % export], notes=notes)
