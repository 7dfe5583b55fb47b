"""What pip said about the requirements of other packages than torch: a release's Requires-Python,
the versions pip offers, a pinned release it had to build from source, extras zsh took for a glob."""

import re
from typing import Optional

from ...model.facts import Facts
from ...model import derived as F
from ...model import versions as V
from ..registry import Tailored, hook, match_groups
from .common import venv_commands
from ...advice.commands import on_interpreter


# Pythons a package's Requires-Python may admit, oldest first: the newest admitted is the one to use.
_PYTHONS = ("3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14")
_REQUIRES = re.compile(r"Requires-Python\s{0,2}(?P<spec>[<>=!~][^;\n]{0,80}?)\s{0,2}(?:;|$)")


@hook("python-outside-requires-python")
def python_outside_requires_python(match, facts: Facts) -> Optional[Tailored]:
    """The Python the package's releases admit, from the specifier pip printed, and a venv with it."""
    g = match_groups(match)
    spec = g.get("spec")
    if not spec and g.get("ignored"):
        found = _REQUIRES.findall(g["ignored"])  # one per ignored release: the last is the newest
        spec = found[-1] if found else None
    spec = (spec or "").strip()
    have = g.get("have") or F.python_minor(facts)
    fits = [p for p in _PYTHONS if V.admits(spec, p + ".0")] if spec else []
    if not fits:
        return None
    target = fits[-1]
    notes = ["the package's releases require Python %s" % spec]
    if have:
        notes.append("this Python is %s" % have)
    cmds = venv_commands(facts, target, "<package>")
    return Tailored(summary="Its releases admit Python %s; %s is the newest of those: create an environment with it "
                            "(or install a newer release of the package, if one admits this Python)." % (spec, target),
                    commands=cmds, notes=notes)


def _offered(versions: str):
    """The releases pip listed after '(from versions:', parsed, oldest first (its own order)."""
    out = []
    for v in versions.split(","):
        parsed = V.parse(v.strip())
        if parsed is not None:
            out.append(parsed)
    return out


@hook("pip-version-not-offered")
def pip_version_not_offered(match, facts: Facts) -> Optional[Tailored]:
    """Where the version asked for sits in pip's list (missing inside it, above its top, or no list
    at all), and pip's own download command, which names the reason for every release it skipped."""
    g = match_groups(match)
    pkg, spec = g.get("pkg"), (g.get("spec") or "").strip()
    if not pkg:
        return None
    offered = _offered(g.get("versions") or "")
    if offered and (not spec or any(V.admits(spec, str(v)) for v in offered)):
        return None  # a listed release fits: pip failed for another reason (a conflict, a hash)
    req = "%s%s" % (pkg, spec)
    py = F.python_minor(facts)
    notes = ["this Python is %s" % py] if py else []
    if not offered:
        cause = ("pip found no release of %s with a file for this Python and platform: every release excludes them, "
                 "or the index in use has no package of that name (check the spelling and the index)." % pkg)
    else:
        newest = max(v for v in offered if not v.is_prerelease) if any(not v.is_prerelease for v in offered) \
            else max(offered)
        low = V.floor(spec) if spec else None
        if low is not None and low > newest:
            cause = ("The newest %s pip may install here is %s; %s asks for a later release, and pip skipped every "
                     "later one for this Python or platform (or the index in use does not carry them)."
                     % (pkg, newest, req))
        else:
            where = "before and after the one asked for" if low is None or low >= min(offered) else \
                "newer than the one asked for"
            cause = ("pip lists releases of %s %s (%s), but not it: that release has no file for this Python or "
                     "platform (its Requires-Python excludes this Python, or its wheels are built for others and it "
                     "has no source archive), or it was yanked or never published." % (pkg, where, req))
    pip_why = "pip download \"%s\" --no-deps -d pip-why" % req
    return Tailored(cause=cause,
                    summary="Run pip's download of it: it prints each skipped release's Requires-Python ('Ignored the "
                            "following versions...'), and with -vv which wheels' tags do not fit. Then use a Python "
                            "that release admits, or a release of %s that has files for this Python." % pkg,
                    commands=[on_interpreter(pip_why, facts), on_interpreter(pip_why + " -vv", facts)], notes=notes)


@hook("zsh-glob-pip-extras")
def zsh_glob_pip_extras(match, facts: Facts) -> Optional[Tailored]:
    """The requirement zsh refused, quoted, run by the interpreter being diagnosed."""
    req = (match_groups(match).get("req") or "").strip()
    if not req:
        return None
    # a local project (".[dev]"): the command line above it may have said -e, which zsh's line drops
    notes = ["keep -e if you asked for an editable install: pip install -e \"%s\"" % req] \
        if req.startswith((".", "/", "~")) else []
    return Tailored(summary="Quote it: zsh passes a quoted word to pip unchanged.",
                    commands=[on_interpreter("pip install \"%s\"" % req, facts)], notes=notes)


@hook("source-build-no-wheel")
def source_build_no_wheel(match, facts: Facts) -> Optional[Tailored]:
    """Name the release pip took as source and ask pip, wheels only, whether one fits here."""
    g = match_groups(match)
    pkg, ver = g.get("pkg"), g.get("ver")
    if not pkg:
        pkg, ver = "scipy", None  # scipy's own message names no release
    py = F.python_minor(facts)
    spec = "%s==%s" % (pkg, ver) if ver else pkg
    notes = ["this Python is %s" % py] if py else []
    return Tailored(summary="pip found no wheel of %s for the Python and platform it ran on, so it compiled the "
                            "source: use a Python that release has wheels for, or relax the pin so pip can take a newer "
                            "%s; `--only-binary` says at once whether a wheel fits." % (spec, pkg),
                    commands=[on_interpreter("pip install --only-binary=:all: \"%s\"" % spec, facts),
                              on_interpreter("pip index versions %s" % pkg, facts)], notes=notes)
